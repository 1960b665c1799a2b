// The whole cycle through the gateway and the tool server: a schedule fires (controllable clock), the worker runs the
// twin, whose harness calls tools over MCP and files a proposal; the person receives it live over graphql-ws and
// approves it through the gateway; the record, audit trail and footers read as specified. Then the stale case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql, wsClient, collect, startTestWorker, waitFor } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { claimDueSchedules } from '../../domain/twins'
import { runFooter } from '../../domain/twins'
import { seedTwin, waitForRun } from './twin-helpers'
import { writeRecord } from './tools-helpers'
import { forOrganization } from '../../core/database'

const stack = useStack()
let worker: Awaited<ReturnType<typeof startTestWorker>>
beforeAll(async () => { worker = await startTestWorker(stack.db, { concurrency: 2 }) })
afterAll(async () => { await worker?.close() })
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)

const DECIDE = `mutation($id: ID!) {
  decideProposal(id: $id, decision: APPROVE) {
    __typename
    ... on MutationDecideProposalSuccess { proposal { id status decision { outcome recordId version footer } } }
    ... on StaleProposal { code message currentBasis }
    ... on Error { code message field }
  }
}`

/** A program whose milestone is past due, and the lead's twin scheduled daily at 08:00 UTC, due at `due`. */
async function world(name: string) {
  const t = await createTenant(db(), name)
  const milestone = await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'GLP tox start', fields: { due_on: day(-2) } })
  const due = new Date(Date.now() - 60_000)
  const { twin, trigger, schedule } = await seedTwin(db(), t, 'program_lead', { nextRunAt: due })
  return { t, milestone, twin, trigger, schedule, due }
}

/** Fires the schedule at a fixed time after it is due, and waits for its run to finish in the worker. */
async function fire(w: Awaited<ReturnType<typeof world>>) {
  const report = await claimDueSchedules(db(), { now: new Date(w.due.getTime() + 1_000) })
  expect(report.enqueued).toBeGreaterThanOrEqual(1)
  const run = await db().agentRun.findFirstOrThrow({ where: { twinId: w.twin.id, initiatedBy: 'schedule' } })
  return waitForRun(db(), run.id, ['succeeded', 'failed'], 60_000)
}

describe('a twin cycle from schedule to decision', () => {
  it('fires the schedule, files over MCP, arrives live, is approved, and the record, audit trail and footers read as specified', async () => {
    const w = await world('Cycle')
    const lead = w.t.users.program_lead
    const client = wsClient(url(), await w.t.token('program_lead'))
    const subscribers = stack.current.subgraphs.twins.inboxEvents.subscriberCount
    const live = collect(client, 'subscription { inboxChanged { id kind status title proposal { id title card draft { label } } } }', 2, 60_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount > subscribers, 10_000, 'the subscription') // subscribed before the schedule fires

    const run = await fire(w)
    expect(run).toMatchObject({ status: 'succeeded', initiatedBy: 'schedule', outcome: { proposals_filed: 1 } })
    const footer = await runFooter(forOrganization(db(), run.organizationId), run)
    expect(footer).toBe(`started by schedule, under ${lead.name}'s standing plan (approved 2026-11-20, plan ${w.trigger.standingPlanHash!.slice(0, 12)})`)
    expect(footer).not.toMatch(/Requested by/)
    const calls = await db().toolCall.findMany({ where: { runId: run.id } })
    expect(calls.length).toBeGreaterThanOrEqual(5)
    expect(calls.every((c) => c.twinId === w.twin.id)).toBe(true)

    for (const until = Date.now() + 15_000; live.received.length < 1 && Date.now() < until;) await new Promise((r) => setTimeout(r, 20))
    const created = live.received[0]?.data?.inboxChanged
    expect(created).toMatchObject({ kind: 'decision', status: 'open', title: `Blocker: GLP tox start is past due (${day(-2)})`, proposal: { card: null, draft: { label: 'Agent-generated draft, unsigned.' } } })

    const decided = await gql(url(), DECIDE, { id: created.proposal.id }, await w.t.token('program_lead'))
    expect(decided.body.errors).toBeUndefined()
    const p = decided.body.data.decideProposal.proposal
    expect(p).toMatchObject({ status: 'decided', decision: { outcome: 'approved', version: 1, footer: `Proposed by ${lead.name}'s twin (agent, working as Program lead); decided by ${lead.name}` } })
    // The lead wears no workbench role: the run started under the neutral program_lead harness, named in the footer.
    await live.finished
    await client.dispose()
    expect(live.received[1]?.data?.inboxChanged).toMatchObject({ id: created.id, status: 'done' })

    const record = await db().programRecord.findUniqueOrThrow({ where: { id: p.decision.recordId } })
    expect(record).toMatchObject({ recordType: 'progress.open_items', title: created.title, programId: w.t.program.id, status: 'open' })
    const version = await db().programRecordVersion.findFirstOrThrow({ where: { recordId: record.id } })
    expect(version).toMatchObject({ proposalId: created.proposal.id, proposedByTwinId: w.twin.id, runId: run.id, decidedByUserId: lead.id, workingAs: 'Program lead' })
    const trail = await db().auditEvent.findMany({ where: { organizationId: w.t.organization.id, action: { in: ['tool_call.invoke', 'proposal.file', 'proposal.approve', 'open_item.create'] } }, orderBy: { entrySeq: 'asc' } })
    const actions = trail.map((a) => `${a.action}:${a.actorType}`)
    expect(actions.indexOf('proposal.file:twin')).toBeGreaterThan(-1)
    expect(actions.indexOf('proposal.file:twin')).toBeLessThan(actions.indexOf('proposal.approve:user'))
    expect(actions.filter((a) => a === 'tool_call.invoke:twin').length).toBe(calls.length)
    expect(trail.filter((a) => a.actorType === 'twin').every((a) => a.twinId === w.twin.id && a.actorUserId === lead.id)).toBe(true)
  })

  it('refuses the approval with stale_proposal when the basis changed after the twin filed', async () => {
    const w = await world('Cycle stale')
    const run = await fire(w)
    expect(run).toMatchObject({ status: 'succeeded', outcome: { proposals_filed: 1 } })
    const item = await db().inboxItem.findFirstOrThrow({ where: { userId: w.t.users.program_lead.id, kind: 'decision' } })
    const owner = await contextForUser(db(), w.t.users.program_owner.id, w.t.organization.id)
    await applyRecordChange(owner, { kind: 'update', recordId: w.milestone.id, fields: { due_on: day(5) } })
    const r = await gql(url(), DECIDE, { id: item.sourceId }, await w.t.token('program_lead'))
    expect(r.body.data.decideProposal).toMatchObject({ __typename: 'StaleProposal', code: 'stale_proposal', message: expect.stringMatching(/^Changed since proposed/) })
    expect(await db().programRecord.count({ where: { programId: w.t.program.id, recordType: 'progress.open_items' } })).toBe(0)
  })
})
