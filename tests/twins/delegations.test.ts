// Delegations through the gateway: every refused shape is delegation_invalid with nothing written; a decision routed
// one hop to the delegate, decided in their own right (the record's line, delegated_from_user_id on the audit rows);
// revocation and expiry stop routing (items filed afterwards go to the person); renewals counted; the expiry job;
// the Keep question of the principal's note answered by the delegate (their tier 1, on_behalf_of); isolation.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { expireDelegations } from '../../domain/collaboration'
import { memoryNoteQuestion } from '../../domain/memory'
import { proposeNote } from '../../domain/memory'
import { addMember, createProgram, createTenant, expectRowsExist, type Tenant } from '../helpers/factories'
import { useStackAtR3 } from './twin-helpers'

const { db, as } = useStackAtR3()
const DAY = 86_400_000

const CREATE = `mutation($d: ID!, $p: ID, $s: DateTime, $e: DateTime!, $r: String) {
  createDelegation(delegateUserId: $d, programId: $p, startsAt: $s, endsAt: $e, reason: $r) {
    __typename ... on MutationCreateDelegationSuccess { delegation { id status renewalCount startsAt endsAt program { id } delegate { id } } }
    ... on Error { code message field }
  }
}`
const REVOKE = `mutation($id: ID!) { revokeDelegation(id: $id) { __typename ... on MutationRevokeDelegationSuccess { delegation { id status revokedAt } } ... on Error { code message } } }`
const MINE = `query { myDelegations { id status user { id } delegate { id } } }`
const DECIDE = `mutation($id: ID!) { decideProposal(id: $id, decision: APPROVE) { __typename
  ... on MutationDecideProposalSuccess { proposal { id status decision { outcome decidedByName footer delegation delegatedFrom { id } } } }
  ... on Error { code message } } }`

/** The scientist's twin and a run to file proposals on (twin proposals go to the scientist, or to their delegate). */
async function world(t: Tenant) {
  const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
  const hyp = await applyRecordChange(lead, { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title: 'Target X drives the effect', fields: { confidence: 'low' } })
  const twinId = randomUUID()
  const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user' } })
  const twin = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId })
  let n = 0
  const propose = () => fileProposal(twin, { runId: run.id, change: { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title: `Hypothesis ${++n}` }, draft: 'Proposed.', basisRecordIds: [hyp.recordId] })
  return { propose }
}
const itemOf = (proposalId: string) => db().inboxItem.findFirstOrThrow({ where: { interruptId: proposalId } })
const endsIn = (days: number) => new Date(Date.now() + days * DAY).toISOString()

