// The webhook ingress through the real gateway: signed deliveries from the fake notebook (real ECDSA P-256 keys), every
// bad-input case with its status, outcome and delivery row, replays, and the per-address limit of rejected deliveries.
import http from 'node:http'
import net from 'node:net'
import express from 'express'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, type Tenant } from '../helpers/factories'
import { startFakeNotebook } from '../../fakes/notebook/server'
import { connectNotebook, entryUpdated, jobCount, makeJobsDue, ownerContext, postFrom, runWorkerOnce, sampleEntry, useNotebookStack, type ConnectedNotebook } from './helpers'
import { disconnectConnection } from '../../domain/connections'
import { CHECK_BUTTON_ID } from '../../domain/notebook'
import { forwardToConnectors } from '../../gateway/rest-edge'
import { EnvError, env, parseEnv, setEnv } from '../../core/config'
import { enqueue } from '../../core/jobs'

const { stack, fake, connect } = useNotebookStack()
let tenant: Tenant
let nb: ConnectedNotebook

beforeAll(async () => {
  tenant = await createTenant(stack.db.db, 'Ingress')
  nb = await connect(tenant)
  sampleEntry(fake, 'etr_ingress_1')
})

const db = () => stack.db.db
const url = () => nb.hookUrl(stack.current.gatewayUrl)
const send = (event: Record<string, unknown> & { type: string }, options: Record<string, unknown> = {}) =>
  fake.control.sendWebhook({ url: url(), appDefinitionId: nb.app.appDefinitionId, event, ...options })
const rowsFor = (deliveryId: string) => db().webhookDelivery.findMany({ where: { deliveryId }, orderBy: { receivedAt: 'asc' } })

