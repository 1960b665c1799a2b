// Owns the public edge's assembly: GraphQL over the static supergraph on /graphql (./graphql-http.ts over
// ./federation.ts), subscriptions on the same path, the REST routes, the browser pages, and the order of shutdown. Each
// piece is its own module, composed here: where a request goes (./routing.ts), the Host and Origin checks
// (./request-guard.ts), graphql-ws (./sockets.ts), REST and health (./rest-routes.ts), GraphiQL and the web console
// with their static assets (./browser-pages.ts), and shutdown (./shutdown.ts).
import http from 'node:http'
import express from 'express'
import pg from 'pg'
import type { Db } from '../core/database'
import { env } from '../core/config'
import { log } from '../core/config'
import { drainableServer } from '../core/http'
import { IdentityResolver } from './identity'
import { signGatewayToken } from '../core/identity'
import { SubscriptionBridge } from './subscription-bridge'
import { readSupergraph, SUBGRAPH_NAMES, type SubgraphName } from './supergraph'
import { SubgraphDataSource } from './subgraph-http'
import { Federation } from './federation'
import { createEdgePipeline } from './graphql-http'
import { installGatewayObservability } from './observability'
import { edgeValidationRules, LIMITS, type EdgeMode } from './edge-limits'
import { trustedDocumentOptions } from './trusted-documents'
import { RequestGuard } from './request-guard'
import { edgeRequestListener, GRAPHQL_PATH } from './routing'
import { attachGraphqlSockets, type GatewayContext } from './sockets'
import { installRestRoutes, restErrorAnswer } from './rest-routes'
import { installBrowserPages } from './browser-pages'
import { shutDownGateway } from './shutdown'

export { LIMITS } from './edge-limits'
export { GRAPHQL_PATH } from './routing'
export { TOKEN_EXPIRED_CLOSE, type GatewayContext } from './sockets'

export interface GatewayOptions {
  db: Db
  /** When given: session stamps are cached while a LISTEN connection there is up, and read over a small pg pool. */
  databaseUrl?: string
  subgraphUrls: Record<SubgraphName, string>
  /** base URL of the connectors service for the webhook edge (default: derived from its GraphQL URL) */
  connectorsBaseUrl?: string
  production?: boolean
  dataDir: string
  supergraphSdl?: string
  requestTimeoutMs?: number
  /** Stack traces in error responses (never in production); default GRAPHQL_STACK_TRACES. */
  stackTraces?: boolean
  /** Answer a one-fetch query with the subgraph's bytes when they are the answer (default true; tests compare both). */
  singleFetchPassThrough?: boolean
  /** The gateway the web console talks to when not this one (default CONSOLE_GATEWAY_URL). */
  consoleGatewayUrl?: string
  /** Subscription caps (defaults in SUBSCRIPTION_LIMITS). */
  subscriptionLimits?: { perSocket: number; perUser: number }
  /** Browser origins allowed besides same-origin (default: CORS_ORIGINS, or the mode's default; ./cors.ts). */
  corsOrigins?: string[]
  /** Run only registered operations (default TRUSTED_DOCUMENTS_ONLY; ./trusted-documents.ts). */
  trustedDocumentsOnly?: boolean
  /** The public origin (default PUBLIC_URL): outside production its host is answered besides loopback and the CORS origins' hosts (./host-check.ts). */
  publicUrl?: string
}

export const SUBSCRIPTION_LIMITS = { perSocket: 100, perUser: 300 } as const

export async function createGateway(opts: GatewayOptions) {
  const identityPool = opts.databaseUrl ? new pg.Pool({ connectionString: opts.databaseUrl, max: 4, connectionTimeoutMillis: 5_000 }) : undefined
  identityPool?.on('error', (error) => log.warn('gateway.identity_pool_error', { error }))
  const identities = new IdentityResolver(opts.db, identityPool, opts.databaseUrl)
  const production = Boolean(opts.production)
  const mode: EdgeMode = { production, stackTraces: !production && (opts.stackTraces ?? env().GRAPHQL_STACK_TRACES) }
  const limitRules = edgeValidationRules(mode)

  const supergraphSdl = opts.supergraphSdl ?? (await readSupergraph())
  const dataSources = new Map(SUBGRAPH_NAMES.map((name) => [name as string, new SubgraphDataSource(opts.subgraphUrls[name], name)]))
  const federation = new Federation(supergraphSdl, dataSources, opts.singleFetchPassThrough ?? true)
  const pipeline = createEdgePipeline({ federation, mode, limitRules, websocketPath: GRAPHQL_PATH, ...trustedDocumentOptions(opts.db, opts.trustedDocumentsOnly) })
  const bridge = new SubscriptionBridge<GatewayContext>({
    federation, dataSources,
    wsUrl: (name) => opts.subgraphUrls[name as SubgraphName].replace(/^http/, 'ws'),
    // shared upstream sockets prove only the gateway; each subscription carries its person's internal token
    upstreamConnectionParams: async () => ({ internalToken: await signGatewayToken() }),
    subscriptionExtensions: async (ctx) => ({ internalToken: await ctx.identity.internalToken(), requestId: ctx.identity.requestId }),
    connectionKey: (ctx) => ctx.socket ?? ctx,
    userKey: (ctx) => ctx.identity.userId,
    limits: opts.subscriptionLimits ?? SUBSCRIPTION_LIMITS,
  })
  const guard = RequestGuard.forMode({ production, corsOrigins: opts.corsOrigins, publicUrl: opts.publicUrl })

  const app = express()
  app.disable('x-powered-by')
  installGatewayObservability(app, bridge) // subscription gauges, /metrics (METRICS_ALLOW only)
  const httpServer = http.createServer(edgeRequestListener({
    guard, rest: app, timeoutMs: opts.requestTimeoutMs ?? LIMITS.requestTimeoutMs, track: (res) => drain.track(res),
    graphql: (req, res) => pipeline.handle(req, res, async (r) => ({ identity: await identities.resolve(r.headers.authorization) })),
  }))
  const drain = drainableServer(httpServer)
  const sockets = attachGraphqlSockets(httpServer, { guard, identities, bridge, pipeline, mode, limitRules })

  installRestRoutes(app, { db: opts.db, subgraphUrls: opts.subgraphUrls, connectorsBaseUrl: opts.connectorsBaseUrl, pipeline, identities })
  await installBrowserPages(app, { db: opts.db, production, dataDir: opts.dataDir, consoleGatewayUrl: opts.consoleGatewayUrl })
  app.use(restErrorAnswer)

  return {
    app, httpServer, bridge, pipeline, federation, identities, url: '',
    async listen(port: number, host: string) {
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject)
        httpServer.listen(port, host, () => resolve())
      })
      const { port: actual } = httpServer.address() as { port: number }
      const url = `http://${host}:${actual}`
      this.url = url
      log.info('gateway.listening', { url })
      return url
    },
    close: () => shutDownGateway({ sockets, bridge, drain, identities, identityPool }),
  }
}
export type Gateway = Awaited<ReturnType<typeof createGateway>>
