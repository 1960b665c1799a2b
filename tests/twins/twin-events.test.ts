import { beforeAll, describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { recordAudit } from '../../core/audit'
import { useStack, gql } from '../helpers/stack'
import { addMember, createTenant, type Tenant } from '../helpers/factories'
import { reconcileEventTriggers } from '../../domain/twins'
import { evaluateTwins } from '../../domain/twins'
import { pauseTwin } from '../../domain/twins'
import { systemActor } from '../../core/audit'
import { seedTwin } from './twin-helpers'

// The stack registers the twins' audit hooks, as every process that records audit rows does.
const stack = useStack()
const db = () => stack.db.db
let tenant: Tenant
beforeAll(async () => { tenant = await createTenant(db(), 'Events') })

const experimentUpdated = (t: Tenant, actorId: string) => db().$transaction((tx) => recordAudit(tx, {
  organizationId: t.organization.id, programId: t.program.id, action: 'experiment.update',
  actor: { type: 'user', userId: actorId }, target: { type: 'experiment', id: randomUUID() },
}))

async function openDecisions(t: Tenant, userId: string, n: number) {
  await db().inboxItem.createMany({ data: Array.from({ length: n }, (_, i) => ({
    organizationId: t.organization.id, programId: t.program.id, userId, kind: 'decision' as const, sourceType: 'proposal', sourceId: `bp-${i}`, title: `d${i}`,
  })) })
}

describe('event triggers', () => {
  it('turns a triggerable action into one twin_cycle run, coalescing later events into the queued run', async () => {
    const { trigger } = await seedTwin(db(), tenant, 'scientist', { kind: 'event', eventAction: 'experiment.update' })
    const first = await experimentUpdated(tenant, tenant.users.program_lead.id)
    await experimentUpdated(tenant, tenant.users.program_lead.id)
    await experimentUpdated(tenant, tenant.users.program_owner.id)
    const runs = await db().agentRun.findMany({ where: { triggerId: trigger.id } })
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ status: 'queued', initiatedBy: 'event', kind: 'twin_cycle', targetId: first.targetId })
    const t = await db().twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })
    expect(t.fireCount).toBe(1)
    expect(t.lastEntrySeq).toBeGreaterThan(first.entrySeq)
    // Another program's event and a non-triggerable action fire nothing.
    const other = await createTenant(db(), 'Elsewhere')
    await experimentUpdated(other, other.users.program_owner.id)
    await db().$transaction((tx) => recordAudit(tx, { organizationId: tenant.organization.id, programId: tenant.program.id, action: 'program.update', actor: { type: 'user', userId: tenant.users.program_owner.id }, target: { type: 'program', id: tenant.program.id } }))
    expect(await db().agentRun.count({ where: { triggerId: trigger.id } })).toBe(1)
    await db().agentRun.updateMany({ where: { triggerId: trigger.id }, data: { status: 'cancelled' } })
  })

  it('holds the next event run until the cadence floor after the last firing', async () => {
    const { trigger } = await seedTwin(db(), tenant, 'program_lead', { kind: 'event', eventAction: 'experiment.update' })
    const fired = new Date(Date.now() - 20 * 60_000)
    await db().twinTrigger.update({ where: { id: trigger.id }, data: { lastFiredAt: fired } })
    await experimentUpdated(tenant, tenant.users.program_owner.id)
    const run = await db().agentRun.findFirstOrThrow({ where: { triggerId: trigger.id } })
    const [job] = await db().$queryRaw<{ run_at: Date }[]>`SELECT run_at FROM graphile_worker.jobs WHERE key = ${'twin_cycle:' + run.id}`
    expect(job.run_at.getTime()).toBe(fired.getTime() + 3600_000)
    await db().agentRun.updateMany({ where: { triggerId: trigger.id }, data: { status: 'cancelled' } })
  })

  it('defers an event under backpressure without moving the watermark; twin_events_reconcile enqueues it once the person has room', async () => {
    const other = await createTenant(db(), 'Backpressure')
    const { trigger, user } = await seedTwin(db(), other, 'quality_reviewer', { kind: 'event', eventAction: 'experiment.update' })
    await openDecisions(other, user.id, 25)
    const event = await experimentUpdated(other, other.users.program_owner.id)
    expect(await db().agentRun.count({ where: { triggerId: trigger.id } })).toBe(0)
    expect((await db().twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })).lastEntrySeq).toBeLessThan(event.entrySeq)
    expect(await reconcileEventTriggers(db())).toMatchObject({ deferred: 1, queued: 0 })
    await db().inboxItem.updateMany({ where: { userId: user.id, sourceId: { in: ['bp-0', 'bp-1'] } }, data: { status: 'done' } })
    const r = await reconcileEventTriggers(db())
    expect(r.queued).toBe(1)
    expect(await db().agentRun.count({ where: { triggerId: trigger.id, initiatedBy: 'event' } })).toBe(1)
    expect((await db().twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })).lastEntrySeq).toBe(event.entrySeq)
    expect((await reconcileEventTriggers(db())).queued).toBe(0)
  })
})

