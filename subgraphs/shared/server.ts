// Owns a subgraph's HTTP + graphql-ws server: refuses anything without the gateway's internal token.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { WebSocketServer } from 'ws'
import { useServer } from 'graphql-ws/use/ws'
import { ApolloServer } from '@apollo/server'
import { expressMiddleware } from '@as-integrations/express5'
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer'
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled'
import { GraphQLError, type GraphQLSchema } from 'graphql'
import { INTERNAL_HEADER, verifyInternalToken } from '../../core/auth'
import type { Db } from '../../core/db'
import { loadSession } from '../../core/session'
import { log } from '../../core/log'
import { createContext, type GraphQLContext } from './context'

export interface SubgraphServer {
  name: string
  app: express.Express
  httpServer: http.Server
  url: string
  listen(port: number, host: string): Promise<string>
  close(): Promise<void>
}

/** Masks anything that is not a deliberate GraphQL error; the original is logged with the request id. */
export function maskUnexpected(formatted: { message: string; extensions?: Record<string, unknown> }, error: unknown) {
  const original = error instanceof GraphQLError ? error.originalError : error
  const code = formatted.extensions?.code
  const deliberate = !original || original instanceof GraphQLError || (code && code !== 'INTERNAL_SERVER_ERROR')
  if (deliberate) return formatted
  const errorId = randomUUID()
  log.error('graphql.unexpected_error', { errorId, error: original })
  return { message: `Unexpected error (reference ${errorId}).`, extensions: { code: 'INTERNAL_SERVER_ERROR', errorId } }
}

async function contextFor(db: Db, token: string | undefined | null): Promise<GraphQLContext> {
  const identity = await verifyInternalToken(token)
  const session = await loadSession(db, identity.userId)
  return createContext(db, session, identity.requestId || randomUUID())
}

export function createSubgraphServer(opts: { name: string; schema: GraphQLSchema; db: Db }): SubgraphServer {
  const { name, schema, db } = opts
  const app = express()
  app.disable('x-powered-by')
  const httpServer = http.createServer(app)
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' })
  const wsCleanup = useServer<{ internalToken?: string }, { ctx?: GraphQLContext }>({
    schema,
    // The gateway's bridge sends its internal token in connection_init; nothing else may subscribe here.
    onConnect: async (ctx) => {
      try {
        ctx.extra.ctx = await contextFor(db, ctx.connectionParams?.internalToken)
        return true
      } catch {
        return false
      }
    },
    context: (ctx) => ctx.extra.ctx!,
  }, wsServer)

  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true, // only the gateway reaches a subgraph (internal token), and it needs the SDL
    formatError: maskUnexpected,
    plugins: [
      ApolloServerPluginInlineTraceDisabled(), // no usage reporting: traces would only leak timings to callers
      ApolloServerPluginDrainHttpServer({ httpServer }),
      { async serverWillStart() { return { async drainServer() { await wsCleanup.dispose() } } } },
    ],
  })
  let started: Promise<void> | undefined
  const server: SubgraphServer = {
    name, app, httpServer, url: '',
    async listen(port, host) {
      await (started ??= apollo.start())
      app.get('/healthz', (_req, res) => { res.json({ ok: true, subgraph: name }) })
      app.use('/graphql', express.json({ limit: '1mb' }), expressMiddleware(apollo, {
        context: async ({ req }) => contextFor(db, req.header(INTERNAL_HEADER)),
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
