// Owns how a graphql-ws connection_init payload names the caller's bearer token. Clients put it in different places
// (graphql-ws's own examples use `authorization`, Apollo Client and many samples `Authorization` or a `headers`
// object mirroring HTTP), so the common shapes are read; anything else is refused with the shape to send.

/** The close reason of a connection_init that carries no token in a shape read here (at most 123 bytes). */
export const CONNECTION_INIT_SHAPE_REASON = 'Send connection_init with payload {"authorization":"Bearer <token>"} (or headers.Authorization).'

const isRecord = (o: unknown): o is Record<string, unknown> => !!o && typeof o === 'object' && !Array.isArray(o)

/** The value of an `authorization` key in any letter case, when it is a string. */
function authorizationKey(o: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(o)) {
    if (key.toLowerCase() === 'authorization' && typeof value === 'string') return value
  }
  return undefined
}

/**
 * The Authorization value a connection_init payload carries: `{ authorization }`, `{ Authorization }`, or either
 * inside `{ headers: { … } }`; undefined when none of these holds a string (the caller is told CONNECTION_INIT_SHAPE_REASON).
 */
export function authorizationOfConnectionParams(params: unknown): string | undefined {
  if (!isRecord(params)) return undefined
  return authorizationKey(params) ?? (isRecord(params.headers) ? authorizationKey(params.headers) : undefined)
}
