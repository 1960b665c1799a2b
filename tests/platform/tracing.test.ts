// OpenTelemetry traces (issue 36 item 7), received the way a collector receives them: an OTLP/HTTP receiver run here
// (a real HTTP server decoding the JSON export, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) is the OTEL_EXPORTER_OTLP_ENDPOINT
// of this process, whose stack, worker and SQL then export their spans to it.
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { print } from 'graphql'
import { RoleHomeDocument } from '../../console/src/generated/graphql'
import { enqueue } from '../../core/jobs'
import { flushTracing, inSpan, SpanKind, startTracing, stopTracing, tracingConfigured } from '../../core/config'
import { useStack, gql, startTestWorker, waitFor, wsClient } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

interface ReceivedSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: Record<string, unknown>; service: string }

const received: ReceivedSpan[] = []
const requests: { path: string; contentType: string }[] = []
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '' })
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    for (const rs of body.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value?.stringValue
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]]))
          received.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, attributes, service })
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
})

const saved = { ...process.env }
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const { port } = receiver.address() as { port: number }
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'tracing-test', OTEL_BSP_SCHEDULE_DELAY: '50',
  })
  expect(await startTracing('evidence-workspace')).toBe(true)
})
const stack = useStack() // registered after the hook above: the stack starts with tracing on
afterAll(async () => {
  await stopTracing()
  await new Promise((resolve) => receiver.close(resolve))
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
})

const traceOf = (traceId: string) => received.filter((s) => s.traceId === traceId)
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId)
const descendantsOf = (spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] =>
  childrenOf(spans, parent).flatMap((c) => [c, ...descendantsOf(spans, c)])

describe('tracing', () => {
  it('is on only when the OTEL_* variables ask for it', () => {
    expect(tracingConfigured({})).toBe(false)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true)
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true)
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false)
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false)
  })

  it('shows one console query as one trace: the gateway, every subgraph fetch, the subgraph serving it and its SQL', async () => {
    const t = await createTenant(stack.db.db)
    const token = await t.token('program_lead')
    const res = await gql(`${stack.current.gatewayUrl}/graphql`, print(RoleHomeDocument), { slug: t.program.slug }, token)
    expect(res.body.errors).toBeUndefined()
    expect(res.body.data.program.id).toBe(t.program.id)
    await flushTracing()
    let root: ReceivedSpan | undefined
    await waitFor(() => {
      root = received.find((s) => s.name === 'POST /graphql' && s.attributes['graphql.operation.name'] === 'RoleHome')
      return Boolean(root)
    }, 10_000, 'the gateway span of RoleHome')
    expect(requests.some((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json'))).toBe(true)
    await waitFor(async () => { await flushTracing(); return descendantsOf(traceOf(root!.traceId), root!).some((s) => s.attributes['db.system.name'] === 'postgresql') }, 10_000, 'the SQL spans')
    const trace = traceOf(root!.traceId)
    expect(root!.parentSpanId).toBeUndefined()
    expect(root!.kind).toBe(2) // SERVER
    expect(root!.service).toBe('tracing-test')
    expect(root!.attributes['http.response.status_code']).toBe(200)
    // every span of the request hangs under the gateway's span
    for (const s of trace) if (s !== root) expect(descendantsOf(trace, root!)).toContain(s)

    const fetches = trace.filter((s) => s.name.startsWith('subgraph '))
    const subgraphs = new Set(fetches.map((s) => s.attributes['graphql.subgraph']))
    expect(subgraphs.size).toBeGreaterThanOrEqual(2) // RoleHome crosses subgraphs
    for (const fetch of fetches) {
      expect(fetch.kind).toBe(3) // CLIENT
      const served = childrenOf(trace, fetch).filter((s) => s.kind === 2)
      expect(served, `the subgraph span under ${fetch.name}`).toHaveLength(1)
      expect(served[0].name).toBe(`POST ${fetch.attributes['graphql.subgraph']} /graphql`)
    }
    const sql = trace.filter((s) => s.attributes['db.system.name'] === 'postgresql')
    const servedBySubgraph = (q: ReceivedSpan) => {
      let at: ReceivedSpan | undefined = q
      while (at?.parentSpanId) {
        at = trace.find((s) => s.spanId === at!.parentSpanId)
        if (at && /^POST \w+ \/graphql$/.test(at.name)) return true
      }
      return false
    }
    for (const q of sql) {
      expect(q.kind).toBe(3)
      // a statement ran either for a subgraph serving a fetch of this request, or for the gateway itself (who the caller is)
      expect(servedBySubgraph(q) || q.parentSpanId === root!.spanId, `${q.name} ${q.attributes['db.query.text']}`).toBe(true)
      expect(String(q.attributes['db.query.text'])).not.toContain(t.program.slug) // statements travel without their values
    }
    expect(sql.filter(servedBySubgraph).length).toBeGreaterThan(0)
  })

  it('carries the trace into a job enqueued inside it (traceparent in the payload), whose run and SQL join that trace', async () => {
    await using _worker = await startTestWorker(stack.db)
    let traceId = ''
    await inSpan('test request', SpanKind.SERVER, {}, async (span) => {
      traceId = span!.spanContext().traceId
      await stack.db.db.$transaction((tx) => enqueue(tx, 'inbox_expire', {}))
    })
    await waitFor(async () => { await flushTracing(); return received.some((s) => s.traceId === traceId && s.name === 'job inbox_expire') }, 15_000, 'the job span')
    const jobSpan = received.find((s) => s.traceId === traceId && s.name === 'job inbox_expire')!
    expect(jobSpan.kind).toBe(5) // CONSUMER
    await waitFor(async () => { await flushTracing(); return descendantsOf(traceOf(traceId), jobSpan).some((s) => s.attributes['db.system.name'] === 'postgresql') }, 10_000, "the job's SQL")
  })

  it('makes a span of a subscription bridged to a subgraph', async () => {
    const t = await createTenant(stack.db.db)
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, await t.token('scientist'))
    const unsubscribe = client.subscribe({ query: 'subscription InboxLive { inboxChanged { id } }' }, { next: () => {}, error: () => {}, complete: () => {} })
    await waitFor(async () => { await flushTracing(); return received.some((s) => s.name === 'subscribe InboxLive') }, 10_000, 'the subscribe span')
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 1, 10_000, 'the upstream subscription')
    unsubscribe()
    await client.dispose()
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 0, 10_000, 'the upstream released')
    await waitFor(() => stack.current.gateway.bridge.activeCount === 0, 10_000, 'the bridge released')
    const span = received.find((s) => s.name === 'subscribe InboxLive')!
    expect(span.attributes['graphql.operation.type']).toBe('subscription')
  })
})
