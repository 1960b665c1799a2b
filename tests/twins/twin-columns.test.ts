// Twin columns that are honoured: expiry_hours (how long proposals wait), inbox_items.batch_key (digest-priority
// filings batched for the twin's next digest moment), budget_usd_month (the USD the twin's runs report; used up, the
// twin pauses) and tool_allowlist_hash (what the person's permissions grant the twin; a change is audited). Set through
// the gateway, filed over the tool server (MCP over HTTP), runs through the twin_cycle job's function.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { runTwinCycle } from '../../domain/twins'
import { nextDigestSlot } from '../../domain/inbox'
import { addMember, createTenant } from '../helpers/factories'
import { connect, runningRun } from './tools-helpers'
import { recordingHarness, seedTwin } from './twin-helpers'
import { useStackAtR3 } from './twin-helpers'

const { stack, db, as } = useStackAtR3()
const HOUR = 3_600_000

const UPDATE = `mutation($id: ID!, $input: UpdateTwinInput!) { updateTwin(id: $id, input: $input) {
  __typename ... on MutationUpdateTwinSuccess { twin { id expiryHours budgetUsdMonth batchTimes toolAllowlistHash } }
  ... on InvalidInput { code issues { field message } } ... on Error { code message field } } }`
const CREATE = `mutation($programId: ID!, $input: CreateTwinInput!) { createTwin(programId: $programId, input: $input) {
  __typename ... on MutationCreateTwinSuccess { twin { id toolAllowlistHash } } ... on Error { code message } } }`
const INBOX = `query { myInbox(first: 50, status: [open]) { nodes { id priority batchKey dueAt proposal { id expiresAt } } } }`

async function propose(client: Awaited<ReturnType<typeof connect>>, title: string) {
  const res = await client.call('evidence.propose_finding', { change: { kind: 'create', title, fields: { kind: 'observation' } }, draft: `${title} [1].` })
  if (!res.ok) throw new Error(JSON.stringify(res.error))
  return res.value as { proposalId: string; inboxItemId: string }
}

describe('expiry_hours', () => {
  it("makes the twin's proposals expire after its expiry_hours, set through the gateway (72 by default), and refuses 0", async () => {
    const t = await createTenant(db(), 'Expiry')
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    const standard = await propose(client, 'Default expiry')
    const bad = await as(t, 'scientist', UPDATE, { id: r.twin.id, input: { expiryHours: 0 } })
    expect(bad.body.data.updateTwin).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', issues: [{ field: 'input.expiryHours' }] })
    const set = await as(t, 'scientist', UPDATE, { id: r.twin.id, input: { expiryHours: 24 } })
    expect(set.body.data.updateTwin.twin.expiryHours).toBe(24)
    const at = Date.now()
    const short = await propose(client, 'Short expiry')
    await client.close()

    const nodes = (await as(t, 'scientist', INBOX)).body.data.myInbox.nodes as any[]
    const of = (id: string) => nodes.find((n) => n.proposal?.id === id)
    const hoursLeft = (iso: string) => (new Date(iso).getTime() - at) / HOUR
    expect(hoursLeft(of(standard.proposalId).proposal.expiresAt)).toBeCloseTo(72, 0)
    expect(hoursLeft(of(short.proposalId).proposal.expiresAt)).toBeGreaterThan(23.9)
    expect(hoursLeft(of(short.proposalId).proposal.expiresAt)).toBeLessThan(24.1)
    expect(of(short.proposalId).dueAt).toBe(of(short.proposalId).proposal.expiresAt)
  })
})

