import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { addMember, createTenant, createTwoOrganizations, expectRowsExist, type Tenant, type PersonaKey } from '../helpers/factories'

const stack = useStack()
let tenant: Tenant
const url = () => `${stack.current.gatewayUrl}/graphql`
const as = async (persona: PersonaKey, query: string, variables: Record<string, unknown> = {}, t: Tenant = tenant) => gql(url(), query, variables, await t.token(persona))

const TWIN = 'id personaKey status pausedReason pausedNotice duties expiryHours budgetToolCallsMonth user { id }'
const CREATE = `mutation($programId: ID!, $input: CreateTwinInput!) { createTwin(programId: $programId, input: $input) {
  __typename ... on MutationCreateTwinSuccess { twin { ${TWIN} } } ... on Error { code message field } } }`
const TRIGGER = `mutation($twinId: ID!, $input: CreateTwinTriggerInput!) { createTwinTrigger(twinId: $twinId, input: $input) {
  __typename ... on MutationCreateTwinTriggerSuccess { trigger { id kind eventAction standingPlanHash standingPlanApprovedAt schedule { rrule timezone nextRunAt } } }
  ... on InvalidInput { code field issues { field message } } ... on Error { code message field } } }`

async function createTwin(persona: PersonaKey, input: Record<string, unknown> = {}, t: Tenant = tenant, caller: PersonaKey = persona) {
  const r = await as(caller, CREATE, { programId: t.program.id, input: { personaKey: persona, duties: ['blocker_scan'], ...input } }, t)
  expect(r.body.errors).toBeUndefined()
  return r.body.data.createTwin
}

beforeAll(async () => { tenant = await createTenant(stack.db.db, 'Twins') })

