// Proposals and decisions through the gateway and graphql-ws, at persona version 3 (R3).
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { env, setEnv } from '../../core/config'
import { registerAuditHook } from '../../core/audit'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { addMember, createProgram, createTenant, createTwoOrganizations, createUser, expectRowsExist, type Tenant } from '../helpers/factories'
import { mintDevToken } from '../../core/identity'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db

const PROPOSAL_FIELDS = `id status recordType title changeKind basisHash stale card proposedByName twinId runId
  draft { label text agentGenerated }
  decision { outcome decidedByName reasonCode reason recordId version batchId footer signature { printedName meaning signedAt } }`
const DECIDE = `mutation($id: ID!, $decision: ProposalDecision!, $edits: ProposalEditsInput, $reason: String, $reasonCode: DeclineReason) {
  decideProposal(id: $id, decision: $decision, edits: $edits, reason: $reason, reasonCode: $reasonCode) {
    __typename
    ... on MutationDecideProposalSuccess { proposal { ${PROPOSAL_FIELDS} } }
    ... on Error { code message field }
    ... on StaleProposal { currentBasis }
    ... on InvalidInput { issues { field message } }
    ... on InvalidTransition { from to }
  }
}`
const BATCH = `mutation($items: [BatchDecisionInput!]!) {
  decideBatch(items: $items) {
    __typename
    ... on MutationDecideBatchSuccess { batch { batchId items { proposalId proposal { id status decision { outcome batchId } } error { code field } } } }
    ... on Error { code field }
  }
}`
const PROPOSAL = `query($id: ID!) { proposal(id: $id) { ${PROPOSAL_FIELDS} } }`
const RECORD = `query($id: ID!) { record(id: $id) { version fields footer signatures { printedName meaning signedAt manifestation } } }`

type Persona = Parameters<Tenant['token']>[0]
const decide = async (t: Tenant, persona: Persona, vars: Record<string, unknown>) => gql(url(), DECIDE, vars, await t.token(persona))

/** A tenant with a hypothesis, a plan and a finding written by the lead, and a twin run of the scientist. */
async function world(t?: Tenant) {
  const tenant = t ?? await createTenant(db())
  const orgId = tenant.organization.id
  const programId = tenant.program.id
  const lead = await contextForUser(db(), tenant.users.program_lead.id, orgId)
  const hypothesis = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.hypotheses', title: 'Target X drives the effect', fields: { confidence: 'low' } })
  const finding = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Liver weight up', fields: { kind: 'observation' } })
  const plan = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'plans.plans', title: 'Nonclinical plan', fields: { plan_kind: 'nonclinical' } })
  const twinId = randomUUID()
  const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: tenant.users.scientist.id } })
  const twin = await contextForUser(db(), tenant.users.scientist.id, orgId, { twinId })
  const propose = (change: Record<string, unknown>, basisRecordIds: string[] = []) =>
    fileProposal(twin, { runId: run.id, change, basisRecordIds, draft: 'The new assay data support a higher confidence.', tool: 'evidence.propose_hypothesis_change' })
  return { tenant, hypothesis, finding, plan, run, twinId, propose }
}

