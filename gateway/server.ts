// Owns the public edge: the Apollo gateway over the static supergraph, subscriptions on the same /graphql path,
// GraphiQL (outside production), the REST webhook edge forwarded to connectors, and health endpoints.
import http from 'node:http'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { WebSocketServer } from 'ws'
import { useServer } from 'graphql-ws/use/ws'
import { ApolloServer } from '@apollo/server'
import { expressMiddleware } from '@as-integrations/express5'
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer'
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled'
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSource } from '@apollo/gateway'
import { ApolloArmor } from '@escape.tech/graphql-armor'
import { print, specifiedRules, validate, type ExecutionArgs, GraphQLError } from 'graphql'
import type { Db } from '../core/db'
import { ROOT_DIR } from '../core/env'
import { INTERNAL_HEADER } from '../core/auth'
import { log } from '../core/log'
import { IdentityResolver, type CallerIdentity } from './identity'
import { SubscriptionBridge } from './subscription-bridge'
import { readSupergraph, SUBGRAPH_NAMES, type SubgraphName } from './supergraph'
import { maskUnexpected } from '../subgraphs/shared/server'
import { forwardToConnectors } from './rest-edge'

export interface GatewayContext {
  identity: CallerIdentity
  /** set for graphql-ws connections: the downstream socket the upstream sockets belong to */
  socket?: object
}

export interface GatewayOptions {
  db: Db
  subgraphUrls: Record<SubgraphName, string>
  /** base URL of the connectors service for the webhook edge (default: derived from its GraphQL URL) */
  connectorsBaseUrl?: string
  production?: boolean
  dataDir: string
  supergraphSdl?: string
  requestTimeoutMs?: number
}

export const LIMITS = {
  bodyBytes: '1mb',
  requestTimeoutMs: 30_000,
  // No type in the schema nests itself, so depth matters for introspection: the standard introspection
  // query (GraphiQL's) counts 21 with fragments flattened.
  maxDepth: 24,
  maxAliases: 20,
  maxCost: 10_000,
  maxTokens: 3_000,
  maxDirectives: 30,
} as const

/** Forwards the caller's identity to subgraphs as a short-lived internal token, never the caller's own token. */
class InternalTokenDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override async willSendRequest({ request, context: raw }: { request: any; context: Record<string, any> }) {
    const context = raw as GatewayContext
    if (!context?.identity) throw new GraphQLError('No caller identity', { extensions: { code: 'UNAUTHENTICATED' } })
    request.http?.headers.set(INTERNAL_HEADER, await context.identity.internalToken())
    request.http?.headers.set('x-request-id', context.identity.requestId)
  }
}

