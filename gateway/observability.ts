// Owns what the gateway reports about itself (HTTP metrics for every route are taken in ./routing.ts, around both the
// GraphQL pipeline and Express): subscription counters and the open
// subscription gauge, and /metrics (Prometheus text) answered only to METRICS_ALLOW (default: loopback) — the public
// port must not publish internal figures; a scraper inside the network is listed there.
import type express from 'express'
import type { ExecutionResult } from 'graphql'
import { parseAddressRanges, normalizeAddress } from '../core/config'
import { enableDefaultMetrics, gaugeOf, metricsHandler, subscriptionEvents, subscriptionsEnded, subscriptionsStarted } from '../core/config'

const ENDING_CODES = new Set(['SUBSCRIPTION_INTERRUPTED', 'SLOW_CONSUMER', 'SERVICE_UNAVAILABLE', 'UNAUTHENTICATED'])

export function installGatewayObservability(app: express.Express, bridge: { activeCount: number }) {
  enableDefaultMetrics('gateway')
  gaugeOf('ew_subscriptions_open', 'Subscriptions open at this gateway now.', () => bridge.activeCount)
  const allowed = parseAddressRanges(process.env.METRICS_ALLOW ?? '127.0.0.0/8,::1/128')
  app.get('/metrics', (req, res, next) => {
    if (!allowed.has(normalizeAddress(req.socket.remoteAddress))) return void res.status(404).end()
    void metricsHandler(req, res).catch(next)
  })
}

/** graphql-ws hooks: a subscription started; an event (or the error that ends a stream) sent. */
export const wsMetrics = {
  started() { subscriptionsStarted.inc() },
  sent(result: ExecutionResult) {
    const code = result.errors?.[0]?.extensions?.code
    if (typeof code === 'string' && ENDING_CODES.has(code)) subscriptionsEnded.inc({ code })
    else subscriptionEvents.inc()
  },
}
