// Owns the gateway's HTTP/1.1 connections to the subgraphs: kept-alive sockets per subgraph and one request at a time
// on each, written and read here rather than through node:http's client. The subgraphs are the gateway's own servers on
// a private network, so the client needs only what they answer (a status, headers, a body framed by Content-Length,
// chunked, or the connection's close); node:http's ClientRequest, agent and IncomingMessage cost about as much CPU per
// call as the rest of a one-fetch query's work in the gateway (issue 38 profile: a one-fetch proxy used 0.17 ms of CPU
// per request over node:http, 0.07 to 0.09 ms over a socket written and read directly).
import net from 'node:net'

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
/** A response head larger than this is not a subgraph's (node:http's default limit is 16 KiB). */
const MAX_HEAD_BYTES = 64 * 1024
const HEAD_END = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')
/** What may not appear in a header name or value we write (request smuggling); node:http refuses the same. */
const INVALID_NAME = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
const protocolError = (what: string) => Object.assign(new Error(`Subgraph answer is not HTTP/1.1 as expected: ${what}`), { code: 'HPE_INVALID' })

/** One kept-alive socket to a subgraph and the response it is reading, if any. */
class Connection {
  readonly socket: net.Socket
  idleSince = 0
  private resolve?: (answer: ClientAnswer) => void
  private reject?: (error: Error) => void
  private buffered: Buffer | null = null
  private head?: { status: number; headers: Record<string, string>; close: boolean }
  /** 'length': `remaining` bytes to come; 'chunked': decoding chunks; 'close': the body ends with the connection */
  private framing: 'length' | 'chunked' | 'close' = 'length'
  private remaining = 0
  private body: Buffer[] = []
  private closed = false

  constructor(host: string, port: number, private readonly release: (c: Connection) => void, private readonly forget: (c: Connection) => void) {
    this.socket = net.connect({ host, port, noDelay: true })
    this.socket.on('data', (d: Buffer) => this.onData(d))
    this.socket.on('error', (e) => this.fail(e))
    // the subgraph ended an idle socket: out of the idle list at once, so no call is written to it meanwhile
    this.socket.on('end', () => { if (!this.resolve) this.destroy() })
    this.socket.on('close', () => this.fail(hangUp()))
  }

  get busy(): boolean { return this.resolve !== undefined }

  send(text: string): Promise<ClientAnswer> {
    return new Promise<ClientAnswer>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
      this.buffered = null
      this.head = undefined
      this.body = []
      this.socket.write(text)
    })
  }

  destroy() {
    this.closed = true
    this.socket.destroy()
  }

  private fail(error: Error) {
    const wasClosed = this.closed
    this.closed = true
    this.forget(this)
    if (!wasClosed) this.socket.destroy()
    const reject = this.reject
    if (!reject) return
    // a body that ends with the connection is complete when it closes
    if (this.head && this.framing === 'close' && error.message === 'socket hang up') return this.finish(Buffer.concat(this.body), false)
    this.resolve = this.reject = undefined
    reject(error)
  }

  private finish(body: Buffer, reusable: boolean) {
    const resolve = this.resolve!
    const head = this.head!
    this.resolve = this.reject = undefined
    this.buffered = null
    this.body = []
    this.head = undefined
    if (reusable && !head.close && !this.closed) this.release(this)
    else this.destroy()
    resolve({ status: head.status, headers: head.headers, body })
  }

  private onData(data: Buffer) {
    if (!this.resolve) return this.destroy() // bytes nobody asked for: the connection cannot be trusted
    let buf = this.buffered ? Buffer.concat([this.buffered, data]) : data
    this.buffered = null
    try {
      while (!this.head) {
        const end = buf.indexOf(HEAD_END)
        if (end < 0) {
          if (buf.length > MAX_HEAD_BYTES) throw protocolError('head too large')
          this.buffered = buf
          return
        }
        const head = parseHead(buf.toString('latin1', 0, end))
        buf = buf.subarray(end + 4)
        if (head.status >= 100 && head.status < 200) continue // an interim answer: the final one follows
        this.head = head
        const te = head.headers['transfer-encoding']
        const length = head.headers['content-length']
        if (head.status === 204 || head.status === 304) { this.framing = 'length'; this.remaining = 0 }
        else if (te !== undefined) {
          if (!/(^|,)\s*chunked\s*$/i.test(te)) throw protocolError(`transfer-encoding ${te}`)
          this.framing = 'chunked'
        } else if (length !== undefined) {
          if (!/^\d+$/.test(length)) throw protocolError(`content-length ${length}`)
          this.framing = 'length'
          this.remaining = Number(length)
        } else this.framing = 'close'
      }
      if (this.framing === 'length') {
        if (buf.length > this.remaining) throw protocolError('more bytes than its content-length')
        if (buf.length) this.body.push(buf)
        this.remaining -= buf.length
        if (this.remaining === 0) this.finish(this.body.length === 1 ? this.body[0] : Buffer.concat(this.body), true)
        return
      }
      if (this.framing === 'close') {
        if (buf.length) this.body.push(buf)
        return
      }
      this.readChunks(buf)
    } catch (e) {
      this.fail(e as Error)
    }
  }

  /** Chunked transfer coding: size line, data, CRLF, ...; a zero size, trailers and an empty line end it. */
  private readChunks(buf: Buffer) {
    for (;;) {
      if (this.remaining > 0) {
        // inside a chunk's data (remaining counts its trailing CRLF too)
        const take = Math.min(this.remaining, buf.length)
        const dataLeft = this.remaining - 2
        if (dataLeft > 0) this.body.push(buf.subarray(0, Math.min(take, dataLeft)))
        this.remaining -= take
        buf = buf.subarray(take)
        if (this.remaining > 0) return
        continue
      }
      const eol = buf.indexOf(CRLF)
      if (eol < 0) {
        if (buf.length > MAX_HEAD_BYTES) throw protocolError('chunk size line too long')
        if (buf.length) this.buffered = buf
        return
      }
      const line = buf.toString('latin1', 0, eol)
      const size = parseInt(line.split(';')[0].trim(), 16)
      if (!/^[0-9a-fA-F]+$/.test(line.split(';')[0].trim()) || !Number.isSafeInteger(size)) throw protocolError(`chunk size ${line.slice(0, 40)}`)
      if (size === 0) {
        // the last chunk: trailers (ignored) up to an empty line
        const rest = buf.subarray(eol + 2)
        const end = rest.indexOf(CRLF) === 0 ? 0 : rest.indexOf(HEAD_END)
        if (end < 0) {
          this.buffered = buf
          return
        }
        const after = rest.subarray(end === 0 ? 2 : end + 4)
        if (after.length) throw protocolError('bytes after the last chunk')
        return this.finish(Buffer.concat(this.body), true)
      }
      this.remaining = size + 2
      buf = buf.subarray(eol + 2)
    }
  }
}

