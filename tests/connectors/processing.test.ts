// Processing in the worker: deliveries are pointers, the canonical entry is re-fetched from the fake notebook over HTTP
// and becomes sources, documents, experiments and attachment metadata; full sync and webhook-driven updates agree;
// vendor failures, budgets, 429s and token refresh never lose a delivery.
import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createTenant } from '../helpers/factories'
import { env, setEnv } from '../../core/config'
import { CONNECTORS } from '../../core/text'
import { entryPayloadHash, externalVersion, targetRef, type NotebookEntry } from '../../domain/notebook'
import { connectorRuntime } from '../../domain/connections'
import { processDelivery } from '../../domain/webhooks'
import { runSync } from '../../domain/connections'
import { coalesceDelivery } from '../../domain/adapters'
import { reverseKeys } from '../notebook/helpers'
import { entryUpdated, jobCount, makeJobsDue, sampleEntry, useNotebookStack, type ConnectedNotebook } from './helpers'
import { gql } from '../helpers/stack'

const { stack, fake, db, work, connect } = useNotebookStack()
afterEach(() => {
  fake.control.behave()
  connectorRuntime.setClock(Date.now)
})

async function setup(name: string) {
  const tenant = await createTenant(db(), name)
  const nb = await connect(tenant)
  return { tenant, nb, send: nb.send }
}

const uid = () => Math.random().toString(36).slice(2, 10)
const delivery = (deliveryId: string) => db().webhookDelivery.findFirstOrThrow({ where: { deliveryId } })
const entryObject = (nb: ConnectedNotebook, externalId: string) =>
  db().connectorObject.findUnique({ where: { connectionId_externalType_externalId: { connectionId: nb.connection.id, externalType: 'entry', externalId } } })

