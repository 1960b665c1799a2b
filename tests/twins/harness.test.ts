// The deterministic harness: an MCP client of the tool server running the duty templates, through the real worker
// where a job runs; denials handled, backpressure, no proposal filed twice, class B skills awaited from the worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { useStack, startTestWorker } from '../helpers/stack'
import { createTenant, type Tenant, type PersonaKey } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { createTwinRun } from '../../domain/twins'
import { runTwinCycle } from '../../domain/twins'
import type { RunContext } from '../../domain/twins'
import { getHarness } from '../../subgraphs/twins/harness/registry'
import { deterministicHarness } from '../../subgraphs/twins/harness/deterministic'
import { DUTY_TEMPLATES, QA_TEMPLATES, dutyAvailableTo } from '../../subgraphs/twins/harness/duties'
import { filingPaused, BACKPRESSURE_OPEN_DECISIONS } from '../../domain/inbox'
import { seedTwin, waitForRun } from './twin-helpers'
import { runningRun, writeRecord } from './tools-helpers'

const stack = useStack()
let worker: Awaited<ReturnType<typeof startTestWorker>>
// Two slots: a twin_cycle job waits for the skill_library_job of a class B skill it started.
beforeAll(async () => { worker = await startTestWorker(stack.db, { concurrency: 2 }) })
afterAll(async () => { await worker?.close() })
const db = () => stack.db.db
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)

/** Executes the deterministic harness on a running run directly (what twin_cycle does), for the template tests. */
async function execute(tenant: Tenant, persona: PersonaKey, duties: string[]) {
  const r = await runningRun(db(), tenant, persona, { duty: duties[0] })
  const rc: RunContext = {
    run: r.run, twin: r.twin, trigger: null, duties, db: db(), footer: '',
    ctx: await contextForUser(db(), r.user.id, tenant.organization.id, { twinId: r.twin.id }),
  }
  return { r, rc, outcome: await deterministicHarness.execute(rc) }
}
const proposalsOf = async (runId: string) => (await db().runInterrupt.findMany({ where: { runId, kind: 'write_approval' }, orderBy: { createdAt: 'asc' } }))
  .map((i) => i.question as { recordType: string; title: string; change: { kind: string }; basisHash: string; basis: unknown })