describe('creating delegations', () => {
  it('refuses every invalid shape with delegation_invalid and writes nothing', async () => {
    const t = await createTenant(db(), 'Shapes')
    const other = await createTenant(db(), 'Shapes other')
    const second = await createProgram(db(), t.organization.id, { slug: 'shapes-second' })
    await addMember(db(), second, t.users.scientist.id, ['scientist'])
    // The lead delegates onward first, so the lead as a delegate would be a chain.
    const chainStart = await as(t, 'program_lead', CREATE, { d: t.users.program_owner.id, p: t.program.id, e: endsIn(5) })
    expect(chainStart.body.data.createDelegation.__typename).toBe('MutationCreateDelegationSuccess')
    const before = await db().delegation.count({ where: { organizationId: t.organization.id } })
    const cases: [string, Record<string, unknown>, string][] = [
      ['self', { d: t.users.scientist.id, p: t.program.id, e: endsIn(5) }, 'delegateUserId'],
      ['over 30 days', { d: t.users.quality_reviewer.id, p: t.program.id, e: endsIn(31) }, 'endsAt'],
      ['ending before it starts', { d: t.users.quality_reviewer.id, p: t.program.id, e: new Date(Date.now() - DAY).toISOString() }, 'endsAt'],
      ['a chain (the delegate has delegated)', { d: t.users.program_lead.id, p: t.program.id, e: endsIn(5) }, 'delegateUserId'],
      ['a delegate outside the program', { d: t.users.quality_reviewer.id, p: second.id, e: endsIn(5) }, 'delegateUserId'],
      ['a delegate of another organisation', { d: other.users.program_lead.id, p: t.program.id, e: endsIn(5) }, 'delegateUserId'],
      ['a program the delegator holds no persona in', { d: t.users.quality_reviewer.id, p: other.program.id, e: endsIn(5) }, 'programId'],
    ]
    for (const [what, vars, field] of cases) {
      const r = await as(t, 'scientist', CREATE, vars)
      expect(r.body.data?.createDelegation, what).toMatchObject({ __typename: 'DelegationInvalid', code: 'delegation_invalid', field })
    }
    // The owner is now the lead's delegate: delegating from the owner would route onward too.
    const onward = await as(t, 'program_owner', CREATE, { d: t.users.quality_reviewer.id, p: t.program.id, e: endsIn(5) })
    expect(onward.body.data.createDelegation).toMatchObject({ code: 'delegation_invalid' })
    expect(await db().delegation.count({ where: { organizationId: t.organization.id } })).toBe(before)
    expect(await db().auditEvent.count({ where: { organizationId: t.organization.id, action: 'delegation.create' } })).toBe(1)
  })

  it('renews for the same delegate (counted, audited delegation.renew) and lists given and received delegations', async () => {
    const t = await createTenant(db(), 'Renew')
    const first = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(10), r: 'Leave' })).body.data.createDelegation.delegation
    const renewed = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(30) })).body.data.createDelegation.delegation
    expect(renewed).toMatchObject({ id: first.id, status: 'active', renewalCount: 1 })
    expect((await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(20) })).body.data.createDelegation.delegation.renewalCount).toBe(2)
    expect(await db().auditEvent.count({ where: { action: 'delegation.renew', targetId: first.id } })).toBe(2)
    // Another delegate while one is active is refused.
    expect((await as(t, 'scientist', CREATE, { d: t.users.program_owner.id, p: t.program.id, e: endsIn(5) })).body.data.createDelegation.code).toBe('delegation_invalid')
    expect((await as(t, 'program_lead', MINE)).body.data.myDelegations).toEqual([{ id: first.id, status: 'active', user: { id: t.users.scientist.id }, delegate: { id: t.users.program_lead.id } }])
    // Only the delegator revokes; the delegate finds nothing to revoke.
    expect((await as(t, 'program_lead', REVOKE, { id: first.id })).body.data.revokeDelegation.code).toBe('not_found')
  })
})

