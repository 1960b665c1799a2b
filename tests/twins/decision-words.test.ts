// A decision keeps every word the person gave, through the gateway: the note of an approval with edits (alone or with
// edits to the title, the draft and the record text), what was proposed beside what was approved, and a decline's
// footer and reason. Scientific notation (<, >, &, ≤, µ) is stored and read back exactly.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { createTenant } from '../helpers/factories'
import { useStackAtR3 } from './twin-helpers'

const { db, as } = useStackAtR3()

const NOTE = 'Conc <LLOQ at 24 h; dose <5 mg/kg and AUC>100 & Cmax ≤ 2 µg/mL'
const DRAFT = 'Liver weight up at ≥30 mg/kg; ALT <3× ULN & no <b>histopathology</b> finding.'

const CONTENT = 'title draft body'
const PROPOSAL = `query($id: ID!) { proposal(id: $id) { id status title draft { text }
  decision { outcome decidedByName note edits reasonCode reason footer recordId version proposed { ${CONTENT} } approved { ${CONTENT} } } } }`
const DECIDE = `mutation($id: ID!, $decision: ProposalDecision!, $edits: ProposalEditsInput, $reason: String, $reasonCode: DeclineReason) {
  decideProposal(id: $id, decision: $decision, edits: $edits, reason: $reason, reasonCode: $reasonCode) {
    __typename
    ... on MutationDecideProposalSuccess { proposal { id decision { outcome note footer reasonCode reason proposed { ${CONTENT} } approved { ${CONTENT} } } } }
    ... on InvalidInput { issues { field message } }
    ... on Error { code message field }
  }
}`
const RECORD_DECISIONS = `query($id: ID!) { recordDecisions(recordId: $id) { id decision { outcome note reasonCode reason footer version approved { title } } } }`
const RECORD = `query($id: ID!) { record(id: $id) { title body version history { version title body note proposalId footer } } }`

/** A tenant with a finding written by the lead and a twin of the scientist proposing a new finding with a body. */
async function world() {
  const tenant = await createTenant(db())
  const orgId = tenant.organization.id
  const programId = tenant.program.id
  const lead = await contextForUser(db(), tenant.users.program_lead.id, orgId)
  const finding = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Liver weight up', fields: { kind: 'observation' } })
  const twinId = randomUUID()
  const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: tenant.users.scientist.id } })
  const twin = await contextForUser(db(), tenant.users.scientist.id, orgId, { twinId })
  const propose = (change: Record<string, unknown>, basisRecordIds: string[] = []) =>
    fileProposal(twin, { runId: run.id, change, basisRecordIds, draft: DRAFT, tool: 'evidence.propose_finding' })
  const newFinding = () => propose({ kind: 'create', programId, recordType: 'evidence.findings', title: 'Hepatic signal at high dose', body: 'ALT raised in 3/10 animals.', fields: { kind: 'observation' } })
  const footer = `Proposed by ${tenant.users.scientist.name}'s twin (agent); decided by ${tenant.users.scientist.name}`
  return { tenant, finding, propose, newFinding, footer }
}

describe('approve with edits', () => {
  it('keeps a note given alone, exactly, on the decision and on the record version it makes, with the proposed content beside the approved', async () => {
    const w = await world()
    const filed = await w.newFinding()
    const r = await as(w.tenant, 'scientist', DECIDE, { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { note: NOTE } })
    expect(r.body.errors).toBeUndefined()
    const decision = r.body.data.decideProposal.proposal.decision
    expect(decision).toMatchObject({ outcome: 'approved_with_edits', note: NOTE, footer: w.footer })
    const proposed = { title: 'Hepatic signal at high dose', draft: DRAFT, body: 'ALT raised in 3/10 animals.' }
    expect(decision.proposed).toEqual(proposed)
    expect(decision.approved).toEqual(proposed)

    const read = (await as(w.tenant, 'viewer', PROPOSAL, { id: filed.proposalId })).body.data.proposal
    expect(read.decision).toMatchObject({ note: NOTE, edits: { note: NOTE }, proposed, approved: proposed })
    const record = (await as(w.tenant, 'viewer', RECORD, { id: read.decision.recordId })).body.data.record
    expect(record.history[0]).toMatchObject({ version: 1, note: NOTE, proposalId: filed.proposalId, footer: w.footer })
  })

  it('applies an edited title, draft and record text, shows them as approved beside what was proposed, and keeps the note', async () => {
    const w = await world()
    const filed = await w.newFinding()
    const edits = { title: 'Hepatic signal at ≥30 mg/kg <confirmed>', draft: `${DRAFT} Reviewed: AUC>100 & Cmax <2 µg/mL.`, body: 'ALT >3× ULN in 3/10 animals at <b>30</b> mg/kg & above.', note: NOTE }
    const r = await as(w.tenant, 'scientist', DECIDE, { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits })
    expect(r.body.errors).toBeUndefined()
    const decision = r.body.data.decideProposal.proposal.decision
    expect(decision).toMatchObject({ outcome: 'approved_with_edits', note: NOTE })
    expect(decision.proposed).toEqual({ title: 'Hepatic signal at high dose', draft: DRAFT, body: 'ALT raised in 3/10 animals.' })
    expect(decision.approved).toEqual({ title: edits.title, draft: edits.draft, body: edits.body })

    const read = (await as(w.tenant, 'viewer', PROPOSAL, { id: filed.proposalId })).body.data.proposal
    expect(read.decision.edits).toEqual(edits)
    const record = (await as(w.tenant, 'viewer', RECORD, { id: read.decision.recordId })).body.data.record
    expect(record).toMatchObject({ title: edits.title, body: edits.body })
    expect(record.history[0]).toMatchObject({ title: edits.title, body: edits.body, note: NOTE })
  })

  it('refuses a title edit on a status decision naming edits.title, never dropping it, and refuses edits that are empty', async () => {
    const w = await world()
    const filed = await w.propose({ kind: 'decide', recordId: w.finding.recordId, outcome: 'retract' }, [])
    const r = await as(w.tenant, 'scientist', DECIDE, { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { title: 'Another title' } })
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'InvalidInput', field: 'edits.title' })
    const empty = await as(w.tenant, 'scientist', DECIDE, { id: filed.proposalId, decision: 'APPROVE_WITH_EDITS', edits: {} })
    expect(empty.body.data.decideProposal).toMatchObject({ __typename: 'InvalidInput', field: 'edits' })
    const interrupt = await db().runInterrupt.findUniqueOrThrow({ where: { id: filed.proposalId } })
    expect(interrupt.answer).toBeNull()
  })
})