describe('the deterministic harness', () => {
  it("is the registry's 'deterministic' harness, and every template names who may hold it", () => {
    expect(getHarness('deterministic')).toBe(deterministicHarness)
    expect(Object.keys(DUTY_TEMPLATES).sort()).toEqual(['blocker_scan', 'pre_read', 'qa_assertion_audit', 'qa_check_triage', 'qa_deviation_followup', 'qa_oos_intake', 'sar_refresh', 'study_gate_check', 'twin_handoff', 'twin_literature_watch'])
    expect(QA_TEMPLATES.every((k) => DUTY_TEMPLATES[k].kind === 'persona')).toBe(true)
    expect(dutyAvailableTo('sar_refresh', 'scientist')).toBe(true)
    expect(dutyAvailableTo('blocker_scan', 'viewer')).toBe(false)
  })

  it('runs a scheduled blocker_scan through the worker over MCP and files an open item the lead finds in the inbox', async () => {
    const t = await createTenant(db(), 'Harness cycle')
    const milestone = await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'GLP tox start', fields: { due_on: day(-2) } })
    const { twin, trigger } = await seedTwin(db(), t, 'program_lead', { nextRunAt: null })
    const { run } = await db().$transaction((tx) => createTwinRun(tx, {
      organizationId: t.organization.id, programId: t.program.id, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'schedule',
    }))
    const done = await waitForRun(db(), run.id, ['succeeded', 'failed'], 60_000)
    expect(done).toMatchObject({ status: 'succeeded', outcome: { proposals_filed: 1, denied: 0, duplicates: 0 } })
    const [proposal] = await proposalsOf(run.id)
    expect(proposal).toMatchObject({ recordType: 'progress.open_items', title: `Blocker: GLP tox start is past due (${day(-2)})`, change: { kind: 'create' }, basis: [{ recordId: milestone.id, version: 1 }] })
    const calls = await db().toolCall.findMany({ where: { runId: run.id }, orderBy: { createdAt: 'asc' } })
    expect(calls.map((c) => c.tool)).toEqual(['console.get_twin', 'memory.recall', 'progress.list_milestones', 'progress.list_dependencies', 'evidence.list_gaps', 'progress.list_open_items', 'evidence.list_questions', 'progress.propose_open_item'])
    expect(calls.every((c) => c.twinId === twin.id && c.status === 'ok')).toBe(true)
    expect(calls.at(-1)).toMatchObject({ basisHash: proposal.basisHash, idempotencyKey: expect.stringContaining('blocker_scan:progress.propose_open_item:create:') })
    const item = await db().inboxItem.findFirstOrThrow({ where: { userId: twin.userId, kind: 'decision' } })
    expect(item).toMatchObject({ status: 'open', twinId: twin.id, programId: t.program.id })
    const draft = await db().artifact.findFirstOrThrow({ where: { runId: run.id, kind: 'draft' } })
    expect(draft).toMatchObject({ agentGenerated: true, content: expect.objectContaining({ label: 'Agent-generated draft, unsigned.' }) })
  })

  it('ends the run in flight cancelled, without an error, when the budget pauses the twin mid-run; only queued runs are cancelled by the pause', async () => {
    const t = await createTenant(db(), 'Harness budget')
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'CMC lock', fields: { due_on: day(-1) } })
    const { twin, trigger } = await seedTwin(db(), t, 'program_lead', { nextRunAt: null })
    await db().twinDefinition.update({ where: { id: twin.id }, data: { budgetToolCallsMonth: 2 } })
    // Rows without jobs, so the test worker leaves them to this test.
    const base = { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle' as const, status: 'queued' as const, twinId: twin.id }
    const inFlight = await db().agentRun.create({ data: { ...base, initiatedBy: 'schedule', triggerId: trigger.id } })
    const waiting = await db().agentRun.create({ data: { ...base, initiatedBy: 'user' } })
    const result = await runTwinCycle(db(), inFlight.id)
    expect(result).toEqual({ ran: true, status: 'cancelled' })
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'budget' })
    const ended = await db().agentRun.findUniqueOrThrow({ where: { id: inFlight.id } })
    expect(ended).toMatchObject({ status: 'cancelled', error: 'twin paused (budget) during the run', outcome: expect.objectContaining({ stopped: 'twin_paused', proposals_filed: 0 }) })
    expect(ended.finishedAt).not.toBeNull()
    expect(await db().agentRun.findUniqueOrThrow({ where: { id: waiting.id } })).toMatchObject({ status: 'cancelled', error: 'twin paused (budget)' })
    expect(await db().auditEvent.findFirstOrThrow({ where: { action: 'twin.self_pause', targetId: twin.id } })).toMatchObject({ details: expect.objectContaining({ reason: 'budget', cancelled_runs: 1 }) })
    expect(await db().toolCall.count({ where: { runId: inFlight.id } })).toBe(2)
  })

  it('treats an open high-severity gap as a blocker, and files nothing for a low one or one already with an open item', async () => {
    const t = await createTenant(db(), 'Harness gaps')
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.gaps', title: 'No hERG patch clamp', fields: { severity: 'high' } })
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.gaps', title: 'Minor formatting gap', fields: { severity: 'low' } })
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.gaps', title: 'No dog PK', fields: { severity: 'high' } })
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.open_items', title: 'Blocker: No dog PK is open (high severity)' })
    const { r, outcome } = await execute(t, 'program_lead', ['blocker_scan'])
    expect(outcome.summary).toMatchObject({ proposals_filed: 1 })
    expect(await proposalsOf(r.run.id)).toEqual([expect.objectContaining({ recordType: 'progress.open_items', title: 'Blocker: No hERG patch clamp is open (high severity)' })])
  })

  it('never files a proposal twice when a run is executed again (same run, duty and target)', async () => {
    const t = await createTenant(db(), 'Harness retry')
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'CMC batch release', fields: { due_on: day(-1) } })
    const first = await execute(t, 'program_lead', ['blocker_scan'])
    expect(first.outcome.summary).toMatchObject({ proposals_filed: 1, duplicates: 0 })
    const again = await deterministicHarness.execute(first.rc)
    expect(again.summary).toMatchObject({ proposals_filed: 0, duplicates: 1 })
    expect(await db().runInterrupt.count({ where: { runId: first.r.run.id } })).toBe(1)
    expect(await db().inboxItem.count({ where: { userId: first.r.user.id, kind: 'decision' } })).toBe(1)
  })

  it("handles denials: a scientist's blocker_scan files a question, a quality reviewer's pre_read is denied the report and the run goes on", async () => {
    const t = await createTenant(db(), 'Harness denials')
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'Pre-IND meeting', fields: { due_on: day(-3) } })
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'Dose-range finding read-out', fields: { due_on: day(3) } })
    const sci = await execute(t, 'scientist', ['blocker_scan'])
    expect(sci.outcome.summary).toMatchObject({ proposals_filed: 1 })
    expect(await proposalsOf(sci.r.run.id)).toEqual([expect.objectContaining({ recordType: 'evidence.questions', title: 'What unblocks Pre-IND meeting?' })])
    const qa = await execute(t, 'quality_reviewer', ['pre_read'])
    expect(qa.outcome.summary).toMatchObject({ proposals_filed: 0, denied: 1 })
    expect(await db().runInterrupt.count({ where: { runId: qa.r.run.id } })).toBe(0)
    const lead = await execute(t, 'program_lead', ['pre_read'])
    expect(await proposalsOf(lead.r.run.id)).toEqual([expect.objectContaining({ recordType: 'plans.reports', title: `Pre-read: Dose-range finding read-out (due ${day(3)})` })])
  })

  it("stops filing at 25 open decisions, and the outcome reads 'Filing paused: <N> decisions waiting'", async () => {
    const t = await createTenant(db(), 'Harness backpressure')
    await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'Toxicology report', fields: { due_on: day(-5) } })
    await db().inboxItem.createMany({
      data: Array.from({ length: BACKPRESSURE_OPEN_DECISIONS }, (_, i) => ({
        organizationId: t.organization.id, userId: t.users.program_lead.id, programId: t.program.id, kind: 'decision' as const,
        sourceType: 'proposal', sourceId: randomUUID(), title: `Waiting ${i}`,
      })),
    })
    const { r, outcome } = await execute(t, 'program_lead', ['blocker_scan'])
    expect(outcome.summary).toMatchObject({ proposals_filed: 0, filing_paused: 'Filing paused: 25 decisions waiting' })
    expect(await db().runInterrupt.count({ where: { runId: r.run.id } })).toBe(0)
    expect(filingPaused(24)).toBeNull()
    expect(filingPaused(31)).toBe('Filing paused: 31 decisions waiting')
  })

  it('runs the four QA templates for a quality reviewer: deviation, CAPA follow-up, OOS intake, assertion audit', async () => {
    const t = await createTenant(db(), 'Harness QA')
    await writeRecord(db(), t, 'program_owner', { recordType: 'review.findings', title: 'Unvalidated balance used', fields: { severity: 'critical', check: 'equipment' } })
    const deviation = await writeRecord(db(), t, 'program_owner', { recordType: 'review.deviations', title: 'Temperature excursion', fields: { classification: 'major', capa_required: false } })
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.findings', title: 'Assay B out of trend', fields: { kind: 'oos_candidate' } })
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.findings', title: 'Liver signal', fields: { kind: 'interpretation', summary: 'This suggests the compound causes liver injury in rats.' } })
    const { r, outcome } = await execute(t, 'quality_reviewer', [...QA_TEMPLATES])
    // the lint needs evidence.agents.use, which a quality reviewer does not hold: denied, handled, the run goes on
    expect(outcome.summary).toMatchObject({ proposals_filed: 3, denied: 1, refused: 0, skills_run: 0 })
    const filed = await proposalsOf(r.run.id)
    expect(filed).toEqual(expect.arrayContaining([
      expect.objectContaining({ recordType: 'review.deviations', title: 'Deviation: Unvalidated balance used', change: expect.objectContaining({ kind: 'create' }) }),
      expect.objectContaining({ recordType: 'review.deviations', change: expect.objectContaining({ kind: 'update', recordId: deviation.id }) }),
      expect.objectContaining({ recordType: 'review.findings', title: 'OOS candidate: Assay B out of trend' }),
    ]))
    // the denial ran nothing: its only trace is a refused row
    expect(await db().toolCall.findMany({ where: { runId: r.run.id, tool: 'evidence.assertion_lint' }, select: { status: true, resultArtifactId: true } }))
      .toEqual([{ status: 'refused', resultArtifactId: null }])
    const lead = await execute(t, 'program_lead', ['qa_assertion_audit'])
    expect(lead.outcome.summary).toMatchObject({ proposals_filed: 1, skills_run: 1, denied: 0 })
    expect(await proposalsOf(lead.r.run.id)).toEqual([expect.objectContaining({ recordType: 'review.findings', title: 'Uncited interpretation: Liver signal' })])
    const lint = await db().toolCall.findFirstOrThrow({ where: { runId: lead.r.run.id, tool: 'evidence.assertion_lint' } })
    expect(lint).toMatchObject({ inputsHash: expect.any(String), checkLogicVersion: expect.any(Number), twinId: lead.r.twin.id })
  })

  it('runs study_gate_check for a scientist: a gap without a NOAEL, a dose projection with one', async () => {
    const t = await createTenant(db(), 'Harness gate')
    await writeRecord(db(), t, 'scientist', { recordType: 'plans.protocols', title: '28-day rat GLP tox', fields: { protocol_kind: 'study', species: 'rat', glp: true } })
    await writeRecord(db(), t, 'scientist', { recordType: 'plans.protocols', title: '28-day dog GLP tox', fields: { protocol_kind: 'study', species: 'dog', glp: true } })
    const noael = await writeRecord(db(), t, 'scientist', { recordType: 'evidence.findings', title: 'Dog NOAEL', fields: { kind: 'result', species: 'dog', dose_mg_per_kg: 10 } })
    const { r, outcome } = await execute(t, 'scientist', ['study_gate_check'])
    expect(outcome.summary).toMatchObject({ proposals_filed: 2, skills_run: 1 })
    const filed = await proposalsOf(r.run.id)
    expect(filed).toHaveLength(2)
    expect(filed).toEqual(expect.arrayContaining([
      expect.objectContaining({ recordType: 'evidence.gaps', title: 'Study gate: no NOAEL finding for rat (28-day rat GLP tox)' }),
      expect.objectContaining({ recordType: 'evidence.findings', title: 'FIH projection from the dog NOAEL (28-day dog GLP tox)' }),
    ]))
    const projection = await db().toolCall.findFirstOrThrow({ where: { runId: r.run.id, tool: 'tox.fih_dose_projection' } })
    expect(projection.arguments).toMatchObject({ inputs: { noael: [{ species: 'dog', citation: `record:${noael.id}` }] } })
  })

  it('runs sar_refresh through the worker: chem.sar_table_build as a class B job on the compounds, then a finding proposal', async () => {
    const t = await createTenant(db(), 'Harness SAR')
    const line = (id: string, smiles: string, nM: number) => `compound: ${id}; smiles: ${smiles}; target: KDR; IC50: ${nM} nM; source: eln:proj-7; licence: internal`
    await writeRecord(db(), t, 'scientist', {
      recordType: 'evidence.findings', title: 'KDR potency, benzamide series', fields: { kind: 'result' },
      body: [line('BZ-1', 'Cc1ccc(cc1)C(=O)NC', 10), line('BZ-2', 'Clc1ccc(cc1)C(=O)NCC', 100), line('BZ-3', 'Oc1ccc(cc1)C(=O)NC(C)C', 50)].join('\n'),
    })
    const { twin, trigger } = await seedTwin(db(), t, 'scientist', { nextRunAt: null, duty: 'sar_refresh' })
    const { run } = await db().$transaction((tx) => createTwinRun(tx, {
      organizationId: t.organization.id, programId: t.program.id, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'user', startedByUserId: twin.userId,
    }))
    const done = await waitForRun(db(), run.id, ['succeeded', 'failed'], 150_000)
    expect(done).toMatchObject({ status: 'succeeded', outcome: { proposals_filed: 1, skills_run: 1 } })
    const sar = await db().toolCall.findFirstOrThrow({ where: { runId: run.id, tool: 'chem.sar_table_build' } })
    expect(sar).toMatchObject({ status: 'ok', twinId: twin.id, resultArtifactId: expect.any(String), inputsHash: expect.any(String) })
    const [proposal] = await proposalsOf(run.id)
    expect(proposal.title).toMatch(/^SAR table refresh: 3 compounds \([0-9a-f]{8}\)$/)
    expect(JSON.stringify(proposal.change)).toContain(sar.resultArtifactId!)
  }, 180_000)
})