describe('routing under delegation', () => {
  it('routes a decision one hop to the delegate, who decides in their own right; revocation stops routing at once', async () => {
    const t = await createTenant(db(), 'Route')
    const w = await world(t)
    const d = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(7) })).body.data.createDelegation.delegation
    const filed = await w.propose()
    expect(await itemOf(filed.proposalId)).toMatchObject({ userId: t.users.program_lead.id, delegatedFromUserId: t.users.scientist.id, kind: 'decision' })
    // The lead holds evidence.hypotheses.approve themselves: they decide under their own live permissions.
    const mark = (await db().auditEvent.aggregate({ _max: { entrySeq: true } }))._max.entrySeq ?? 0n
    const r = await as(t, 'program_lead', DECIDE, { id: filed.proposalId })
    expect(r.body.errors).toBeUndefined()
    const decision = r.body.data.decideProposal.proposal.decision
    const line = `Routed under delegation from ${t.users.scientist.name}; decided by ${t.users.program_lead.name} in their own right.`
    expect(decision).toMatchObject({ outcome: 'approved', decidedByName: t.users.program_lead.name, delegation: line, delegatedFrom: { id: t.users.scientist.id } })
    expect(decision.footer.split('\n').at(-1)).toBe(line)
    // Every audit row of the decision, the record's own included, carries delegated_from_user_id.
    const rows = await db().auditEvent.findMany({ where: { organizationId: t.organization.id, entrySeq: { gt: mark } } })
    expect(rows.map((x) => x.action).sort()).toEqual(['approval.create', 'hypothesis.create', 'proposal.approve'])
    expect(rows.every((x) => x.delegatedFromUserId === t.users.scientist.id)).toBe(true)

    // Revoked: the next item (filed after revocation) goes to the scientist.
    expect((await as(t, 'scientist', REVOKE, { id: d.id })).body.data.revokeDelegation.delegation).toMatchObject({ status: 'revoked' })
    const after = await w.propose()
    expect(await itemOf(after.proposalId)).toMatchObject({ userId: t.users.scientist.id, delegatedFromUserId: null })
    expect(await db().auditEvent.count({ where: { action: 'delegation.revoke', targetId: d.id } })).toBe(1)
  })

  it('returns the open items a revoked or expired delegation routed to the person, who decides them; the former delegate may not', async () => {
    const t = await createTenant(db(), 'Return')
    // Findings: decided under the manage key, which gives the lead no right of their own over a twin's proposal.
    const twinId = randomUUID()
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user' } })
    const twin = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId })
    let n = 0
    const w = { propose: () => fileProposal(twin, { runId: run.id, change: { kind: 'create', programId: t.program.id, recordType: 'evidence.findings', title: `Finding ${++n}`, fields: { kind: 'observation' } }, draft: 'Proposed.', basisRecordIds: [] }) }
    const d = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(7) })).body.data.createDelegation.delegation
    const routed = await w.propose()
    expect(await itemOf(routed.proposalId)).toMatchObject({ userId: t.users.program_lead.id, delegatedFromUserId: t.users.scientist.id })
    expect((await as(t, 'scientist', REVOKE, { id: d.id })).body.data.revokeDelegation.delegation).toMatchObject({ status: 'revoked' })
    expect(await itemOf(routed.proposalId)).toMatchObject({ userId: t.users.scientist.id, delegatedFromUserId: null, status: 'open' })
    const revoke = await db().auditEvent.findFirstOrThrow({ where: { action: 'delegation.revoke', targetId: d.id } })
    expect(revoke.details).toMatchObject({ items_returned: 1 })
    // The former delegate no longer decides it; the person does.
    expect((await as(t, 'program_lead', DECIDE, { id: routed.proposalId })).body.data.decideProposal).toMatchObject({ code: 'bound_user_only' })
    expect((await as(t, 'scientist', DECIDE, { id: routed.proposalId })).body.data.decideProposal.proposal).toMatchObject({ status: expect.any(String), decision: { outcome: 'approved', delegatedFrom: null } })

    // The same when the delegation runs out: the expiry job hands the routed item back.
    const again = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(2) })).body.data.createDelegation.delegation
    const second = await w.propose()
    expect((await itemOf(second.proposalId)).userId).toBe(t.users.program_lead.id)
    await db().delegation.update({ where: { id: again.id }, data: { startsAt: new Date(Date.now() - 3 * DAY), endsAt: new Date(Date.now() - 60_000) } })
    expect(await expireDelegations(db())).toMatchObject({ expired: 1 })
    expect(await itemOf(second.proposalId)).toMatchObject({ userId: t.users.scientist.id, delegatedFromUserId: null, status: 'open' })
  })

  it('never routes past the end (before the expiry job runs), and the job expires it, audited', async () => {
    const t = await createTenant(db(), 'Expire')
    const w = await world(t)
    const d = (await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(2) })).body.data.createDelegation.delegation
    expect((await itemOf((await w.propose()).proposalId)).userId).toBe(t.users.program_lead.id)
    // The period lies in the past now (as if two days went by); the row still reads active.
    await db().delegation.update({ where: { id: d.id }, data: { startsAt: new Date(Date.now() - 3 * DAY), endsAt: new Date(Date.now() - 60_000) } })
    expect((await itemOf((await w.propose()).proposalId)).userId).toBe(t.users.scientist.id)
    expect(await expireDelegations(db())).toMatchObject({ expired: 1 })
    expect(await db().delegation.findUniqueOrThrow({ where: { id: d.id } })).toMatchObject({ status: 'expired' })
    expect(await db().auditEvent.count({ where: { action: 'delegation.expire', targetId: d.id } })).toBe(1)
    expect(await expireDelegations(db())).toMatchObject({ expired: 0 })
  })

  it('never routes outside its program: an item of another program stays with the person', async () => {
    const t = await createTenant(db(), 'Scope')
    const second = await createProgram(db(), t.organization.id, { slug: 'scope-second' })
    await addMember(db(), second, t.users.scientist.id, ['scientist'])
    await addMember(db(), second, t.users.program_lead.id, ['program_lead'])
    await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(5) })
    const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
    await applyRecordChange(lead, { kind: 'create', programId: second.id, recordType: 'evidence.hypotheses', title: 'Second', fields: { confidence: 'low' } })
    const twinId = randomUUID()
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: second.id, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user' } })
    const twin = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId })
    const filed = await fileProposal(twin, { runId: run.id, change: { kind: 'create', programId: second.id, recordType: 'evidence.hypotheses', title: 'Elsewhere' }, draft: 'x' })
    expect(await itemOf(filed.proposalId)).toMatchObject({ userId: t.users.scientist.id, delegatedFromUserId: null })
  })

  it("lets the delegate answer Keep on the principal's note: it lands in the delegate's tier 1 tagged on_behalf_of, never the principal's", async () => {
    const t = await createTenant(db(), 'KeepDelegated')
    const principal = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId: randomUUID() })
    const p = await proposeNote(principal, { programId: t.program.id, kind: 'preference', summary: 'Prefers rat data first in tables.' })
    if (!p.proposed) throw new Error('not proposed')
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'succeeded' } })
    const question = await db().runInterrupt.create({
      data: { organizationId: t.organization.id, runId: run.id, kind: 'write_approval', detached: true, question: memoryNoteQuestion(p.note, { userId: t.users.scientist.id, twinId: null }) as object },
    })
    const ANSWER = `mutation($id: ID!) { answerMemoryNote(interruptId: $id, choice: KEEP) { __typename
      ... on MutationAnswerMemoryNoteSuccess { answer { record { id onBehalfOf tier } } } ... on Error { code } } }`
    const QUESTIONS = `query { memoryNoteQuestions { id } }`
    // Without a delegation the lead neither sees nor answers it.
    expect((await as(t, 'program_lead', QUESTIONS)).body.data.memoryNoteQuestions).toEqual([])
    expect((await as(t, 'program_lead', ANSWER, { id: question.id })).body.data.answerMemoryNote.code).toBe('not_found')
    await as(t, 'scientist', CREATE, { d: t.users.program_lead.id, p: t.program.id, e: endsIn(5) })
    expect((await as(t, 'program_lead', QUESTIONS)).body.data.memoryNoteQuestions.map((q: any) => q.id)).toEqual([question.id])
    const kept = await as(t, 'program_lead', ANSWER, { id: question.id })
    expect(kept.body.data.answerMemoryNote.answer.record).toMatchObject({ tier: 'individual', onBehalfOf: t.users.scientist.id })
    const record = await db().memoryRecord.findUniqueOrThrow({ where: { id: kept.body.data.answerMemoryNote.answer.record.id } })
    expect(record).toMatchObject({ userId: t.users.program_lead.id, onBehalfOf: t.users.scientist.id })
    expect(await db().memoryRecord.count({ where: { userId: t.users.scientist.id } })).toBe(0)
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'memory.keep', targetId: record.id } })
    expect(audit.delegatedFromUserId).toBe(t.users.scientist.id)
  })
})

describe('delegation isolation', () => {
  it("shows nobody another organisation's or another person's delegations (their rows exist)", async () => {
    const a = await createTenant(db(), 'DelIsoA')
    const b = await createTenant(db(), 'DelIsoB')
    const theirs = (await as(b, 'scientist', CREATE, { d: b.users.program_lead.id, p: b.program.id, e: endsIn(5) })).body.data.createDelegation.delegation
    await expectRowsExist(db(), 'delegations', b.organization.id)
    expect((await as(a, 'program_lead', MINE)).body.data.myDelegations).toEqual([])
    expect((await as(a, 'scientist', REVOKE, { id: theirs.id })).body.data.revokeDelegation.code).toBe('not_found')
    expect((await as(a, 'program_owner', `query($id: ID!) { delegation(id: $id) { id } }`, { id: theirs.id })).body.data.delegation).toBeNull()
    // Another person of the same organisation (not a party) sees nothing either.
    expect((await as(b, 'quality_reviewer', MINE)).body.data.myDelegations).toEqual([])
    expect((await db().delegation.findUniqueOrThrow({ where: { id: theirs.id } })).status).toBe('active')
  })
})
