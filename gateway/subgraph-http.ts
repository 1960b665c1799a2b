// Owns the gateway's HTTP calls to subgraphs: plain node:http over kept-alive sockets. Apollo's default fetcher
// (make-fetch-happen over minipass-fetch and @npmcli/agent, plus a node-fetch Request built per call) took about a
// fifth of the gateway's CPU under the console query's load (issue 20 profile).
import http from 'node:http'

/** Sockets idle longer than this are closed by us, well before a subgraph would close them (SUBGRAPH_KEEP_ALIVE_MS). */
const IDLE_SOCKET_MS = 30_000
/** Subgraph servers keep idle sockets this long, so the gateway never writes to one the server just closed. */
export const SUBGRAPH_KEEP_ALIVE_MS = 65_000

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
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