describe('filing a proposal', () => {
  it('files a write_approval interrupt, the unsigned draft, the tool call with basis_hash and a decision item shown live over graphql-ws; approving changes the record with the footer', async () => {
    const w = await world()
    const client = wsClient(url(), await w.tenant.token('scientist'))
    const subscribers = stack.current.subgraphs.twins.inboxEvents.subscriberCount
    const live = collect(client, 'subscription { inboxChanged { id kind status title proposal { id title card draft { label } } } }', 2)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount > subscribers, 10_000, 'the subscription') // subscribed before the write
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })

    const interrupt = await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })
    expect(interrupt).toMatchObject({ kind: 'write_approval', runId: w.run.id, detached: true, answer: null })
    expect((interrupt.question as any).basis).toEqual([{ recordId: w.hypothesis.recordId, version: 1 }])
    const call = await db().toolCall.findUniqueOrThrow({ where: { id: filed.toolCallId! } })
    expect(call).toMatchObject({ tool: 'evidence.propose_hypothesis_change', basisHash: filed.basisHash, runId: w.run.id })
    expect(filed.basisHash).toMatch(/^[0-9a-f]{64}$/)

    // The live item arrives before anyone decides (events are re-read when delivered, so wait for the first).
    for (const until = Date.now() + 10_000; live.received.length < 1 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20))
    expect(live.received[0]?.data?.inboxChanged.status).toBe('open')
    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.errors).toBeUndefined()
    const p = r.body.data.decideProposal.proposal
    expect(p.status).toBe('decided')
    expect(p.decision).toMatchObject({ outcome: 'approved', decidedByName: w.tenant.users.program_lead.name, recordId: w.hypothesis.recordId, version: 2 })
    expect(p.decision.footer).toBe(`Proposed by ${w.tenant.users.scientist.name}'s twin (agent); decided by ${w.tenant.users.program_lead.name}`)

    await live.finished
    await client.dispose()
    expect(live.received.map((m) => m.errors)).toEqual([undefined, undefined])
    const [filedEvent, doneEvent] = live.received.map((m) => m.data!.inboxChanged)
    expect(filedEvent).toMatchObject({ kind: 'decision', status: 'open', title: 'Target X drives the effect', proposal: { id: filed.proposalId, card: null, draft: { label: 'Agent-generated draft, unsigned.' } } })
    expect(doneEvent).toMatchObject({ id: filedEvent.id, status: 'done' })

    const read = await gql(url(), RECORD, { id: w.hypothesis.recordId }, await w.tenant.token('viewer'))
    expect(read.body.data.record).toMatchObject({ version: 2, fields: { confidence: 'high' }, footer: p.decision.footer, signatures: [] })
    const record = await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })
    const version = await db().programRecordVersion.findFirstOrThrow({ where: { recordId: record.id, version: 2 } })
    expect(version).toMatchObject({ proposalId: filed.proposalId, proposedByTwinId: w.twinId, decidedByUserId: w.tenant.users.program_lead.id, runId: w.run.id })
    const item = await db().inboxItem.findUniqueOrThrow({ where: { id: filed.inboxItemId } })
    expect(item).toMatchObject({ status: 'done', doneBy: w.tenant.users.program_lead.id, interruptId: filed.proposalId })
    const audit = await db().auditEvent.findMany({ where: { organizationId: w.tenant.organization.id, action: { in: ['proposal.file', 'proposal.approve'] } }, orderBy: { entrySeq: 'asc' } })
    expect(audit.map((a) => [a.action, a.actorType])).toEqual([['proposal.file', 'twin'], ['proposal.approve', 'user']])
  })

  it('answers invalid_input naming the field of a bad change, and writes nothing', async () => {
    const w = await world()
    const n = await db().runInterrupt.count()
    await expect(w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'certain' } })).rejects.toMatchObject({ code: 'invalid_input', field: 'change.fields.confidence' })
    await expect(w.propose({ kind: 'update', recordId: w.hypothesis.recordId, title: 'x' }, [randomUUID()])).rejects.toMatchObject({ code: 'invalid_input', field: 'basisRecordIds' })
    expect(await db().runInterrupt.count()).toBe(n)
  })
})