describe('webhook ingress', () => {
  it('accepts a signed entry event through the gateway with 202 and commits its delivery row and processing job', async () => {
    const jobsBefore = await jobCount(db(), 'connector_delivery_process')
    const r = await send(entryUpdated('etr_ingress_1'))
    expect(r.status).toBe(202)
    expect(r.json).toMatchObject({ status: 'enqueued', delivery_id: r.deliveryId })
    const [row] = await rowsFor(r.deliveryId)
    expect(row).toMatchObject({
      connectionId: nb.connection.id, organizationId: tenant.organization.id, programId: tenant.program.id, providerId: 'eln_provider',
      eventType: 'v2.entry.updated.fields', signatureOk: true, replay: false, outcome: 'enqueued', statusCode: 202, sourceAddress: '127.0.0.1',
    })
    expect((row.payload as any).message).toMatchObject({ type: 'v2.entry.updated.fields', resourceId: 'etr_ingress_1' })
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(jobsBefore + 1)
  })

  it('answers a canvas event with 202 well inside the 3 s canvas window', async () => {
    const started = Date.now()
    const r = await send({ type: 'v2.canvas.initialized', resourceId: 'etr_ingress_1' })
    expect(r.status).toBe(202)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it.each([['tampered'], ['unknown_key'], ['garbage']] as const)('refuses a %s signature with 401 bad_signature and stores the delivery as rejected without payload', async (signature) => {
    const r = await send(entryUpdated('etr_ingress_1'), { signature })
    expect(r.status).toBe(401)
    expect(r.json).toEqual({ error: { code: 'bad_signature', message: expect.any(String) } })
    const [row] = await rowsFor(r.deliveryId)
    expect(row).toMatchObject({ outcome: 'rejected', reason: 'bad_signature', signatureOk: false, payload: null, eventType: null, statusCode: 401 })
  })

  it('refuses a timestamp six minutes old with 401 stale_timestamp', async () => {
    const r = await send(entryUpdated('etr_ingress_1'), { timestampOffsetSeconds: -360 })
    expect(r.status).toBe(401)
    expect((r.json as any).error.code).toBe('stale_timestamp')
    expect((await rowsFor(r.deliveryId))[0]).toMatchObject({ outcome: 'rejected', reason: 'stale_timestamp', payload: null })
  })

  it('refuses a delivery without its signature header with 401 missing_signature', async () => {
    const r = await send(entryUpdated('etr_ingress_1'), { signature: 'none' })
    expect(r.status).toBe(401)
    expect((r.json as any).error.code).toBe('missing_signature')
    expect((await rowsFor(r.deliveryId))[0]).toMatchObject({ outcome: 'rejected', reason: 'missing_signature' })
  })

  it('answers 404 unknown_connection for an unknown connection and records the delivery under no organisation', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000'
    const r = await fake.control.sendWebhook({ url: `${stack.current.gatewayUrl}/hooks/eln_provider/${unknown}`, appDefinitionId: nb.app.appDefinitionId, event: entryUpdated('etr_ingress_1') })
    expect(r.status).toBe(404)
    expect((r.json as any).error.code).toBe('unknown_connection')
    const row = await db().webhookDelivery.findFirstOrThrow({ where: { requestedConnectionId: unknown } })
    expect(row).toMatchObject({ organizationId: null, connectionId: null, outcome: 'rejected', reason: 'unknown_connection', payload: null })
  })

  it('answers 413 to a body over 1 MB and parses and stores nothing of it', async () => {
    const r = await send(entryUpdated('etr_ingress_1'), { oversize: true })
    expect(r.status).toBe(413)
    expect((r.json as any).error.code).toBe('payload_too_large')
    const row = await db().webhookDelivery.findFirstOrThrow({ where: { reason: 'payload_too_large', connectionId: nb.connection.id } })
    expect(row).toMatchObject({ outcome: 'rejected', payload: null, eventType: null, deliveryId: null, signatureOk: false })
    expect(row.bodyBytes).toBeGreaterThan(1024 * 1024)
  })

  it('rejects malformed JSON after a valid signature with 400 malformed_json, signature_ok set and no payload', async () => {
    const r = await send(entryUpdated('etr_ingress_1'), { malformedJson: true })
    expect(r.status).toBe(400)
    expect((r.json as any).error.code).toBe('malformed_json')
    expect((await rowsFor(r.deliveryId))[0]).toMatchObject({ outcome: 'rejected', reason: 'malformed_json', signatureOk: true, payload: null })
  })

  it('ignores an unknown event type with 200, keeping its payload and queueing nothing', async () => {
    const jobsBefore = await jobCount(db(), 'connector_delivery_process')
    const r = await send(entryUpdated('etr_ingress_1'), { unknownType: 'v2.illustrative.undocumented' })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ status: 'ignored', reason: 'unknown_event_type' })
    const [row] = await rowsFor(r.deliveryId)
    expect(row).toMatchObject({ outcome: 'ignored', reason: 'unknown_event_type', eventType: 'v2.illustrative.undocumented', signatureOk: true })
    expect(row.payload).not.toBeNull()
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(jobsBefore)
  })

  it('records a replayed delivery id with replay set, answers 200, and queues the delivery once even when copies arrive together', async () => {
    const jobsBefore = await jobCount(db(), 'connector_delivery_process')
    const first = await send(entryUpdated('etr_ingress_1'))
    const again = await send(entryUpdated('etr_ingress_1'), { webhookId: first.deliveryId })
    expect([first.status, again.status]).toEqual([202, 200])
    expect(again.json).toMatchObject({ status: 'duplicate', delivery_id: first.deliveryId })
    const rows = await rowsFor(first.deliveryId)
    expect(rows.map((r) => [r.outcome, r.replay])).toEqual([['enqueued', false], ['ignored', true]])
    expect(rows[1].payload).toBeNull()

    const id = `msg_concurrent_${Date.now()}`
    const burst = await Promise.all(Array.from({ length: 6 }, () => send(entryUpdated('etr_ingress_1'), { webhookId: id })))
    expect(burst.map((b) => b.status).sort()).toEqual([200, 200, 200, 200, 200, 202])
    expect((await rowsFor(id)).filter((r) => r.outcome === 'enqueued')).toHaveLength(1)
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(jobsBefore + 2)
  })

  // The replay window is 72 hours (spec: same delivery id again within 72 h). The first copy's claim is moved back in
  // time, as if the vendor resent it hours later: still a duplicate just inside the window, a new delivery just past it.
  it('answers a delivery id resent 5 h and 71 h 59 min later as a duplicate, and accepts it as new 72 h 1 min later', async () => {
    const first = await send(entryUpdated('etr_ingress_1'))
    expect(first.status).toBe(202)
    const receivedAgo = (minutes: number) => db().$executeRaw`
      UPDATE webhook_delivery_ids SET first_received_at = now() - make_interval(mins => ${minutes})
      WHERE connection_id = ${nb.connection.id}::uuid AND delivery_id = ${first.deliveryId}`
    for (const minutes of [5 * 60, 72 * 60 - 1]) {
      expect(await receivedAgo(minutes)).toBe(1)
      const again = await send(entryUpdated('etr_ingress_1'), { webhookId: first.deliveryId })
      expect({ minutes, status: again.status, body: again.json }).toMatchObject({ minutes, status: 200, body: { status: 'duplicate', delivery_id: first.deliveryId } })
    }
    expect(await receivedAgo(72 * 60 + 1)).toBe(1)
    const late = await send(entryUpdated('etr_ingress_1'), { webhookId: first.deliveryId })
    expect(late.status).toBe(202)
    expect(late.json).toMatchObject({ status: 'enqueued', delivery_id: first.deliveryId })
    expect((await rowsFor(first.deliveryId)).map((r) => [r.outcome, r.replay])).toEqual([['enqueued', false], ['ignored', true], ['ignored', true], ['enqueued', false]])
  })

  it('accepts deliveries signed with a rotated key after one JWKS refetch', async () => {
    // Its own app: forged deliveries above already spent this minute's forced refetch of the shared app's keys.
    const own = await connectNotebook(db(), await createTenant(db(), 'Rotation'), { fake })
    const sendOwn = () => fake.control.sendWebhook({ url: own.hookUrl(stack.current.gatewayUrl), appDefinitionId: own.app.appDefinitionId, event: entryUpdated('etr_ingress_1') })
    expect((await sendOwn()).status).toBe(202)
    const before = fake.control.getStats().jwksRequests
    fake.control.rotateSigningKey(own.app.appDefinitionId, { keepOld: false })
    expect((await sendOwn()).status).toBe(202)
    expect((await sendOwn()).status).toBe(202)
    expect(fake.control.getStats().jwksRequests - before).toBe(1)
  })

  it('answers other methods on the webhook routes with 405 in the REST error envelope', async () => {
    const res = await fetch(url())
    expect(res.status).toBe(405)
    expect(await res.json()).toEqual({ error: { code: 'method_not_allowed', message: expect.any(String) } })
  })

  it('answers 410 connection_disconnected once the connection is disconnected', async () => {
    const other = await createTenant(db(), 'Disconnected')
    const gone = await connectNotebook(db(), other, { fake })
    await disconnectConnection(await ownerContext(db(), other), gone.connection.id)
    const r = await fake.control.sendWebhook({ url: gone.hookUrl(stack.current.gatewayUrl), appDefinitionId: gone.app.appDefinitionId, event: entryUpdated('etr_ingress_1') })
    expect(r.status).toBe(410)
    const row = await db().webhookDelivery.findFirstOrThrow({ where: { connectionId: gone.connection.id } })
    expect(row).toMatchObject({ outcome: 'rejected', reason: 'connection_disconnected', organizationId: other.organization.id, statusCode: 410 })
  })

  it('limits rejected deliveries per source address: past 60 a minute it answers 429 and stores nothing, yet still accepts valid deliveries', async () => {
    const source = '127.0.0.2'
    const statuses: number[] = []
    for (let i = 0; i < 62; i++) {
      const bad = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'), { signature: 'garbage' })
      statuses.push((await postFrom(source, url(), bad.headers, bad.rawBody)).status)
    }
    expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(60)).toEqual([429, 429])
    expect(await db().webhookDelivery.count({ where: { sourceAddress: source, outcome: 'rejected' } })).toBe(60)
    expect(stack.current.subgraphs.connectors.webhookStats.rateLimited).toBe(2)

    const good = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
    const accepted = await postFrom(source, url(), good.headers, good.rawBody)
    expect(accepted.status).toBe(202)
    // Another address is not affected.
    expect((await send(entryUpdated('etr_ingress_1'), { signature: 'garbage' })).status).toBe(401)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Raw transport helpers: fetch normalises `..` and joins header lines, so these write the request bytes themselves.

interface RawAnswer { status: number; headers: http.IncomingHttpHeaders; json: any; ms: number }

/** Sends a request line and headers exactly as given (a raw path; one header line per array element). */
function rawRequest(base: string, opts: { method?: string; path: string; headers?: Array<[string, string]>; body?: Buffer; localAddress?: string; withholdBody?: boolean }): Promise<RawAnswer> {
  const u = new URL(base)
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port), localAddress: opts.localAddress })
    const body = opts.body ?? Buffer.alloc(0)
    const lines = [`${opts.method ?? 'POST'} ${opts.path} HTTP/1.1`, `host: ${u.host}`, 'connection: close', `content-length: ${opts.withholdBody ? 1000 : body.length}`]
    for (const [k, v] of opts.headers ?? []) lines.push(`${k}: ${v}`)
    socket.write(lines.join('\r\n') + '\r\n\r\n')
    if (!opts.withholdBody) socket.write(body)
    const chunks: Buffer[] = []
    socket.on('data', (c) => {
      chunks.push(c)
      // A withheld body never ends the exchange on our side: stop once a full answer is in.
      if (opts.withholdBody && /\r\n\r\n[\s\S]*\}$/.test(Buffer.concat(chunks).toString('latin1'))) socket.destroy()
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const [head, ...rest] = text.split('\r\n\r\n')
      const [statusLine, ...headerLines] = head.split('\r\n')
      const headers: http.IncomingHttpHeaders = {}
      for (const l of headerLines) { const i = l.indexOf(':'); headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim() }
      let bodyText = rest.join('\r\n\r\n')
      if (/chunked/i.test(String(headers['transfer-encoding']))) bodyText = bodyText.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '')
      let json: unknown
      try { json = JSON.parse(bodyText) } catch { json = bodyText }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, json, ms: performance.now() - t0 })
    })
  })
}

