// Owns a subgraph's HTTP + graphql-ws server: refuses anything without the gateway's internal token (over graphql-ws:
// the gateway's own token on the socket, and a person's internal token on every subscription). /graphql over HTTP is
// served by graphql-js directly (./graphql-http.ts); every other route (health, the webhook and inbox-link routes the
// subgraphs mount on `app`) goes to Express.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { attachWebSocketServer } from '../../core/http'
import { useServer } from 'graphql-ws/use/ws'
import { GraphQLError, createSourceEventStream, execute, parse, validate, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql'
import { INTERNAL_HEADER, verifyGatewayToken } from '../../core/identity'
import type { Db } from '../../core/database'
import { databaseAnswers } from '../../core/sql'
import { SessionCache } from '../../core/identity'
import { log } from '../../core/config'
import { isDatabaseUnavailable, serviceUnavailable } from '../../core/database'
import { requestIdFrom, withRequestId } from '../../core/config'
import { enableDefaultMetrics, httpMetrics, metricsHandler } from '../../core/config'
import { env } from '../../core/config'
import { contextForEvent, createContext, type GraphQLContext } from './context'
import { createGraphQLHandler } from '../../core/http'
import type { DocumentCache } from '../../core/http'
import { maskUnexpected } from '../../core/http'
import { SUBGRAPH_KEEP_ALIVE_MS } from '../../core/http'
import { drainableServer } from '../../core/http'
import { inServerSpan } from '../../core/config'

export { maskUnexpected } from '../../core/http'

export interface SubgraphServer {
  name: string
  app: express.Express
  httpServer: http.Server
  url: string
  /** Verified internal tokens and sessions of this process (reloaded when the person's session version moves). */
  sessions: SessionCache
  /** Parsed and validated documents of this process (hits and misses are read by tests). */
  documents: DocumentCache
  listen(port: number, host: string): Promise<string>
  close(): Promise<void>
}


const formatWsError = (e: GraphQLError): GraphQLFormattedError => maskUnexpected(e.toJSON(), e)

async function contextFor(db: Db, sessions: SessionCache, token: string | undefined | null, requestId?: string): Promise<GraphQLContext> {
  const identity = await sessions.identity(token)
  const session = await sessions.session(identity.userId, identity.sessionVersion)
  return createContext(db, session, requestId || identity.requestId || randomUUID(),
    { authTime: identity.authTime === null ? null : new Date(identity.authTime * 1000) })
}

const REQUEST_ID = /^[\w-]{1,64}$/

/**
 * Why one subscription on the gateway's socket was refused: UNAUTHENTICATED for a missing, invalid or expired token or
 * an inactive person (the error as contextFor threw it), SERVICE_UNAVAILABLE during a database outage, anything else
 * an unexpected error (masked and logged by onError).
 */
function subscriptionRefusal(e: unknown): GraphQLError {
  if (isDatabaseUnavailable(e)) return serviceUnavailable()
  if (e instanceof GraphQLError) return e
  return new GraphQLError('Unexpected error.', { originalError: e instanceof Error ? e : new Error(String(e)) })
}

/**
 * graphql-js `subscribe`, except that every event's selection set runs on a context of its own (fresh loaders, same
 * caller): the subscription's context lives as long as the subscription, its loaders' caches must not.
 */
export async function subscribeFreshPerEvent(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args)
  if (!(Symbol.asyncIterator in stream)) return stream as ExecutionResult
  const events = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]() as AsyncIterator<unknown>
  const base = args.contextValue as GraphQLContext
  const run = async (r: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> => r.done ? r
    : { done: false, value: await execute({ ...args, rootValue: r.value, contextValue: contextForEvent(base) }) }
  // a plain iterator, not an async generator: return() must reach the source at once, not after the pending next()
  const it: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]() { return it },
    next: async () => run(await events.next()),
    return: async () => { await events.return?.(); return { done: true, value: undefined } },
    throw: async (e?: unknown) => { if (events.throw) return run(await events.throw(e)); throw e },
  }
  return it
}

