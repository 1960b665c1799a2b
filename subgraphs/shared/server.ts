// Owns a subgraph's HTTP + graphql-ws server: refuses anything without the gateway's internal token.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { WebSocketServer } from 'ws'
import { useServer } from 'graphql-ws/use/ws'
import { ApolloServer } from '@apollo/server'
import { expressMiddleware } from '@as-integrations/express5'
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer'
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled'
import { GraphQLError, parse, validate, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql'
import { INTERNAL_HEADER } from '../../core/auth'
import type { Db } from '../../core/db'
import { SessionCache } from '../../core/session-cache'
import { log } from '../../core/log'
import { formattedServiceUnavailable, isDatabaseUnavailable, serviceUnavailable } from '../../core/db-outage'
import { env } from '../../core/env'
import { createContext, type GraphQLContext } from './context'
import { SUBGRAPH_KEEP_ALIVE_MS } from '../../gateway/subgraph-http'

export interface SubgraphServer {
  name: string
  app: express.Express
  httpServer: http.Server
  url: string
  /** Verified internal tokens and sessions of this process (reloaded when the person's session version moves). */
  sessions: SessionCache
  listen(port: number, host: string): Promise<string>
  close(): Promise<void>
}

/** Masks anything that is not a deliberate GraphQL error; the original is logged with the request id. */
export function maskUnexpected(formatted: { message: string; extensions?: Record<string, unknown> }, error: unknown) {
  const original = error instanceof GraphQLError ? error.originalError : error
  const code = formatted.extensions?.code
  const deliberate = !original || original instanceof GraphQLError || (code && code !== 'INTERNAL_SERVER_ERROR')
  // masked (and logged, with the same reference) by the subgraph that failed: the gateway passes it on as it is
  const maskedUpstream = code === 'INTERNAL_SERVER_ERROR' && typeof formatted.extensions?.errorId === 'string'
  if (deliberate || maskedUpstream) return formatted
  if (isDatabaseUnavailable(original)) return formattedServiceUnavailable() // an outage, not a fault: the gateway answers 503
  const errorId = randomUUID()
  log.error('graphql.unexpected_error', { errorId, error: original })
  return { message: `Unexpected error (reference ${errorId}).`, extensions: { code: 'INTERNAL_SERVER_ERROR', errorId } }
}

const formatWsError = (e: GraphQLError): GraphQLFormattedError => maskUnexpected(e.toJSON(), e)

async function contextFor(db: Db, sessions: SessionCache, token: string | undefined | null, requestId?: string): Promise<GraphQLContext> {
  const identity = await sessions.identity(token)
  const session = await sessions.session(identity.userId, identity.sessionVersion)
  return createContext(db, session, requestId || identity.requestId || randomUUID())
}

const REQUEST_ID = /^[\w-]{1,64}$/

export function createSubgraphServer(opts: { name: string; schema: GraphQLSchema; db: Db }): SubgraphServer {
  const { name, schema, db } = opts
  const sessions = new SessionCache(db)
  const app = express()
  app.disable('x-powered-by')
  const httpServer = http.createServer(app)
  // The gateway keeps sockets to a subgraph open between requests: the subgraph must not close an idle one first (Node's
  // 5 s default), or a request sent on it as it closes fails with 'socket hang up' (seen after a few idle seconds). The
  // gateway closes its own idle sockets sooner (gateway/subgraph-http.ts).
  httpServer.keepAliveTimeout = SUBGRAPH_KEEP_ALIVE_MS
  httpServer.headersTimeout = SUBGRAPH_KEEP_ALIVE_MS + 1_000
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' })
  const wsCleanup = useServer<{ internalToken?: string }, { ctx?: GraphQLContext }>({
    schema,
    // The gateway's bridge sends its internal token in connection_init; nothing else may subscribe here.
    onConnect: async (ctx) => {
      try {
        ctx.extra.ctx = await contextFor(db, sessions, ctx.connectionParams?.internalToken)
        return true
      } catch {
        return false
      }
    },
    context: (ctx) => ctx.extra.ctx!,
    // A bad document answers an error message; graphql-ws would close the whole socket (4500) on a thrown parse.
    onSubscribe: (_ctx, _id, payload) => {
      let document
      try { document = parse(payload.query) } catch (e) {
        return [new GraphQLError((e as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]
      }
      const errors = validate(schema, document)
      if (errors.length) return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }))
      return { schema, document, variableValues: payload.variables, operationName: payload.operationName }
    },
    // The same masking as over HTTP: an unexpected error in a subscription resolver never travels raw.
    onNext: (_ctx, _id, _payload, _args, result) => {
      const r = result as ExecutionResult
      return r.errors ? { ...r, errors: r.errors.map(formatWsError) } as never : undefined
    },
    onError: (_ctx, _id, _payload, errors) => errors.map(formatWsError) as never,
  }, wsServer)

  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true, // only the gateway reaches a subgraph (internal token), and it needs the SDL
    formatError: maskUnexpected,
    // Only the gateway reads these answers; it sends stack traces on only where a developer opted in.
    includeStacktraceInErrorResponses: env().NODE_ENV !== 'production' && env().GRAPHQL_STACK_TRACES,
    plugins: [
      ApolloServerPluginInlineTraceDisabled(), // no usage reporting: traces would only leak timings to callers
      // No cache hints are set anywhere, and the plugin wraps every field resolver (a 50-item page: hundreds of calls)
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginDrainHttpServer({ httpServer }),
      { async serverWillStart() { return { async drainServer() { await wsCleanup.dispose() } } } },
    ],
  })
  let started: Promise<void> | undefined
  const server: SubgraphServer = {
    name, app, httpServer, url: '', sessions,
    async listen(port, host) {
      await (started ??= apollo.start())
      app.get('/healthz', (_req, res) => { res.json({ ok: true, subgraph: name }) })
      app.use('/graphql', express.json({ limit: '1mb' }), expressMiddleware(apollo, {
        context: async ({ req }) => {
          const rid = req.header('x-request-id')
          return contextFor(db, sessions, req.header(INTERNAL_HEADER), rid && REQUEST_ID.test(rid) ? rid : undefined)
            .catch((e) => { throw isDatabaseUnavailable(e) ? serviceUnavailable() : e })
        },
      }))
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
      await apollo.stop()
      httpServer.closeAllConnections?.()
      await new Promise<void>((r) => httpServer.close(() => r()))
    },
  }
  return server
}
