// Loaders over graphql-ws: one subscription keeps one GraphQL context for its whole life, but every event runs
// its selection set on fresh loaders, so a loader-backed field shows the row as it is at that event.
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { env, setEnv } from '../../core/config'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })
const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db

const DECIDE = `mutation($id: ID!) { decideProposal(id: $id, decision: APPROVE) { __typename ... on Error { code message } } }`

describe('loaders during a subscription', () => {
  it('shows InboxItem.proposal as it is at each inboxChanged event, not as the first event read it', async () => {
    const t = await createTenant(db(), 'Fresh loaders')
    const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
    const hypothesis = await applyRecordChange(lead, { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title: 'Target X drives the effect', fields: { confidence: 'low' } })
    const twinId = randomUUID()
    const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: t.users.scientist.id } })
    const twin = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId })

    const client = wsClient(url(), await t.token('scientist'))
    const subscribers = stack.current.subgraphs.twins.inboxEvents.subscriberCount
    const live = collect(client, 'subscription { inboxChanged { id status proposal { id status decision { outcome } } } }', 2, 60_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount > subscribers, 10_000, 'the subscription')
    const filed = await fileProposal(twin, { runId: run.id, change: { kind: 'update', recordId: hypothesis.recordId, fields: { confidence: 'high' } },
      basisRecordIds: [], draft: 'The new assay data support a higher confidence.', tool: 'evidence.propose_hypothesis_change' })
    await waitFor(() => live.received.length >= 1, 15_000, 'the filed event') // the first event has read the proposal
    const r = await gql(url(), DECIDE, { id: filed.proposalId }, await t.token('program_lead'))
    expect(r.body.data.decideProposal.__typename).toBe('MutationDecideProposalSuccess')
    await live.finished
    await client.dispose()

    expect(live.received.map((m) => m.errors)).toEqual([undefined, undefined])
    const [first, second] = live.received.map((m) => m.data!.inboxChanged)
    expect(first).toMatchObject({ status: 'open', proposal: { id: filed.proposalId, status: 'open', decision: null } })
    expect(second).toMatchObject({ id: first.id, status: 'done', proposal: { id: filed.proposalId, status: 'decided', decision: { outcome: 'approved' } } })
  })
})