describe('twins through the gateway', () => {
  it('creates a twin for a persona the person holds, with the specification defaults, audited twin.create', async () => {
    const r = await createTwin('scientist')
    expect(r.__typename).toBe('MutationCreateTwinSuccess')
    expect(r.twin).toMatchObject({ personaKey: 'scientist', status: 'active', duties: ['blocker_scan'], expiryHours: 72, budgetToolCallsMonth: 2000, pausedNotice: null })
    expect(await stack.db.db.auditEvent.count({ where: { action: 'twin.create', targetId: r.twin.id, actorUserId: tenant.users.scientist.id } })).toBe(1)
  })

  it('refuses a second active twin in the program with twin_active_exists and writes nothing', async () => {
    await addMember(stack.db.db, tenant.program, tenant.users.scientist.id, ['scientist', 'manufacturing_specialist'])
    const before = await stack.db.db.twinDefinition.count()
    const r = await createTwin('manufacturing_specialist', {}, tenant, 'scientist')
    expect(r).toMatchObject({ __typename: 'TwinActiveExists', code: 'twin_active_exists' })
    expect(await stack.db.db.twinDefinition.count()).toBe(before)
  })

  it('refuses a duty the persona cannot hold with duty_unavailable naming the duty', async () => {
    const r = await createTwin('quality_reviewer', { duties: ['blocker_scan', 'sar_refresh'] })
    expect(r).toMatchObject({ __typename: 'DutyUnavailable', code: 'duty_unavailable', field: 'input.duties.1' })
    expect(await stack.db.db.twinDefinition.count({ where: { userId: tenant.users.quality_reviewer.id } })).toBe(0)
  })

  it("tells a viewer 'Viewers have no twin. Nothing waits for you.' and refuses them a twin", async () => {
    const notice = await as('viewer', `query($id: ID!) { program(id: $id) { twinPanelNotice } }`, { id: tenant.program.id })
    expect(notice.body.data.program.twinPanelNotice).toBe('Viewers have no twin. Nothing waits for you.')
    const owner = await as('program_owner', `query($id: ID!) { program(id: $id) { twinPanelNotice } }`, { id: tenant.program.id })
    expect(owner.body.data.program.twinPanelNotice).toBeNull()
    const r = await as('viewer', CREATE, { programId: tenant.program.id, input: { personaKey: 'viewer' } })
    expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.twins.use' })
  })

  it('shows every twin under program.twins.read and only their own under read_own', async () => {
    await createTwin('program_lead')
    const list = `query($p: ID!) { twins(programId: $p) { nodes { personaKey } } }`
    const quality = await as('quality_reviewer', list, { p: tenant.program.id })
    expect(quality.body.data.twins.nodes.map((n: any) => n.personaKey).sort()).toEqual(['program_lead', 'scientist'])
    const scientist = await as('scientist', list, { p: tenant.program.id })
    expect(scientist.body.data.twins.nodes.map((n: any) => n.personaKey)).toEqual(['scientist'])
    const leadTwin = await stack.db.db.twinDefinition.findFirstOrThrow({ where: { userId: tenant.users.program_lead.id } })
    const other = await as('scientist', `query($id: ID!) { twin(id: $id) { id } twinTriggers(twinId: $id) { id } twinSchedule(twinId: $id) { id } }`, { id: leadTwin.id })
    expect(other.body.data).toEqual({ twin: null, twinTriggers: null, twinSchedule: null })
  })

  it('refuses an event action outside TRIGGERABLE_ACTIONS (typed, and by the database), a cadence under an hour and a bad rrule, writing nothing', async () => {
    const twin = await stack.db.db.twinDefinition.findFirstOrThrow({ where: { userId: tenant.users.scientist.id } })
    const before = await stack.db.db.twinTrigger.count()
    const bad = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'event', eventAction: 'program.update' } })
    expect(bad.body.data.createTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.eventAction' })
    const fast = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'event', eventAction: 'experiment.update', minIntervalSeconds: 60 } })
    expect(fast.body.data.createTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.minIntervalSeconds' })
    const rrule = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'schedule', rrule: 'FREQ=SOMETIMES' } })
    expect(rrule.body.data.createTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.rrule' })
    const minutely = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'schedule', rrule: 'FREQ=MINUTELY' } })
    expect(minutely.body.data.createTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.rrule' })
    const tz = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'schedule', rrule: 'FREQ=DAILY', timezone: 'Mars/Olympus' } })
    expect(tz.body.data.createTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.timezone' })
    const duty = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'pre_read', kind: 'mention' } })
    expect(duty.body.data.createTwinTrigger).toMatchObject({ __typename: 'DutyUnavailable', field: 'input.dutyKey' })
    expect(await stack.db.db.twinTrigger.count()).toBe(before)
    await expect(stack.db.db.$executeRaw`INSERT INTO twin_triggers (organization_id, twin_id, duty_key, kind, event_action)
      VALUES (${twin.organizationId}::uuid, ${twin.id}::uuid, 'blocker_scan', 'event', 'program.update')`).rejects.toThrow(/twin_triggers_event_action_triggerable/)
    await expect(stack.db.db.$executeRaw`INSERT INTO twin_triggers (organization_id, twin_id, duty_key, kind, min_interval_seconds)
      VALUES (${twin.organizationId}::uuid, ${twin.id}::uuid, 'blocker_scan', 'mention', 600)`).rejects.toThrow(/twin_triggers_cadence_floor/)
  })

  it('stores a schedule as an RFC 5545 rule in the person\'s timezone with its next run, and approves the standing plan the person read', async () => {
    const twin = await stack.db.db.twinDefinition.findFirstOrThrow({ where: { userId: tenant.users.scientist.id } })
    const r = await as('scientist', TRIGGER, { twinId: twin.id, input: { dutyKey: 'blocker_scan', kind: 'schedule', rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', timezone: 'Europe/Berlin', standingPlan: { reads: ['decisions'] } } })
    const trigger = r.body.data.createTwinTrigger.trigger
    expect(trigger.schedule.rrule).toMatch(/^DTSTART;TZID=Europe\/Berlin:\d{8}T\d{6}\nRRULE:FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0$/)
    const next = new Date(trigger.schedule.nextRunAt)
    expect(next.getTime()).toBeGreaterThan(Date.now())
    // 09:00 in Berlin is 08:00 or 07:00 UTC (winter / summer time), never 09:00 UTC.
    expect([7, 8]).toContain(next.getUTCHours())
    expect(trigger.standingPlanApprovedAt).toBeNull()
    const approve = `mutation($id: ID!, $hash: String!) { updateTwinTrigger(id: $id, input: { approvePlanHash: $hash }) {
      __typename ... on MutationUpdateTwinTriggerSuccess { trigger { standingPlanApprovedAt } } ... on Error { code field } } }`
    const stale = await as('scientist', approve, { id: trigger.id, hash: 'not-the-plan' })
    expect(stale.body.data.updateTwinTrigger).toMatchObject({ __typename: 'InvalidInput', field: 'input.approvePlanHash' })
    const ok = await as('scientist', approve, { id: trigger.id, hash: trigger.standingPlanHash })
    expect(ok.body.data.updateTwinTrigger.trigger.standingPlanApprovedAt).not.toBeNull()
    expect(await stack.db.db.auditEvent.count({ where: { action: 'twin_trigger.plan_approve', triggerId: trigger.id } })).toBe(1)
    const viewerApprove = await as('program_lead', approve, { id: trigger.id, hash: trigger.standingPlanHash })
    expect(viewerApprove.body.data.updateTwinTrigger).toMatchObject({ __typename: 'BoundUserOnly' })
    const put = await as('scientist', `mutation($t: ID!, $tr: ID!) { setTwinSchedule(twinId: $t, triggerId: $tr, rrule: "FREQ=WEEKLY;BYDAY=MO;BYHOUR=7;BYMINUTE=30", timezone: "America/New_York") {
      __typename ... on MutationSetTwinScheduleSuccess { schedule { rrule timezone nextRunAt } } } }`, { t: twin.id, tr: trigger.id })
    expect(put.body.data.setTwinSchedule.schedule).toMatchObject({ timezone: 'America/New_York' })
    expect(new Date(put.body.data.setTwinSchedule.schedule.nextRunAt).getUTCDay()).toBe(1)
    const read = await as('scientist', `query($id: ID!) { twinSchedule(twinId: $id) { triggerId timezone } twinTriggers(twinId: $id) { id } }`, { id: twin.id })
    expect(read.body.data.twinSchedule).toEqual([{ triggerId: trigger.id, timezone: 'America/New_York' }])
  })

  it("pauses and resumes one's own twin, refuses run-now while paused with twin_paused, and reads 'Paused. Nothing runs until you resume.'", async () => {
    const twin = await stack.db.db.twinDefinition.findFirstOrThrow({ where: { userId: tenant.users.scientist.id } })
    const pause = await as('scientist', `mutation($id: ID!) { pauseTwin(id: $id) { __typename ... on MutationPauseTwinSuccess { twin { status pausedReason pausedNotice } } } }`, { id: twin.id })
    expect(pause.body.data.pauseTwin.twin).toEqual({ status: 'paused', pausedReason: 'user', pausedNotice: 'Paused. Nothing runs until you resume.' })
    const runs = await stack.db.db.agentRun.count({ where: { twinId: twin.id } })
    const run = await as('scientist', `mutation($id: ID!) { runTwinNow(id: $id) { __typename ... on Error { code } } }`, { id: twin.id })
    expect(run.body.data.runTwinNow).toEqual({ __typename: 'TwinPaused', code: 'twin_paused' })
    expect(await stack.db.db.agentRun.count({ where: { twinId: twin.id } })).toBe(runs)
    const resume = await as('scientist', `mutation($id: ID!) { resumeTwin(id: $id) { __typename ... on MutationResumeTwinSuccess { twin { status pausedReason } } } }`, { id: twin.id })
    expect(resume.body.data.resumeTwin.twin).toEqual({ status: 'active', pausedReason: null })
    const now = await as('scientist', `mutation($id: ID!) { runTwinNow(id: $id) { __typename ... on MutationRunTwinNowSuccess { run { status initiatedBy footer } } } }`, { id: twin.id })
    expect(now.body.data.runTwinNow.run).toMatchObject({ status: 'queued', initiatedBy: 'user' })
    expect(now.body.data.runTwinNow.run.footer).toMatch(/^started by the person, under .+'s standing plan \(approved \d{4}-\d{2}-\d{2}, plan [0-9a-f]{12}\)$/)
    expect(await stack.db.db.auditEvent.count({ where: { action: 'twin.enqueue', actorUserId: tenant.users.scientist.id } })).toBe(1)
    expect((await stack.db.db.auditEvent.findMany({ where: { targetId: twin.id, action: { in: ['twin.pause', 'twin.resume'] } }, orderBy: { entrySeq: 'asc' } })).map((a) => a.action)).toEqual(['twin.pause', 'twin.resume'])
  })

  it("lets a manager pause someone's twin only with a reason (manage), and refuses others with FORBIDDEN", async () => {
    const twin = await stack.db.db.twinDefinition.findFirstOrThrow({ where: { userId: tenant.users.scientist.id } })
    const m = `mutation($id: ID!, $reason: String) { pauseTwin(id: $id, reason: $reason) { __typename ... on MutationPauseTwinSuccess { twin { pausedReason } } ... on Error { code field } } }`
    const quality = await as('quality_reviewer', m, { id: twin.id, reason: 'oversight' })
    expect(quality.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.twins.manage' })
    const noReason = await as('program_owner', m, { id: twin.id })
    expect(noReason.body.data.pauseTwin).toMatchObject({ __typename: 'ReasonRequired', field: 'reason' })
    const ok = await as('program_owner', m, { id: twin.id, reason: 'reviewing its duties' })
    expect(ok.body.data.pauseTwin.twin).toEqual({ pausedReason: 'manage' })
    const note = await stack.db.db.notification.findFirstOrThrow({ where: { userId: tenant.users.scientist.id, kind: 'twin_paused' }, orderBy: { createdAt: 'desc' } })
    expect(note.payload).toMatchObject({ reason: 'manage', twin_id: twin.id })
    const audit = await stack.db.db.auditEvent.findFirstOrThrow({ where: { action: 'twin.pause', targetId: twin.id, actorUserId: tenant.users.program_owner.id } })
    expect(audit.details).toMatchObject({ reason: 'manage', note: 'reviewing its duties' })
  })
})

describe('twins across organisations', () => {
  it("never shows another organisation's twins or lets anyone act on them", async () => {
    const { a, b } = await createTwoOrganizations(stack.db.db)
    const bTwin = (await createTwin('scientist', {}, b)).twin
    await expectRowsExist(stack.db.db, 'twin_definitions', b.organization.id)
    const read = await as('program_owner', `query($id: ID!, $p: ID!) { twin(id: $id) { id } twins(programId: $p) { nodes { id } } }`, { id: bTwin.id, p: b.program.id }, a)
    expect(read.body.data?.twin ?? null).toBeNull()
    expect(read.body.errors?.[0].extensions?.code).toBe('FORBIDDEN')
    const pause = await as('program_owner', `mutation($id: ID!) { pauseTwin(id: $id, reason: "x") { __typename ... on Error { code } } }`, { id: bTwin.id }, a)
    expect(pause.body.data.pauseTwin).toEqual({ __typename: 'NotFound', code: 'not_found' })
    expect(await stack.db.db.twinDefinition.findUniqueOrThrow({ where: { id: bTwin.id } })).toMatchObject({ status: 'active' })
  })
})
