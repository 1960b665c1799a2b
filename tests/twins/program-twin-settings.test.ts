// The program's twin settings do what their names say (issue 29, item 7): twin_defaults, set under
// program.twins.manage with a reason, fill what a person leaves out when creating their twin; escalation_days makes
// inbox_expire escalate a signature or question still open that long, to the program's owners and leads.
import { beforeAll, describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { enqueue } from '../../core/jobs'
import { createTaskList } from '../../jobs/worker'
import { fileInboxItem } from '../../domain/inbox'
import { useStack, gql, wsClient, collect } from '../helpers/stack'
import { createTenant, type PersonaKey, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
let t: Tenant
beforeAll(async () => { t = await createTenant(db(), 'Settings') })

const ERR = `__typename ... on Error { code message field } ... on InvalidInput { issues { field message } }`
async function call(persona: PersonaKey, query: string, variables: Record<string, unknown> = {}, tenant = t) {
  const r = await gql(url(), query, variables, await tenant.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}
const SET_DEFAULTS = `mutation($p: ID!, $d: JSON!, $r: String) { setProgramTwinDefaults(programId: $p, defaults: $d, reason: $r) { ${ERR} ... on MutationSetProgramTwinDefaultsSuccess { program { id settings } } } }`
const CREATE_TWIN = `mutation($p: ID!, $i: CreateTwinInput!) { createTwin(programId: $p, input: $i) { ${ERR} ... on MutationCreateTwinSuccess { twin { id duties expiryHours digestTime batchTimes budgetToolCallsMonth budgetUsdMonth } } } }`

async function runInboxExpire() {
  await db().$transaction((tx) => enqueue(tx, 'inbox_expire', {}))
  await runOnce({ connectionString: stack.db.url, taskList: createTaskList({ db: db(), databaseUrl: stack.db.url }), noHandleSignals: true })
}

describe('twin_defaults', () => {
  it('are written under program.twins.manage with a reason, not through updateProgramSettings, and validated', async () => {
    const direct = await call('program_owner', `mutation($p: ID!, $s: JSON!) { updateProgramSettings(programId: $p, settings: $s) { ${ERR} } }`,
      { p: t.program.id, s: { twin_defaults: { expiry_hours: 48 } } })
    expect(direct.updateProgramSettings).toMatchObject({ code: 'invalid_input', field: 'settings.twin_defaults' })
    for (const persona of ['scientist', 'quality_reviewer'] as const) {
      const refused = await gql(url(), SET_DEFAULTS, { p: t.program.id, d: { expiry_hours: 48 }, r: 'shorter' }, await t.token(persona))
      expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.twins.manage' })
    }
    const noReason = await call('program_lead', SET_DEFAULTS, { p: t.program.id, d: { expiry_hours: 48 } })
    expect(noReason.setProgramTwinDefaults).toMatchObject({ code: 'reason_required', field: 'reason' })
    const bad = await call('program_lead', SET_DEFAULTS, { p: t.program.id, d: { expiry_hours: 0, digest_time: '25:00', colour: 'red' }, r: 'x' })
    expect(bad.setProgramTwinDefaults.code).toBe('invalid_input')
    expect(bad.setProgramTwinDefaults.issues.map((i: { field: string }) => i.field).sort()).toEqual(['defaults', 'defaults.digest_time', 'defaults.expiry_hours'])
    const unknownDuty = await call('program_lead', SET_DEFAULTS, { p: t.program.id, d: { duties: ['blocker_scan', 'world_domination'] }, r: 'x' })
    expect(unknownDuty.setProgramTwinDefaults).toMatchObject({ code: 'invalid_input', field: 'defaults.duties.1' })
    expect(((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).settings as Record<string, unknown>).twin_defaults).toEqual({})
  })

  it('fill what a person leaves out when they create their twin; their own choices win, and duties their persona cannot hold are left out', async () => {
    const set = await call('program_lead', SET_DEFAULTS, {
      p: t.program.id, r: 'Program agreed a 48 h decision window and a morning digest',
      d: { expiry_hours: 48, digest_time: '07:30', batch_times: ['12:00'], budget_tool_calls_month: 500, budget_usd_month: 20, duties: ['blocker_scan', 'sar_refresh'] },
    })
    expect(set.setProgramTwinDefaults.program.settings.twin_defaults).toMatchObject({ expiry_hours: 48, digest_time: '07:30' })
    const audit = await db().auditEvent.findFirstOrThrow({ where: { programId: t.program.id, action: 'program.update', actorUserId: t.users.program_lead.id }, orderBy: { entrySeq: 'desc' } })
    expect(audit.details).toMatchObject({ settings: ['twin_defaults'], reason: 'Program agreed a 48 h decision window and a morning digest' })

    const plain = await call('scientist', CREATE_TWIN, { p: t.program.id, i: { personaKey: 'scientist' } })
    // sar_refresh needs the medicinal_chemist workbench role, which this scientist does not wear
    expect(plain.createTwin.twin).toMatchObject({ duties: ['blocker_scan'], expiryHours: 48, digestTime: '07:30', batchTimes: ['12:00'], budgetToolCallsMonth: 500, budgetUsdMonth: 20 })
    const chosen = await call('quality_reviewer', CREATE_TWIN, { p: t.program.id, i: { personaKey: 'quality_reviewer', duties: ['qa_check_triage'], digestTime: '16:00', budgetToolCallsMonth: 100 } })
    expect(chosen.createTwin.twin).toMatchObject({ duties: ['qa_check_triage'], digestTime: '16:00', budgetToolCallsMonth: 100, expiryHours: 48, batchTimes: ['12:00'] })
    const created = await db().auditEvent.findFirstOrThrow({ where: { action: 'twin.create', targetId: chosen.createTwin.twin.id } })
    expect((created.details as { program_defaults: string[] }).program_defaults.sort()).toEqual(['batch_times', 'budget_usd_month', 'expiry_hours'])
  })
})

describe('escalation_days', () => {
  it('escalates a signature still open that many days once: priority now, announced live, and a pointer for the owners and leads that resolves with it', async () => {
    const set = await call('program_owner', `mutation($p: ID!, $s: JSON!) { updateProgramSettings(programId: $p, settings: $s) { ${ERR} } }`, { p: t.program.id, s: { escalation_days: 2 } })
    expect(set.updateProgramSettings.__typename).toBe('MutationUpdateProgramSettingsSuccess')
    const file = (persona: PersonaKey, title: string, daysAgo: number, kind: 'signature' | 'question' | 'decision' = 'signature', tenant = t) => db().$transaction(async (tx) => {
      const item = await fileInboxItem(tx, { organizationId: tenant.organization.id, programId: tenant.program.id, userId: tenant.users[persona].id, kind, sourceType: 'sop', sourceId: crypto.randomUUID(), title })
      return tx.inboxItem.update({ where: { id: item.id }, data: { createdAt: new Date(Date.now() - daysAgo * 86_400_000) } })
    })
    const old = await file('quality_reviewer', 'Approve SOP-QA-7', 3)
    const recent = await file('quality_reviewer', 'Approve SOP-QA-8', 1)
    const proposal = await file('quality_reviewer', 'A twin proposal', 3, 'decision')
    // a program that turned escalation off
    const other = await createTenant(db(), 'No escalation')
    await db().program.update({ where: { id: other.program.id }, data: { settings: { escalation_days: 0 } } })
    const off = await file('quality_reviewer', 'Approve SOP-X', 30, 'signature', other)

    const client = wsClient(url(), await t.token('quality_reviewer'))
    const live = collect(client, 'subscription { inboxChanged { id change priority escalatedAt } }', 1)
    await new Promise((r) => setTimeout(r, 300))
    await runInboxExpire()
    await live.finished
    await client.dispose()
    expect(live.received[0].data!.inboxChanged).toMatchObject({ id: old.id, change: 'escalated', priority: 'now' })
    expect(await db().inboxItem.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({ priority: 'now', escalatedAt: expect.any(Date) })
    for (const quiet of [recent, proposal, off]) expect((await db().inboxItem.findUniqueOrThrow({ where: { id: quiet.id } })).escalatedAt).toBeNull()

    const notices = await db().inboxItem.findMany({ where: { sourceType: 'inbox_item', sourceId: old.id } })
    expect(notices.map((n) => n.userId).sort()).toEqual([t.users.program_owner.id, t.users.program_lead.id].sort())
    const seen = (await call('program_lead', `{ myInbox(first: 20) { nodes { kind title sourceId status } } }`)).myInbox.nodes.find((n: { sourceId: string }) => n.sourceId === old.id)
    expect(seen).toEqual({ kind: 'information', title: 'Waiting 3 days for Settings quality_reviewer: Approve SOP-QA-7', sourceId: old.id, status: 'open' })

    // once only
    await runInboxExpire()
    expect(await db().inboxItem.count({ where: { sourceType: 'inbox_item', sourceId: old.id } })).toBe(2)
    // the escalated item closes: its notices resolve with it
    const { closeItemsForSource } = await import('../../domain/inbox')
    await db().$transaction((tx) => closeItemsForSource(tx, { organizationId: t.organization.id, sourceType: 'sop', sourceId: old.sourceId }, t.users.quality_reviewer.id))
    expect((await db().inboxItem.findMany({ where: { sourceType: 'inbox_item', sourceId: old.id } })).map((n) => n.status)).toEqual(['done', 'done'])
  })
})