describe('deciding', () => {
  it('refuses a viewer and a scientist without evidence.hypotheses.approve at persona v3 with FORBIDDEN, leaving everything as it was', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    for (const persona of ['viewer', 'scientist'] as const) {
      const r = await decide(w.tenant, persona, { id: filed.proposalId, decision: 'APPROVE' })
      expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.hypotheses.approve' })
    }
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: filed.inboxItemId } })).status).toBe('open')
  })

  it('refuses a person who lost the approve key after the proposal was filed (live permissions)', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    await db().roleAssignment.updateMany({ where: { programId: w.tenant.program.id, userId: w.tenant.users.program_lead.id }, data: { personaKey: 'scientist' } })
    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.hypotheses.approve' })
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
  })

  it('refuses a decision with stale_proposal when the basis changed; the card reads Changed since proposed and nothing moved', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } }, [w.finding.recordId])
    const lead = await contextForUser(db(), w.tenant.users.program_lead.id, w.tenant.organization.id)
    await applyRecordChange(lead, { kind: 'update', recordId: w.finding.recordId, title: 'Liver weight up, reversible' })

    const card = await gql(url(), PROPOSAL, { id: filed.proposalId }, await w.tenant.token('program_lead'))
    expect(card.body.data.proposal).toMatchObject({ status: 'open', stale: true, card: 'Changed since proposed' })
    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'StaleProposal', code: 'stale_proposal', message: 'Changed since proposed' })
    expect(r.body.data.decideProposal.currentBasis).not.toBe(filed.basisHash)
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: filed.inboxItemId } })).status).toBe('open')
  })

  it('refuses a decline without a reason, and stores the reason of a decline as evaluation data', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const refused = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'DECLINE' })
    expect(refused.body.data.decideProposal).toMatchObject({ __typename: 'ReasonRequired', code: 'reason_required', field: 'reason' })
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()

    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'DECLINE', reason: 'The assay was not qualified.', reasonCode: 'incorrect' })
    expect(r.body.data.decideProposal.proposal.decision).toMatchObject({ outcome: 'declined', reasonCode: 'incorrect', reason: 'The assay was not qualified.', recordId: null,
      // the specification's record footer applies to every decision, a decline too
      footer: `Proposed by ${w.tenant.users.scientist.name}'s twin (agent); decided by ${w.tenant.users.program_lead.name}` })
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'proposal.decline', targetId: filed.proposalId } })
    expect(audit.details).toMatchObject({ reason_code: 'incorrect', reason: 'The assay was not qualified.' })
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: filed.inboxItemId } })).status).toBe('done')
  })

  it('answers the first outcome to the same decision again, and refuses another outcome with invalid_transition saying who decided it', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const first = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    const decision = first.body.data.decideProposal.proposal.decision
    const again = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    expect(again.body.data.decideProposal.proposal.decision).toEqual(decision)
    const other = await decide(w.tenant, 'program_owner', { id: filed.proposalId, decision: 'DECLINE', reason: 'no' })
    expect(other.body.data.decideProposal).toEqual({
      __typename: 'InvalidTransition', code: 'invalid_transition', field: 'decision', from: 'approved', to: 'declined',
      message: `This proposal was already approved by ${w.tenant.users.program_lead.name} at ${(await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answeredAt!.toISOString()}, so it cannot be declined now. A decision stands once made: reload the proposal to see it.`,
    })
    const edits = await decide(w.tenant, 'program_owner', { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { fields: { confidence: 'medium' } } })
    expect(edits.body.data.decideProposal).toMatchObject({ __typename: 'InvalidTransition', from: 'approved', to: 'approved_with_edits' })
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(2)
    expect(await db().auditEvent.count({ where: { action: { in: ['proposal.approve', 'proposal.decline'] }, targetId: filed.proposalId } })).toBe(1)

    // a decline retried with its reason is the first outcome; another reason is refused, not silently dropped
    const declinedOne = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'low' } })
    const declined = await decide(w.tenant, 'program_lead', { id: declinedOne.proposalId, decision: 'DECLINE', reason: 'Not yet.', reasonCode: 'not_needed' })
    expect(declined.body.data.decideProposal.__typename).toBe('MutationDecideProposalSuccess')
    const retried = await decide(w.tenant, 'program_lead', { id: declinedOne.proposalId, decision: 'DECLINE', reason: 'Not yet.', reasonCode: 'not_needed' })
    expect(retried.body.data.decideProposal.proposal.decision).toEqual(declined.body.data.decideProposal.proposal.decision)
    const otherReason = await decide(w.tenant, 'program_owner', { id: declinedOne.proposalId, decision: 'DECLINE', reason: 'Wrong data.', reasonCode: 'incorrect' })
    expect(otherReason.body.data.decideProposal).toMatchObject({ __typename: 'InvalidTransition', field: 'reason', from: 'declined', to: 'declined' })
  })

  it('lets only one of two people racing on one proposal apply it, and tells the other it was decided', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const [a, b] = await Promise.all([
      decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' }),
      decide(w.tenant, 'program_owner', { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { fields: { confidence: 'medium' } } }),
    ])
    const answers = [a.body.data.decideProposal, b.body.data.decideProposal]
    const won = answers.filter((x) => x.__typename === 'MutationDecideProposalSuccess')
    const lost = answers.filter((x) => x.__typename === 'InvalidTransition')
    expect([won.length, lost.length]).toEqual([1, 1])
    expect(lost[0]).toMatchObject({ code: 'invalid_transition', from: won[0].proposal.decision.outcome, message: expect.stringContaining(`by ${won[0].proposal.decision.decidedByName}`) })
    const record = await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })
    expect(record.version).toBe(2)
    expect(await db().programRecordVersion.count({ where: { recordId: record.id } })).toBe(2)
    expect(await db().auditEvent.count({ where: { action: 'proposal.approve', targetId: filed.proposalId } })).toBe(1)
  })

  it('approves with edits laid over the change, and refuses an invalid edit naming its field without applying anything', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const bad = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { fields: { confidence: 'certain' } } })
    expect(bad.body.data.decideProposal).toMatchObject({ __typename: 'InvalidInput', field: 'edits.fields.confidence' })
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()
    const ok = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { fields: { confidence: 'medium' } } })
    expect(ok.body.data.decideProposal.proposal.decision.outcome).toBe('approved_with_edits')
    expect(((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).fields as any).confidence).toBe('medium')
  })

  it('signs the approval of a plan: printed name, time and meaning approval, with an approvals row, readable on the proposal', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.plan.recordId, fields: { period_start_on: '2027-01-04' } })
    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    const signature = r.body.data.decideProposal.proposal.decision.signature
    expect(signature).toMatchObject({ printedName: w.tenant.users.program_lead.name, meaning: 'approval' })
    expect(Date.parse(signature.signedAt)).toBeGreaterThan(Date.now() - 60_000)
    const row = await db().signature.findFirstOrThrow({ where: { targetId: w.plan.recordId } })
    expect(row).toMatchObject({ targetType: 'plan', signerUserId: w.tenant.users.program_lead.id })
    const approval = await db().approval.findFirstOrThrow({ where: { targetId: w.plan.recordId } })
    expect(approval).toMatchObject({ signatureId: row.id, decision: 'approved', approverUserId: w.tenant.users.program_lead.id })
    expect(await db().auditEvent.count({ where: { action: 'signature.create', signatureId: row.id } })).toBe(1)
    const read = await gql(url(), RECORD, { id: w.plan.recordId }, await w.tenant.token('viewer'))
    expect(read.body.data.record.signatures).toEqual([{
      printedName: w.tenant.users.program_lead.name, meaning: 'approval', signedAt: signature.signedAt,
      manifestation: `${w.tenant.users.program_lead.name}, ${signature.signedAt}, approval`,
    }])
  })

  it("reads an expired proposal as 'Expired, nothing written' and refuses to decide it", async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    await db().runInterrupt.update({ where: { id: filed.proposalId }, data: { expiresAt: new Date(Date.now() - 1000) } })
    const card = await gql(url(), PROPOSAL, { id: filed.proposalId }, await w.tenant.token('program_lead'))
    expect(card.body.data.proposal).toMatchObject({ status: 'expired', card: 'Expired, nothing written' })
    const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'InvalidTransition', code: 'invalid_transition' })
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
  })

  it('keeps the decision when an audit hook fails', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    let calls = 0
    const off = registerAuditHook({ name: 'test.failing', actions: ['proposal.approve', 'hypothesis.update'], run: async () => { calls++; throw new Error('hook down') } })
    try {
      const r = await decide(w.tenant, 'program_lead', { id: filed.proposalId, decision: 'APPROVE' })
      expect(r.body.data.decideProposal.proposal.decision.outcome).toBe('approved')
    } finally { off() }
    expect(calls).toBeGreaterThan(0)
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(2)
    expect(await db().auditEvent.count({ where: { action: 'proposal.approve', targetId: filed.proposalId } })).toBe(1)
  })
})