describe('inbox_items.batch_key', () => {
  it("batches a digest-priority run's filings under the twin's next digest moment, and leaves a priority-now run's unbatched", async () => {
    const t = await createTenant(db(), 'Batches')
    const r = await runningRun(db(), t, 'scientist')
    expect((await as(t, 'scientist', UPDATE, { id: r.twin.id, input: { batchTimes: ['09:00', '15:00'], digestTime: '07:30' } })).body.data.updateTwin.twin.batchTimes).toEqual(['09:00', '15:00'])
    await db().agentRun.update({ where: { id: r.run.id }, data: { priority: 'digest' } })
    const client = await connect(stack.current.toolsUrl, r)
    const before = new Date()
    const a = await propose(client, 'Batched one')
    const b = await propose(client, 'Batched two')
    await client.close()
    const now = await runningRun(db(), t, 'scientist') // a new run, priority now (the person's run-now)
    await db().agentRun.update({ where: { id: now.run.id }, data: { priority: 'now' } })
    const nowClient = await connect(stack.current.toolsUrl, now)
    const c = await propose(nowClient, 'Delivered now')
    await nowClient.close()

    const nodes = (await as(t, 'scientist', INBOX)).body.data.myInbox.nodes as any[]
    const of = (id: string) => nodes.find((n) => n.proposal?.id === id)
    const twin = await db().twinDefinition.findUniqueOrThrow({ where: { id: r.twin.id } })
    const key = `${twin.id}@${nextDigestSlot(twin, null, before)}`
    expect(key).toMatch(/@\d{4}-\d{2}-\d{2}T(07:30|09:00|15:00)$/)
    expect(of(a.proposalId)).toMatchObject({ priority: 'digest', batchKey: key })
    expect(of(b.proposalId)).toMatchObject({ priority: 'digest', batchKey: key })
    expect(of(c.proposalId)).toMatchObject({ priority: 'now', batchKey: null })
    expect(await db().inboxItem.findUniqueOrThrow({ where: { id: a.inboxItemId } })).toMatchObject({ batchKey: key, triggerId: r.run.triggerId })
  })

  it('names the next digest moment on the person\'s clock, tomorrow once today\'s last one passed', () => {
    const twin = { digestTime: '08:00', batchTimes: ['13:00'] }
    const berlin = { timezone: 'Europe/Berlin' }
    expect(nextDigestSlot(twin, berlin, new Date('2026-11-26T10:00:00Z'))).toBe('2026-11-26T13:00')
    expect(nextDigestSlot(twin, berlin, new Date('2026-11-26T12:30:00Z'))).toBe('2026-11-27T08:00')
    expect(nextDigestSlot(twin, berlin, new Date('2026-11-26T06:59:00Z'))).toBe('2026-11-26T08:00')
  })
})

describe('budget_usd_month', () => {
  it('counts the USD its runs report: runs without a cost never pause the twin; once reported costs reach the budget the next run is refused and the twin pauses (budget)', async () => {
    const t = await createTenant(db(), 'Usd')
    const h = recordingHarness('test-usd-model', { outcome: { summary: { proposals_filed: 0, cost_usd: 0.6 } } })
    try {
      const { twin, trigger } = await seedTwin(db(), t, 'scientist', { harness: 'test-usd-model', nextRunAt: null })
      const set = await as(t, 'scientist', UPDATE, { id: twin.id, input: { budgetUsdMonth: 1 } })
      expect(set.body.data.updateTwin.twin.budgetUsdMonth).toBe(1)
      // A deterministic harness reports no cost: runs and calls go on whatever their number.
      const free = await runningRun(db(), t, 'scientist')
      const client = await connect(stack.current.toolsUrl, free)
      expect((await client.call('console.get_twin', {})).ok).toBe(true)
      await db().agentRun.update({ where: { id: free.run.id }, data: { status: 'succeeded', finishedAt: new Date(), outcome: { proposals_filed: 0 } } })
      await client.close()

      const queue = () => db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id, triggerId: trigger.id } })
      expect(await runTwinCycle(db(), (await queue()).id)).toEqual({ ran: true, status: 'succeeded' }) // 0.60 USD
      expect(await runTwinCycle(db(), (await queue()).id)).toEqual({ ran: true, status: 'succeeded' }) // 1.20 USD
      const third = await queue()
      expect(await runTwinCycle(db(), third.id)).toEqual({ ran: false, why: 'twin_paused' })
      expect(h.seen).toHaveLength(2)
      expect(await db().agentRun.findUniqueOrThrow({ where: { id: third.id } })).toMatchObject({ status: 'cancelled', error: 'twin paused (budget)' })
      const read = await as(t, 'scientist', `query($id: ID!) { twin(id: $id) { status pausedReason } }`, { id: twin.id })
      expect(read.body.data.twin).toEqual({ status: 'paused', pausedReason: 'budget' })
      const audit = await db().auditEvent.findFirstOrThrow({ where: { targetId: twin.id, action: 'twin.self_pause' } })
      expect(audit.details).toMatchObject({ reason: 'budget', note: "the month's budget of 1.00 USD is used (1.20 USD reported by its runs)" })
    } finally { h.off() }
  })

  it('refuses a tool call twin_paused once the reported cost reaches the budget', async () => {
    const t = await createTenant(db(), 'Usd calls')
    const r = await runningRun(db(), t, 'scientist')
    await as(t, 'scientist', UPDATE, { id: r.twin.id, input: { budgetUsdMonth: 0.5 } })
    const client = await connect(stack.current.toolsUrl, r)
    expect((await client.call('console.get_twin', {})).ok).toBe(true)
    // An earlier run of this month reported its model cost.
    await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: r.twin.id, status: 'succeeded', outcome: { cost_usd: 0.75 } } })
    await expect(client.call('console.get_twin', {})).rejects.toMatchObject({ error: { code: 'twin_paused' } })
    await client.close().catch(() => undefined)
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: r.twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'budget' })
  })
})