describe('a failing event hook', () => {
  it('never loses the audited write; twin_events_reconcile enqueues what the hook missed', async () => {
    const t = await createTenant(db(), 'HookFails')
    const { trigger } = await seedTwin(db(), t, 'scientist', { kind: 'event', eventAction: 'experiment.update' })
    // A real database refusal inside the hook (not a stub): runs cannot be inserted while this constraint stands.
    await db().$executeRawUnsafe(`ALTER TABLE agent_runs ADD CONSTRAINT test_hook_fails CHECK (trigger_id IS DISTINCT FROM '${trigger.id}'::uuid) NOT VALID`)
    let event
    try {
      event = await experimentUpdated(t, t.users.program_owner.id)
    } finally {
      await db().$executeRawUnsafe('ALTER TABLE agent_runs DROP CONSTRAINT test_hook_fails')
    }
    expect(await db().auditEvent.findUnique({ where: { id: event.id } })).not.toBeNull()
    expect(await db().agentRun.count({ where: { triggerId: trigger.id } })).toBe(0)
    expect((await db().twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })).lastEntrySeq).toBeLessThan(event.entrySeq)
    expect((await reconcileEventTriggers(db())).queued).toBeGreaterThanOrEqual(1)
    expect(await db().agentRun.findFirstOrThrow({ where: { triggerId: trigger.id } })).toMatchObject({ initiatedBy: 'event', targetId: event.targetId })
  })
})

