// The QMS/SOP connector against the fake QMS over HTTP: configuration (client id), the health report with every gap at
// once, the delta poll and its watermark, reconciliation repairing what the poll missed, the rendition triple rule,
// burst and delay handling, lifecycle mapping (unmapped), effective_at and superseded_at, and every failure of "Bad
// input and failure" leaving a health entry or a typed error and no half-written version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, createTwoOrganizations, expectRowsExist } from '../helpers/factories'
import { gql, useStack } from '../helpers/stack'
import { runQmsSync } from '../../domain/qms'
import { BUDGET_DRAW } from '../../domain/qms'
import { sanitiseOutsideText } from '../../core/text'
import { INJECTION_FIXTURES } from '../fixtures/injection'
import { clearQmsFaults, type FakeQms } from '../../fakes/qms/server'
import { HEALTH, LIFECYCLE_MAP, configure, connectQms, seedSop, startTestFakeQms } from './helpers'
import { runWorkerOnce } from '../connectors/helpers'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
let fake: FakeQms
beforeAll(async () => { fake = await startTestFakeQms() })
afterAll(async () => { await fake?.close() })

const versions = (connectionId: string) => db().sopVersion.findMany({ where: { connectionId }, orderBy: [{ documentId: 'asc' }, { major: 'asc' }, { minor: 'asc' }] })
const health = async (id: string) => ((await db().connection.findUniqueOrThrow({ where: { id } })).health) as { status: string; checks: { name: string; ok: boolean; detail: string }[]; last_error?: string | null }

async function freshVault(opts: Parameters<typeof startTestFakeQms>[0] = {}) {
  return startTestFakeQms(opts)
}

describe('QMS connection configuration and health', () => {
  it('refuses a client id over 100 characters or with other characters when the connection is configured', async () => {
    const t = await createTenant(db(), 'QmsConfig')
    const c = await connectQms(url(), t, fake)
    const long = await configure(url(), c.token, c.id, { clientId: 'x'.repeat(101), instanceId: '1', integrationUser: 'sandbox', lifecycleMap: LIFECYCLE_MAP })
    expect(long.body.data.configureQmsConnection).toMatchObject({ __typename: 'InvalidInput', issues: [{ field: 'input.clientId' }] })
    const bad = await configure(url(), c.token, c.id, { clientId: 'has space', instanceId: '1', integrationUser: 'sandbox', lifecycleMap: LIFECYCLE_MAP })
    expect(bad.body.data.configureQmsConnection.issues[0].field).toBe('input.clientId')
    const row = await db().connection.findUniqueOrThrow({ where: { id: c.id } })
    expect(row.apiVersion).toBe('v26.2')
    expect((row.providerSettings as { client_id: string }).client_id).toBe('evidence-workspace-illustrative')
    expect((row.providerSettings as { integration_user: string }).integration_user).toBe('sandbox')
  })

  it('reports every gap at once: template field, lifecycle label, all-versions query and instance id, and writes connection.health', async () => {
    await using vault = await freshVault({ vaultId: 777 })
    vault.state.faults.allVersionsUnavailable = true
    const t = await createTenant(db(), 'QmsGaps')
    const c = await connectQms(url(), t, vault, { configure: { instanceId: '778', queryTemplate: { title: 'title__x' } } })
    const r = await gql(url(), HEALTH, { id: c.id }, c.token)
    const h = r.body.data.checkConnectionHealth.connection.health
    const failed = Object.fromEntries(h.checks.filter((k: { ok: boolean }) => !k.ok).map((k: { name: string; detail: string }) => [k.name, k.detail]))
    expect(h.status).toBe('failing')
    expect(failed.instance_id).toMatch(/instance 777; the connection names 778/)
    expect(failed['query_template.title']).toMatch(/no field title__x/)
    expect(failed.lifecycle_map).toMatch(/unmapped .*Pending Retirement/)
    expect(failed.all_versions_query).toMatch(/ALLVERSIONS/)
    expect(h.checks.find((k: { name: string }) => k.name === 'query_template.modified').ok).toBe(true)
    expect((await health(c.id)).status).toBe('failing')
    // A poll anyway: the vault refuses the query; a health entry with its words, no version written.
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ status: 'failed', error: expect.stringMatching(/No such field \[title__x\]/) })
    expect((await health(c.id)).checks.find((k) => k.name === 'sync.poll')).toMatchObject({ ok: false })
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(0)
  })

  it('reports wrong credentials as a failing credentials entry and names the checks it could not run', async () => {
    const t = await createTenant(db(), 'QmsCreds')
    const c = await connectQms(url(), t, fake, { password: 'wrong-password' })
    const h = (await gql(url(), HEALTH, { id: c.id }, c.token)).body.data.checkConnectionHealth.connection.health
    expect(h.status).toBe('failing')
    expect(h.checks.find((k: { name: string }) => k.name === 'credentials')).toMatchObject({ ok: false, detail: expect.stringMatching(/refused the integration user/) })
    expect(h.checks.find((k: { name: string }) => k.name === 'all_versions_query').detail).toMatch(/not checked: authentication failed/)
    expect(JSON.stringify(h)).not.toContain('wrong-password')
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run.status).toBe('failed')
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(0)
  })

  it('runs the health check before the first sync and does not sync a connection whose check fails', async () => {
    await using vault = await freshVault({ vaultId: 900 })
    seedSop(vault)
    const t = await createTenant(db(), 'QmsFirst')
    const c = await connectQms(url(), t, vault, { configure: { instanceId: '901' } })
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/instance_id/) })
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(0)
    expect(await health(c.id)).toMatchObject({ status: 'failing' })
    expect(vault.state.log.some((l) => l.path.includes('/text'))).toBe(false)
  })

  it('passes the health check on a well-configured connection with the unmapped label surfaced', async () => {
    await using vault = await freshVault()
    const t = await createTenant(db(), 'QmsOk')
    const c = await connectQms(url(), t, vault, { configure: { lifecycleMap: [...LIFECYCLE_MAP, { label: 'Pending Retirement', state: 'obsolete' }] } })
    const h = (await gql(url(), HEALTH, { id: c.id }, c.token)).body.data.checkConnectionHealth.connection.health
    expect(h.checks.filter((k: { ok: boolean }) => !k.ok)).toEqual([])
    expect(h.status).toBe('ok')
    // Sent on every call: the configured client id header.
    expect(vault.state.log.every((l) => l.clientId === 'evidence-workspace-illustrative')).toBe(true)
  })
})