export async function createGateway(opts: GatewayOptions) {
  const identities = new IdentityResolver(opts.db)
  const armor = new ApolloArmor({
    maxDepth: { n: LIMITS.maxDepth, ignoreIntrospection: false },
    maxAliases: { n: LIMITS.maxAliases },
    costLimit: { maxCost: LIMITS.maxCost },
    maxTokens: { n: LIMITS.maxTokens },
    maxDirectives: { n: LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: Boolean(opts.production) },
  })
  const protection = armor.protect()

  const dataSources = new Map<string, GraphQLDataSource>()
  const gateway = new ApolloGateway({
    supergraphSdl: opts.supergraphSdl ?? (await readSupergraph()),
    buildService: ({ name }) => {
      const ds = new InternalTokenDataSource({ url: opts.subgraphUrls[name as SubgraphName] })
      dataSources.set(name, ds)
      return ds
    },
  })
  const bridge = new SubscriptionBridge<GatewayContext>({
    gateway, dataSources,
    wsUrl: (name) => opts.subgraphUrls[name as SubgraphName].replace(/^http/, 'ws'),
    upstreamConnectionParams: async (ctx) => ({ internalToken: await ctx.identity.internalToken() }),
    connectionKey: (ctx) => ctx.socket ?? ctx,
  })

  const app = express()
  app.disable('x-powered-by')
  const httpServer = http.createServer(app)

  // The webhook edge comes first: raw bytes, no JSON parsing, no bearer (authenticity is the vendor signature).
  const connectorsBase = opts.connectorsBaseUrl ?? new URL(opts.subgraphUrls.connectors).origin
  app.use(['/hooks', '/api/v1/hooks'], (req, res) => forwardToConnectors(req, res, connectorsBase))

  app.get('/healthz', (_req, res) => { res.json({ ok: true }) })
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {}
    checks.database = await opts.db.$queryRaw`SELECT 1`.then(() => true, () => false)
    for (const name of SUBGRAPH_NAMES) {
      checks[name] = await fetch(new URL('/healthz', opts.subgraphUrls[name]), { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)
    }
    const ok = Object.values(checks).every(Boolean)
    res.status(ok ? 200 : 503).json({ ok, checks })
  })

  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql', maxPayload: 1024 * 1024 })
  const rules = [...specifiedRules, ...(protection.validationRules ?? [])]
  const wsCleanup = useServer<{ authorization?: string }, { ctx?: GatewayContext }>({
    schema: () => bridge.schema,
    validate: (schema, document) => validate(schema, document, rules),
    // connection_init carries the token (browsers cannot set headers on a WebSocket); refuse the socket without one.
    onConnect: async (ctx) => {
      try {
        const identity = await identities.resolve(ctx.connectionParams?.authorization)
        ctx.extra.ctx = { identity, socket: ctx.extra.socket }
        return true
      } catch {
        return false // closes with 4403 Forbidden
      }
    },
    context: (ctx) => ctx.extra.ctx!,
    subscribe: (args: ExecutionArgs) => bridge.subscribe(args),
    // Queries and mutations sent over the socket run through the normal gateway pipeline.
    execute: async (args: ExecutionArgs) => {
      const res = await apollo.executeOperation(
        { query: print(args.document), variables: args.variableValues as Record<string, unknown>, operationName: args.operationName ?? undefined },
        { contextValue: args.contextValue as GatewayContext })
      return res.body.kind === 'single' ? (res.body.singleResult as never) : { errors: [new GraphQLError('Incremental delivery is not supported over WebSocket')] }
    },
    onClose: (ctx) => { if (ctx.extra.ctx) void bridge.release(ctx.extra.ctx) },
  }, wsServer)

  const apollo = new ApolloServer<GatewayContext>({
    gateway,
    introspection: !opts.production,
    formatError: maskUnexpected,
    validationRules: protection.validationRules,
    allowBatchedHttpRequests: false,
    plugins: [
      ...(protection.plugins ?? []),
      ApolloServerPluginLandingPageDisabled(), // the default landing page loads from a CDN; GraphiQL is served locally
      ApolloServerPluginDrainHttpServer({ httpServer }),
      { async serverWillStart() { return { async drainServer() { await wsCleanup.dispose() } } } },
    ],
  })
  await apollo.start()

  if (!opts.production) {
    const { graphiqlRouter } = await import('./graphiql/router')
    // Built assets are a cache shared by every data folder (tests use a fresh DATA_DIR per file).
    app.use(await graphiqlRouter({ dataDir: path.join(ROOT_DIR, '.data'), endpoint: '/graphql' }))
  }

  const timeoutMs = opts.requestTimeoutMs ?? LIMITS.requestTimeoutMs
  app.use('/graphql', (req, res, next) => {
    const requestId = randomUUID()
    res.setHeader('x-request-id', requestId)
    res.setTimeout(timeoutMs, () => {
      if (res.headersSent) return
      log.warn('gateway.request_timeout', { requestId, timeoutMs })
      res.status(503).json({ errors: [{ message: `The request took longer than ${timeoutMs / 1000} s.`, extensions: { code: 'TIMEOUT' } }] })
    })
    next()
  }, express.json({ limit: LIMITS.bodyBytes }), expressMiddleware(apollo, {
    context: async ({ req }) => ({ identity: await identities.resolve(req.headers.authorization) }),
  }))
  // Body-size and JSON errors from express.json: a GraphQL-shaped answer, no stack trace.
  app.use((err: any, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!err) return next()
    const status = err.status ?? err.statusCode ?? 500
    if (status >= 500) log.error('gateway.http_error', { error: err })
    res.status(status).json({ errors: [{ message: status === 413 ? 'The request body is larger than 1 MB.' : status === 400 ? 'The request body is not valid JSON.' : 'Unexpected error.', extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR' } }] })
  })

  return {
    app, httpServer, bridge, url: '',
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
    async close() {
      await apollo.stop()
      httpServer.closeAllConnections?.()
    },
  }
}
export type Gateway = Awaited<ReturnType<typeof createGateway>>
