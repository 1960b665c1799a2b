// Owns how a subgraph's GraphQL errors leave it: every error carries a code, unexpected ones are masked (and logged with
// a reference), stack traces only where a developer opted in, and an `extensions.http.status` becomes the HTTP status.
import { randomUUID } from 'node:crypto'
import { GraphQLError, type GraphQLFormattedError } from 'graphql'
import { log } from '../config'
import { formattedServiceUnavailable, isDatabaseUnavailable } from '../database'

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

export function asGraphQLError(error: unknown, prefix = ''): GraphQLError {
  if (error instanceof GraphQLError) return error
  const e = error instanceof Error ? error : new Error(`Unexpected error value: ${String(error)}`)
  return new GraphQLError(prefix + e.message, { originalError: e })
}

/**
 * The errors of an answer as Apollo Server formatted them (the shapes the gateway and tests know): a code on every
 * error (INTERNAL_SERVER_ERROR when none), `extensions.http` taken out and its status returned, optional stack traces,
 * then masking.
 */
export function formatErrors(
  errors: readonly unknown[], stackTraces: boolean,
  /** the last step (the gateway's edge formatter masks and strips more) */
  format: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError = maskUnexpected as never,
): { errors: GraphQLFormattedError[]; status?: number } {
  let status: number | undefined
  const formatted = errors.map((raw) => {
    const error = asGraphQLError(raw)
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' }
    const http = extensions.http as { status?: unknown } | undefined
    if (http && typeof http === 'object') {
      if (typeof http.status === 'number') status = http.status
      delete extensions.http
    }
    if (stackTraces) extensions.stacktrace = error.stack?.split('\n')
    try {
      return format({ ...error.toJSON(), extensions } as GraphQLFormattedError, error)
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }
    }
  })
  return { errors: formatted, status }
}