describe('pause causes', () => {
  const url = () => `${stack.current.gatewayUrl}/graphql`
  const removePersona = async (t: Tenant, userId: string, persona: string) => gql(url(),
    `mutation($p: ID!, $u: ID!, $persona: String!) { removePersona(programId: $p, userId: $u, persona: $persona) { __typename } }`,
    { p: t.program.id, u: userId, persona }, await t.token('program_owner'))

  it('pauses with permission_lost when the twin\'s persona is removed and another stays, with a twin_paused notification', async () => {
    const t = await createTenant(db(), 'Permission')
    await addMember(db(), t.program, t.users.scientist.id, ['scientist', 'quality_reviewer'])
    const { twin } = await seedTwin(db(), t, 'quality_reviewer', { userId: t.users.scientist.id })
    const r = await removePersona(t, t.users.scientist.id, 'quality_reviewer')
    expect(r.body.data.removePersona.__typename).toBe('MutationRemovePersonaSuccess')
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'permission_lost' })
    expect(await db().notification.count({ where: { userId: t.users.scientist.id, kind: 'twin_paused' } })).toBe(1)
  })

  it('pauses with membership_lost when the person\'s last persona in the program goes', async () => {
    const t = await createTenant(db(), 'Membership')
    const { twin } = await seedTwin(db(), t, 'manufacturing_specialist')
    await removePersona(t, t.users.manufacturing_specialist.id, 'manufacturing_specialist')
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'membership_lost' })
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'twin.pause', targetId: twin.id } })
    expect(audit).toMatchObject({ actorType: 'system', details: expect.objectContaining({ reason: 'membership_lost' }) })
  })

  it('pauses with user_inactive when the person is deactivated', async () => {
    const t = await createTenant(db(), 'Inactive')
    const { twin } = await seedTwin(db(), t, 'program_lead')
    const r = await gql(url(), `mutation($u: ID!) { deactivateUser(userId: $u) { __typename } }`, { u: t.users.program_lead.id }, await t.token('org_admin'))
    expect(r.body.data.deactivateUser.__typename).toBe('MutationDeactivateUserSuccess')
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'user_inactive' })
  })

  it('pauses with budget when the tool server reports exhaustion (pauseTwin with reason budget)', async () => {
    const t = await createTenant(db(), 'Budget')
    const { twin } = await seedTwin(db(), t, 'scientist')
    await db().$transaction((tx) => pauseTwin(tx, twin, 'budget', { actor: systemActor('tool_budget') }))
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'budget' })
    expect(await db().notification.count({ where: { userId: twin.userId, kind: 'twin_paused' } })).toBe(1)
  })

  it('pauses with high_decline_rate when 10 or more decided proposals in 7 days are 60 % declined (twin_evaluate), and not below', async () => {
    const t = await createTenant(db(), 'Decline')
    const { twin } = await seedTwin(db(), t, 'scientist')
    const { twin: fine } = await seedTwin(db(), t, 'program_owner')
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id } })
    const proposals = (twinId: string, outcomes: string[]) => db().runInterrupt.createMany({ data: outcomes.map((outcome) => ({
      organizationId: t.organization.id, runId: run.id, kind: 'write_approval', detached: true,
      question: { type: 'proposal', proposer: { twinId } }, answer: { outcome, reason: outcome === 'declined' ? { code: 'not_relevant', text: '' } : null }, answeredAt: new Date(),
    })) })
    await proposals(twin.id, [...Array(6).fill('declined'), ...Array(3).fill('approved'), 'approved_with_edits'])
    await proposals(fine.id, [...Array(5).fill('declined'), ...Array(5).fill('approved')])
    // a tool's refusal counts as refused; a harness denial (no effect, its trace only) does not
    const call = { organizationId: t.organization.id, programId: t.program.id, runId: run.id, twinId: twin.id, tool: 'evidence.propose_finding', status: 'refused' as const }
    await db().toolCall.createMany({ data: [
      { ...call, outputViolations: [{ code: 'invalid_input', field: 'change.title', message: 'Required.' }] },
      { ...call, tool: 'review.propose_deviation', outputViolations: [{ code: 'harness_denied', field: null, message: "review.propose_deviation is not in this run's toolset." }] },
    ] })
    // the not_useful rate per trigger, from feedback on the twin's items
    const trigger = await db().twinTrigger.findFirstOrThrow({ where: { twinId: twin.id } })
    const item = { organizationId: t.organization.id, userId: twin.userId, programId: t.program.id, twinId: twin.id, triggerId: trigger.id, kind: 'decision' as const, sourceType: 'proposal' }
    await db().inboxItem.createMany({ data: [
      { ...item, sourceId: randomUUID(), title: 'a', feedback: 'not_useful' }, { ...item, sourceId: randomUUID(), title: 'b', feedback: 'helpful' },
      { ...item, sourceId: randomUUID(), title: 'c', status: 'expired' },
    ] })
    const r = await evaluateTwins(db())
    const e = r.evaluations.find((x) => x.twinId === twin.id)!
    expect(e).toMatchObject({ filed: 10, approvedUnchanged: 3, edited: 1, declined: 6, declinedByReason: { not_relevant: 6 }, refused: 1, expired: 1 })
    expect(e.notUseful).toEqual([{ triggerId: trigger.id, rated: 2, notUseful: 1, rate: 0.5 }])
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'high_decline_rate' })
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: fine.id } })).toMatchObject({ status: 'active' })
  })
})
