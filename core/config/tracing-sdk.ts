// Owns the OpenTelemetry SDK of a process with tracing on (imported by ./tracing.ts only then): the Node SDK configured
// by the standard OTEL_* variables (exporter, OTLP endpoint and protocol, headers, sampler, propagators, resource),
// traces only (metrics stay Prometheus, core/config/metrics.ts), and SQL spans at the pg level (every Prisma and raw query
// goes through pg.Client#query). OTLP over HTTP (protobuf by default, JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json)
// or gRPC.
import pg from 'pg'
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'

/** A statement is recorded up to this length (text only: the values travel as parameters and are never recorded). */
const STATEMENT_MAX = 2_000

export async function startTracingSdk(serviceName: string) {
  // traces only: without these the SDK would also push OTLP metrics and logs by default
  process.env.OTEL_METRICS_EXPORTER ??= 'none'
  process.env.OTEL_LOGS_EXPORTER ??= 'none'
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    instrumentations: [],
  })
  sdk.start()
  traceSql()
  return {
    forceFlush: async () => {
      const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void>; getDelegate?: () => { forceFlush?: () => Promise<void> } }
      await (provider.forceFlush?.() ?? provider.getDelegate?.().forceFlush?.())
    },
    shutdown: () => sdk.shutdown(),
  }
}

let sqlTraced = false

/**
 * Wraps pg.Client#query (Prisma's adapter-pg, graphile-worker and our raw SQL all call it) so that a query made inside
 * a traced operation is a CLIENT span under it; a query outside any span (pollers, LISTEN) makes none.
 */
function traceSql() {
  if (sqlTraced) return
  sqlTraced = true
  const tracer = trace.getTracer('evidence-workspace.sql')
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function tracedQuery(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; submit?: unknown } | undefined
    if (!trace.getActiveSpan() || (first && typeof first === 'object' && typeof first.submit === 'function')) return original.apply(this, args)
    const text = typeof first === 'string' ? first : first?.text ?? ''
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY'
    const span = tracer.startSpan(verb, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'postgresql', 'db.system': 'postgresql', 'db.operation.name': verb, 'db.query.text': text.slice(0, STATEMENT_MAX) },
    })
    const finish = (error?: unknown) => {
      if (error) {
        span.recordException(error as Error)
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message })
      }
      span.end()
    }
    const callbackAt = args.findIndex((a) => typeof a === 'function')
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as (error: unknown, result: unknown) => void
      args[callbackAt] = (error: unknown, result: unknown) => { finish(error); callback(error, result) }
      return context.with(trace.setSpan(context.active(), span), () => original.apply(this, args))
    }
    const result = context.with(trace.setSpan(context.active(), span), () => original.apply(this, args)) as Promise<unknown> | undefined
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(() => finish(), finish)
    else finish()
    return result
  } as typeof pg.Client.prototype.query
}
