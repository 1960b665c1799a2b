// Owns the gateway's HTTP calls to subgraphs: kept-alive sockets of ./subgraph-client.ts, and the data source that sends
// each fetch of a query plan with the caller's identity as a short-lived internal token. The data source implements
// Apollo's public GraphQLDataSource interface itself rather than extending RemoteGraphQLDataSource: Apollo's default
// fetcher (make-fetch-happen over minipass-fetch and @npmcli/agent, plus a node-fetch Request built per call) took
// about a fifth of the gateway's CPU under the console query's load (issue 20 profile), and the only way to replace it
// in a subclass was its private sendRequest.
import type http from 'node:http'
import { GraphQLError } from 'graphql'
import { INTERNAL_HEADER } from '../core/identity'
import { serviceUnavailable } from '../core/database'
import { currentRequestId } from '../core/config'
import { injectTraceHeaders, inSpan, SpanKind, tracingOn } from '../core/config'
import type { DataSourceAnswer, DataSourceRequest, GraphQLDataSource } from './apollo-executor'
import type { CallerIdentity } from './identity'
import { SubgraphClient } from './subgraph-client'

export interface SubgraphResponse {
  status: number
  /** the body's bytes, as the subgraph sent them */
  bytes: Buffer
  /** the body as text (decoded on first read: a data-only answer passed on as it came is never decoded) */
  readonly body: string
  headers: http.IncomingHttpHeaders
}

class Answered implements SubgraphResponse {
  private text?: string
  constructor(readonly status: number, readonly headers: http.IncomingHttpHeaders, readonly bytes: Buffer) {}
  get body(): string { return (this.text ??= this.bytes.toString('utf8')) }
}

/** One client per subgraph URL (./subgraph-client.ts): kept-alive sockets, one request at a time on each. */
const clients = new Map<string, SubgraphClient>()
const clientOf = (url: string) => {
  let client = clients.get(url)
  if (!client) clients.set(url, (client = new SubgraphClient(url)))
  return client
}

/**
 * POSTs a JSON body; resolves with the status, headers and whole body (network failures reject). With tracing
 * on, the call is a CLIENT span (`subgraph <name>`) whose traceparent the subgraph continues.
 */
export function postJson(url: string, headers: Record<string, string>, body: string, subgraph = 'subgraph'): Promise<SubgraphResponse> {
  if (!tracingOn()) return send(url, headers, body) // the hot path: no closure, no copy of the headers
  return inSpan(`subgraph ${subgraph}`, SpanKind.CLIENT, { 'http.request.method': 'POST', 'server.address': url, 'graphql.subgraph': subgraph }, async (span) => {
    const res = await send(url, injectTraceHeaders({ ...headers }), body)
    span?.setAttribute('http.response.status_code', res.status)
    return res
  })
}

async function send(url: string, headers: Record<string, string>, body: string): Promise<SubgraphResponse> {
  const answer = await clientOf(url).post(headers, body)
  return new Answered(answer.status, answer.headers, answer.body)
}

/** What the gateway's context holds for a subgraph call. */
export interface SubgraphCallContext {
  identity: CallerIdentity
}

/** The headers of every call to a subgraph: the caller as an internal token (never the caller's own token), the request id. */
export async function subgraphHeaders(context: SubgraphCallContext | undefined): Promise<Record<string, string>> {
  if (!context?.identity) throw new GraphQLError('No caller identity', { extensions: { code: 'UNAUTHENTICATED' } })
  return { [INTERNAL_HEADER]: await context.identity.internalToken(), 'x-request-id': currentRequestId() ?? context.identity.requestId }
}

/** Sends a plan's fetches to one subgraph over postJson, with the caller's identity as an internal token. */
export class SubgraphDataSource implements GraphQLDataSource<SubgraphCallContext & Record<string, any>> {
  /** `name`: the subgraph's name in the supergraph (its fetches' spans say it). */
  constructor(readonly url: string, readonly name?: string) {}

  async process({ request, context }: DataSourceRequest): Promise<DataSourceAnswer> {
    const { query, variables, operationName, extensions } = request
    if (!query) throw new Error('Missing query')
    return this.responseOf(await postJson(this.url, await subgraphHeaders(context as SubgraphCallContext), JSON.stringify({ query, variables, operationName, extensions }), this.name))
  }

  /**
   * A subgraph's HTTP answer as the executor reads it: the parsed body. Also used for an answer the gateway fetched
   * itself (a single-fetch plan). A non-2xx answer never carries the subgraph's URL, status and body to the caller
   * (as Apollo's RemoteGraphQLDataSource did in `extensions.response`): its GraphQL errors go on when they are the
   * caller's to read (see callerErrors), a 503 is an outage, anything else an unexpected fault (masked at the edge,
   * logged with the status and body under the reference the caller gets).
   */
  async responseOf(res: SubgraphResponse): Promise<DataSourceAnswer> {
    if (res.status < 200 || res.status > 299) {
      const errors = callerErrors(res.body)
      if (errors) return { data: null, errors } as DataSourceAnswer
      if (res.status === 503) throw serviceUnavailable()
      throw new Error(`Subgraph ${this.url} answered HTTP ${res.status}: ${res.body.slice(0, 2000)}`)
    }
    const body = JSON.parse(res.body)
    if (body === null || typeof body !== 'object') throw new Error(`Expected JSON response body, but received: ${res.body.slice(0, 200)}`)
    return body
  }
}

/**
 * Codes a subgraph answers for a request the gateway built wrongly (a planner or schema mismatch): the gateway's
 * fault, never the caller's, so the answer is an unexpected error rather than these messages.
 */
const GATEWAY_FAULTS = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST', 'OPERATION_RESOLUTION_FAILURE'])

/**
 * The GraphQL errors of a subgraph's non-2xx answer when each has a code meant for the caller (BAD_USER_INPUT for a
 * value the edge let through, UNAUTHENTICATED, SERVICE_UNAVAILABLE, a masked INTERNAL_SERVER_ERROR with its
 * reference): message, code and the extensions the subgraph gave, nothing about the fetch. Otherwise undefined.
 */
function callerErrors(text: string): { message: string; extensions: Record<string, unknown> }[] | undefined {
  let body: unknown
  try { body = JSON.parse(text) } catch { return undefined }
  const errors = (body as { errors?: unknown } | null)?.errors
  if (!Array.isArray(errors) || errors.length === 0) return undefined
  const carried = []
  for (const e of errors as { message?: unknown; extensions?: Record<string, unknown> }[]) {
    const code = e?.extensions?.code
    if (typeof e?.message !== 'string' || typeof code !== 'string' || GATEWAY_FAULTS.has(code)) return undefined
    if (code === 'INTERNAL_SERVER_ERROR' && typeof e.extensions?.errorId !== 'string') return undefined
    carried.push({ message: e.message, extensions: { ...e.extensions } })
  }
  return carried
}
