// twin_evaluate keeps its reports (issue 29, item 2): the job stores one report per twin and period, and owners, leads
// and quality reviewers (program.twins.read) read them per twin through the gateway; nobody else does, and no read
// sums one person's twins.
import { describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { runOnce } from 'graphile-worker'
import { enqueue } from '../../core/jobs'
import { createTaskList } from '../../jobs/worker'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type PersonaKey, type Tenant } from '../helpers/factories'
import { seedTwin } from './twin-helpers'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const as = async (t: Tenant, persona: PersonaKey, query: string, variables: Record<string, unknown> = {}) => gql(url(), query, variables, await t.token(persona))

async function runEvaluate() {
  await db().$transaction((tx) => enqueue(tx, 'twin_evaluate', {}))
  await runOnce({ connectionString: stack.db.url, taskList: createTaskList({ db: db(), databaseUrl: stack.db.url }), noHandleSignals: true })
}

const REPORTS = `query($id: ID!) { twin(id: $id) { id evaluations { periodStart periodEnd filed approvedUnchanged edited declined declinedByReason refused expired notUsefulByTrigger } } }`

describe('stored twin evaluations', () => {
  it('twin_evaluate stores each twin\'s report for the period, and a rerun the same day replaces it rather than adding one', async () => {
    const t = await createTenant(db(), 'Evaluated')
    const { twin, trigger } = await seedTwin(db(), t, 'scientist')
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id } })
    await db().runInterrupt.createMany({ data: ['approved', 'approved_with_edits', 'declined', 'declined'].map((outcome) => ({
      organizationId: t.organization.id, runId: run.id, kind: 'write_approval' as const, detached: true,
      question: { type: 'proposal', proposer: { twinId: twin.id } }, answer: { outcome, reason: outcome === 'declined' ? { code: 'duplicate', text: '' } : null }, answeredAt: new Date(),
    })) })
    const item = { organizationId: t.organization.id, userId: twin.userId, programId: t.program.id, twinId: twin.id, triggerId: trigger.id, kind: 'decision' as const, sourceType: 'proposal' }
    await db().inboxItem.createMany({ data: [
      { ...item, sourceId: randomUUID(), title: 'a', feedback: 'not_useful' }, { ...item, sourceId: randomUUID(), title: 'b', feedback: 'not_useful' },
      { ...item, sourceId: randomUUID(), title: 'c', feedback: 'helpful', status: 'expired' },
    ] })

    await runEvaluate()
    const rows = await db().twinEvaluation.findMany({ where: { twinId: twin.id } })
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ organizationId: t.organization.id, programId: t.program.id, filed: 4, approvedUnchanged: 1, edited: 1, declined: 2, declinedByReason: { duplicate: 2 }, expired: 1 })
    expect(rows[0].periodEnd.getTime() - rows[0].periodStart.getTime()).toBe(7 * 86_400_000)

    await db().runInterrupt.create({ data: {
      organizationId: t.organization.id, runId: run.id, kind: 'write_approval', detached: true,
      question: { type: 'proposal', proposer: { twinId: twin.id } }, answer: { outcome: 'approved' }, answeredAt: new Date(),
    } })
    await runEvaluate()
    const again = await db().twinEvaluation.findMany({ where: { twinId: twin.id } })
    expect(again).toHaveLength(1)
    expect(again[0]).toMatchObject({ id: rows[0].id, filed: 5, approvedUnchanged: 2 })

    // Through the gateway: the lead, the owner and the quality reviewer read the twin's reports.
    for (const persona of ['program_lead', 'program_owner', 'quality_reviewer'] as const) {
      const r = await as(t, persona, REPORTS, { id: twin.id })
      expect(r.body.errors).toBeUndefined()
      expect(r.body.data.twin.evaluations).toEqual([expect.objectContaining({
        filed: 5, approvedUnchanged: 2, edited: 1, declined: 2, declinedByReason: { duplicate: 2 }, refused: 0, expired: 1,
        notUsefulByTrigger: [{ triggerId: trigger.id, rated: 3, notUseful: 2, rate: 2 / 3 }],
      })])
    }
  })

  it('keeps the reports from those without program.twins.read: the twin\'s own scientist reads none, another scientist not even the twin', async () => {
    const t = await createTenant(db(), 'Oversight only')
    const { twin } = await seedTwin(db(), t, 'scientist')
    await runEvaluate()
    expect(await db().twinEvaluation.count({ where: { twinId: twin.id } })).toBe(1)
    const own = await as(t, 'scientist', REPORTS, { id: twin.id })
    expect(own.body.errors).toBeUndefined()
    expect(own.body.data.twin).toEqual({ id: twin.id, evaluations: null })
    const { twin: theirs } = await seedTwin(db(), t, 'manufacturing_specialist')
    await runEvaluate()
    const other = await as(t, 'scientist', REPORTS, { id: theirs.id })
    expect(other.body.data.twin).toBeNull()
    // Another organisation's quality reviewer cannot reach it either.
    const elsewhere = await createTenant(db(), 'Elsewhere')
    const foreign = await as(elsewhere, 'quality_reviewer', REPORTS, { id: twin.id })
    expect(foreign.body.data.twin).toBeNull()
  })
})
