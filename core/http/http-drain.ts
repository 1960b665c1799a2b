// Owns closing an HTTP server gracefully (the gateway and every subgraph): stop accepting, let the requests in flight
// finish, up to a bound, then cut every socket that is left.
import type http from 'node:http'
import { env } from '../config'

/** How long close() lets requests in flight finish before it cuts their sockets (SHUTDOWN_GRACE_SECONDS unless given). */
export function drainableServer(httpServer: http.Server, graceMs?: number) {
  let inFlight = 0
  let drained: (() => void) | undefined
  return {
    /** Counts a request as in flight until its response closes. */
    track(res: http.ServerResponse) {
      inFlight++
      res.once('close', () => { if (--inFlight === 0) drained?.() })
    },
    /** Stops taking connections, waits for the requests in flight (up to the grace period), then closes every socket. */
    async close() {
      const closed = new Promise<void>((r) => httpServer.close(() => r()))
      httpServer.closeIdleConnections?.()
      if (inFlight > 0) {
        const drainMs = graceMs ?? env().SHUTDOWN_GRACE_SECONDS * 1000
        await new Promise<void>((r) => {
          const timer = setTimeout(r, drainMs)
          drained = () => { clearTimeout(timer); r() }
        })
      }
      httpServer.closeAllConnections?.()
      await closed
    },
  }
}