describe('batch approval', () => {
  it('refuses a batch of 11 with invalid_input on items, deciding nothing', async () => {
    const w = await world()
    const items = Array.from({ length: 11 }, () => ({ proposalId: randomUUID(), decision: 'APPROVE' }))
    const r = await gql(url(), BATCH, { items }, await w.tenant.token('program_lead'))
    expect(r.body.data.decideBatch).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'items' })
  })

  it('decides each item on its own: an item the person may not decide answers batch_item_forbidden, the others are decided under one batch_id', async () => {
    const w = await world()
    const onFinding = await w.propose({ kind: 'update', recordId: w.finding.recordId, fields: { species: 'rat' } })
    const onHypothesis = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const r = await gql(url(), BATCH, { items: [
      { proposalId: onFinding.proposalId, decision: 'APPROVE' },
      { proposalId: onHypothesis.proposalId, decision: 'APPROVE' },
    ] }, await w.tenant.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    const batch = r.body.data.decideBatch.batch
    expect(batch.items[0]).toMatchObject({ proposalId: onFinding.proposalId, error: null, proposal: { status: 'decided', decision: { outcome: 'approved', batchId: batch.batchId } } })
    expect(batch.items[1]).toMatchObject({ proposalId: onHypothesis.proposalId, proposal: null, error: { code: 'batch_item_forbidden', field: 'proposalId' } })
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.hypothesis.recordId } })).version).toBe(1)
    expect((await db().programRecord.findUniqueOrThrow({ where: { id: w.finding.recordId } })).version).toBe(2)
    const rows = await db().auditEvent.findMany({ where: { batchId: batch.batchId } })
    expect(rows.map((a) => a.action).sort()).toEqual(['batch_approval.create', 'finding.update', 'proposal.approve'])
    const interrupt = await db().runInterrupt.findUniqueOrThrow({ where: { id: batch.batchId } })
    expect(interrupt.kind).toBe('batch_approval')
    expect((interrupt.answer as any).results).toEqual([
      { proposalId: onFinding.proposalId, outcome: 'approved', error: null },
      { proposalId: onHypothesis.proposalId, outcome: null, error: 'batch_item_forbidden' },
    ])
  })

  it('decides each of 10 proposals once when two people send the same batch of 10 at once', async () => {
    const w = await world()
    // The two who may decide the scientist's twin's findings: the scientist and their delegate in force.
    const delegated = await gql(url(), `mutation($d: ID!, $p: ID, $e: DateTime!) { createDelegation(delegateUserId: $d, programId: $p, endsAt: $e) { __typename } }`,
      { d: w.tenant.users.program_owner.id, p: w.tenant.program.id, e: new Date(Date.now() + 86_400_000).toISOString() }, await w.tenant.token('scientist'))
    expect(delegated.body.data.createDelegation.__typename).toBe('MutationCreateDelegationSuccess')
    const filed = []
    for (let i = 0; i < 10; i++) {
      filed.push(await w.propose({ kind: 'create', programId: w.tenant.program.id, recordType: 'evidence.findings', title: `Finding at once ${i}`, fields: { kind: 'observation' } }))
    }
    const items = filed.map((f) => ({ proposalId: f.proposalId, decision: 'APPROVE' }))
    const [a, b] = await Promise.all([
      gql(url(), BATCH, { items }, await w.tenant.token('scientist')),
      gql(url(), BATCH, { items }, await w.tenant.token('program_owner')),
    ])
    expect(a.body.errors).toBeUndefined()
    expect(b.body.errors).toBeUndefined()
    const ids = filed.map((f) => f.proposalId)
    // One approval per proposal, one record each, whichever batch reached it first; both answers agree.
    expect(await db().auditEvent.count({ where: { action: 'proposal.approve', targetId: { in: ids } } })).toBe(10)
    expect(await db().programRecord.count({ where: { programId: w.tenant.program.id, title: { startsWith: 'Finding at once' } } })).toBe(10)
    const outcome = (r: typeof a, i: number) => r.body.data.decideBatch.batch.items[i].proposal?.decision?.outcome ?? null
    for (let i = 0; i < 10; i++) expect([outcome(a, i), outcome(b, i)]).toEqual(['approved', 'approved'])
  })
})