describe('tool_allowlist_hash', () => {
  it("is written when the twin is created or updated, and a change of what the person's permissions grant is recorded at the next run, audited twin.update", async () => {
    const t = await createTenant(db(), 'Allowlist')
    const created = await as(t, 'scientist', CREATE, { programId: t.program.id, input: { personaKey: 'scientist', duties: ['blocker_scan'] } })
    const hash = created.body.data.createTwin.twin.toolAllowlistHash as string
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    const createAudit = await db().auditEvent.findFirstOrThrow({ where: { action: 'twin.create', targetId: created.body.data.createTwin.twin.id } })
    expect((createAudit.details as any).tool_allowlist_hash).toBe(hash)

    // A twin written before the column was kept (null) gets it on its person's next update.
    const h = recordingHarness('test-allowlist')
    try {
      const { twin } = await seedTwin(db(), t, 'quality_reviewer', { harness: 'test-allowlist', nextRunAt: null })
      const updated = await as(t, 'quality_reviewer', UPDATE, { id: twin.id, input: { digestTime: '08:00' } })
      const first = updated.body.data.updateTwin.twin.toolAllowlistHash as string
      expect(first).toMatch(/^[0-9a-f]{64}$/)
      const rows = async () => (await db().auditEvent.findMany({ where: { targetId: twin.id, action: 'twin.update' }, orderBy: { entrySeq: 'asc' } }))
        .filter((a) => (a.details as { cause?: string }).cause)
      const [onUpdate] = await rows()
      expect(onUpdate.details).toMatchObject({ cause: 'update', previous_hash: null, tool_allowlist_hash: first })
      expect((onUpdate.details as any).tools).not.toContain('evidence.propose_finding')
      expect(createHash('sha256').update(JSON.stringify((onUpdate.details as any).tools)).digest('hex')).toBe(first)

      // A run with nothing changed records nothing.
      const queue = () => db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id } })
      expect((await runTwinCycle(db(), (await queue()).id)).ran).toBe(true)
      expect(await rows()).toHaveLength(1)
      // The quality reviewer gains the scientist persona: the next run records what the twin may call now.
      await addMember(db(), t.program, t.users.quality_reviewer.id, ['quality_reviewer', 'scientist'])
      expect((await runTwinCycle(db(), (await queue()).id)).ran).toBe(true)
      const after = await rows()
      expect(after).toHaveLength(2)
      expect(after[1]).toMatchObject({ actorType: 'system', programId: t.program.id })
      expect(after[1].details).toMatchObject({ cause: 'run', previous_hash: first })
      expect((after[1].details as any).tools).toContain('evidence.propose_finding')
      const read = await as(t, 'quality_reviewer', `query($id: ID!) { twin(id: $id) { toolAllowlistHash } }`, { id: twin.id })
      expect(read.body.data.twin.toolAllowlistHash).toBe((after[1].details as any).tool_allowlist_hash)
      expect(read.body.data.twin.toolAllowlistHash).not.toBe(first)
    } finally { h.off() }
  })
})

