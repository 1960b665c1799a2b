// The webhook ingress through the real gateway: signed deliveries from the fake notebook (real ECDSA P-256 keys), every
// bad-input case with its status, outcome and delivery row, replays, and the per-address limit of rejected deliveries.
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, type Tenant } from '../helpers/factories'
import { connectNotebook, entryUpdated, jobCount, ownerContext, postFrom, sampleEntry, useNotebookStack, type ConnectedNotebook } from './helpers'
import { disconnectConnection } from '../../subgraphs/connectors/domain/connections'

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
    const jobsBefore = await jobCount(db(), 'notebook_process_delivery')
    const r = await send(entryUpdated('etr_ingress_1'))
    expect(r.status).toBe(202)
    expect(r.json).toMatchObject({ status: 'enqueued', delivery_id: r.deliveryId })
    const [row] = await rowsFor(r.deliveryId)
    expect(row).toMatchObject({
      connectionId: nb.connection.id, organizationId: tenant.organization.id, programId: tenant.program.id, providerId: 'eln_provider',
      eventType: 'v2.entry.updated.fields', signatureOk: true, replay: false, outcome: 'enqueued', statusCode: 202, sourceAddress: '127.0.0.1',
    })
    expect((row.payload as any).message).toMatchObject({ type: 'v2.entry.updated.fields', resourceId: 'etr_ingress_1' })
    expect(await jobCount(db(), 'notebook_process_delivery')).toBe(jobsBefore + 1)
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
    const jobsBefore = await jobCount(db(), 'notebook_process_delivery')
    const r = await send(entryUpdated('etr_ingress_1'), { unknownType: 'v2.illustrative.undocumented' })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ status: 'ignored', reason: 'unknown_event_type' })
    const [row] = await rowsFor(r.deliveryId)
    expect(row).toMatchObject({ outcome: 'ignored', reason: 'unknown_event_type', eventType: 'v2.illustrative.undocumented', signatureOk: true })
    expect(row.payload).not.toBeNull()
    expect(await jobCount(db(), 'notebook_process_delivery')).toBe(jobsBefore)
  })

  it('records a replayed delivery id with replay set, answers 200, and queues the delivery once even when copies arrive together', async () => {
    const jobsBefore = await jobCount(db(), 'notebook_process_delivery')
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
    expect(await jobCount(db(), 'notebook_process_delivery')).toBe(jobsBefore + 2)
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
