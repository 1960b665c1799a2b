// Owns GraphQL over graphql-ws on GRAPHQL_PATH: the upgrade (guarded by ./request-guard.ts), connection_init (the
// bearer, since browsers cannot set headers on a WebSocket), a socket's life bounded by its token, and the same edge
// as HTTP: parse limits before any work, the same validation rules, queries and mutations through the same pipeline,
// and every error formatted once by formatEdgeError (never a 4500 close). Subscriptions run on the bridge
// (./subscription-bridge.ts).
import type http from 'node:http'
import { useServer } from 'graphql-ws/use/ws'
import { CloseCode } from 'graphql-ws'
import {
  getOperationAST, NoSchemaIntrospectionCustomRule, specifiedRules, validate, GraphQLError,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError, type ValidationRule,
} from 'graphql'
import { attachWebSocketServer } from '../core/http'
import { isTokenExpired, tokenExpired } from '../core/errors'
import { isDatabaseUnavailable } from '../core/database'
import { log } from '../core/config'
import type { CallerIdentity, IdentityResolver } from './identity'
import type { SubscriptionBridge } from './subscription-bridge'
import type { EdgePipeline } from './graphql-http'
import { wsMetrics } from './observability'
import { checkInputSize, EDGE_CODES, formatEdgeError, parseLimited, type EdgeMode } from './edge-limits'
import { authorizationOfConnectionParams, CONNECTION_INIT_SHAPE_REASON } from './connection-init'
import type { RequestGuard } from './request-guard'
import { GRAPHQL_PATH } from './routing'

/** Close code of a socket whose bearer token expired (graphql-ws Unauthorized); the client reconnects with a fresh token. */
export const TOKEN_EXPIRED_CLOSE = CloseCode.Unauthorized
const TOKEN_EXPIRED_REASON = 'The bearer token has expired: reconnect with a fresh one.'

export interface GatewayContext {
  identity: CallerIdentity
  /** set for graphql-ws connections: the downstream socket (its close ends its subscriptions on the bridge) */
  socket?: object
}

export interface SocketEdge {
  guard: RequestGuard
  identities: IdentityResolver
  bridge: SubscriptionBridge<GatewayContext>
  pipeline: EdgePipeline
  mode: EdgeMode
  /** The edge's own validation rules (limits), applied after graphql-js's specified rules. */
  limitRules: readonly ValidationRule[]
}

/** Takes GRAPHQL_PATH's upgrades on `httpServer`; the result's dispose() closes every socket (shutdown). */
export function attachGraphqlSockets(httpServer: http.Server, edge: SocketEdge) {
  const { identities, bridge, pipeline, mode } = edge
  const wsServer = attachWebSocketServer(httpServer, { path: GRAPHQL_PATH, maxPayload: 1024 * 1024, verifyClient: edge.guard.verifyUpgrade })
  const wsRules = [...specifiedRules, ...(mode.production ? [NoSchemaIntrospectionCustomRule] : []), ...edge.limitRules]
  // the query text of each parsed document, for the pipeline that runs queries and mutations sent over the socket
  const sources = new WeakMap<DocumentNode, string>()
  const formatAll = (errors: readonly unknown[]) =>
    errors.map((e) => e instanceof GraphQLError ? formatEdgeError(e.toJSON(), e, mode) : e as GraphQLFormattedError)
  return useServer<Record<string, unknown>, { ctx?: GatewayContext; expiry?: NodeJS.Timeout }>({
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
}

const asGraphQLError = (e: unknown) => e instanceof GraphQLError ? e
  : new GraphQLError('Unexpected error.', { originalError: e as Error, extensions: { code: 'INTERNAL_SERVER_ERROR' } })

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
