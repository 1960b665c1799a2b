// Owns what the gateway and the subgraphs agree on over HTTP, beyond GraphQL itself (the internal token's header is
// core/auth.ts's INTERNAL_HEADER).

/** Subgraph servers keep idle sockets this long, so the gateway (which closes its own after 30 s) never writes to one the server just closed. */
export const SUBGRAPH_KEEP_ALIVE_MS = 65_000

/**
 * Set (to '1') by a subgraph on an answer whose body is exactly `{"data":…}`: no errors, no extensions. For a plan that
 * is that one fetch, the gateway may then pass the bytes on (gateway/federation.ts).
 */
export const DATA_ONLY_HEADER = 'x-graphql-data-only'
