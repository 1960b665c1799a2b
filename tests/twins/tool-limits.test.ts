// The agent limits under concurrency, over the real tool server (POST /runs/{run_id}/mcp): calls sent at once in one
// turn, or in one month, are admitted up to the limit and the rest refused with the limit's code; a refused call
// leaves only its trace (no ok row, no artifact, no proposal) and consumes nothing.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { BACKPRESSURE_OPEN_DECISIONS } from '../../domain/inbox'
import { connect, runningRun, writeRecord } from './tools-helpers'

const stack = useStack()
const db = () => stack.db.db
const tools = () => stack.current.toolsUrl
let a: Tenant
beforeAll(async () => { a = await createTenant(stack.db.db, 'Limits A') })

/** Answers of `calls` sent at once, each as { ok } or its refusal code (twin_paused included, which the client throws). */
async function atOnce(calls: (() => Promise<{ ok: boolean; error?: { code: string } }>)[]) {
  const settled = await Promise.allSettled(calls.map((c) => c()))
  return settled.map((s) => s.status === 'fulfilled'
    ? (s.value.ok ? 'ok' : s.value.error!.code)
    : ((s.reason as { error?: { code?: string } })?.error?.code ?? String(s.reason)))
}
const tally = (codes: string[]) => codes.reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {})

describe('max_skill_runs_per_turn under concurrency', () => {
  it('admits 4 of 8 skill calls sent at once in one turn and denies the rest harness_denied, with 4 ok rows and 4 artifacts', async () => {
    const r = await runningRun(db(), a, 'scientist')
    const client = await connect(tools(), r)
    client.nextTurn()
    const codes = await atOnce(Array.from({ length: 8 }, () => () => client.call('evidence.assertion_lint', { inputs: { text: 'The compound is safe.' } })))
    expect(tally(codes)).toEqual({ ok: 4, harness_denied: 4 })
    const rows = await db().toolCall.findMany({ where: { runId: r.run.id } })
    expect(rows.filter((x) => x.status === 'ok')).toHaveLength(4)
    // Each denial is its trace only: a refused row without an artifact, and a tool_call.deny audit.
    expect(rows.filter((x) => x.status === 'refused').map((x) => x.resultArtifactId)).toEqual([null, null, null, null])
    expect(await db().artifact.count({ where: { id: { in: rows.map((x) => x.resultArtifactId).filter((x): x is string => !!x) } } })).toBe(4)
    expect(await db().auditEvent.count({ where: { action: 'skill_run.start', twinId: r.twin.id } })).toBe(4)
    // The denials consumed nothing: the twin's month counts the 4 admitted calls.
    const twin = await client.call<any>('console.get_twin', {})
    expect(twin).toMatchObject({ ok: true, value: { budget: { usedThisMonth: 5 } } })
    client.nextTurn()
    expect((await client.call('evidence.assertion_lint', { inputs: { text: 'The compound is safe.' } })).ok).toBe(true)
    await client.close()
  })

  it('counts an admitted skill run that its inputs then refuse (it ran), and never a denied one', async () => {
    const r = await runningRun(db(), a, 'scientist')
    const client = await connect(tools(), r)
    client.nextTurn()
    // tox.fih_dose_projection refuses a dose without a unit (unit_required) after it was admitted.
    const refused = await client.call('tox.fih_dose_projection', { inputs: { route: 'oral', noael: [{ species: 'rat', dose: { value: 50 }, citation: 'x' }] } })
    expect(refused).toMatchObject({ ok: false })
    expect((refused as { error: { code: string } }).error.code).not.toBe('harness_denied')
    const codes = await atOnce(Array.from({ length: 5 }, () => () => client.call('evidence.assertion_lint', { inputs: { text: 'x' } })))
    expect(tally(codes)).toEqual({ ok: 3, harness_denied: 2 })
    await client.close()
  })
})