describe('QMS sync requested through syncConnection (the connector_sync job)', () => {
  const SYNC = `mutation($id: ID!, $mode: ConnectionSyncMode) { syncConnection(id: $id, mode: $mode) { __typename ${'... on Error { code message }'} } }`
  const requestSync = async (c: { id: string; token: string }, mode: 'full' | 'incremental') => {
    const r = await gql(url(), SYNC, { id: c.id, mode }, c.token)
    expect(r.body.data.syncConnection.__typename).toBe('MutationSyncConnectionSuccess')
    await runWorkerOnce(db(), stack.db.url)
  }

  it('runs the health check before the first sync and does not sync a connection whose check fails', async () => {
    await using vault = await freshVault({ vaultId: 910 })
    seedSop(vault)
    const t = await createTenant(db(), 'QmsOnDemandFirst')
    const c = await connectQms(url(), t, vault, { configure: { instanceId: '911' } })
    await requestSync(c, 'incremental')
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(0)
    const h = await health(c.id)
    expect(h.status).toBe('failing')
    expect(h.checks.find((k) => k.name === 'instance_id')).toMatchObject({ ok: false })
    expect(vault.state.log.some((l) => l.path.includes('/text'))).toBe(false)
    expect((await db().connection.findUniqueOrThrow({ where: { id: c.id } })).lastSyncedAt).toBeNull()
  })

  it('syncs a healthy connection through the QMS runner: incremental is the poll, full the reconciliation, each with its health entry', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsOnDemand')
    const c = await connectQms(url(), t, vault, { configure: { lifecycleMap: [...LIFECYCLE_MAP, { label: 'Pending Retirement', state: 'obsolete' }] } })
    await requestSync(c, 'incremental')
    expect((await versions(c.id)).map((v) => [v.major, v.minor, v.lifecycleState])).toEqual([[1, 0, 'superseded'], [2, 0, 'effective'], [2, 1, 'draft']])
    const polled = await health(c.id)
    expect(polled.status).toBe('ok')
    expect(polled.checks.find((k) => k.name === 'sync.poll')).toMatchObject({ ok: true, detail: expect.stringMatching(/^3 seen, 3 created/) })
    await requestSync(c, 'full')
    expect((await health(c.id)).checks.find((k) => k.name === 'sync.reconcile')).toMatchObject({ ok: true })
  })
})

