// Owns the gateway's HTTP calls to subgraphs: plain node:http over kept-alive sockets, and the data source that sends
// each fetch of a query plan with the caller's identity as a short-lived internal token. Apollo's default fetcher
// (make-fetch-happen over minipass-fetch and @npmcli/agent, plus a node-fetch Request built per call) took about a
// fifth of the gateway's CPU under the console query's load (issue 20 profile).
import http from 'node:http'
import { RemoteGraphQLDataSource } from '@apollo/gateway'
import { GraphQLError } from 'graphql'
import { INTERNAL_HEADER } from '../core/auth'
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
   * A subgraph's HTTP answer as Apollo's data source returns it: the parsed body with `http`, or the error Apollo
   * makes of a non-2xx answer. Also used for an answer the gateway fetched itself (a single-fetch plan).
   */
  async responseOf(res: SubgraphResponse): Promise<any> {
    // Apollo reads only headers.get('cache-control') of a good answer; a whole Headers object is built for errors only
    const header = (name: string) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v }
    if (res.status < 200 || res.status > 299) {
      const headers = new Headers()
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
      throw await this.errorFromResponse(new Response(res.body, { status: res.status, headers }) as never)
    }
    const body = JSON.parse(res.body)
    if (body === null || typeof body !== 'object') throw new Error(`Expected JSON response body, but received: ${res.body.slice(0, 200)}`)
    // not enumerable: the subscription bridge clones answers it shares (structuredClone), and a function cannot be cloned
    return Object.defineProperty({ ...body }, 'http', { value: { headers: { get: header }, status: res.status }, enumerable: false })
  }
}

/** RemoteGraphQLDataSource.sendRequest with the same contract, over postJson instead of Apollo's fetch stack. */
async function sendRequest(this: InternalTokenDataSource, request: any): Promise<any> {
  const { http: h, ...rest } = request
  return this.responseOf(await postJson(h.url, Object.fromEntries(h.headers), JSON.stringify(rest)))
}
// private in Apollo's types, hence replaced on the prototype rather than overridden
Object.assign(InternalTokenDataSource.prototype, { sendRequest })
