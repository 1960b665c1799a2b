// The gateway's HTTP/1.1 client to the subgraphs (gateway/subgraph-client.ts): what it reads of an answer however the
// body is framed, keep-alive and its limits, and what it refuses. Servers here are node:http (as the subgraphs) or raw
// sockets (for answers node:http would not send).
import { execFile } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { SubgraphClient } from '../../gateway/subgraph-client'

const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function listen(server: http.Server | net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise<void>((resolve) => {
    if (server instanceof http.Server) server.closeAllConnections()
    server.close(() => resolve())
  }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`
}

function clientOf(url: string) {
  const client = new SubgraphClient(url)
  closers.push(() => client.close())
  return client
}

/** A raw server answering every request with `answer` (written as given), then doing `after` with the socket. */
function rawServer(answer: string | Buffer, after: (s: net.Socket) => void = () => {}) {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let seen = ''
    socket.on('data', (d) => {
      seen += d.toString('latin1')
      const head = seen.indexOf('\r\n\r\n')
      if (head < 0) return
      const length = Number(/content-length: (\d+)/i.exec(seen.slice(0, head))?.[1] ?? 0)
      if (seen.length < head + 4 + length) return
      seen = ''
      socket.write(answer)
      after(socket)
    })
  })
  closers.push(() => { for (const s of sockets) s.destroy() })
  return server
}

describe('the gateway\'s client to the subgraphs', () => {
  it('sends the headers and body it is given and reads status, headers and body, over one kept-alive socket for calls one after another', async () => {
    const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string; port?: number }[] = []
    const url = await listen(http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => { body += c })
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body, port: req.socket.remotePort })
        const text = JSON.stringify({ data: { echo: JSON.parse(body).query, é: 'ü' } })
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'x-graphql-data-only': '1' }).end(text)
      })
    }))
    const client = clientOf(url)
    for (let i = 0; i < 3; i++) {
      // a socket is reused from the event loop's next turn on (undici's pool waits one turn after an answer before
      // writing another call on its socket); a call made sooner opens a second socket, up to the limit
      if (i > 0) await new Promise((resolve) => setImmediate(resolve))
      const answer = await client.post({ 'x-internal-token': `t${i}`, 'x-request-id': 'r' }, JSON.stringify({ query: `{ a${i} }` }))
      expect(answer.status).toBe(200)
      expect(answer.headers['x-graphql-data-only']).toBe('1')
      expect(answer.body.toString('utf8')).toBe(JSON.stringify({ data: { echo: `{ a${i} }`, é: 'ü' } }))
    }
    expect(seen.map((s) => [s.method, s.url, s.headers['x-internal-token'], s.headers['content-type'], s.headers.host, s.body])).toEqual(
      [0, 1, 2].map((i) => ['POST', '/graphql', `t${i}`, 'application/json', new URL(url).host, JSON.stringify({ query: `{ a${i} }` })]))
    expect(new Set(seen.map((s) => s.port)).size).toBe(1)
    expect(client.sockets).toBe(1)
  })

  it('reads a chunked body, an empty one, and one that ends with the connection', async () => {
    const chunked = await listen(http.createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(503, { 'content-type': 'application/json' })
        res.write('{"errors":[')
        setTimeout(() => { res.write('{"message":"later"}'); res.end(']}') }, 5)
      })
    }))
    const answer = await clientOf(chunked).post({}, '{}')
    expect([answer.status, answer.headers['transfer-encoding'], answer.body.toString()]).toEqual([503, 'chunked', '{"errors":[{"message":"later"}]}'])

    const empty = await listen(http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(204).end()) }))
    const none = await clientOf(empty).post({}, '{}')
    expect([none.status, none.body.length]).toEqual([204, 0])

    const untilClose = await listen(rawServer('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"data":{"a":1}}', (s) => s.end()))
    const closed = await clientOf(untilClose).post({}, '{}')
    expect([closed.status, closed.body.toString()]).toEqual([200, '{"data":{"a":1}}'])
  })

  it('skips an interim answer and joins a repeated header as node:http does, and refuses a 100 Continue it did not ask for', async () => {
    const url = await listen(rawServer('HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nVary: a\r\nvary: b\r\nContent-Length: 2\r\n\r\n{}'))
    const answer = await clientOf(url).post({}, '{}')
    expect([answer.status, answer.headers.vary, answer.headers.link, answer.body.toString()]).toEqual([200, 'a, b', undefined, '{}'])
    const unasked = await listen(rawServer('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'))
    await expect(clientOf(unasked).post({}, '{}')).rejects.toMatchObject({ code: 'HPE_INVALID' })
  })

  it('rejects when the subgraph closes the connection before its answer is complete, or answers what is not HTTP', async () => {
    const cut = await listen(rawServer('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"data"', (s) => s.destroy()))
    await expect(clientOf(cut).post({}, '{}')).rejects.toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' })
    const garbage = await listen(rawServer('SMTP ready\r\n\r\n'))
    await expect(clientOf(garbage).post({}, '{}')).rejects.toMatchObject({ code: 'HPE_INVALID' })
    const tooLong = await listen(rawServer('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n{}'))
    // bytes beyond the declared length: the answer is what was declared, and the socket is never used again
    const overlong = clientOf(tooLong)
    expect((await overlong.post({}, '{}')).body.toString()).toBe('{')
    await expect.poll(() => overlong.sockets).toBe(0)
  })

  it('rejects a refused connection with its code, as a subgraph that is down', async () => {
    const server = net.createServer()
    const url = await listen(server)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await expect(clientOf(url).post({}, '{}')).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  it('refuses a header whose name or value would split the request', async () => {
    const client = clientOf('http://127.0.0.1:9/graphql')
    await expect(client.post({ 'x-request-id': 'a\r\nx-internal-token: forged' }, '{}')).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' })
    await expect(client.post({ 'x-a\r\nb': 'c' }, '{}')).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' })
    expect(client.sockets).toBe(0)
  })

  it('opens at most 256 sockets to a subgraph and answers the calls beyond them in turn', async () => {
    let open = 0
    let most = 0
    const server = http.createServer((req, res) => {
      req.resume()
      req.on('end', () => setTimeout(() => res.writeHead(200, { 'content-length': 2 }).end('{}'), 20))
    })
    server.on('connection', (s) => { open++; most = Math.max(most, open); s.on('close', () => open--) })
    const client = clientOf(await listen(server))
    const answers = await Promise.all(Array.from({ length: 300 }, () => client.post({}, '{}')))
    expect(answers.every((a) => a.status === 200 && a.body.toString() === '{}')).toBe(true)
    expect(most).toBe(256)
    expect(client.sockets).toBe(256)
  })

  it('opens a new socket when the subgraph closed an idle one', async () => {
    const url = await listen(rawServer('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', (s) => s.end()))
    const client = clientOf(url)
    expect((await client.post({}, '{}')).status).toBe(200)
    expect((await client.post({}, '{}')).status).toBe(200)
    await expect.poll(() => client.sockets).toBe(0)
  })

  it('leaves an idle kept-alive socket open without holding the process open', async () => {
    const url = await listen(http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'content-length': 2 }).end('{}')) }))
    const client = new URL('../../gateway/subgraph-client.ts', import.meta.url).pathname
    const script = `import { SubgraphClient } from ${JSON.stringify(client)}; const c = new SubgraphClient(${JSON.stringify(url)}); const a = await c.post({}, '{}'); console.log(a.status, c.sockets)`
    const started = Date.now()
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 })
    expect(stdout.trim()).toBe('200 1')
    expect(Date.now() - started).toBeLessThan(15_000) // well before the 30 s idle close
  })
})