describe('budget_tool_calls_month under concurrency', () => {
  it('admits 3 of 10 calls sent at once with a budget of 3, refuses the rest twin_paused, and pauses the twin once', async () => {
    const c = await createTenant(db(), 'Limits budget')
    const r = await runningRun(db(), c, 'program_owner', { budget: 3 })
    const client = await connect(tools(), r)
    const codes = await atOnce(Array.from({ length: 10 }, () => () => client.call('console.list_decisions_waiting', {})))
    expect(tally(codes)).toEqual({ ok: 3, twin_paused: 7 })
    expect(await db().toolCall.count({ where: { twinId: r.twin.id, status: 'ok' } })).toBe(3)
    expect(await db().auditEvent.count({ where: { action: 'tool_call.invoke', details: { path: ['run_id'], equals: r.run.id } } })).toBe(3)
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: r.twin.id } })).toMatchObject({ status: 'paused', pausedReason: 'budget' })
    expect(await db().auditEvent.count({ where: { action: 'twin.self_pause', targetId: r.twin.id } })).toBe(1)
    expect(await db().notification.count({ where: { userId: r.user.id, kind: 'twin_paused' } })).toBe(1)
    await client.close()
  })

  it('spends nothing of the month on calls denied at once by max_skill_runs_per_turn', async () => {
    const c = await createTenant(db(), 'Limits budget skills')
    const r = await runningRun(db(), c, 'scientist', { budget: 6 })
    const client = await connect(tools(), r)
    client.nextTurn()
    const codes = await atOnce(Array.from({ length: 8 }, () => () => client.call('evidence.assertion_lint', { inputs: { text: 'x' } })))
    expect(tally(codes)).toEqual({ ok: 4, harness_denied: 4 })
    // 4 of 6 used: two more calls run, then the twin pauses.
    expect((await client.call('console.list_decisions_waiting', {})).ok).toBe(true)
    expect((await client.call('console.list_decisions_waiting', {})).ok).toBe(true)
    await expect(client.call('console.list_decisions_waiting', {})).rejects.toMatchObject({ error: { code: 'twin_paused' } })
    await client.close()
  })
})

describe('backpressure under concurrency', () => {
  it(`files up to ${BACKPRESSURE_OPEN_DECISIONS} decisions waiting from proposals sent at once, and refuses the rest harness_denied with nothing filed`, async () => {
    const c = await createTenant(db(), 'Limits backpressure')
    const r = await runningRun(db(), c, 'scientist')
    const finding = await writeRecord(db(), c, 'scientist', { recordType: 'evidence.findings', title: 'Rat liver weight up', fields: { kind: 'observation', species: 'rat' } })
    const client = await connect(tools(), r)
    const propose = (i: number) => () => client.call('evidence.propose_question', {
      change: { kind: 'create', title: `Question ${i}` }, basisRecordIds: [finding.id], draft: `Question ${i} from the rat study.`,
    }, { duty: 'blocker_scan' })
    // 22 waiting, then 8 sent at once: 3 fit.
    for (let i = 0; i < BACKPRESSURE_OPEN_DECISIONS - 3; i++) expect((await propose(i)()).ok).toBe(true)
    const codes = await atOnce(Array.from({ length: 8 }, (_, i) => propose(100 + i)))
    expect(tally(codes)).toEqual({ ok: 3, harness_denied: 5 })
    expect(await db().inboxItem.count({ where: { userId: r.user.id, kind: 'decision', status: 'open' } })).toBe(BACKPRESSURE_OPEN_DECISIONS)
    expect(await db().runInterrupt.count({ where: { runId: r.run.id } })).toBe(BACKPRESSURE_OPEN_DECISIONS)
    const refused = await db().toolCall.findMany({ where: { runId: r.run.id, status: 'refused' } })
    expect(refused).toHaveLength(5)
    for (const row of refused) {
      expect(row.outputViolations).toEqual([expect.objectContaining({ code: 'harness_denied', message: `Filing paused: ${BACKPRESSURE_OPEN_DECISIONS} decisions waiting` })])
    }
    // The refused proposals gave their admission back: the month holds the 25 filed and this call.
    expect(await client.call<any>('console.get_twin', {})).toMatchObject({ ok: true, value: { budget: { usedThisMonth: BACKPRESSURE_OPEN_DECISIONS + 1 }, filingPaused: `Filing paused: ${BACKPRESSURE_OPEN_DECISIONS} decisions waiting` } })
    await client.close()
  })
})