export function createSubgraphServer(opts: { name: string; schema: GraphQLSchema; db: Db; readiness?: () => Record<string, boolean> }): SubgraphServer {
  const { name, schema, db } = opts
  enableDefaultMetrics(name)
  const measure = httpMetrics(name)
  const sessions = new SessionCache(db)
  const app = express()
  app.disable('x-powered-by')
  const graphql = createGraphQLHandler<GraphQLContext>({
    schema,
    context: (req) => {
      const rid = req.headers['x-request-id']
      const token = req.headers[INTERNAL_HEADER]
      return contextFor(db, sessions, typeof token === 'string' ? token : undefined, typeof rid === 'string' && REQUEST_ID.test(rid) ? rid : undefined)
        .catch((e) => { throw isDatabaseUnavailable(e) ? serviceUnavailable() : e }) // database gone: 503, Retry-After
    },
    // Only the gateway reads these answers; it sends stack traces on only where a developer opted in.
    stackTraces: () => env().NODE_ENV !== 'production' && env().GRAPHQL_STACK_TRACES,
  })
  const httpServer = http.createServer((req, res) => {
    const path = req.url === '/graphql' || req.url?.startsWith('/graphql?') ? '/graphql' : undefined
    if (!path || (req.method !== 'POST' && req.method !== 'GET')) return app(req, res)
    drain.track(res)
    // the gateway's request id follows into this request's log lines and the jobs it enqueues; one counter + histogram
    measure(req, res, () => withRequestId(requestIdFrom(req.headers['x-request-id']), () => inServerSpan(req, res, `${name} /graphql`, () =>
      graphql.handle(req, res, (error) => log.error('subgraph.http_error', { subgraph: name, error })))))
  })
  const drain = drainableServer(httpServer)
  // The gateway keeps sockets to a subgraph open between requests: the subgraph must not close an idle one first (Node's
  // 5 s default), or a request sent on it as it closes fails with 'socket hang up' (seen after a few idle seconds). The
  // gateway closes its own idle sockets sooner (gateway/subgraph-http.ts).
  httpServer.keepAliveTimeout = SUBGRAPH_KEEP_ALIVE_MS
  httpServer.headersTimeout = SUBGRAPH_KEEP_ALIVE_MS + 1_000
  const wsServer = attachWebSocketServer(httpServer, { path: '/graphql' })
  const wsCleanup = useServer<{ internalToken?: string }>({
    schema,
    // Only the gateway's bridge opens a socket here: its connection_init proves the gateway and names no person (the
    // gateway shares the socket between people). A person's own internal token opens nothing.
    onConnect: async (ctx) => {
      try {
        await verifyGatewayToken(ctx.connectionParams?.internalToken)
        return true
      } catch {
        return false
      }
    },
    subscribe: (args) => subscribeFreshPerEvent(args),
    // Every operation on the shared socket is one person's: its own internal token in the subscribe message's
    // extensions, verified here, gives it a context of its own (returned as contextValue, so graphql-ws's `context`
    // option, unset here, is never asked). Nothing in here may throw: graphql-ws closes the whole socket (4500) on a
    // throw, which would end everyone's streams on it; a refusal answers this operation's id only.
    onSubscribe: async (_ctx, _id, payload) => {
      let contextValue: GraphQLContext
      try {
        const token = payload.extensions?.internalToken
        const rid = payload.extensions?.requestId
        contextValue = await contextFor(db, sessions, typeof token === 'string' ? token : undefined, typeof rid === 'string' && REQUEST_ID.test(rid) ? rid : undefined)
      } catch (e) {
        return [subscriptionRefusal(e)]
      }
      // A bad document answers an error message; graphql-ws would close the whole socket (4500) on a thrown parse.
      let document
      try { document = parse(payload.query) } catch (e) {
        return [new GraphQLError((e as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]
      }
      const errors = validate(schema, document)
      if (errors.length) return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }))
      return { schema, document, variableValues: payload.variables, operationName: payload.operationName, contextValue }
    },
    // The same masking as over HTTP: an unexpected error in a subscription resolver never travels raw.
    onNext: (_ctx, _id, _payload, _args, result) => {
      const r = result as ExecutionResult
      return r.errors ? { ...r, errors: r.errors.map(formatWsError) } as never : undefined
    },
    onError: (_ctx, _id, _payload, errors) => errors.map(formatWsError) as never,
  }, wsServer)

  let listening = false
  const server: SubgraphServer = {
    name, app, httpServer, url: '', sessions, documents: graphql.documents,
    async listen(port, host) {
      if (!listening) {
        app.get('/healthz', (_req, res) => { res.json({ ok: true, subgraph: name }) })
        app.get('/readyz', async (_req, res) => {
          const checks: Record<string, boolean> = { database: await databaseAnswers(db), ...opts.readiness?.() }
          const ok = Object.values(checks).every(Boolean)
          res.status(ok ? 200 : 503).json({ ok, subgraph: name, checks })
        })
        app.get('/metrics', metricsHandler)
      }
      listening = true
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject)
        httpServer.listen(port, host, () => resolve())
      })
      const address = httpServer.address() as { port: number }
      server.url = `http://${host}:${address.port}/graphql`
      log.info('subgraph.listening', { subgraph: name, url: server.url })
      return server.url
    },
    async close() {
      await wsCleanup.dispose()
      await drain.close() // requests in flight finish (up to SHUTDOWN_GRACE_SECONDS), then every socket goes
    },
  }
  return server
}
