// Who decides a twin's proposal ("Your twin proposes. You decide."), through the tool server and the gateway: the
// twin's person; their delegate under a delegation in force; for a type with an approval key, a holder of that key;
// anyone else holding the decide key is refused bound_user_only and nothing is written.
import { describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { fileProposal } from '../../domain/proposals'
import { createTenant, type Tenant } from '../helpers/factories'
import { connect, runningRun, writeRecord } from './tools-helpers'
import { useStackAtR3 } from './twin-helpers'

const { stack, db, as } = useStackAtR3()
const DAY = 86_400_000

const DECIDE = `mutation($id: ID!, $decision: ProposalDecision!, $reason: String) { decideProposal(id: $id, decision: $decision, reason: $reason) { __typename
  ... on MutationDecideProposalSuccess { proposal { id status decision { outcome decidedByName delegation } } }
  ... on Error { code message field } } }`
const BATCH = `mutation($items: [BatchDecisionInput!]!) { decideBatch(items: $items) { __typename
  ... on MutationDecideBatchSuccess { batch { items { proposalId proposal { status } error { code field } } } } } }`
const DELEGATE = `mutation($d: ID!, $p: ID, $e: DateTime!) { createDelegation(delegateUserId: $d, programId: $p, endsAt: $e) {
  __typename ... on MutationCreateDelegationSuccess { delegation { id } } ... on Error { code message } } }`
const REVOKE = `mutation($id: ID!) { revokeDelegation(id: $id) { __typename } }`

/** The scientist's twin, running, filing through the tool server (MCP over HTTP). */
async function scientistTwin(t: Tenant) {
  const r = await runningRun(db(), t, 'scientist')
  const client = await connect(stack.current.toolsUrl, r)
  let n = 0
  const proposeFinding = async () => {
    const res = await client.call('evidence.propose_finding', {
      change: { kind: 'create', title: `Liver weight up ${++n}`, fields: { kind: 'observation' } },
      draft: 'Liver weight rose in the high-dose group [1].',
    })
    if (!res.ok) throw new Error(JSON.stringify(res.error))
    return res.value as { proposalId: string }
  }
  return { ...r, client, proposeFinding }
}

const answered = async (id: string) => (await db().runInterrupt.findUniqueOrThrow({ where: { id } })).answer

describe("deciding a twin's proposal", () => {
  it('refuses another member holding the decide key with bound_user_only, writing nothing; the person decides it', async () => {
    const t = await createTenant(db(), 'Bound')
    const twin = await scientistTwin(t)
    const filed = await twin.proposeFinding()
    const records = await db().programRecord.count({ where: { programId: t.program.id } })
    // The lead and the owner hold evidence.findings.manage, the key that decides a finding.
    for (const p of ['program_lead', 'program_owner'] as const) {
      const r = await as(t, p, DECIDE, { id: filed.proposalId, decision: 'APPROVE' })
      expect(r.body.data.decideProposal, p).toMatchObject({ __typename: 'BoundUserOnly', code: 'bound_user_only', field: 'id' })
      expect(r.body.data.decideProposal.message).toContain(t.users.scientist.name)
      const declined = await as(t, p, DECIDE, { id: filed.proposalId, decision: 'DECLINE', reason: 'Not ours.' })
      expect(declined.body.data.decideProposal.code, p).toBe('bound_user_only')
    }
    expect(await answered(filed.proposalId)).toBeNull()
    expect(await db().programRecord.count({ where: { programId: t.program.id } })).toBe(records)
    expect(await db().auditEvent.count({ where: { action: { in: ['proposal.approve', 'proposal.decline'] }, targetId: filed.proposalId } })).toBe(0)

    // A batch of the lead answers the item with bound_user_only too.
    const batch = await as(t, 'program_lead', BATCH, { items: [{ proposalId: filed.proposalId, decision: 'APPROVE' }] })
    expect(batch.body.data.decideBatch.batch.items[0]).toMatchObject({ proposal: null, error: { code: 'bound_user_only', field: 'id' } })

    const mine = await as(t, 'scientist', DECIDE, { id: filed.proposalId, decision: 'APPROVE' })
    expect(mine.body.data.decideProposal).toMatchObject({ __typename: 'MutationDecideProposalSuccess', proposal: { status: 'decided', decision: { outcome: 'approved', decidedByName: t.users.scientist.name, delegation: null } } })
    await twin.client.close()
  })

  it('lets a live delegate decide in their own right, and refuses them once the delegation is revoked', async () => {
    const t = await createTenant(db(), 'Delegate')
    const twin = await scientistTwin(t)
    const early = await twin.proposeFinding() // filed before the delegation: the delegate may decide it while it is live
    const d = (await as(t, 'scientist', DELEGATE, { d: t.users.program_owner.id, p: t.program.id, e: new Date(Date.now() + 5 * DAY).toISOString() })).body.data.createDelegation
    expect(d.__typename).toBe('MutationCreateDelegationSuccess')
    const routed = await twin.proposeFinding()
    expect(await db().inboxItem.findFirstOrThrow({ where: { interruptId: routed.proposalId } })).toMatchObject({ userId: t.users.program_owner.id, delegatedFromUserId: t.users.scientist.id })

    const line = `Routed under delegation from ${t.users.scientist.name}; decided by ${t.users.program_owner.name} in their own right.`
    for (const id of [routed.proposalId, early.proposalId]) {
      const r = await as(t, 'program_owner', DECIDE, { id, decision: 'APPROVE' })
      expect(r.body.data.decideProposal).toMatchObject({ __typename: 'MutationDecideProposalSuccess', proposal: { decision: { outcome: 'approved', delegation: line } } })
      const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'proposal.approve', targetId: id } })
      expect(audit).toMatchObject({ actorUserId: t.users.program_owner.id, delegatedFromUserId: t.users.scientist.id })
    }
    // The lead is no delegate: still refused while the owner decides.
    const third = await twin.proposeFinding()
    expect((await as(t, 'program_lead', DECIDE, { id: third.proposalId, decision: 'APPROVE' })).body.data.decideProposal.code).toBe('bound_user_only')

    // Revoked: the item routed to the owner stays theirs to read, but no longer theirs to decide.
    expect((await as(t, 'scientist', REVOKE, { id: d.delegation.id })).body.data.revokeDelegation.__typename).toBe('MutationRevokeDelegationSuccess')
    const r = await as(t, 'program_owner', DECIDE, { id: third.proposalId, decision: 'APPROVE' })
    expect(r.body.data.decideProposal).toMatchObject({ code: 'bound_user_only' })
    expect(await answered(third.proposalId)).toBeNull()
    await twin.client.close()
  })

  it('lets a holder of the approval key decide a hypothesis change the twin proposed (its person does not approve hypotheses at v3)', async () => {
    const t = await createTenant(db(), 'Approver')
    const hyp = await writeRecord(db(), t, 'program_lead', { recordType: 'evidence.hypotheses', title: 'Target X drives the effect', fields: { confidence: 'low' } })
    const twin = await scientistTwin(t)
    // No propose tool files hypotheses; a duty's filing goes through the same domain command the tools use.
    const ctx = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId: twin.twin.id })
    const filed = await fileProposal(ctx, { runId: twin.run.id, change: { kind: 'update', recordId: hyp.id, fields: { confidence: 'high' } }, basisRecordIds: [], draft: 'The assay supports it.' })
    const r = await as(t, 'program_lead', DECIDE, { id: filed.proposalId, decision: 'APPROVE' })
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'MutationDecideProposalSuccess', proposal: { decision: { outcome: 'approved', decidedByName: t.users.program_lead.name } } })
    await twin.client.close()
  })
})