describe('QMS ingestion', () => {
  it('polls all versions first, then only what changed after the watermark, paged, and advances it with each page', async () => {
    await using vault = await freshVault()
    vault.state.pageSize = 2
    seedSop(vault)
    const t = await createTenant(db(), 'QmsPoll')
    const c = await connectQms(url(), t, vault)
    const first = await runQmsSync(db(), c.id, 'poll')
    expect(first).toMatchObject({ status: 'synced', report: { seen: 3, created: 3, pages: 2 } })
    const stored = await versions(c.id)
    expect(stored.map((v) => [v.major, v.minor, v.lifecycleState])).toEqual([[1, 0, 'superseded'], [2, 0, 'effective'], [2, 1, 'draft']])
    const conn = await db().connection.findUniqueOrThrow({ where: { id: c.id } })
    expect(conn.syncCursor).toBe(vault.state.doc('201').versions[2].modifiedAt)
    const queries = vault.state.log.filter((l) => l.path === '/query').length
    const second = await runQmsSync(db(), c.id, 'poll')
    expect(second).toMatchObject({ status: 'synced', report: { seen: 0, created: 0, updated: 0 } })
    expect(vault.state.log.filter((l) => l.path === '/query').length).toBe(queries + 1)
    vault.state.updateVersion('201', 2, 1, { status: 'In Review' })
    const third = await runQmsSync(db(), c.id, 'poll')
    expect(third).toMatchObject({ status: 'synced', report: { seen: 1, updated: 1 } })
    expect((await versions(c.id))[2].lifecycleState).toBe('in_review')
    const audits = await db().auditEvent.findMany({ where: { action: 'sop_version.update', targetId: stored[2].id } })
    expect(audits).toHaveLength(2)
    expect((await health(c.id)).checks.find((k) => k.name === 'sync.poll')!.ok).toBe(true)
  })

  it('keeps the watermark at the last committed page when a rendition breaks mid-stream on the next, and writes no part of that page', async () => {
    await using vault = await freshVault()
    vault.state.pageSize = 2
    seedSop(vault)
    const t = await createTenant(db(), 'QmsBreak')
    const c = await connectQms(url(), t, vault)
    // Page one has two versions (two renditions); the third download (page two) breaks after half its bytes.
    vault.state.faults.renditionBreakFor = '201/2/1'
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run.status).toBe('failed')
    const stored = await versions(c.id)
    expect(stored.map((v) => `${v.major}.${v.minor}`)).toEqual(['1.0', '2.0'])
    const conn = await db().connection.findUniqueOrThrow({ where: { id: c.id } })
    expect(conn.syncCursor).toBe(vault.state.doc('201').versions[1].modifiedAt)
    const h = await health(c.id)
    expect(h.status).toBe('failing')
    expect(h.checks.find((k) => k.name === 'sync.poll')).toMatchObject({ ok: false, detail: expect.stringMatching(/SOP-0100 2\.1/) })
    vault.state.faults.renditionBreakFor = null
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ status: 'synced', report: { created: 1 } })
  })

  it('maps labels per connection: an unmapped label yields unmapped and is surfaced in health; effective_at and superseded_at follow the rules', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    vault.state.addDocument({ id: '301', number: 'SOP-0300', name: 'Retiring' })
    vault.state.addVersion('301', { major: 1, minor: 0, status: 'Pending Retirement', text: '1 Labels\nLabels shall carry the id.\n' })
    const t = await createTenant(db(), 'QmsMap')
    const c = await connectQms(url(), t, vault)
    const before = new Date()
    await runQmsSync(db(), c.id, 'poll')
    const [v10, v20, , u] = await versions(c.id)
    expect(u).toMatchObject({ lifecycleState: 'unmapped', vendorLabel: 'Pending Retirement' })
    expect((await health(c.id)).checks.find((k) => k.name === 'unmapped_versions')).toMatchObject({ ok: false, detail: expect.stringMatching(/1 version.*Pending Retirement ×1/) })
    // 2.0 has no effective date in the source: first observation.
    expect(v20.effectiveOnObserved).toBe(true)
    expect(v20.effectiveAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000)
    // 1.0 has no superseded date: the successor's effective_at.
    expect(v10.supersededAt!.toISOString()).toBe(v20.effectiveAt!.toISOString())
    // A source effective date wins.
    vault.state.updateVersion('201', 2, 0, { effectiveDate: '2026-03-01T00:00:00.000Z' })
    await runQmsSync(db(), c.id, 'poll')
    const again = await versions(c.id)
    expect(again[1]).toMatchObject({ effectiveOnObserved: false })
    expect(again[1].effectiveAt!.toISOString()).toBe('2026-03-01T00:00:00.000Z')
  })

  it('downloads a rendition only when (major, minor, rendition_hash) changed, and prefers the text endpoint', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsTriple')
    const c = await connectQms(url(), t, vault)
    await runQmsSync(db(), c.id, 'poll')
    const renditions = () => vault.state.log.filter((l) => l.path.includes('/renditions/')).length
    const texts = () => vault.state.log.filter((l) => l.path.endsWith('/text')).length
    expect([renditions(), texts()]).toEqual([3, 3])
    expect((await versions(c.id))[1].textSource).toBe('text_endpoint')
    // The text changes, the rendition does not: text fetched again, no download.
    vault.state.updateVersion('201', 2, 0, { text: '2 Entries\n2.1 Each entry shall record the witness.\n' })
    const r1 = await runQmsSync(db(), c.id, 'poll')
    expect(r1).toMatchObject({ report: { textsFetched: 1, renditionsFetched: 0, renditionsSkipped: 1 } })
    expect([renditions(), texts()]).toEqual([3, 4])
    // A new rendition (its hash changes): downloaded.
    vault.state.updateVersion('201', 2, 0, { rendition: Buffer.from('%ILLUSTRATIVE-RENDITION\nnew file') })
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ report: { renditionsFetched: 1 } })
    expect(renditions()).toBe(4)
    // No text for a version: the rendition is parsed instead.
    vault.state.addVersion('201', { major: 3, minor: 0, status: 'Draft', text: '1 Scope\nRendition text shall be parsed.\n' })
    vault.state.faults.textUnavailableNext = 1
    await runQmsSync(db(), c.id, 'poll')
    const v30 = (await versions(c.id)).find((v) => v.major === 3)!
    expect(v30).toMatchObject({ textSource: 'rendition' })
    expect(v30.text).toContain('Rendition text shall be parsed.')
  })

  it('reconciles nightly: a re-stated version the poll missed, a version deleted upstream (dated from the events endpoint)', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsReconcile')
    const c = await connectQms(url(), t, vault)
    await runQmsSync(db(), c.id, 'poll')
    // Re-stated in place without a new modification date: the delta poll cannot see it.
    vault.state.updateVersion('201', 2, 1, { status: 'Obsolete' }, { touch: false })
    vault.state.deleteVersion('201', 1, 0)
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ report: { seen: 0 } })
    expect((await versions(c.id)).map((v) => v.lifecycleState)).toEqual(['superseded', 'effective', 'draft'])
    const r = await runQmsSync(db(), c.id, 'reconcile')
    expect(r).toMatchObject({ status: 'synced', report: { updated: 1, restated: 1, deleted: 1 } })
    const [v10, , v21] = await versions(c.id)
    expect(v21.lifecycleState).toBe('obsolete')
    const event = vault.state.doc('201').events.find((e) => e.name === 'version_deleted')!
    expect(v10.deletedAt!.toISOString()).toBe(event.properties.event_date__v)
    expect(vault.state.log.some((l) => l.path === '/objects/documents/201/events')).toBe(true)
    expect((await db().connection.findUniqueOrThrow({ where: { id: c.id } })).providerSettings).toMatchObject({ reconciled_at: expect.any(String) })
    expect((await health(c.id)).checks.find((k) => k.name === 'sync.reconcile')!.ok).toBe(true)
  })

  it('lets a poll and a reconciliation of the same connection run at once without a duplicate or a failed page', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsRace')
    const c = await connectQms(url(), t, vault)
    await gql(url(), HEALTH, { id: c.id }, c.token)
    const [a, b] = await Promise.all([runQmsSync(db(), c.id, 'poll'), runQmsSync(db(), c.id, 'reconcile')])
    expect([a.status, b.status]).toEqual(['synced', 'synced'])
    const stored = await versions(c.id)
    expect(stored).toHaveLength(3)
    // Each version was created once (one creation audit row each), whichever run wrote it.
    const created = await db().auditEvent.findMany({ where: { action: 'sop_version.update', targetId: { in: stored.map((v) => v.id) } } })
    expect(created.filter((e) => (e.details as { created?: boolean }).created)).toHaveLength(3)
  })

  it('re-authenticates once when the session expired; when that fails too, health says so and nothing is written', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsSession')
    const c = await connectQms(url(), t, vault)
    vault.state.faults.expireSessionsNext = 1
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ status: 'synced', report: { created: 3 } })
    vault.state.addVersion('201', { major: 3, minor: 0, status: 'Draft', text: 'x shall y.' })
    vault.state.sessions.clear()
    vault.state.faults.authBroken = true
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/session expired and re-authentication failed/) })
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(3)
    expect(await health(c.id)).toMatchObject({ status: 'failing', last_error: expect.stringMatching(/re-authentication failed/) })
  })

  it('follows the burst-remaining header in the connection rate_budgets row and stops with a budget entry in health', async () => {
    await using vault = await freshVault({ burstLimit: 6 })
    seedSop(vault)
    const t = await createTenant(db(), 'QmsBurst')
    const c = await connectQms(url(), t, vault)
    // The health check before the first sync and the poll's query spend the vault's burst window (its answers say how
    // much is left): the poll stops before its page is written.
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run.status).toBe('rescheduled')
    expect(await db().sopVersion.count({ where: { connectionId: c.id } })).toBe(0)
    const rows = await db().rateBudget.findMany({ where: { scopeKey: c.id } })
    expect(rows.map((r) => [r.providerId, r.scope, r.windowSeconds]).sort()).toEqual([['qms_provider', 'connection', 300], ['qms_provider.auth', 'connection', 60]])
    const burst = rows.find((r) => r.providerId === 'qms_provider')!
    expect(burst.remoteLimit).toBe(6)
    // Refused once fewer than one draw (BUDGET_DRAW requests) and the reserve are left in the vault's window.
    expect(burst.remoteRemaining).toBeLessThan(BUDGET_DRAW + 1)
    const h = await health(c.id)
    expect(h.checks.find((k) => k.name === 'budget')).toMatchObject({ ok: false, detail: expect.stringMatching(/^budget exhausted for source qms_provider, retry after \d+ s$/) })
    expect(await db().$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = 'poll_qms'`).toEqual([{ n: 1n }])
    // No organisation row: the QMS budget is connection-scoped.
    expect(await db().rateBudget.count({ where: { providerId: 'qms_provider', scope: 'organization' } })).toBe(0)
  })

  it('honours the response-delay header: the request after a delayed answer waits as long', async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const t = await createTenant(db(), 'QmsDelay')
    const c = await connectQms(url(), t, vault)
    vault.state.faults.responseDelayMs = 120
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run).toMatchObject({ status: 'synced', report: { created: 3 } })
    if (run.status !== 'synced') return
    expect(run.report.delayedAnswers).toBeGreaterThan(3)
    // The answers take 120 ms and the client then waits 120 ms: consecutive requests are at least 240 ms apart.
    const log = vault.state.log
    const query = log.findIndex((l, i) => l.path === '/query' && i > 0 && log[i - 1].path !== '/query')
    expect(log[query].at - log[query - 1].at).toBeGreaterThanOrEqual(230)
    clearQmsFaults(vault.state)
  })

  it('passes every injection fixture in SOP text through the shared sanitiser before storing it', async () => {
    await using vault = await freshVault()
    const t = await createTenant(db(), 'QmsInjection')
    vault.state.addDocument({ id: '401', number: 'SOP-0401', name: 'Injected' })
    INJECTION_FIXTURES.forEach((f, i) => vault.state.addVersion('401', { major: 1, minor: i, status: 'Draft', text: f.text }))
    const c = await connectQms(url(), t, vault)
    expect(await runQmsSync(db(), c.id, 'poll')).toMatchObject({ status: 'synced', report: { created: INJECTION_FIXTURES.length } })
    const stored = await versions(c.id)
    for (const [i, f] of INJECTION_FIXTURES.entries()) {
      const v = stored.find((s) => s.minor === i)!
      const expected = sanitiseOutsideText(f.text)
      expect(v.text, f.name).toBe(expected.text)
      expect(v.sanitiserFindings, f.name).toEqual(expected.findings)
      expect((v.sanitiserFindings as string[]).length, f.name).toBeGreaterThan(0)
    }
  })

  it("keeps SOPs to their organisation: another tenant's SOP reads as null", async () => {
    await using vault = await freshVault()
    seedSop(vault)
    const { a, b } = await createTwoOrganizations(db())
    const cb = await connectQms(url(), b, vault)
    await runQmsSync(db(), cb.id, 'poll')
    await expectRowsExist(db(), 'sop_versions', b.organization.id)
    const theirs = await db().sop.findFirstOrThrow({ where: { organizationId: b.organization.id } })
    const r = await gql(url(), `query($id: ID!) { sop(id: $id) { id } }`, { id: theirs.id }, await a.token('program_owner'))
    expect(r.body.data.sop).toBeNull()
    const mine = await gql(url(), `query($id: ID!) { sop(id: $id) { id sourceSystem versions { major lifecycleState } } }`, { id: theirs.id }, await b.token('quality_reviewer'))
    expect(mine.body.data.sop).toMatchObject({ sourceSystem: 'qms_provider' })
  })
})
