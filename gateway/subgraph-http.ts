// Owns the gateway's HTTP calls to subgraphs: plain node:http over kept-alive sockets, and the data source that sends
// each fetch of a query plan with the caller's identity as a short-lived internal token. Apollo's default fetcher
// (make-fetch-happen over minipass-fetch and @npmcli/agent, plus a node-fetch Request built per call) took about a
// fifth of the gateway's CPU under the console query's load (issue 20 profile).
import http from 'node:http'
import { RemoteGraphQLDataSource } from '@apollo/gateway'
import { GraphQLError } from 'graphql'
import { INTERNAL_HEADER } from '../core/auth'
import { serviceUnavailable } from '../core/db-outage'
import { currentRequestId } from '../core/request-context'
import type { CallerIdentity } from './identity'

/** Sockets idle longer than this are closed by us, well before a subgraph would close them (SUBGRAPH_KEEP_ALIVE_MS). */
const IDLE_SOCKET_MS = 30_000

const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' })

export interface SubgraphResponse {
  status: number
  body: string
  headers: http.IncomingHttpHeaders
}

/** POSTs a JSON body; resolves with the status, headers and whole body text (network failures reject). */
export function postJson(url: string, headers: Record<string, string>, body: string): Promise<SubgraphResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST', agent,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
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

/** Forwards the caller's identity to subgraphs as a short-lived internal token, over postJson. */
export class InternalTokenDataSource extends RemoteGraphQLDataSource<SubgraphCallContext & Record<string, any>> {
  override async willSendRequest({ request, context }: { request: any; context: Record<string, any> }) {
    for (const [name, value] of Object.entries(await subgraphHeaders(context as SubgraphCallContext))) request.http?.headers.set(name, value)
  }

  /**
   * A subgraph's HTTP answer as Apollo's data source returns it: the parsed body with `http`. Also used for an answer
   * the gateway fetched itself (a single-fetch plan). A non-2xx answer never becomes Apollo's errorFromResponse,
   * whose `extensions.response` carried the subgraph's URL, status and body to the caller: its GraphQL errors go on
   * when they are the caller's to read (see callerErrors), a 503 is an outage, anything else an unexpected fault
   * (masked at the edge, logged with the status and body under the reference the caller gets).
   */
  async responseOf(res: SubgraphResponse): Promise<any> {
    const header = (name: string) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v }
    // not enumerable: the subscription bridge clones answers it shares (structuredClone), and a function cannot be cloned
    const withHttp = (body: object) => Object.defineProperty({ ...body }, 'http', { value: { headers: { get: header }, status: res.status }, enumerable: false })
    if (res.status < 200 || res.status > 299) {
      const errors = callerErrors(res.body)
      if (errors) return withHttp({ data: null, errors })
      if (res.status === 503) throw serviceUnavailable()
      throw new Error(`Subgraph ${this.url} answered HTTP ${res.status}: ${res.body.slice(0, 2000)}`)
    }
    const body = JSON.parse(res.body)
    if (body === null || typeof body !== 'object') throw new Error(`Expected JSON response body, but received: ${res.body.slice(0, 200)}`)
    return withHttp(body)
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

/** RemoteGraphQLDataSource.sendRequest with the same contract, over postJson instead of Apollo's fetch stack. */
async function sendRequest(this: InternalTokenDataSource, request: any): Promise<any> {
  const { http: h, ...rest } = request
  return this.responseOf(await postJson(h.url, Object.fromEntries(h.headers), JSON.stringify(rest)))
}
// private in Apollo's types, hence replaced on the prototype rather than overridden
Object.assign(InternalTokenDataSource.prototype, { sendRequest })