describe('isolation', () => {
  it('never shows or decides a proposal of another organisation, answering as if it did not exist', async () => {
    const { a, b } = await createTwoOrganizations(db())
    const wa = await world(a)
    await world(b)
    const filed = await wa.propose({ kind: 'update', recordId: wa.hypothesis.recordId, fields: { confidence: 'high' } })
    await expectRowsExist(db(), 'run_interrupts', a.organization.id)
    const read = await gql(url(), PROPOSAL, { id: filed.proposalId }, await b.token('program_owner'))
    expect(read.body.data.proposal).toBeNull()
    const r = await decide(b, 'program_owner', { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'id' })
    const unknown = await decide(b, 'program_owner', { id: randomUUID(), decision: 'APPROVE' })
    expect({ ...unknown.body.data.decideProposal, message: undefined }).toEqual({ ...r.body.data.decideProposal, message: undefined })
    const batch = await gql(url(), BATCH, { items: [{ proposalId: filed.proposalId, decision: 'APPROVE' }] }, await b.token('program_owner'))
    expect(batch.body.data.decideBatch.batch.items[0].error).toMatchObject({ code: 'not_found' })
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()
  })

  it('answers not found to the owner of another program of the same organisation, reading nothing and deciding nothing', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'update', recordId: w.hypothesis.recordId, fields: { confidence: 'high' } })
    const other = await createProgram(db(), w.tenant.organization.id)
    const owner = await createUser(db(), w.tenant.organization.id, { name: 'Other owner' })
    await addMember(db(), other, owner.id, ['program_owner'])
    const token = await mintDevToken(owner)
    expect((await gql(url(), PROPOSAL, { id: filed.proposalId }, token)).body.data.proposal).toBeNull()
    const r = await gql(url(), DECIDE, { id: filed.proposalId, decision: 'APPROVE' }, token)
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'NotFound', field: 'id' })
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })).answer).toBeNull()
  })
})
