// Starts an HTTP handler on a host/port (port 0 in tests) and closes it without waiting for keep-alive sockets.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Listening {
  server: http.Server
  url: string
  port: number
  close(): Promise<void>
}

export async function listen(
  handler: http.RequestListener,
  { port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {},
): Promise<Listening> {
  const server = http.createServer(handler)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    server,
    port: address.port,
    url: `http://${urlHost}:${address.port}`,
    close() {
      // Idempotent so that both `await using` and an explicit close() in a test are safe.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      })
      return closing
    },
  }
}
