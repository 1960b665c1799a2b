// Owns where an HTTP request goes: every request gets nosniff and is measured; the request guard (./request-guard.ts)
// answers refused callers and preflights; GraphQL on GRAPHQL_PATH goes to the edge pipeline (./graphql-http.ts) with a
// request id, a deadline and a trace span; everything else to Express (the REST routes and browser pages).
import type http from 'node:http'
import { randomUUID } from 'node:crypto'
import { log } from '../core/config'
import { withRequestId } from '../core/config'
import { httpMetrics } from '../core/config'
import { inServerSpan } from '../core/config'
import type { RequestGuard } from './request-guard'

/** Where GraphQL is served: HTTP and graphql-ws on the same path. */
export const GRAPHQL_PATH = '/graphql'

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void

export interface EdgeRoutes {
  guard: RequestGuard
  /** Runs one GraphQL request over HTTP (the edge pipeline). */
  graphql: Listener
  /** Everything that is not GraphQL (Express). */
  rest: Listener
  /** Called with each GraphQL response, so shutdown waits for it (core/http/http-drain.ts). */
  track(res: http.ServerResponse): void
  timeoutMs: number
}

/** The HTTP server's request listener. */
export function edgeRequestListener(routes: EdgeRoutes): Listener {
  const measure = httpMetrics('gateway')
  return (req, res) => {
    res.setHeader('X-Content-Type-Options', 'nosniff')
    const graphql = req.url === GRAPHQL_PATH || req.url?.startsWith(`${GRAPHQL_PATH}?`)
    measure(req, res, () => {
      if (routes.guard.answers(req, res)) return
      if (!graphql) return routes.rest(req, res)
      routes.track(res)
      const requestId = randomUUID()
      res.setHeader('x-request-id', requestId)
      answerTimeout(res, requestId, routes.timeoutMs)
      // logs and subgraph calls of this request carry its id
      withRequestId(requestId, () => inServerSpan(req, res, GRAPHQL_PATH, () => routes.graphql(req, res)))
    })
  }
}

/** A GraphQL request still unanswered after `timeoutMs` gets 503 TIMEOUT (its work is not awaited further). */
function answerTimeout(res: http.ServerResponse, requestId: string, timeoutMs: number) {
  res.setTimeout(timeoutMs, () => {
    if (res.headersSent) return
    log.warn('gateway.request_timeout', { requestId, timeoutMs })
    const body = JSON.stringify({ errors: [{ message: `The request took longer than ${timeoutMs / 1000} s.`, extensions: { code: 'TIMEOUT' } }] })
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end(body)
  })
}
