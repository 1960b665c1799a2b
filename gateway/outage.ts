// Owns the gateway's answer during a PostgreSQL outage: 503 with Retry-After (never a hang, never a masked 500), for the
// gateway's own reads (the per-request session stamp) and for subgraphs that answered SERVICE_UNAVAILABLE.
import type { ApolloServerPlugin } from '@apollo/server'
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE, serviceUnavailable } from '../core/db-outage'

/** Wraps a context function: a database that cannot be reached becomes SERVICE_UNAVAILABLE (HTTP 503, Retry-After). */
export function outageGuard<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try { return await fn(...args) } catch (e) { throw isDatabaseUnavailable(e) ? serviceUnavailable() : e }
  }
}

const unavailable = (e: { extensions?: Record<string, any> }) =>
  e.extensions?.code === SERVICE_UNAVAILABLE
  // a subgraph that could not build its context answers 503 itself: the gateway reports that answer's status
  || e.extensions?.response?.status === 503

/** Answers 503 with Retry-After when any error of the result says the service (its database) is unavailable. */
export const outagePlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined
        if (!errors?.some(unavailable)) return
        response.http.status = 503
        response.http.headers.set('retry-after', String(OUTAGE_RETRY_AFTER_SECONDS))
      },
    }
  },
}
