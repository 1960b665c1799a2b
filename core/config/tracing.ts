// Owns OpenTelemetry tracing: whether it is on (the standard OTEL_* variables; off by default), starting the SDK
// (./tracing-sdk.ts, imported only when on, so a process without OTEL_* configuration never loads it), and the few
// helpers the code calls around the work worth a span: a request served, a subgraph fetch sent, a job run, a
// subscription bridged, with the W3C traceparent carried on HTTP calls and in job payloads. When tracing is off every
// helper runs the work directly (one variable read), which `npm run bench -- throughput` measures against on.
import type http from 'node:http'
import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes, type Context, type Link, type Span, type Tracer } from '@opentelemetry/api'

export { SpanKind }

/** Where a job's payload carries the traceparent of the request that enqueued it (removed before the task's payload schema sees it). */
export const JOB_TRACEPARENT_FIELD = '_tp'

let tracer: Tracer | undefined
let sdk: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined

const truthy = (v: string | undefined) => v?.trim().toLowerCase() === 'true'

/**
 * Whether the OTEL_* variables ask for traces: not when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none; yes when
 * OTEL_TRACES_EXPORTER names an exporter, or an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, the exporter then being otlp).
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (truthy(env.OTEL_SDK_DISABLED)) return false
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((s) => s.trim()).filter(Boolean) ?? []
  if (exporters.includes('none')) return false
  if (exporters.length) return true
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
}

/** Whether spans are being made in this process. */
export const tracingOn = () => tracer !== undefined

/**
 * Starts tracing for this process when the OTEL_* variables ask for it (`serviceName` unless OTEL_SERVICE_NAME says
 * otherwise); does nothing otherwise. Safe to call more than once (the first call wins).
 */
export async function startTracing(serviceName: string): Promise<boolean> {
  if (tracer) return true
  if (!tracingConfigured()) return false
  const { startTracingSdk } = await import('./tracing-sdk')
  sdk = await startTracingSdk(serviceName)
  tracer = trace.getTracer('evidence-workspace')
  return true
}

/** Sends the spans not exported yet (a test reads them; a process about to exit). */
export async function flushTracing(): Promise<void> {
  await sdk?.forceFlush()
}

/** Flushes and stops tracing (a process's stop). */
export async function stopTracing(): Promise<void> {
  const running = sdk
  sdk = undefined
  tracer = undefined
  await running?.shutdown()
}

/** Runs `work` in a span (ended when its promise settles, recording a thrown error); without tracing, just runs it. */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span | undefined) => Promise<T>, parent?: Context, links?: Link[]): Promise<T> {
  if (!tracer) return work(undefined)
  return tracer.startActiveSpan(name, { kind, attributes, links }, parent ?? context.active(), async (span) => {
    try {
      return await work(span)
    } catch (e) {
      span.recordException(e as Error)
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) })
      throw e
    } finally {
      span.end()
    }
  })
}

/**
 * Runs `work` in a span starting a trace of its own, linked to the span current now (a subscription's events: each
 * is its own trace, linked to the subscribe that asked for it, rather than one trace as long as the subscription).
 */
export function linkedRoot(): { run<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span | undefined) => Promise<T>): Promise<T> } {
  const current = tracer ? trace.getActiveSpan()?.spanContext() : undefined
  const links = current ? [{ context: current }] : undefined
  return { run: (name, kind, attributes, work) => inSpan(name, kind, attributes, work, ROOT_CONTEXT, links) }
}

/** Adds the current trace's `traceparent` (and `tracestate`) to outgoing headers; nothing without tracing. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (tracer) propagation.inject(context.active(), headers)
  return headers
}

/** The current trace as a W3C traceparent, for a job payload; undefined without tracing or outside a span. */
export function currentTraceparent(): string | undefined {
  if (!tracer || !trace.getActiveSpan()) return undefined
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent
}

/** The context a traceparent (from a request's headers or a job's payload) continues; undefined without tracing. */
export function contextOf(carrier: Record<string, unknown> | http.IncomingHttpHeaders | undefined): Context | undefined {
  if (!tracer || !carrier) return undefined
  return propagation.extract(context.active(), carrier, {
    keys: (c) => Object.keys(c),
    get: (c, key) => {
      const v = (c as Record<string, unknown>)[key]
      return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined
    },
  })
}

/**
 * Serves an HTTP request in a SERVER span continuing the caller's traceparent: named `<method> <route>`, with the
 * answer's status; ends when the answer is sent (or the connection closes). Without tracing, just serves it.
 */
export function inServerSpan(req: http.IncomingMessage, res: http.ServerResponse, route: string, serve: () => unknown): void {
  if (!tracer) return void serve()
  const span = tracer.startSpan(`${req.method} ${route}`, {
    kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'http.route': route, 'url.path': route },
  }, contextOf(req.headers))
  const end = () => {
    span.setAttribute('http.response.status_code', res.statusCode)
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
  }
  res.once('finish', end)
  res.once('close', () => { if (!res.writableFinished) end() })
  context.with(trace.setSpan(context.active(), span), serve)
}

/** Names the current span after the GraphQL operation it runs (`query Inbox`), when tracing. */
export function nameOperationSpan(operationType: string, operationName: string | undefined): void {
  if (!tracer) return
  const span = trace.getActiveSpan()
  if (!span) return
  span.setAttribute('graphql.operation.type', operationType)
  if (operationName) span.setAttribute('graphql.operation.name', operationName)
}
