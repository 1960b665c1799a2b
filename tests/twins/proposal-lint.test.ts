// evidence.assertion_lint runs before every evidence.propose_* (twins document, Skills), over the tool server (MCP over
// HTTP): the run is recorded like a skill run of the twin, its result is stored with the proposal, and the decision card
// (Proposal.assertionLint, through the gateway) shows which assertions are uncited interpretations. The lint does not
// count against max_skill_runs_per_turn; other proposals are not linted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { env, setEnv } from '../../core/config'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { connect, runningRun } from './tools-helpers'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db
const LINT = 'assertionLint { passed sentenceCount assertionModelVersion checkLogicVersion skillResultArtifactId uncitedInterpretations { index kind text } }'
const INBOX = `query { myInbox(first: 20, status: [open]) { nodes { id proposal { id recordType uncitedInterpretations ${LINT} } } } }`
const fih = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] }

const DRAFT = 'Liver weight rose 20 % in the high-dose group [1]. This suggests enzyme induction.'
const BODY = 'The finding is consistent with CYP3A4 induction [@smith2020].'

describe('the assertion lint before an evidence proposal', () => {
  let t: Tenant
  beforeAll(async () => { t = await createTenant(db(), 'Lint') })

  it('runs the lint on the draft and body before filing, records the run, and shows the uncited interpretation on the decision card', async () => {
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    client.nextTurn()
    const filed = await client.call('evidence.propose_finding', {
      change: { kind: 'create', title: 'Liver weight up', body: BODY, fields: { kind: 'interpretation' } }, draft: DRAFT,
    })
    expect(filed).toMatchObject({ ok: true, value: { lint: { passed: false, uncited: [{ index: 1, kind: expect.any(String) }] } } })
    const proposalId = (filed as unknown as { value: { proposalId: string } }).value.proposalId

    // Recorded as a skill run of the twin in this run and turn: tool_calls row, skill_result artifact, audit row.
    const call = await db().toolCall.findFirstOrThrow({ where: { runId: r.run.id, tool: 'evidence.assertion_lint' } })
    expect(call).toMatchObject({ twinId: r.twin.id, turn: 1, status: 'ok', checkLogicVersion: 1, inputsHash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(call.arguments).toMatchObject({ inputs: { text: `${DRAFT}\n\n${BODY}`, context: 'evidence.propose_finding' }, before: 'evidence.propose_finding' })
    const artifact = await db().artifact.findUniqueOrThrow({ where: { id: call.resultArtifactId! } })
    expect(artifact.kind).toBe('skill_result')
    expect(await db().auditEvent.count({ where: { action: 'skill_run.start', targetId: call.id, twinId: r.twin.id } })).toBe(1)
    // Stored with the proposal, filed after the lint.
    const interrupt = await db().runInterrupt.findUniqueOrThrow({ where: { id: proposalId } })
    expect((interrupt.question as any).lint).toMatchObject({ toolCallId: call.id, artifactId: artifact.id, passed: false })
    expect(call.createdAt.getTime()).toBeLessThanOrEqual(interrupt.createdAt.getTime())
    const fileAudit = await db().auditEvent.findFirstOrThrow({ where: { action: 'proposal.file', targetId: proposalId } })
    expect(fileAudit.details).toMatchObject({ lint_tool_call_id: call.id, uncited_interpretations: 1 })

    // The decision card, as the person reads it through the gateway.
    const inbox = await gql(url(), INBOX, {}, await t.token('scientist'))
    expect(inbox.body.errors).toBeUndefined()
    const card = inbox.body.data.myInbox.nodes.find((n: any) => n.proposal?.id === proposalId).proposal
    expect(card.assertionLint).toEqual({
      passed: false, sentenceCount: 3, assertionModelVersion: expect.any(String), checkLogicVersion: 1, skillResultArtifactId: artifact.id,
      uncitedInterpretations: [{ index: 1, kind: expect.any(String), text: 'This suggests enzyme induction.' }],
    })
    expect(card.uncitedInterpretations).toEqual(['This suggests enzyme induction.'])
    await client.close()
  })

  it('lints every evidence.propose_* (question, gap) and no other proposal; a cited draft passes', async () => {
    const r = await runningRun(db(), t, 'program_lead')
    const client = await connect(stack.current.toolsUrl, r)
    const q = await client.call('evidence.propose_question', { change: { kind: 'create', title: 'Is the metabolite active?' }, draft: 'Exposure to the metabolite doubled [1].' })
    const g = await client.call('evidence.propose_gap', { change: { kind: 'create', title: 'No dog PK', fields: { severity: 'medium' } }, draft: 'This indicates a gap in the package.' })
    const p = await client.call('plans.propose_plan_change', { change: { kind: 'create', title: 'Nonclinical plan', fields: { plan_kind: 'nonclinical' } }, draft: 'This suggests a new plan.' })
    for (const res of [q, g, p]) expect(res.ok, JSON.stringify(res)).toBe(true)
    expect(await db().toolCall.count({ where: { runId: r.run.id, tool: 'evidence.assertion_lint' } })).toBe(2)
    const read = async (res: typeof q) => (await gql(url(), `query($id: ID!) { proposal(id: $id) { ${LINT} } }`, { id: (res as any).value.proposalId }, await t.token('program_lead'))).body.data.proposal.assertionLint
    expect(await read(q)).toMatchObject({ passed: true, uncitedInterpretations: [] })
    expect(await read(g)).toMatchObject({ passed: false, uncitedInterpretations: [{ text: 'This indicates a gap in the package.' }] })
    expect(await read(p)).toBeNull()
    await client.close()
  })

  it('does not count the lint against max_skill_runs_per_turn: a proposal still files after four skills in its turn, and the fifth skill is still refused', async () => {
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    client.nextTurn()
    for (let i = 0; i < 4; i++) expect((await client.call('tox.fih_dose_projection', { inputs: fih })).ok).toBe(true)
    const filed = await client.call('evidence.propose_finding', { change: { kind: 'create', title: 'After four skills', fields: { kind: 'observation' } }, draft: 'This suggests a trend.' })
    expect(filed.ok, JSON.stringify(filed)).toBe(true)
    expect(await db().toolCall.count({ where: { runId: r.run.id, tool: 'evidence.assertion_lint', status: 'ok', turn: 1 } })).toBe(1)
    const fifth = await client.call('evidence.assertion_lint', { inputs: { text: 'The compound is safe.' } })
    expect(fifth).toMatchObject({ ok: false, error: { code: 'harness_denied', message: expect.stringContaining('max_skill_runs_per_turn is 4') } })
    await client.close()
  })
})
