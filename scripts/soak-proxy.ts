// A small round-robin load balancer for the soak (npm run soak): HTTP and WebSocket upgrades, spread over replicas in
// turn. A replica that refuses the connection (killed, restarting) is skipped and the request goes to the next one —
// nothing was sent to it, so nothing is sent twice. A replica that dies mid-request answers 502 to that request only.
import http from 'node:http'
import net from 'node:net'

export interface Target { host: string; port: number }

export interface RoundRobinProxy {
  url: string
  port: number
  close(): Promise<void>
  stats: { requests: number; refusedTargets: number; upgrades: number }
}

export async function startRoundRobinProxy(targets: Target[], port = 0): Promise<RoundRobinProxy> {
  let next = 0
  const order = () => { const start = next++ % targets.length; return targets.map((_, i) => targets[(start + i) % targets.length]) }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const stats = { requests: 0, refusedTargets: 0, upgrades: 0 }
  const sockets = new Set<net.Socket>()

  const server = http.createServer((req, res) => {
    stats.requests++
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const candidates = order()
      const attempt = (i: number) => {
        const target = candidates[i]
        const upstream = http.request({ host: target.host, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
          up.on('error', () => res.destroy())
        })
        upstream.on('error', (err: NodeJS.ErrnoException) => {
          if (res.headersSent) return void res.destroy()
          // refused: the replica is down and received nothing, so the next one may serve the request
          if (err.code === 'ECONNREFUSED' && i + 1 < candidates.length) { stats.refusedTargets++; return attempt(i + 1) }
          res.writeHead(502, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ errors: [{ message: 'Bad gateway (replica failed mid-request).', extensions: { code: 'BAD_GATEWAY' } }] }))
        })
        upstream.end(body)
      }
      attempt(0)
    })
  })

  server.on('upgrade', (req, socket: net.Socket, head: Buffer) => {
    stats.upgrades++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    const candidates = order()
    const attempt = (i: number) => {
      const target = candidates[i]
      const upstream = net.connect(target.port, target.host)
      let connected = false
      upstream.once('connect', () => {
        connected = true
        sockets.add(upstream)
        upstream.on('close', () => { sockets.delete(upstream); socket.destroy() })
        socket.on('close', () => upstream.destroy())
        const lines = [`${req.method} ${req.url} HTTP/1.1`]
        for (let k = 0; k < req.rawHeaders.length; k += 2) lines.push(`${req.rawHeaders[k]}: ${req.rawHeaders[k + 1]}`)
        upstream.write(lines.join('\r\n') + '\r\n\r\n')
        if (head.length) upstream.write(head)
        upstream.pipe(socket)
        socket.pipe(upstream)
      })
      upstream.on('error', () => {
        if (!connected && i + 1 < candidates.length) { stats.refusedTargets++; return attempt(i + 1) }
        socket.destroy()
      })
    }
    attempt(0)
  })
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)) })

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
  const actual = (server.address() as net.AddressInfo).port
  return {
    url: `http://127.0.0.1:${actual}`, port: actual, stats,
    async close() {
      for (const s of sockets) s.destroy()
      agent.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

// As its own process (the soak runs its balancers apart from its load generator): argv[2] is JSON
// { name: [ports...] }; prints one JSON line { name: port } when every proxy listens, and runs until killed.
if (process.argv[1]?.endsWith('soak-proxy.ts') && process.argv[2]) {
  const config = JSON.parse(process.argv[2]) as Record<string, number[]>
  const ports: Record<string, number> = {}
  for (const [name, targets] of Object.entries(config)) {
    ports[name] = (await startRoundRobinProxy(targets.map((port) => ({ host: '127.0.0.1', port })))).port
  }
  process.stdout.write(JSON.stringify(ports) + '\n')
}
