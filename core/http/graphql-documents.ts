// Owns turning a document string into an executable document for one schema: parsed and validated once, then served
// from a bounded cache keyed by the exact string (core/config/bounded-cache.ts: least recently used out first; the gateway
// sends the same few query-plan fetches over and over).
import { boundedCache, type BoundedCache } from '../config'
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql'

export type Prepared = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: readonly GraphQLError[] }

const MAX_ENTRIES = 1_000
/** Longer documents are prepared every time rather than held (a bound on what the cache can keep). */
const MAX_CACHED_LENGTH = 64 * 1024

export class DocumentCache {
  private readonly entries: BoundedCache<string, Prepared>
  hits = 0
  misses = 0

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly opts: {
      maxEntries?: number
      /** the parser (the gateway's refuses documents over its size and token limits); throws a GraphQLError */
      parse?: (source: string) => DocumentNode
      /** validation rules (default: graphql's own) */
      rules?: readonly ValidationRule[]
    } = {},
  ) {
    this.entries = boundedCache<string, Prepared>({ max: opts.maxEntries ?? MAX_ENTRIES })
  }

  /**
   * The document, or the parse / validation errors Apollo Server answered with (GRAPHQL_PARSE_FAILED, _VALIDATION_FAILED,
   * or the code a rule gave its error: the gateway's custom scalar literals are BAD_USER_INPUT).
   */
  prepare(source: string): Prepared {
    const hit = this.entries.get(source)
    if (hit) {
      this.hits++
      return hit
    }
    this.misses++
    const prepared = this.build(source)
    if (source.length <= MAX_CACHED_LENGTH) this.entries.set(source, prepared)
    return prepared
  }

  private build(source: string): Prepared {
    let document: DocumentNode
    try {
      document = (this.opts.parse ?? parse)(source)
    } catch (e) {
      const err = e as GraphQLError
      if (!(err instanceof GraphQLError)) throw e
      return { errors: [new GraphQLError(err.message, { source: err.source, positions: err.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } } })] }
    }
    const errors = validate(this.schema, document, this.opts.rules ?? specifiedRules)
    if (errors.length) {
      return { errors: errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { code: e.extensions.code ?? 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } })) }
    }
    return { document }
  }
}