function parseHead(text: string): { status: number; headers: Record<string, string>; close: boolean } {
  const lines = text.split('\r\n')
  const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0])
  if (!m) throw protocolError(`status line ${lines[0].slice(0, 40)}`)
  const headers: Record<string, string> = {}
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]
    const colon = line.indexOf(':')
    if (colon <= 0) throw protocolError(`header line ${line.slice(0, 40)}`)
    const name = line.slice(0, colon).toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const connection = headers.connection?.toLowerCase() ?? ''
  // HTTP/1.0 closes unless asked to keep alive; HTTP/1.1 keeps alive unless told to close
  const close = m[1] === '0' ? !/\bkeep-alive\b/.test(connection) : /\bclose\b/.test(connection)
  return { status: Number(m[2]), headers, close }
}

/** Kept-alive connections to one subgraph (host and port of its URL), one request at a time on each. */
export class SubgraphClient {
  private readonly idle: Connection[] = []
  private readonly open = new Set<Connection>()
  /** calls waiting for a socket while MAX_SOCKETS are busy, first come first served */
  private readonly waiting: { text: string; resolve: (a: ClientAnswer) => void; reject: (e: Error) => void }[] = []
  private sweeper?: NodeJS.Timeout
  private readonly host: string
  private readonly port: number
  private readonly hostHeader: string
  readonly path: string

  constructor(url: string) {
    const u = new URL(url)
    if (u.protocol !== 'http:') throw new Error(`A subgraph URL is http: (${url})`)
    this.host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname
    this.port = Number(u.port || 80)
    this.hostHeader = u.host
    this.path = `${u.pathname}${u.search}`
  }

  /** Sockets open now, idle or answering (tests read it). */
  get sockets(): number { return this.open.size }

  /** POSTs `body` (JSON) with `headers`; resolves with the answer, rejects on a network failure or a malformed answer. */
  post(headers: Record<string, string>, body: string): Promise<ClientAnswer> {
    let head = `POST ${this.path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
    for (const name in headers) {
      const value = headers[name]
      if (INVALID_NAME.test(name) || INVALID_VALUE.test(value)) return Promise.reject(Object.assign(new TypeError(`Invalid character in header ${JSON.stringify(name)}`), { code: 'ERR_INVALID_CHAR' }))
      head += `${name}: ${value}\r\n`
    }
    const text = `${head}\r\n${body}`
    const c = this.connection()
    if (c) return c.send(text)
    return new Promise<ClientAnswer>((resolve, reject) => this.waiting.push({ text, resolve, reject }))
  }

  /** Closes every socket (the gateway's shutdown; an answer being read fails). */
  close() {
    clearInterval(this.sweeper)
    this.sweeper = undefined
    for (const c of [...this.open]) c.destroy()
    this.idle.length = 0
    for (const w of this.waiting.splice(0)) w.reject(hangUp())
  }

  /** An idle socket, or a new one while fewer than MAX_SOCKETS are open; undefined when the call must wait. */
  private connection(): Connection | undefined {
    const now = Date.now()
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (now - c.idleSince < IDLE_SOCKET_MS) {
        c.socket.ref()
        return c
      }
      c.destroy()
    }
    if (this.open.size >= MAX_SOCKETS) return undefined
    const c = new Connection(this.host, this.port, (done) => this.release(done), (gone) => this.forget(gone))
    this.open.add(c)
    return c
  }

  private release(c: Connection) {
    const next = this.waiting.shift()
    if (next) return void c.send(next.text).then(next.resolve, next.reject)
    c.idleSince = Date.now()
    c.socket.unref() // an idle socket never holds the process open (node:http's agent unrefs its free sockets too)
    this.idle.push(c) // last in, first out: the warmest socket is reused and the coldest age out
    if (!this.sweeper) {
      // closes sockets idle too long, so a subgraph never closes one under a request we are writing
      this.sweeper = setInterval(() => this.sweep(), IDLE_SOCKET_MS / 3).unref()
    }
  }

  private forget(c: Connection) {
    if (!this.open.delete(c)) return
    const i = this.idle.indexOf(c)
    if (i >= 0) this.idle.splice(i, 1)
    // a socket closed: a waiting call may open one in its place
    const next = this.waiting.length ? this.connection() : undefined
    if (next) {
      const w = this.waiting.shift()!
      next.send(w.text).then(w.resolve, w.reject)
    }
  }

  private sweep() {
    const now = Date.now()
    for (const c of [...this.idle]) if (now - c.idleSince >= IDLE_SOCKET_MS) c.destroy()
    if (this.open.size === 0) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }
}