describe('decline', () => {
  it('reads the record footer and the reason, code and words exactly, on the decision', async () => {
    const w = await world()
    const filed = await w.newFinding()
    const reason = 'Dose <5 mg/kg & exposure AUC>100 were mixed up; see the TK table.'
    const r = await as(w.tenant, 'scientist', DECIDE, { id: filed.proposalId, decision: 'DECLINE', reasonCode: 'incorrect', reason })
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.decideProposal.proposal.decision).toMatchObject({ outcome: 'declined', footer: w.footer, reasonCode: 'incorrect', reason, approved: null })
    const read = (await as(w.tenant, 'viewer', PROPOSAL, { id: filed.proposalId })).body.data.proposal
    expect(read.decision).toMatchObject({ footer: w.footer, reasonCode: 'incorrect', reason, proposed: { title: 'Hepatic signal at high dose', draft: DRAFT } })
  })

  it("lists a record's decisions on it, a decline of a change to it included, newest first, and to nobody outside its organisation", async () => {
    const w = await world()
    const approved = await w.propose({ kind: 'update', recordId: w.finding.recordId, title: 'Liver weight up at ≥30 mg/kg' }, [])
    await as(w.tenant, 'scientist', DECIDE, { id: approved.proposalId, decision: 'APPROVE_WITH_EDITS', edits: { note: NOTE } })
    const declined = await w.propose({ kind: 'update', recordId: w.finding.recordId, title: 'Liver weight down' }, [])
    await as(w.tenant, 'scientist', DECIDE, { id: declined.proposalId, decision: 'DECLINE', reasonCode: 'incorrect', reason: 'Weights went <up>, not down & the table says so.' })
    const listed = (await as(w.tenant, 'viewer', RECORD_DECISIONS, { id: w.finding.recordId })).body.data.recordDecisions
    expect(listed.map((p: { id: string }) => p.id)).toEqual([declined.proposalId, approved.proposalId])
    expect(listed[0].decision).toMatchObject({ outcome: 'declined', reasonCode: 'incorrect', reason: 'Weights went <up>, not down & the table says so.', footer: w.footer, approved: null })
    expect(listed[1].decision).toMatchObject({ outcome: 'approved_with_edits', note: NOTE, version: 2, approved: { title: 'Liver weight up at ≥30 mg/kg' } })
    const stranger = await createTenant(db(), 'Stranger')
    expect((await as(stranger, 'program_owner', RECORD_DECISIONS, { id: w.finding.recordId })).body.data.recordDecisions).toEqual([])
  })

  it('keeps the reason of a decline in a batch exactly', async () => {
    const w = await world()
    const filed = await w.newFinding()
    const reason = ' Duplicate of the TK finding: Cmax ≤ 2 µg/mL & AUC>100, dose <5 mg/kg. '
    const r = await as(w.tenant, 'scientist', `mutation($items: [BatchDecisionInput!]!) { decideBatch(items: $items) { __typename ... on MutationDecideBatchSuccess { batch { items { proposal { decision { outcome reason footer } } error { code } } } } } }`,
      { items: [{ proposalId: filed.proposalId, decision: 'DECLINE', reasonCode: 'duplicate', reason }] })
    expect(r.body.data.decideBatch.batch.items[0]).toMatchObject({ error: null, proposal: { decision: { outcome: 'declined', reason, footer: w.footer } } })
  })
})