const deliveryHeaders = (d: { headers: Record<string, string> }): Array<[string, string]> => Object.entries(d.headers)
const hookPath = (connectionId: string) => `/api/v1/hooks/eln_provider/${connectionId}`

describe('webhook edge hardening', () => {
  it('answers 404 at the gateway for hook paths that are not exactly /hooks/{provider}/{uuid}, and forwards nothing of them', async () => {
    const seen: string[] = []
    const capture = http.createServer((req, res) => { seen.push(req.url ?? ''); res.end('{}') })
    await new Promise<void>((r) => capture.listen(0, '127.0.0.1', () => r()))
    const upstream = `http://127.0.0.1:${(capture.address() as net.AddressInfo).port}`
    const edge = express()
    edge.use(['/hooks', '/api/v1/hooks'], (req, res) => forwardToConnectors(req, res, upstream))
    const server = edge.listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
    try {
      for (const path of [
        '/hooks/%2e%2e/graphql', '/hooks/../graphql', '/api/v1/hooks/../../../graphql', '/hooks/eln_provider/%2E%2E/%2E%2E/graphql',
        `/hooks/eln_provider/${nb.connection.id}/extra`, '/hooks/eln_provider/not-a-uuid', `/hooks/eln_provider//${nb.connection.id}`,
        `/hooks/eln_provider/${nb.connection.id}%2F..%2F..%2Fgraphql`, `/api/v1/hooks/other_provider/${nb.connection.id}`,
      ]) {
        const r = await rawRequest(base, { path, headers: [['content-type', 'application/json']], body: Buffer.from('{}') })
        expect([path, r.status, r.json?.error?.code]).toEqual([path, 404, 'not_found'])
      }
      expect(seen).toEqual([])
    } finally {
      server.close()
      capture.close()
    }
  })

  it('does not let a raw traversal path reach the connectors GraphQL endpoint through the real gateway', async () => {
    for (const path of ['/hooks/%2e%2e/graphql', '/hooks/../graphql', '/api/v1/hooks/../../../graphql']) {
      const r = await rawRequest(stack.current.gatewayUrl, {
        path, headers: [['content-type', 'application/json'], ['x-internal-token', 'forged']], body: Buffer.from('{"query":"{ __typename }"}'),
      })
      expect([path, r.status, r.json]).toEqual([path, 404, { error: { code: 'not_found', message: expect.any(String) } }])
    }
  })

  it('forwards only the headers the ingress reads: never authorization, cookies, x-internal-token or a caller x-forwarded-for', async () => {
    let received: http.IncomingHttpHeaders = {}
    const capture = http.createServer((req, res) => { received = req.headers; req.resume(); req.on('end', () => res.writeHead(202, { 'content-type': 'application/json', 'set-cookie': 'x=1' }).end('{}')) })
    await new Promise<void>((r) => capture.listen(0, '127.0.0.1', () => r()))
    const edge = express()
    edge.use(['/hooks', '/api/v1/hooks'], (req, res) => forwardToConnectors(req, res, `http://127.0.0.1:${(capture.address() as net.AddressInfo).port}`))
    const server = edge.listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    try {
      const d = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const r = await rawRequest(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, {
        path: hookPath(nb.connection.id),
        headers: [...deliveryHeaders(d), ['authorization', 'Bearer caller-token'], ['x-internal-token', 'forged'], ['cookie', 'sid=1'], ['x-forwarded-for', '6.6.6.6'], ['x-edge-client-address', '6.6.6.6']],
        body: d.rawBody,
      })
      expect(r.status).toBe(202)
      expect(r.headers['set-cookie']).toBeUndefined()
      expect(Object.keys(received).sort()).toEqual(['connection', 'content-length', 'content-type', 'host', 'webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-edge-client-address', 'x-edge-token'])
      expect(received['x-edge-client-address']).toBe('127.0.0.1')
    } finally {
      server.close()
      capture.close()
    }
  })

  it.each([['a \\u0000 escape', '"note \\u0000 here"'], ['a lone surrogate', '"\\ud800"'], ['a lone surrogate in a key', '{"\\udfff": 1}']])(
    'records a validly signed delivery holding %s as rejected unstorable_payload with 400, and a retry gets the same answer, never a 5xx', async (_label, value) => {
      const body = Buffer.from(`{"version":"0","channel":"events","message":{"type":"v2.entry.updated.fields","resourceId":"etr_ingress_1","note":${value}}}`)
      for (let attempt = 0; attempt < 2; attempt++) {
        const d = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'), { rawBody: body, webhookId: `msg_unstorable_${value.length}_${_label.length}` })
        const r = await postFrom('127.0.0.1', url(), d.headers, d.rawBody)
        expect(r.status).toBe(400)
        expect(r.json.error.code).toBe('unstorable_payload')
      }
      const rows = await db().webhookDelivery.findMany({ where: { deliveryId: `msg_unstorable_${value.length}_${_label.length}` } })
      expect(rows).toHaveLength(2)
      expect(rows[0]).toMatchObject({ outcome: 'rejected', reason: 'unstorable_payload', signatureOk: true, payload: null, statusCode: 400 })
    })

  it('accepts every der entry: v2der and upper case tags, the valid entry after others, and over several webhook-signature lines in either order', async () => {
    const variants: Array<(valid: string, garbage: string) => Array<[string, string]>> = [
      (v) => [['webhook-signature', v.replace('v1der,', 'v2der,')]],
      (v) => [['webhook-signature', v.replace('v1der,', 'V1DER,')]],
      (v, g) => [['webhook-signature', `v1,bm90LWEtc2lnbmF0dXJl ${g} ${v}`]],
      (v, g) => [['webhook-signature', g], ['webhook-signature', v]],
      (v, g) => [['webhook-signature', v], ['webhook-signature', g]],
    ]
    for (const [i, variant] of variants.entries()) {
      const d = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const garbage = `v1der,${Buffer.alloc(70, 7).toString('base64')}`
      const { 'webhook-signature': valid, ...rest } = d.headers
      const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [...Object.entries(rest), ...variant(valid, garbage)], body: d.rawBody })
      expect([i, r.status]).toEqual([i, 202])
    }
  })

  it('refuses two webhook-id lines as a malformed signature', async () => {
    const d = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
    const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [...deliveryHeaders(d), ['webhook-id', 'msg_other']], body: d.rawBody })
    expect(r.status).toBe(401)
    expect(r.json.error.code).toBe('malformed_signature')
  })

  it('finishes canvas events whose canvas the vendor answers 404 for as not_found, without retries', async () => {
    const own = await connectNotebook(db(), await createTenant(db(), 'CanvasGone'), { fake })
    const ids: string[] = []
    for (const event of [
      { type: 'v2.canvas.userInteracted', buttonId: CHECK_BUTTON_ID, canvasId: 'cnvs_never_existed' },
      { type: 'v2.canvas.created', canvasId: 'cnvs_never_existed_either' },
    ]) {
      const r = await fake.control.sendWebhook({ url: own.hookUrl(stack.current.gatewayUrl), appDefinitionId: own.app.appDefinitionId, event })
      expect(r.status).toBe(202)
      ids.push(r.deliveryId)
    }
    await runWorkerOnce(db(), stack.db.url)
    await makeJobsDue(db())
    await runWorkerOnce(db(), stack.db.url)
    const rows = await db().webhookDelivery.findMany({ where: { deliveryId: { in: ids } } })
    expect(rows.map((r) => [r.processingResult, r.processingAttempts, r.processedAt !== null])).toEqual([['not_found', 1, true], ['not_found', 1, true]])
  })

  it('answers 503 with Retry-After within a second when the JWKS hangs, records the 503 the vendor saw, and accepts the retry once the keys arrive', async () => {
    const slow = await startFakeNotebook()
    try {
      const own = await connectNotebook(db(), await createTenant(db(), 'SlowKeys'), { fake: slow })
      slow.control.misbehave({ delayMs: 2_500, pathPrefix: '/api/v1/apps/' })
      const first = await slow.control.sendWebhook({ url: own.hookUrl(stack.current.gatewayUrl), appDefinitionId: own.app.appDefinitionId, event: entryUpdated('etr_ingress_1') })
      expect(first.status).toBe(503)
      expect(first.json).toEqual({ error: { code: 'verification_unavailable', message: expect.any(String) } })
      const row = await db().webhookDelivery.findFirstOrThrow({ where: { deliveryId: first.deliveryId } })
      expect(row).toMatchObject({ outcome: 'rejected', reason: 'verification_unavailable', statusCode: 503 })
      // The fetch went on in the background: the vendor's retry finds the keys.
      await new Promise((r) => setTimeout(r, 2_500))
      const started = Date.now()
      const retry = await slow.control.sendWebhook({ url: own.hookUrl(stack.current.gatewayUrl), appDefinitionId: own.app.appDefinitionId, event: entryUpdated('etr_ingress_1'), webhookId: first.deliveryId })
      expect(retry.status).toBe(202)
      expect(Date.now() - started).toBeLessThan(1_000)
    } finally {
      await slow.close()
    }
  })

  it('answers the vendor 503 with Retry-After well before 2 s when the JWKS hangs (no 502 from the gateway at 10 s)', async () => {
    const slow = await startFakeNotebook()
    try {
      const own = await connectNotebook(db(), await createTenant(db(), 'HangingKeys'), { fake: slow })
      slow.control.misbehave({ delayMs: 30_000, pathPrefix: '/api/v1/apps/' })
      const d = slow.control.buildDelivery(own.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(own.connection.id), headers: deliveryHeaders(d), body: d.rawBody })
      expect(r.status).toBe(503)
      // the fetch runs on (three 5 s attempts, 1 s and 2 s apart) and, should it fail, is backed off 10 s: the
      // Retry-After is when a retry is sure not to meet that back-off
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(26)
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(29)
      expect(r.ms).toBeLessThan(1_500)
    } finally {
      slow.control.behave()
      await slow.close()
    }
  })

  it('answers verification_unavailable with a Retry-After the key fetch\'s back-off keeps: a vendor that waits that long is let in', async () => {
    const failing = await startFakeNotebook()
    try {
      const own = await connectNotebook(db(), await createTenant(db(), 'KeysBackOff'), { fake: failing })
      // every attempt of the first key fetch fails at once (got tries three times, 1 s and 2 s apart); later ones work
      failing.control.misbehave({ serverErrorNext: 3, serverErrorStatus: 500, pathPrefix: '/api/v1/apps/' })
      const send = async () => {
        const d = failing.control.buildDelivery(own.app.appDefinitionId, entryUpdated('etr_ingress_backoff'))
        const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(own.connection.id), headers: deliveryHeaders(d), body: d.rawBody })
        return { status: r.status, retryAfter: Number(r.headers['retry-after']), at: Date.now() }
      }
      const first = await send() // meets the fetch still running
      expect(first.status).toBe(503)
      await new Promise((r) => setTimeout(r, 4_000))
      const second = await send() // meets the back-off of the fetch that failed (10 s from its failure)
      expect(second.status).toBe(503)
      expect(second.retryAfter).toBeGreaterThan(5)
      expect(second.retryAfter).toBeLessThanOrEqual(10)
      // the first answer's wait covers the back-off as well
      expect(first.at + first.retryAfter * 1000).toBeGreaterThanOrEqual(second.at + (second.retryAfter - 1) * 1000)
      // a vendor that obeys the header is not refused again
      await new Promise((r) => setTimeout(r, second.retryAfter * 1000))
      expect((await send()).status).toBe(202)
    } finally {
      failing.control.behave()
      await failing.close()
    }
  })

  it('answers 503 with Retry-After by the ingress deadline when the database stalls, and the row stored later records that 503', async () => {
    const d = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
    let locked!: () => void
    const isLocked = new Promise<void>((r) => { locked = r })
    // Another session holds a lock that every insert into webhook_deliveries waits for, for 2.6 s.
    const stall = db().$transaction(async (tx) => {
      await tx.$executeRaw`LOCK TABLE webhook_deliveries IN SHARE ROW EXCLUSIVE MODE`
      locked()
      await new Promise((r) => setTimeout(r, 2_600))
    }, { timeout: 10_000 })
    await isLocked
    const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: deliveryHeaders(d), body: d.rawBody })
    await stall
    expect(r.status).toBe(503)
    expect(r.headers['retry-after']).toBe('5')
    expect(r.ms).toBeLessThan(2_400)
    await expect.poll(async () => (await rowsFor(d.deliveryId))[0]?.statusCode, { timeout: 5_000 }).toBe(503)
    expect((await rowsFor(d.deliveryId))[0]).toMatchObject({ outcome: 'enqueued' })
    // The vendor's retry is then a replay: processed once.
    const again = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: deliveryHeaders(d), body: d.rawBody })
    expect(again.status).toBe(200)
  })

  it('stores exactly 60 rejected deliveries from one source under 100 concurrent bad ones, and then refuses that source unread', async () => {
    const source = '127.0.0.3'
    const bad = Array.from({ length: 100 }, () => fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'), { signature: 'garbage' }))
    const statuses = await Promise.all(bad.map((d) => postFrom(source, url(), d.headers, d.rawBody).then((r) => r.status)))
    expect(statuses.filter((s) => s === 401)).toHaveLength(60)
    expect(statuses.filter((s) => s === 429)).toHaveLength(40)
    expect(await db().webhookDelivery.count({ where: { sourceAddress: source } })).toBe(60)

    // Headers alone condemn it: the 429 comes without the body ever being sent.
    const unreadBefore = stack.current.subgraphs.connectors.webhookStats.refusedUnread
    const r = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [['content-type', 'application/json']], withholdBody: true, localAddress: source })
    expect(r.status).toBe(429)
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0)
    expect(stack.current.subgraphs.connectors.webhookStats.refusedUnread).toBe(unreadBefore + 1)
  })

  it('ignores x-forwarded-for sent straight to the connectors port, and through the gateway unless it comes from a trusted proxy', async () => {
    const connectorsBase = new URL(stack.current.subgraphUrls.connectors).origin
    const direct = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
    const a = await rawRequest(connectorsBase, { path: hookPath(nb.connection.id), headers: [...deliveryHeaders(direct), ['x-forwarded-for', '10.9.9.9'], ['x-edge-client-address', '10.9.9.9'], ['x-edge-token', 'forged']], body: direct.rawBody })
    expect(a.status).toBe(202)
    expect((await rowsFor(direct.deliveryId))[0].sourceAddress).toBe('127.0.0.1')

    const viaGateway = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
    const b = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [...deliveryHeaders(viaGateway), ['x-forwarded-for', '10.9.9.9']], body: viaGateway.rawBody })
    expect(b.status).toBe(202)
    expect((await rowsFor(viaGateway.deliveryId))[0].sourceAddress).toBe('127.0.0.1')

    const previous = env()
    setEnv({ ...previous, TRUSTED_PROXIES: '127.0.0.0/8' })
    try {
      const proxied = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const c = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [...deliveryHeaders(proxied), ['x-forwarded-for', '6.6.6.6, 10.1.2.3']], body: proxied.rawBody })
      expect(c.status).toBe(202)
      // The client's own claim (6.6.6.6) is left of the first untrusted hop and is not believed.
      expect((await rowsFor(proxied.deliveryId))[0].sourceAddress).toBe('10.1.2.3')
    } finally {
      setEnv(previous)
    }
  })

  it('accepts deliveries only from WEBHOOK_ALLOWED_SOURCES when it is set, refusing others with 403 source_not_allowed', async () => {
    const previous = env()
    setEnv({ ...previous, TRUSTED_PROXIES: '127.0.0.0/8', WEBHOOK_ALLOWED_SOURCES: '203.0.113.0/24, 2001:db8::/32' })
    try {
      const outside = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const refused = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: deliveryHeaders(outside), body: outside.rawBody })
      expect(refused.status).toBe(403)
      expect(refused.json.error.code).toBe('source_not_allowed')
      expect((await rowsFor(outside.deliveryId))).toHaveLength(0) // not read: its delivery id is unknown to us
      expect(await db().webhookDelivery.count({ where: { reason: 'source_not_allowed', sourceAddress: '127.0.0.1' } })).toBe(1)
      const inside = fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated('etr_ingress_1'))
      const accepted = await rawRequest(stack.current.gatewayUrl, { path: hookPath(nb.connection.id), headers: [...deliveryHeaders(inside), ['x-forwarded-for', '203.0.113.7']], body: inside.rawBody })
      expect(accepted.status).toBe(202)
    } finally {
      setEnv(previous)
    }
  })

  it('refuses to start with a trusted-proxy or allow-list entry that is not an address or CIDR range, naming it', () => {
    expect(() => parseEnv({ TRUSTED_PROXIES: '10.0.0.0/33', WEBHOOK_ALLOWED_SOURCES: '203.0.113.0/24, example.com' })).toThrow(EnvError)
    try {
      parseEnv({ TRUSTED_PROXIES: '10.0.0.0/33', WEBHOOK_ALLOWED_SOURCES: '203.0.113.0/24, example.com' })
    } catch (e) {
      expect((e as EnvError).problems).toEqual([expect.stringMatching(/^TRUSTED_PROXIES: "10.0.0.0\/33"/), expect.stringMatching(/^WEBHOOK_ALLOWED_SOURCES: "example.com"/)])
    }
    expect(parseEnv({ TRUSTED_PROXIES: '10.0.0.0/8 ::1, 2001:db8::/32' }).TRUSTED_PROXIES).toBe('10.0.0.0/8 ::1, 2001:db8::/32')
  })

  it('sweeps delivery-id claims older than the 72 h replay window in the webhook_retention job, keeping younger ones', async () => {
    const old = `msg_sweep_old_${Date.now()}`
    const young = `msg_sweep_young_${Date.now()}`
    await db().webhookDeliveryId.createMany({ data: [
      { connectionId: nb.connection.id, deliveryId: old, organizationId: tenant.organization.id, firstReceivedAt: new Date(Date.now() - 73 * 3600_000) },
      { connectionId: nb.connection.id, deliveryId: young, organizationId: tenant.organization.id, firstReceivedAt: new Date(Date.now() - 71 * 3600_000) },
    ] })
    await enqueue(db(), 'webhook_retention', {})
    await runWorkerOnce(db(), stack.db.url)
    const left = await db().webhookDeliveryId.findMany({ where: { deliveryId: { in: [old, young] } } })
    expect(left.map((r) => r.deliveryId)).toEqual([young])
  })
})
