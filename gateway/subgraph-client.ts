// Owns the gateway's HTTP/1.1 connections to the subgraphs: one undici Pool per subgraph (kept-alive sockets, one
// request at a time on each, at most 256 then queued), read through undici's dispatch handler so a body arrives as the
// bytes the subgraph sent, never as a stream. node:http's ClientRequest, agent and IncomingMessage cost about as much
// CPU per call as the rest of a one-fetch query's work in the gateway (issue 38 profile); undici's parser (llhttp, as
// node:http's) and pool are a maintained part that costs far less. What callers see is kept as node:http's client
// showed it: a cut connection is ECONNRESET 'socket hang up', a refused one ECONNREFUSED, a header that would split
// the request ERR_INVALID_CHAR, an answer that is not HTTP HPE_INVALID.
import { errors, Pool } from 'undici'
import type { Dispatcher } from 'undici'

/** A subgraph's answer: status, headers (names in lower case, repeated ones joined with ', ') and the body's bytes. */
export interface ClientAnswer {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/** Sockets idle longer than this are closed by us, well before a subgraph would close them (SUBGRAPH_KEEP_ALIVE_MS). */
export const IDLE_SOCKET_MS = 30_000
/** Sockets per subgraph, busy or idle (node:http's agent had 256 at most, and kept 256 free): further calls wait their turn. */
const MAX_SOCKETS = 256
/** What may not appear in a header name or value we write (request smuggling); node:http refuses the same. */
const INVALID_NAME = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/

const hangUp = (cause?: unknown) => Object.assign(new Error('socket hang up', { cause }), { code: 'ECONNRESET' })
const protocolError = (what: string, cause?: unknown) =>
  Object.assign(new Error(`Subgraph answer is not HTTP/1.1 as expected: ${what}`, { cause }), { code: 'HPE_INVALID' })

/** undici's errors as node:http's client named them (the gateway's outage detection reads these codes). */
function callerError(error: Error & { code?: string }): Error {
  const code = error.code ?? ''
  if (error instanceof errors.HTTPParserError || code.startsWith('HPE_')) return protocolError(error.message, error)
  if (code === 'UND_ERR_SOCKET') return /^bad /.test(error.message) ? protocolError(error.message, error) : hangUp(error)
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED' || code === 'UND_ERR_ABORTED') return hangUp(error)
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH') return protocolError(error.message, error)
  return error // a network error (ECONNREFUSED, ...) as node:net gave it
}

/** Collects one answer: the final status and headers (interim 1xx answers are skipped by undici) and the body's chunks. */
class Collector implements Dispatcher.DispatchHandler {
  private status = 0
  private headers: Record<string, string> = {}
  private chunks: Buffer[] = []
  constructor(private readonly resolve: (answer: ClientAnswer) => void, private readonly reject: (error: Error) => void) {}

  /** undici tells a new-style handler (this one) from a legacy one by this method. */
  onRequestStart() {}

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>) {
    this.status = status
    const joined: Record<string, string> = {}
    for (const name in headers) {
      const value = headers[name]
      if (value !== undefined) joined[name] = typeof value === 'string' ? value : value.join(', ')
    }
    this.headers = joined
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer) {
    this.chunks.push(chunk)
  }

  onResponseEnd() {
    const chunks = this.chunks
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
    this.resolve({ status: this.status, headers: this.headers, body })
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error) {
    this.reject(callerError(error))
  }
}

/** Kept-alive connections to one subgraph (host and port of its URL), one request at a time on each. */
export class SubgraphClient {
  private readonly pool: Pool
  readonly path: string

  constructor(url: string) {
    const u = new URL(url)
    if (u.protocol !== 'http:') throw new Error(`A subgraph URL is http: (${url})`)
    this.path = `${u.pathname}${u.search}`
    this.pool = new Pool(u.origin, {
      connections: MAX_SOCKETS,
      pipelining: 1,
      // an idle socket is closed after 30 s, or sooner when the subgraph's Keep-Alive hint says so (less 1 s); idle
      // sockets and undici's timers are unref'd, so they never hold the process open
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
      keepAliveTimeoutThreshold: 1_000,
      // no deadline of its own, as before (node:http's client had none either): the caller's request bounds a call
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { noDelay: true },
    })
  }

  /** Sockets open now, idle or answering (tests read it). */
  get sockets(): number { return this.pool.stats.connected }

  /** POSTs `body` (JSON) with `headers`; resolves with the answer, rejects on a network failure or a malformed answer. */
  post(headers: Record<string, string>, body: string): Promise<ClientAnswer> {
    const flat: string[] = ['content-type', 'application/json']
    for (const name in headers) {
      const value = headers[name]
      if (INVALID_NAME.test(name) || INVALID_VALUE.test(value)) return Promise.reject(Object.assign(new TypeError(`Invalid character in header ${JSON.stringify(name)}`), { code: 'ERR_INVALID_CHAR' }))
      flat.push(name, value)
    }
    return new Promise<ClientAnswer>((resolve, reject) => {
      this.pool.dispatch({ method: 'POST', path: this.path, headers: flat, body }, new Collector(resolve, reject))
    })
  }

  /** Closes every socket (the gateway's shutdown; an answer being read fails, as do calls still waiting). */
  close() {
    this.pool.destroy().catch(() => {})
  }
}
