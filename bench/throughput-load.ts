// Owns the throughput bench's load generator: autocannon in its own process (so its CPU is not the server's event
// loop), one run per invocation. Reads one JSON argument, prints one JSON line with the result.
// Used by bench/throughput.ts and bench/peers.ts (the argument may be `@<file>` holding the JSON); run alone: tsx bench/throughput-load.ts '{"url":…,"query":…,"distinct":1000,"headerSets":[{}],"connections":10,"seconds":20}'
// @ts-expect-error autocannon ships no types (and @types/autocannon is not installed)
import autocannon from 'autocannon'
import { readFileSync } from 'node:fs'

interface LoadSpec {
  url: string
  query: string
  /** sent instead of the query when set: a registered operation's id (trusted documents) */
  documentId?: string
  /** how many different bodies to cycle through: each carries a variable `nonce` the query ignores, so no two
   * requests in flight together are identical (in-flight de-duplication cannot merge them) */
  distinct: number
  /** one header set per caller, sent in turn (a request's caller is independent of its body) */
  headerSets: Record<string, string>[]
  connections: number
  seconds: number
  /** sent with every request besides the nonce (the query's own variables) */
  variables?: Record<string, unknown>
  /** when set, the only answer bodies accepted (byte for byte): any other counts as a mismatch */
  expected?: string[]
}

const arg = process.argv[2]
const spec = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as LoadSpec
const expected = spec.expected ? new Set(spec.expected) : undefined
let mismatches = 0
let firstMismatch: string | undefined
let graphqlErrors = 0
let firstError: string | undefined
let next = 0
const bodies = Array.from({ length: spec.distinct }, (_, i) => JSON.stringify(spec.documentId ? { documentId: spec.documentId, variables: { ...spec.variables, nonce: i } } : { query: spec.query, variables: { ...spec.variables, nonce: i } }))

const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  pipelining: 1,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  requests: [{
    setupRequest: (req: any) => {
      const n = next++
      return { ...req, headers: { ...req.headers, ...spec.headerSets[n % spec.headerSets.length] }, body: bodies[n % bodies.length] }
    },
    // A GraphQL error answers 200: count it from the body (cheap: the bench's answers never contain the word otherwise).
    onResponse: (_status: number, body: string) => {
      if (body.includes('"errors"')) {
        graphqlErrors++
        firstError ??= body.slice(0, 400)
      } else if (expected && !expected.has(body)) {
        mismatches++
        firstMismatch ??= body.slice(0, 400)
      }
    },
  }],
})

instance.on('done', (r: any) => {
  process.stdout.write(`${JSON.stringify({
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    mean: r.latency.average,
    p99: r.latency.p99,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    graphqlErrors,
    firstError,
    mismatches,
    firstMismatch,
  })}\n`)
  process.exit(0)
})
