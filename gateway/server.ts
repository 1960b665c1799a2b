// Owns the public edge: GraphQL over the static supergraph on /graphql (./graphql-http.ts over ./federation.ts),
// subscriptions on the same path, GraphiQL (outside production), the REST webhook edge forwarded to connectors, the
// inbox and export REST shims, health endpoints, and the web console (console/, at / and its client routes).
import http from 'node:http'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { attachWebSocketServer } from '../core/websocket'
import { useServer } from 'graphql-ws/use/ws'
import {
  getOperationAST, NoSchemaIntrospectionCustomRule, specifiedRules, validate, GraphQLError,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError,
} from 'graphql'
import { CloseCode } from 'graphql-ws'
import pg from 'pg'
import type { Db } from '../core/db'
import { databaseAnswers } from '../core/sql/plumbing'
import { env, ROOT_DIR } from '../core/env'
import { isTokenExpired, tokenExpired } from '../core/errors'
import { formattedServiceUnavailable, isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../core/db-outage'
import { log } from '../core/log'
import { IdentityResolver, type CallerIdentity } from './identity'
import { SubscriptionBridge } from './subscription-bridge'
import { readSupergraph, SUBGRAPH_NAMES, type SubgraphName } from './supergraph'
import { forwardToConnectors } from './rest-edge'
import { SubgraphDataSource } from './subgraph-http'
import { Federation } from './federation'
import { createEdgePipeline } from './graphql-http'
import { inboxRestRoutes, type ExecuteAs } from './inbox-routes'
import { exportRestRoutes } from './export-routes'
import { installGatewayObservability, wsMetrics } from './observability'
import { withRequestId } from '../core/request-context'
import { httpMetrics } from '../core/metrics'
import { checkInputSize, edgeValidationRules, formatEdgeError, LIMITS, parseLimited, EDGE_CODES, type EdgeMode } from './edge-limits'
import { drainableServer } from '../core/http-drain'
import { consoleRouter } from './console-routes'
import { devSignInRoutes } from './dev-sign-in'
import { allowedOrigins, CorsPolicy } from './cors'
import { authorizationOfConnectionParams, CONNECTION_INIT_SHAPE_REASON } from './connection-init'
import { inServerSpan } from '../core/tracing'
import { trustedDocumentOptions } from './trusted-documents'
import { HostPolicy } from './host-check'

export { LIMITS } from './edge-limits'

/** Close code of a socket whose bearer token expired (graphql-ws Unauthorized); the client reconnects with a fresh token. */
export const TOKEN_EXPIRED_CLOSE = CloseCode.Unauthorized
const TOKEN_EXPIRED_REASON = 'The bearer token has expired: reconnect with a fresh one.'

/**
 * How a socket whose connection_init is refused closes: each reason says what is wrong and what to do (a close
 * reason holds at most 123 bytes). An expired token is 4401 like a token expiring on an open socket (get a fresh
 * one); a missing, malformed or unknown token or an inactive account 4403 (a new attempt with it fails again); an
 * outage 1013 Try Again Later; anything else 4500, logged.
 */
function refusalClose(e: unknown): { code: number; reason: string } {
  if (isDatabaseUnavailable(e)) return { code: 1013, reason: 'The service is temporarily unavailable: reconnect shortly.' }
  if (isTokenExpired(e)) return { code: TOKEN_EXPIRED_CLOSE, reason: TOKEN_EXPIRED_REASON }
  if (e instanceof GraphQLError && e.extensions?.code === 'UNAUTHENTICATED') {
    const reason = e.message === 'The bearer token is not valid.'
      ? 'The bearer token is not valid: send a valid one as authorization in connection_init.'
      : e.message
    return { code: CloseCode.Forbidden, reason: Buffer.byteLength(reason) <= 123 ? reason : 'Forbidden' }
  }
  log.error('gateway.ws_connect_failed', { error: e })
  return { code: CloseCode.InternalServerError, reason: 'Internal server error' }
}

export interface GatewayContext {
  identity: CallerIdentity
  /** set for graphql-ws connections: the downstream socket the upstream sockets belong to */
  socket?: object
}

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

/** Paths browsers never call: signed vendor webhooks (server to server) and the scrape endpoint (METRICS_ALLOW). */
const NO_CORS = /^\/(hooks|api\/v1\/hooks|metrics)(\/|\?|$)/

export const SUBSCRIPTION_LIMITS = { perSocket: 100, perUser: 300 } as const

/** Where GraphQL is served: HTTP and graphql-ws on the same path. */
export const GRAPHQL_PATH = '/graphql'


export async function createGateway(opts: GatewayOptions) {
  const identityPool = opts.databaseUrl ? new pg.Pool({ connectionString: opts.databaseUrl, max: 4, connectionTimeoutMillis: 5_000 }) : undefined
  identityPool?.on('error', (error) => log.warn('gateway.identity_pool_error', { error }))
  const identities = new IdentityResolver(opts.db, identityPool, opts.databaseUrl)
  const production = Boolean(opts.production)
  const mode: EdgeMode = { production, stackTraces: !production && (opts.stackTraces ?? env().GRAPHQL_STACK_TRACES) }
  const limitRules = edgeValidationRules(mode)
  const formatError = (formatted: GraphQLFormattedError, error: unknown) => formatEdgeError(formatted, error, mode)

  const supergraphSdl = opts.supergraphSdl ?? (await readSupergraph())
  const dataSources = new Map(SUBGRAPH_NAMES.map((name) => [name as string, new SubgraphDataSource(opts.subgraphUrls[name], name)]))
  const federation = new Federation(supergraphSdl, dataSources, opts.singleFetchPassThrough ?? true)
  const pipeline = createEdgePipeline({ federation, mode, limitRules, websocketPath: GRAPHQL_PATH, ...trustedDocumentOptions(opts.db, opts.trustedDocumentsOnly) })
  const bridge = new SubscriptionBridge<GatewayContext>({
    federation, dataSources,
    wsUrl: (name) => opts.subgraphUrls[name as SubgraphName].replace(/^http/, 'ws'),
    upstreamConnectionParams: async (ctx) => ({ internalToken: await ctx.identity.internalToken() }),
    connectionKey: (ctx) => ctx.socket ?? ctx,
    userKey: (ctx) => ctx.identity.userId,
    limits: opts.subscriptionLimits ?? SUBSCRIPTION_LIMITS,
  })

  const e = env()
  const cors = new CorsPolicy(opts.corsOrigins ? new Set(opts.corsOrigins)
    : allowedOrigins({ configured: e.CORS_ORIGINS, production, publicUrl: e.PUBLIC_URL, gatewayPort: e.GATEWAY_PORT }))
  const hosts = HostPolicy.forMode({ production, publicUrl: opts.publicUrl ?? e.PUBLIC_URL, corsOrigins: opts.corsOrigins ?? e.CORS_ORIGINS })

  const app = express()
  app.disable('x-powered-by')
  installGatewayObservability(app, bridge) // subscription gauges, /metrics (METRICS_ALLOW only)
  const measure = httpMetrics('gateway')
  const timeoutMs = opts.requestTimeoutMs ?? LIMITS.requestTimeoutMs
  const httpServer = http.createServer((req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff')
    const graphql = req.url === '/graphql' || req.url?.startsWith('/graphql?')
    measure(req, res, () => {
      // outside production, a name that is not loopback or configured is a rebound DNS name: nothing is served to it
      if (hosts.refuse(req, res)) return
      // preflights and refused origins are answered here, before the GraphQL pipeline (which answers OPTIONS 405)
      if (!NO_CORS.test(req.url ?? '/') && cors.handle(req, res)) return
      if (!graphql) return app(req, res)
      drain.track(res)
      const requestId = randomUUID()
      res.setHeader('x-request-id', requestId)
      res.setTimeout(timeoutMs, () => {
        if (res.headersSent) return
        log.warn('gateway.request_timeout', { requestId, timeoutMs })
        const body = JSON.stringify({ errors: [{ message: `The request took longer than ${timeoutMs / 1000} s.`, extensions: { code: 'TIMEOUT' } }] })
        res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end(body)
      })
      // logs and subgraph calls of this request carry its id
      withRequestId(requestId, () => inServerSpan(req, res, GRAPHQL_PATH, () => pipeline.handle(req, res, async (r) => ({ identity: await identities.resolve(r.headers.authorization) }))))
    })
  })
  const drain = drainableServer(httpServer)

  // The webhook edge comes first: raw bytes, no JSON parsing, no bearer (authenticity is the vendor signature).
  const connectorsBase = opts.connectorsBaseUrl ?? new URL(opts.subgraphUrls.connectors).origin
  app.use(['/hooks', '/api/v1/hooks'], (req, res) => forwardToConnectors(req, res, connectorsBase))

  // The inbox's REST shim: GET /me/brief and POST /me/inbox/{item_id}/resolve (bearer, through the GraphQL pipeline,
  // or a signed link forwarded to the twins subgraph).
  const executeAs: ExecuteAs = async (authorization, query, variables) =>
    pipeline.execute({ query, variables }, { identity: await identities.resolve(authorization) })
  app.use(inboxRestRoutes({ twinsBase: new URL(opts.subgraphUrls.twins).origin, execute: executeAs }))
  // The twins export as a streamed NDJSON download (GET /orgs/current/twins/export, bearer, org.audit.read).
  app.use(exportRestRoutes({ execute: executeAs }))

  app.get('/healthz', (_req, res) => { res.json({ ok: true }) })
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {}
    checks.database = await databaseAnswers(opts.db)
    for (const name of SUBGRAPH_NAMES) {
      checks[name] = await fetch(new URL('/healthz', opts.subgraphUrls[name]), { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)
    }
    const ok = Object.values(checks).every(Boolean)
    res.status(ok ? 200 : 503).json({ ok, checks })
  })

  // graphql-ws runs the same edge as HTTP: parse limits before any work, the same validation rules, queries and
  // mutations through the same pipeline, and every error formatted once by formatEdgeError (never a 4500 close).
  // A browser sends its page's Origin on the upgrade (and cookies, though none are used): a socket from a refused
  // origin is answered 403 before it opens (ws applies verifyClient in handleUpgrade). Clients that are not browsers
  // send no Origin and are let through.
  const wsServer = attachWebSocketServer(httpServer, {
    path: GRAPHQL_PATH, maxPayload: 1024 * 1024,
    verifyClient: ({ req }, done) => !hosts.allows(req) ? done(false, 403, 'Host not allowed')
      : cors.allowsUpgrade(req) ? done(true) : done(false, 403, 'Origin not allowed'),
  })
  const wsRules = [...specifiedRules, ...(production ? [NoSchemaIntrospectionCustomRule] : []), ...limitRules]
  const sources = new WeakMap<DocumentNode, string>()
  const formatAll = (errors: readonly unknown[]) =>
    errors.map((e) => e instanceof GraphQLError ? formatError(e.toJSON(), e) : e as GraphQLFormattedError)
  const asGraphQLError = (e: unknown) => e instanceof GraphQLError ? e
    : new GraphQLError('Unexpected error.', { originalError: e as Error, extensions: { code: 'INTERNAL_SERVER_ERROR' } })
  const wsCleanup = useServer<Record<string, unknown>, { ctx?: GatewayContext; expiry?: NodeJS.Timeout }>({
    schema: () => bridge.schema,
    // connection_init carries the token (browsers cannot set headers on a WebSocket); refuse the socket without one.
    onConnect: async (ctx) => {
      const authorization = authorizationOfConnectionParams(ctx.connectionParams)
      if (authorization === undefined) {
        ctx.extra.socket.close(CloseCode.Forbidden, CONNECTION_INIT_SHAPE_REASON)
        return false
      }
      try {
        const identity = await identities.resolve(authorization)
        ctx.extra.ctx = { identity, socket: ctx.extra.socket }
        // A socket never outlives its token: closed at expiry, the client reconnects with a fresh one.
        const ms = Math.min(identity.expiresAt - Date.now(), 2 ** 31 - 1)
        ctx.extra.expiry = setTimeout(() => ctx.extra.socket.close(TOKEN_EXPIRED_CLOSE, TOKEN_EXPIRED_REASON), Math.max(ms, 0))
        return true
      } catch (e) {
        // closed here with what went wrong; graphql-ws's own close (4403 Forbidden) that follows `false` is then a no-op
        const { code, reason } = refusalClose(e)
        ctx.extra.socket.close(code, reason)
        return false
      }
    },
    onSubscribe: async (ctx, _id, payload) => {
      const context = ctx.extra.ctx!
      if (Date.now() >= context.identity.expiresAt) {
        ctx.extra.socket.close(TOKEN_EXPIRED_CLOSE, TOKEN_EXPIRED_REASON)
        return [tokenExpired()]
      }
      let document: DocumentNode
      try {
        document = parseLimited(payload.query, mode)
        checkInputSize(document, payload.variables, mode)
      } catch (e) {
        return [asGraphQLError(e)]
      }
      sources.set(document, payload.query)
      const unregistered = await pipeline.registrationRefusal(document, context)
      if (unregistered) return [unregistered]
      if (getOperationAST(document, payload.operationName)?.operation === 'subscription') {
        wsMetrics.started()
        const errors = validate(bridge.schema, document, wsRules)
        if (errors.length) {
          return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, code: e.extensions.code ?? EDGE_CODES.validation } }))
        }
      }
      return { schema: bridge.schema, document, variableValues: payload.variables, operationName: payload.operationName, contextValue: context }
    },
    subscribe: (args: ExecutionArgs) => bridge.subscribe(args),
    // Queries and mutations sent over the socket run through the HTTP pipeline (validation included).
    execute: async (args: ExecutionArgs) => pipeline.execute(
      { query: sources.get(args.document)!, variables: args.variableValues as Record<string, unknown>, operationName: args.operationName ?? undefined },
      args.contextValue as GatewayContext) as never,
    // The pipeline's results carry formatted errors already; the bridge's carry GraphQLErrors: format those alike.
    onNext: (_ctx, _id, _payload, _args, result) => {
      const r = result as ExecutionResult
      wsMetrics.sent(r)
      return r.errors ? { ...r, errors: formatAll(r.errors) } as never : undefined
    },
    onError: (_ctx, _id, _payload, errors) => formatAll(errors) as never,
    onClose: (ctx) => {
      clearTimeout(ctx.extra.expiry)
      if (ctx.extra.ctx) void bridge.release(ctx.extra.ctx)
    },
  }, wsServer)

  // Built assets are a cache shared by every data folder outside production (tests use a fresh DATA_DIR per file).
  const assetsDir = opts.production ? opts.dataDir : path.join(ROOT_DIR, '.data')
  if (!opts.production) {
    const { graphiqlRouter } = await import('./graphiql/router')
    // With an identity provider, GraphiQL signs in through the console's sign-in and comes back (one redirect URI).
    app.use(await graphiqlRouter({ dataDir: assetsDir, endpoint: '/graphql', ...(e.OIDC_ISSUER && e.OIDC_CLIENT_ID ? { signInUrl: '/sign-in?next=/graphiql' } : {}) }))
  }
  // The console's development sign-in exists only where this service mints tokens (never in production).
  if (!opts.production && !env().AUTH_JWKS_URL) app.use(devSignInRoutes(opts.db))
  // The web console last: its index.html answers any other GET asking for HTML (its client routes).
  app.use(await consoleRouter({
    dataDir: assetsDir, gatewayUrl: opts.consoleGatewayUrl ?? env().CONSOLE_GATEWAY_URL,
    signIn: e.OIDC_ISSUER && e.OIDC_CLIENT_ID
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, scopes: e.OIDC_SCOPES, ...(e.OIDC_AUDIENCE ? { audience: e.OIDC_AUDIENCE } : {}) }
      : undefined,
    signatureMaxAgeSeconds: e.SIGNATURE_AUTH_MAX_AGE_SECONDS,
  }))
  // Errors of the REST routes (a body too large or not JSON): a GraphQL-shaped answer, no stack trace.
  app.use((err: any, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!err) return next()
    // The database is gone (stopped, restarting): the outage answer /graphql gives, not a 500 (the console says the
    // service is unavailable, a client retries after Retry-After).
    if (isDatabaseUnavailable(err)) {
      return void res.status(503).set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS)).json({ errors: [formattedServiceUnavailable()] })
    }
    const status = err.status ?? err.statusCode ?? 500
    if (status >= 500) log.error('gateway.http_error', { error: err })
    res.status(status).json({ errors: [{ message: status === 413 ? 'The request body is larger than 1 MB.' : status === 400 ? 'The request body is not valid JSON.' : 'Unexpected error.', extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR' } }] })
  })

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
    async close() {
      await wsCleanup.dispose()
      await drain.close() // requests in flight finish (up to SHUTDOWN_GRACE_SECONDS), then every socket goes
      await identities.close()
      await identityPool?.end()
    },
  }
}
export type Gateway = Awaited<ReturnType<typeof createGateway>>
