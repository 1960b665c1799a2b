// Starts an HTTP handler on a host/port (port 0 in tests) and closes it without waiting for keep-alive sockets.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'

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

/** A fake vendor listening: where it answers and how to stop it (close(), or `await using`). */
export interface ListeningFake {
  url: string
  port: number
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** An Express app for a fake vendor: no X-Powered-By and no ETag (a fake answers from its state, never a 304). */
export function fakeVendorApp(): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  return app
}

/** Listens with `handler` (port 0 and 127.0.0.1 unless given) as a ListeningFake. */
export async function listenFake(handler: http.RequestListener, options: { port?: number; host?: string } = {}): Promise<ListeningFake> {
  const l = await listen(handler, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' })
  return { url: l.url, port: l.port, close: l.close, [Symbol.asyncDispose]: l.close }
}
