// Owns what the gateway and the subgraphs agree on over HTTP, beyond GraphQL itself (the internal token's header is
// core/identity/auth.ts's INTERNAL_HEADER).

/** Subgraph servers keep idle sockets this long, so the gateway (which closes its own after 30 s) never writes to one the server just closed. */
export const SUBGRAPH_KEEP_ALIVE_MS = 65_000

/**
 * Set (to '1') by a subgraph on an answer whose body is exactly `{"data":…}`: no errors, no extensions. For a plan that
 * is that one fetch, the gateway may then pass the bytes on (gateway/federation.ts).
 */
export const DATA_ONLY_HEADER = 'x-graphql-data-only'

/**
 * The code a stream ends with when events may have been missed (the process lost its LISTEN connection, or the
 * subgraph replica carrying the stream went away): the client refetches and subscribes again. The gateway's subscription bridge ends a stream the same way.
 */
export const SUBSCRIPTION_INTERRUPTED = 'SUBSCRIPTION_INTERRUPTED'
export const INTERRUPTED_MESSAGE = 'The live stream was interrupted and events may have been missed: refetch and subscribe again.'
