// Owns the request id that follows one request through the gateway, the subgraphs it calls and the jobs it enqueues:
// held in an AsyncLocalStorage for the request's (or job's) async work, stamped on every log line written meanwhile
// (core/config/log.ts), sent to subgraphs as X-Request-Id, and carried in the payload of jobs enqueued through
// core/jobs/jobs.ts (as `_rid`, removed before the task's payload schema sees it).
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'

export const REQUEST_ID_HEADER = 'x-request-id'
/** What a request id may look like when it arrives from outside (the gateway) or from the gateway (a subgraph). */
export const REQUEST_ID_PATTERN = /^[\w-]{1,64}$/
/** Where a job's payload carries the request id of the request that enqueued it. */
export const JOB_REQUEST_ID_FIELD = '_rid'

const store = new AsyncLocalStorage<string>()

export function currentRequestId(): string | undefined {
  return store.getStore()
}

export function withRequestId<T>(requestId: string, f: () => T): T {
  return store.run(requestId, f)
}

/** A valid incoming id, else a fresh one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header
  return v && REQUEST_ID_PATTERN.test(v) ? v : randomUUID()
}

/**
 * Express middleware: the request runs with its id (the incoming X-Request-Id when `trustIncoming` and well formed,
 * else a new one), which is also answered in X-Request-Id.
 */
export function requestIdMiddleware(trustIncoming: boolean) {
  return (req: { headers: Record<string, string | string[] | undefined> }, res: { setHeader(n: string, v: string): unknown }, next: () => void) => {
    const id = trustIncoming ? requestIdFrom(req.headers[REQUEST_ID_HEADER]) : randomUUID()
    res.setHeader(REQUEST_ID_HEADER, id)
    store.run(id, next)
  }
}