describe('notebook processing', () => {
  it('turns an entry event into a source of type eln_entry, a customer_internal document with its days, an experiment pointing at it, attachment metadata and registry links by id', async () => {
    const { tenant, nb, send } = await setup('Mapping')
    const id = `etr_map_${uid()}`
    const entry = sampleEntry(fake, id, { attachment: true, reviewStatus: 'NEEDS_REVIEW' })
    const r = await send(entryUpdated(id))
    expect(r.status).toBe(202)
    await work()

    const attachment = fake.control.attachmentInfo(fake.control.attachments.get(`${id}/exf_${id}`)!)
    const hash = entryPayloadHash(entry as unknown as NotebookEntry, { attachmentSha256: { [`exf_${id}`]: attachment.sha256 } })
    const object = (await entryObject(nb, id))!
    expect(object).toMatchObject({
      state: 'NEEDS_REVIEW', payloadHash: hash, externalVersion: externalVersion(hash, entry.modifiedAt), mappedType: 'source', deletedAt: null,
      organizationId: tenant.organization.id, programId: tenant.program.id,
    })
    const source = await db().source.findUniqueOrThrow({ where: { id: object.mappedId! } })
    expect(source).toMatchObject({ sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: id, targetRef: targetRef(id, hash), title: entry.name })
    expect(source.targetRef).toMatch(/^eln_provider:entry:[^@]+@[0-9a-f]{12}$/)
    // Registry entities by id only; people are not registry entities.
    expect(source.linkedEntities).toEqual(['batch:bat_illustrative_1'])
    const document = await db().document.findUniqueOrThrow({ where: { sourceId: source.id } })
    expect(document).toMatchObject({ classification: 'customer_internal', sourceSystem: 'eln_provider', contentHash: hash, version: 1 })
    expect((document.contentJson as any).days.map((d: any) => d.date)).toEqual(['2025-01-15', ...(entry.days.length > 1 ? [entry.days[1].date] : [])])
    expect((document.contentJson as any).days[0].notes[4].table.rows[0][0]).toBe('IllustrativeBatch-1 <batch:bat_illustrative_1>')
    expect(document.text).toContain('Readings')
    const experiment = await db().experiment.findUniqueOrThrow({ where: { elnSourceId: source.id } })
    expect(experiment.title).toBe(entry.name)
    const att = await db().attachment.findFirstOrThrow({ where: { sourceId: source.id } })
    expect(att).toMatchObject({ externalId: `exf_${id}`, sha256: attachment.sha256, fetchable: true })
    expect(Number(att.sizeBytes)).toBe(attachment.size)
    expect(fake.control.getStats().attachmentDownloads).toBe(0) // bytes only on demand
    expect(await db().auditEvent.count({ where: { action: 'connector_object.create', targetId: object.id } })).toBe(1)
    expect(await delivery(r.deliveryId)).toMatchObject({ processingResult: 'created', processingAttempts: 1, lastError: null })
    expect((await delivery(r.deliveryId)).processedAt).not.toBeNull()

    const view = await gql(`${stack.current.gatewayUrl}/graphql`, `query($id: ID!) { connection(id: $id) {
      sourceSystem objects(externalType: "entry") { nodes { externalId state stateNote sourceSystem targetRef externalVersion } } } }`, { id: nb.connection.id }, await tenant.token('program_lead'))
    expect(view.body.errors).toBeUndefined()
    expect(view.body.data.connection.objects.nodes).toEqual([{
      externalId: id, state: 'NEEDS_REVIEW', stateNote: CONNECTORS.recordedInTheNotebook, sourceSystem: 'eln_provider',
      targetRef: targetRef(id, hash), externalVersion: externalVersion(hash, entry.modifiedAt),
    }])
  })

  it('processes a delivery whose job was queued under the former task name notebook_process_delivery', async () => {
    const { nb, send } = await setup('FormerJobName')
    const id = `etr_alias_${uid()}`
    sampleEntry(fake, id)
    const r = await send(entryUpdated(id))
    expect(r.status).toBe(202)
    // A database upgraded with jobs still waiting: the delivery's job carries the name it was queued under before the rename.
    await db().$executeRaw`DELETE FROM graphile_worker._private_jobs WHERE key IS NULL AND payload->>'deliveryId' = ${(await delivery(r.deliveryId)).id}`
    await db().$executeRaw`SELECT graphile_worker.add_job('notebook_process_delivery', json_build_object('deliveryId', ${(await delivery(r.deliveryId)).id}::text))`
    expect(await jobCount(db(), 'notebook_process_delivery')).toBe(1)
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(0)
    await work()
    expect(await delivery(r.deliveryId)).toMatchObject({ processingResult: 'created', lastError: null })
    expect(await jobCount(db(), 'notebook_process_delivery')).toBe(0)
    expect(await entryObject(nb, id)).not.toBeNull()
  })

  it('audits connector_object.update with the new version when the entry changes, and writes nothing new for an unchanged entry', async () => {
    const { nb, send } = await setup('Changes')
    const id = `etr_chg_${uid()}`
    sampleEntry(fake, id)
    await send(entryUpdated(id))
    await work()
    const first = (await entryObject(nb, id))!

    const changed = fake.control.modifyEntry(id, { reviewStatus: 'ACCEPTED' })
    await send({ type: 'v2.entry.updated.reviewRecord', resourceId: id })
    await work()
    const second = (await entryObject(nb, id))!
    expect(second.state).toBe('ACCEPTED')
    expect(second.externalVersion).toBe(`${first.payloadHash}@${changed.modifiedAt}`)
    const updates = await db().auditEvent.findMany({ where: { action: 'connector_object.update', targetId: first.id } })
    expect(updates).toHaveLength(1)
    expect(updates[0].details).toMatchObject({ previous_state: 'IN_PROGRESS', state: 'ACCEPTED', content_changed: false, previous_version: first.externalVersion })
    // Same content: the document keeps its version.
    expect((await db().document.findFirstOrThrow({ where: { sourceId: first.mappedId! } })).version).toBe(1)

    const counts = async () => [
      await db().auditEvent.count({ where: { organizationId: nb.connection.organizationId } }),
      await db().source.count({ where: { connectionId: nb.connection.id } }),
      await db().document.count({ where: { programId: nb.connection.programId } }),
      await db().experiment.count({ where: { programId: nb.connection.programId } }),
    ]
    const before = await counts()
    const again = await send(entryUpdated(id))
    await work()
    expect((await delivery(again.deliveryId)).processingResult).toBe('unchanged')
    expect(await counts()).toEqual(before)
    expect((await entryObject(nb, id))!.externalVersion).toBe(second.externalVersion)
  })

  it('keeps the payload hash and the document version when the vendor answers the same content with its keys reordered', async () => {
    const { nb, send } = await setup('Reordered')
    const id = `etr_keys_${uid()}`
    sampleEntry(fake, id, { attachment: true })
    await send(entryUpdated(id))
    await work()
    const before = (await entryObject(nb, id))!
    fake.control.modifyEntry(id, (e) => { e.days = reverseKeys(e.days) })
    const r = await send(entryUpdated(id))
    await work()
    const after = (await entryObject(nb, id))!
    expect((await delivery(r.deliveryId)).processingResult).toBe('updated') // modifiedAt moved
    expect(after.payloadHash).toBe(before.payloadHash)
    expect((await db().document.findFirstOrThrow({ where: { sourceId: before.mappedId! } })).version).toBe(1)
  })

  it('gives the same records from a full sync as from webhook-driven updates, and a second full sync writes nothing new', async () => {
    const ids = [`etr_eq_a_${uid()}`, `etr_eq_b_${uid()}`, `etr_eq_c_${uid()}`]
    sampleEntry(fake, ids[0], { attachment: true, reviewStatus: 'ACCEPTED' })
    sampleEntry(fake, ids[1], { variant: 2 })
    sampleEntry(fake, ids[2], { folderId: 'lib_other_project' }) // outside the mapped project
    const full = await setup('FullSync')
    const incremental = await setup('Webhooks')
    const sync = await runSync(db(), full.nb.connection.id, 'full')
    expect(sync.status).toBe('synced')
    for (const id of ids) expect((await incremental.send(entryUpdated(id))).status).toBe(202)
    await work()

    const snapshot = async (connectionId: string) => {
      const objects = await db().connectorObject.findMany({ where: { connectionId, externalId: { in: [...ids, ...ids.map((i) => `exf_${i}`)] } }, orderBy: { externalId: 'asc' } })
      const sources = await db().source.findMany({ where: { connectionId, externalId: { in: ids } }, include: { documents: true, experiments: true, attachments: true }, orderBy: { externalId: 'asc' } })
      return {
        objects: objects.map((o) => ({ type: o.externalType, id: o.externalId, version: o.externalVersion, hash: o.payloadHash, state: o.state, deleted: Boolean(o.deletedAt), mapped: o.mappedType })),
        sources: sources.map((s) => ({
          type: s.sourceType, system: s.sourceSystem, id: s.externalId, ref: s.targetRef, version: s.externalVersion, links: s.linkedEntities,
          documents: s.documents.map((d) => ({ c: d.classification, t: d.text, j: d.contentJson, h: d.contentHash, v: d.version })),
          experiments: s.experiments.map((e) => e.title),
          attachments: s.attachments.map((a) => ({ id: a.externalId, sha: a.sha256, size: Number(a.sizeBytes), fetchable: a.fetchable })),
        })),
      }
    }
    const fromSync = await snapshot(full.nb.connection.id)
    const fromHooks = await snapshot(incremental.nb.connection.id)
    expect(fromSync.sources).toHaveLength(2) // the entry outside the mapped project is not synced
    expect(fromHooks).toEqual(fromSync)
    const outside = await incremental.send(entryUpdated(ids[2]))
    await work()
    expect((await delivery(outside.deliveryId)).processingResult).toBe('out_of_scope')

    const audits = await db().auditEvent.count({ where: { organizationId: full.tenant.organization.id } })
    const again = await runSync(db(), full.nb.connection.id, 'full')
    expect(again.status === 'synced' && again.report.created + again.report.updated).toBe(0)
    expect(await db().auditEvent.count({ where: { organizationId: full.tenant.organization.id } })).toBe(audits)
    const health = (await db().connection.findUniqueOrThrow({ where: { id: full.nb.connection.id } })).health as any
    expect(health).toMatchObject({ status: 'ok', last_sync: { mode: 'full', created: 0, updated: 0 } })
  })

  it('processes a burst of deliveries for one entry with a single vendor read', async () => {
    const { nb, send } = await setup('Coalesce')
    const id = `etr_burst_${uid()}`
    sampleEntry(fake, id)
    const sent = []
    for (let i = 0; i < 5; i++) sent.push(await send(entryUpdated(id)))
    await work()
    expect(fake.control.requestLog.filter((l) => l.path === `/api/v2/entries/${id}`)).toHaveLength(1)
    const results = await Promise.all(sent.map(async (s) => (await delivery(s.deliveryId)).processingResult))
    expect(results.sort()).toEqual(['coalesced', 'coalesced', 'coalesced', 'coalesced', 'created'])
    expect(await db().source.count({ where: { connectionId: nb.connection.id } })).toBe(1)
  })

  it("settles a delivery that a later fetch already covered through the provider's coalescing hook, once", async () => {
    const { send } = await setup('CoalesceHook')
    const id = `etr_hook_${uid()}`
    sampleEntry(fake, id)
    const [first, second] = [await send(entryUpdated(id)), await send(entryUpdated(id))]
    const [row1, row2] = [await delivery(first.deliveryId), await delivery(second.deliveryId)]
    expect(await coalesceDelivery(db(), row2.id)).toBe(false) // nothing fetched yet: the full path is needed
    expect(await processDelivery(db(), row1.id)).toEqual({ status: 'processed', result: 'created' })
    const reads = fake.control.getStats().entryReads
    expect(await coalesceDelivery(db(), row2.id)).toBe(true)
    expect(await delivery(second.deliveryId)).toMatchObject({ processingResult: 'coalesced', lastError: null })
    expect(await coalesceDelivery(db(), row2.id)).toBe(false)
    expect(fake.control.getStats().entryReads).toBe(reads)
  })

  it('keeps a delivery through vendor 5xx answers and processes it once the vendor recovers', async () => {
    const { nb, send } = await setup('ServerErrors')
    const id = `etr_5xx_${uid()}`
    sampleEntry(fake, id)
    fake.control.misbehave({ serverErrorNext: 50, serverErrorStatus: 503, pathPrefix: '/api/v2/entries' })
    const r = await send(entryUpdated(id))
    expect(r.status).toBe(202)
    await work()
    const failed = await delivery(r.deliveryId)
    expect(failed.processedAt).toBeNull()
    expect(failed.lastError).toMatch(/unavailable \(server_error 503\)/)
    expect(await jobCount(db(), 'connector_delivery_process')).toBeGreaterThanOrEqual(1)
    fake.control.behave()
    // The retry is due at graphile-worker's back-off; made due now. Under a loaded machine the failed attempt's
    // unlock can land after the first sweep, so up to three sweeps (a delivery never processed still fails here).
    for (let round = 0; round < 3 && !(await delivery(r.deliveryId)).processedAt; round++) {
      if (round > 0) await new Promise((done) => setTimeout(done, 300))
      await makeJobsDue(db())
      await work()
    }
    expect(await delivery(r.deliveryId)).toMatchObject({ processingResult: 'created', lastError: null })
    expect(await entryObject(nb, id)).not.toBeNull()
  })

  it('keeps a delivery through vendor timeouts and processes it once the vendor answers in time', async () => {
    const { nb, send } = await setup('Timeouts')
    const id = `etr_slow_${uid()}`
    sampleEntry(fake, id)
    const saved = env()
    setEnv({ ...saved, NOTEBOOK_HTTP_TIMEOUT_MS: 200 })
    connectorRuntime.forget(nb.connection.id)
    try {
      fake.control.misbehave({ delayMs: 600, pathPrefix: '/api/v2/entries' })
      const r = await send(entryUpdated(id))
      await work()
      expect((await delivery(r.deliveryId)).lastError).toMatch(/unavailable \(timeout\)/)
      expect((await delivery(r.deliveryId)).processedAt).toBeNull()
      fake.control.behave()
      await makeJobsDue(db())
      await work()
      expect((await delivery(r.deliveryId)).processingResult).toBe('created')
    } finally {
      setEnv(saved)
      connectorRuntime.forget(nb.connection.id)
    }
  })

  it("reschedules a delivery when the connection's budget is exhausted, with the run-rail text, and processes it in the next window", async () => {
    const { nb, send } = await setup('Budget')
    const id = `etr_budget_${uid()}`
    sampleEntry(fake, id)
    await db().$executeRaw`INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds, used, window_started_at)
      VALUES (${nb.connection.organizationId}::uuid, 'eln_provider', 'connection', ${nb.connection.id}, 250, 30, 250, now() - interval '10 seconds')`
    const r = await send(entryUpdated(id))
    await work()
    const waiting = await delivery(r.deliveryId)
    expect(waiting.processedAt).toBeNull()
    expect(waiting.lastError).toMatch(/^budget exhausted for source eln_provider, retry after (1[0-9]|2[01]) s$/)
    // One keyed drain job for the connection at the window's end, not a failed attempt of the delivery's own job.
    const [job] = await db().$queryRaw<{ run_at: Date; attempts: number; key: string }[]>`SELECT run_at, attempts, key FROM graphile_worker.jobs WHERE key = ${`connector_drain_deliveries:${nb.connection.id}`}`
    expect(job.attempts).toBe(0)
    expect(job.run_at.getTime() - Date.now()).toBeGreaterThan(15_000)
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(0)
    const more = [await send(entryUpdated(id)), await send(entryUpdated(id))]
    const reads = () => fake.control.requestLog.filter((l) => l.path === `/api/v2/entries/${id}`).length
    await work() // both wait for the same drain, without a vendor call
    expect(await db().$queryRaw<unknown[]>`SELECT 1 FROM graphile_worker.jobs WHERE task_identifier = 'connector_drain_deliveries'`).toHaveLength(1)
    expect(reads()).toBe(0)
    // The window ends (this process forgets the refusal it remembered, as it would once the time has passed).
    await db().$executeRaw`UPDATE rate_budgets SET window_started_at = now() - interval '31 seconds' WHERE scope_key = ${nb.connection.id}`
    connectorRuntime.forget(nb.connection.id)
    await makeJobsDue(db())
    await work()
    expect((await delivery(r.deliveryId)).processingResult).toBe('created')
    expect(await Promise.all(more.map(async (m) => (await delivery(m.deliveryId)).processingResult))).toEqual(['coalesced', 'coalesced'])
    expect(reads()).toBe(1)
  })

  it("draws every connection's requests from its organisation's 900 per 30 s", async () => {
    const { nb, send } = await setup('OrgBudget')
    const id = `etr_orgbudget_${uid()}`
    sampleEntry(fake, id)
    await db().$executeRaw`INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds, used, window_started_at)
      VALUES (${nb.connection.organizationId}::uuid, 'eln_provider', 'organization', ${nb.connection.organizationId}, 900, 30, 900, now())`
    const r = await send(entryUpdated(id))
    await work()
    expect((await delivery(r.deliveryId)).lastError).toMatch(/^budget exhausted for source eln_provider, retry after \d+ s$/)
    const budgets = await db().rateBudget.findMany({ where: { organizationId: nb.connection.organizationId } })
    expect(budgets.find((b) => b.scope === 'organization')).toMatchObject({ limitPerWindow: 900, used: 900 })
    // Nothing was drawn from the connection's own 250 either: a draw takes from both or from neither.
    expect(budgets.find((b) => b.scope === 'connection')?.used ?? 0).toBe(0)
  })

  it("honours a vendor 429: the connection backs off until the vendor's reset and the delivery waits for it", async () => {
    const { nb, send } = await setup('Vendor429')
    const id = `etr_429_${uid()}`
    sampleEntry(fake, id)
    fake.control.misbehave({ rateLimitNext: 1, rateLimitResetSeconds: 7, pathPrefix: '/api/v2/' })
    const r = await send(entryUpdated(id))
    await work()
    expect((await delivery(r.deliveryId)).lastError).toBe('budget exhausted for source eln_provider, retry after 7 s')
    const row = await db().rateBudget.findFirstOrThrow({ where: { scope: 'connection', scopeKey: nb.connection.id } })
    expect(row.remoteRemaining).toBe(0)
    expect(row.remoteResetAt!.getTime() - Date.now()).toBeGreaterThan(4000)
    // Until the reset nothing more is sent, even when a job runs early.
    const vendorCalls = () => fake.control.requestLog.filter((l) => l.appDefinitionId === nb.app.appDefinitionId && l.path.startsWith('/api/v2/')).length
    const before = vendorCalls()
    await makeJobsDue(db())
    await work()
    expect(vendorCalls()).toBe(before)
    expect((await delivery(r.deliveryId)).processedAt).toBeNull()
  })

  it("slows down on the vendor's x-rate-limit headers before the vendor has to answer 429", async () => {
    const { nb, send } = await setup('Adaptive')
    fake.control.setRateLimit({ limit: 4, windowSeconds: 30 })
    try {
      const ids = [0, 1, 2].map(() => `etr_adapt_${uid()}`)
      for (const id of ids) sampleEntry(fake, id)
      const sent = []
      for (const id of ids) sent.push(await send(entryUpdated(id)))
      await work()
      const rows = await Promise.all(sent.map((s) => delivery(s.deliveryId)))
      expect(rows.filter((d) => d.processedAt).length).toBeGreaterThanOrEqual(1)
      expect(rows.filter((d) => !d.processedAt && /^budget exhausted for source eln_provider/.test(d.lastError ?? '')).length).toBeGreaterThanOrEqual(1)
      // The vendor never had to refuse this app.
      expect(fake.control.requestLog.filter((l) => l.appDefinitionId === nb.app.appDefinitionId && l.status === 429)).toEqual([])
    } finally {
      fake.control.setRateLimit({ limit: 300, windowSeconds: 30 })
    }
  })

  it('reuses one token across deliveries, asks for a new one after 12 minutes, and recovers from a revoked token', async () => {
    const { send } = await setup('Tokens')
    let now = Date.now()
    connectorRuntime.setClock(() => now)
    const id = `etr_tok_${uid()}`
    sampleEntry(fake, id)
    const issued = () => fake.control.getStats().tokensIssued
    const start = issued()
    await send(entryUpdated(id))
    await work()
    fake.control.modifyEntry(id, { reviewStatus: 'NEEDS_REVIEW' })
    await send(entryUpdated(id))
    await work()
    expect(issued() - start).toBe(1)
    now += 12 * 60_000 + 1000
    fake.control.modifyEntry(id, { reviewStatus: 'ACCEPTED' })
    const late = await send(entryUpdated(id))
    await work()
    expect(issued() - start).toBe(2)
    expect((await delivery(late.deliveryId)).processingResult).toBe('updated')
    fake.control.expireTokens()
    fake.control.modifyEntry(id, { reviewStatus: 'REJECTED' })
    const afterRevoke = await send(entryUpdated(id))
    await work()
    expect(issued() - start).toBe(3)
    expect((await delivery(afterRevoke.deliveryId)).processingResult).toBe('updated')
  })

  it('reads attachment bytes only on demand and refuses those of 25 MB or more', async () => {
    const { nb, send } = await setup('Attachments')
    const id = `etr_att_${uid()}`
    sampleEntry(fake, id, { attachment: true })
    fake.control.putAttachment(id, { id: `exf_big_${id}`, size: 25 * 1024 * 1024, appendToEntry: true })
    await send(entryUpdated(id))
    await work()
    const rows = await db().attachment.findMany({ where: { connectionId: nb.connection.id }, orderBy: { externalId: 'asc' } })
    expect(rows.map((a) => [a.externalId, a.fetchable])).toEqual([[`exf_big_${id}`, false], [`exf_${id}`, true]])
    const { notebookAdapter } = await import('../../domain/notebook')
    const connection = await db().connection.findUniqueOrThrow({ where: { id: nb.connection.id } })
    const ctx = connectorRuntime.context(db(), connection)
    const small = (await notebookAdapter.fetchObject(ctx, { externalType: 'attachment', externalId: `exf_${id}` })) as { bytes: Buffer; sha256: string }
    expect(small.sha256).toBe(createHash('sha256').update(small.bytes).digest('hex'))
    await expect(notebookAdapter.fetchObject(ctx, { externalType: 'attachment', externalId: `exf_big_${id}` })).rejects.toThrow(/only attachments under/)
  })
})
