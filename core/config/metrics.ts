// Owns the Prometheus metrics of every component (prom-client, text format on /metrics): HTTP requests by component,
// route and status with a latency histogram, jobs by task and outcome with a duration histogram, and subscriptions
// (open now, started, ended by code, events delivered). Per request the cost is one counter and one histogram update
// on response finish; gauges are read when scraped.
import type http from 'node:http'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export const registry = new Registry()
let defaults = false

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export const httpRequests = new Counter({
  name: 'ew_http_requests_total', help: 'HTTP requests answered, by component, route and status class.',
  labelNames: ['component', 'route', 'status'] as const, registers: [registry],
})
export const httpDuration = new Histogram({
  name: 'ew_http_request_duration_seconds', help: 'HTTP request latency, by component and route.',
  labelNames: ['component', 'route'] as const, buckets: BUCKETS, registers: [registry],
})
export const jobs = new Counter({
  name: 'ew_jobs_total', help: 'Jobs run by the worker, by task and outcome (success, error).',
  labelNames: ['task', 'outcome'] as const, registers: [registry],
})
export const jobDuration = new Histogram({
  name: 'ew_job_duration_seconds', help: 'Job run time, by task.', labelNames: ['task'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers: [registry],
})
export const subscriptionsStarted = new Counter({
  name: 'ew_subscriptions_started_total', help: 'Subscriptions started at this gateway.', registers: [registry],
})
export const subscriptionEvents = new Counter({
  name: 'ew_subscription_events_total', help: 'Subscription events sent to clients by this gateway.', registers: [registry],
})
export const subscriptionsEnded = new Counter({
  name: 'ew_subscriptions_ended_total', help: 'Subscriptions ended by the service with an error code (SUBSCRIPTION_INTERRUPTED, SLOW_CONSUMER, ...).',
  labelNames: ['code'] as const, registers: [registry],
})

/** A gauge read at scrape time (open subscriptions, LISTEN connected, ...): no per-event work. */
export function gaugeOf(name: string, help: string, read: () => number) {
  if (registry.getSingleMetric(name)) registry.removeSingleMetric(name)
  return new Gauge({ name, help, registers: [registry], collect() { this.set(read()) } })
}

/** Process metrics (CPU, memory, event-loop lag, GC) with a `component` label; once per process. */
export function enableDefaultMetrics(component: string) {
  if (defaults) return
  defaults = true
  registry.setDefaultLabels({ component })
  collectDefaultMetrics({ register: registry, prefix: 'ew_' })
}

const routeOf = (url: string | undefined) => {
  if (!url) return 'other'
  if (url.startsWith('/graphql')) return 'graphql'
  if (url.startsWith('/hooks/') || url.startsWith('/api/v1/hooks/')) return 'hooks'
  if (url.startsWith('/runs/')) return 'mcp'
  if (url === '/healthz' || url === '/readyz' || url === '/metrics') return 'probe'
  return 'other'
}

/** Express middleware: counts and times every response when it finishes. */
export function httpMetrics(component: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => {
    const start = process.hrtime.bigint()
    const route = routeOf(req.url)
    res.once('finish', () => {
      httpRequests.inc({ component, route, status: `${Math.floor(res.statusCode / 100)}xx` })
      httpDuration.observe({ component, route }, Number(process.hrtime.bigint() - start) / 1e9)
    })
    next()
  }
}

/** GET /metrics handler (Prometheus text format). */
export async function metricsHandler(_req: unknown, res: { setHeader(n: string, v: string): unknown; end(body: string): unknown }) {
  res.setHeader('content-type', registry.contentType)
  res.end(await registry.metrics())
}
