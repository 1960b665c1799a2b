// Owns what "the database is unavailable" means and how the service says so: a PostgreSQL outage (restart, failover,
// network loss) is answered 503 with Retry-After by the gateway and the webhook edge instead of a masked internal error,
// so clients and vendors retry; nothing waits for the database to come back.
import { GraphQLError } from 'graphql'

/** What the gateway and the webhook edge tell a caller to wait before retrying during an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5
export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE'
export const OUTAGE_MESSAGE = 'The service is temporarily unavailable (its database cannot be reached); retry shortly.'

// Connection-level failures only (and a pool too busy to start a transaction: nothing ran, a retry is safe); a
// constraint violation or a bad query is never an outage.
const CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', // admin/crash shutdown, cannot connect now, connection exceptions
  '53300', // too many connections: the new connection was refused before anything ran
  'P1001', 'P1002', 'P1008', 'P1017', 'P2024', // Prisma: cannot reach, timed out, server closed the connection, pool timeout
])
const MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Can't reach database|server closed the connection|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery)|Client has encountered a connection error|ECONNREFUSED|ECONNRESET|Connection refused|Timed out fetching a new connection|Unable to start a transaction in the given time|too many clients already/i

/** True when `error` (or anything in its cause chain) says the database could not be reached or dropped the connection. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let e: any = error
  for (let depth = 0; e && depth < 6; depth++) {
    if (typeof e !== 'object') return false
    if (e.extensions?.code === SERVICE_UNAVAILABLE) return true
    const code = e.code ?? e.cause?.code ?? e.kind
    if (typeof code === 'string' && CODES.has(code)) return true
    if (typeof e.originalCode === 'string' && CODES.has(e.originalCode)) return true
    if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true
    if (Array.isArray(e.errors) && e.errors.some((x: unknown) => isDatabaseUnavailable(x))) return true // AggregateError
    e = e.cause ?? e.originalError
  }
  return false
}

/** The GraphQL error of an outage: Apollo answers it with HTTP 503 and Retry-After. */
export function serviceUnavailable(): GraphQLError {
  return new GraphQLError(OUTAGE_MESSAGE, {
    extensions: {
      code: SERVICE_UNAVAILABLE, retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
      http: { status: 503, headers: new Map([['retry-after', String(OUTAGE_RETRY_AFTER_SECONDS)]]) },
    },
  })
}

/** The formatted error a subgraph answers when its database is gone (deliberate, not masked, not logged as a fault). */
export function formattedServiceUnavailable() {
  return { message: OUTAGE_MESSAGE, extensions: { code: SERVICE_UNAVAILABLE, retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS } }
}