describe('twin_triggers.plan_interrupt_id', () => {
  const TRIGGER = `mutation($twinId: ID!, $input: CreateTwinTriggerInput!) { createTwinTrigger(twinId: $twinId, input: $input) {
    __typename ... on MutationCreateTwinTriggerSuccess { trigger { id planInterruptId standingPlanHash standingPlanApprovedAt } } ... on Error { code message } } }`
  const UPDATE_TRIGGER = `mutation($id: ID!, $input: UpdateTwinTriggerInput!) { updateTwinTrigger(id: $id, input: $input) {
    __typename ... on MutationUpdateTwinTriggerSuccess { trigger { id planInterruptId standingPlanHash standingPlanApprovedAt } } ... on Error { code message field } } }`

  it('points at the plan_approval interrupt of the current standing plan: pending, superseded when the plan changes, answered when approved', async () => {
    const t = await createTenant(db(), 'Plan interrupt')
    const created = await as(t, 'scientist', CREATE, { programId: t.program.id, input: { personaKey: 'scientist', duties: ['blocker_scan'] } })
    const twinId = created.body.data.createTwin.twin.id
    const made = (await as(t, 'scientist', TRIGGER, { twinId, input: { dutyKey: 'blocker_scan', kind: 'event', eventAction: 'experiment.update', standingPlan: { duty: 'blocker_scan', reads: ['evidence.list_findings'] } } })).body.data.createTwinTrigger.trigger
    expect(made).toMatchObject({ planInterruptId: expect.any(String), standingPlanApprovedAt: null })
    const first = await db().runInterrupt.findUniqueOrThrow({ where: { id: made.planInterruptId }, include: { run: true } })
    expect(first).toMatchObject({ kind: 'plan_approval', answer: null, question: { type: 'standing_plan', triggerId: made.id, planHash: made.standingPlanHash } })
    expect(first.run).toMatchObject({ kind: 'plan_draft', status: 'interrupted', twinId })

    // The plan changes before approval: a new interrupt, the first one answered superseded and its run cancelled.
    const changed = (await as(t, 'scientist', UPDATE_TRIGGER, { id: made.id, input: { standingPlan: { duty: 'blocker_scan', reads: ['evidence.list_gaps'] } } })).body.data.updateTwinTrigger.trigger
    expect(changed.planInterruptId).not.toBe(made.planInterruptId)
    const superseded = await db().runInterrupt.findUniqueOrThrow({ where: { id: made.planInterruptId }, include: { run: true } })
    expect(superseded.answer).toMatchObject({ outcome: 'superseded', byUserId: t.users.scientist.id })
    expect(superseded.run.status).toBe('cancelled')

    // Approved: the pending interrupt is answered with the approved hash, its run succeeded; the trigger keeps pointing at it.
    const approved = (await as(t, 'scientist', UPDATE_TRIGGER, { id: made.id, input: { approvePlanHash: changed.standingPlanHash } })).body.data.updateTwinTrigger.trigger
    expect(approved).toMatchObject({ planInterruptId: changed.planInterruptId, standingPlanApprovedAt: expect.any(String) })
    const record = await db().runInterrupt.findUniqueOrThrow({ where: { id: changed.planInterruptId }, include: { run: true } })
    expect(record.answer).toMatchObject({ outcome: 'approved', planHash: changed.standingPlanHash, byUserId: t.users.scientist.id })
    expect(record.run.status).toBe('succeeded')
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'twin_trigger.plan_approve', targetId: made.id } })
    expect(audit.details).toMatchObject({ plan_interrupt_id: changed.planInterruptId })

    // Created and approved at once: answered in the same request.
    const atOnce = (await as(t, 'scientist', TRIGGER, { twinId, input: { dutyKey: 'blocker_scan', kind: 'schedule', rrule: 'FREQ=DAILY;BYHOUR=8;BYMINUTE=0', approvePlan: true } })).body.data.createTwinTrigger.trigger
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: atOnce.planInterruptId } })).answer).toMatchObject({ outcome: 'approved' })
  })
})
