// Issue 34 item 7: a twin's draft says what it read and why it proposes (citing the records), and a run never files a
// second open proposal of the same kind on the same basis for the same person: it answers that one is already waiting,
// and the run says so to the person who pressed "Run now" (TwinRun.summary through the gateway). Safe under runs at
// once: the check is made under the person's filing lock, in the filing's transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql, startTestWorker } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { createTwinRun } from '../../domain/twins'
import { fileProposal } from '../../domain/proposals'
import { seedTwin, waitForRun } from './twin-helpers'
import { writeRecord } from './tools-helpers'

const stack = useStack()
let worker: Awaited<ReturnType<typeof startTestWorker>>
beforeAll(async () => { worker = await startTestWorker(stack.db, { concurrency: 2 }) })
afterAll(async () => { await worker?.close() })
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)

const RUN_NOW = `mutation($id: ID!) { runTwinNow(id: $id) { __typename ... on MutationRunTwinNowSuccess { run { id status } } ... on Error { code message } } }`
const RUN = `query($id: ID!) { twin(id: $id) { runs(first: 10) { nodes { id status summary outcome } } } }`
const DECISIONS = `query { myInbox(first: 50) { nodes { id kind title status proposal { id title draft { text } } } } }`

async function world(name: string) {
  const t = await createTenant(db(), name)
  const milestone = await writeRecord(db(), t, 'program_owner', { recordType: 'progress.milestones', title: 'GLP tox start', fields: { due_on: day(-3) } })
  const seeded = await seedTwin(db(), t, 'program_lead', { nextRunAt: null })
  return { t, milestone, ...seeded }
}

async function runNow(w: Awaited<ReturnType<typeof world>>) {
  const r = await gql(url(), RUN_NOW, { id: w.twin.id }, await w.t.token('program_lead'))
  expect(r.body.data.runTwinNow.__typename).toBe('MutationRunTwinNowSuccess')
  return waitForRun(db(), r.body.data.runTwinNow.run.id, ['succeeded', 'failed'], 60_000)
}

const openDecisions = (w: Awaited<ReturnType<typeof world>>) =>
  db().inboxItem.count({ where: { userId: w.t.users.program_lead.id, kind: 'decision', status: 'open' } })

describe('a twin run and the proposals already waiting', () => {
  it("drafts what it read and why (which milestone, how overdue, citing the record), not the title again", async () => {
    const w = await world('Drafts')
    const run = await runNow(w)
    expect(run.status).toBe('succeeded')
    const inbox = await gql(url(), DECISIONS, {}, await w.t.token('program_lead'))
    const [item] = inbox.body.data.myInbox.nodes.filter((n: { kind: string }) => n.kind === "decision")
    expect(item.title).toBe(`Blocker: GLP tox start is past due (${day(-3)})`)
    const draft: string = item.proposal.draft.text
    expect(draft).not.toContain(item.title)
    expect(draft).toMatch(/^Read 1 milestone, 0 broken dependencies, 0 open high-severity gaps, 0 open items and 0 open questions of the program\./)
    expect(draft).toContain(`The milestone 'GLP tox start' (planned, version 1) [@record:${w.milestone.id}] was due on ${day(-3)}: 3 days overdue`)
    expect(draft).toContain('No open item names it, so nothing records who clears it.')
  })

  it('answers that the proposal is already waiting on a second "Run now", files no second one, and says so in the run summary', async () => {
    const w = await world('Run twice')
    const first = await runNow(w)
    expect(first.outcome).toMatchObject({ proposals_filed: 1, already_waiting: 0 })
    expect(await openDecisions(w)).toBe(1)
    const second = await runNow(w)
    expect(second.status).toBe('succeeded')
    expect(second.outcome).toMatchObject({ proposals_filed: 0, already_waiting: 1 })
    expect(await openDecisions(w)).toBe(1)
    const runs = await gql(url(), RUN, { id: w.twin.id }, await w.t.token('program_lead'))
    const byId = new Map(runs.body.data.twin.runs.nodes.map((n: { id: string }) => [n.id, n]))
    expect((byId.get(first.id) as { summary: string }).summary).toBe('Filed 1 proposal for your decision.')
    expect((byId.get(second.id) as { summary: string }).summary).toBe(
      `Filed no new proposal. Already waiting for your decision, so not filed again: “Blocker: GLP tox start is past due (${day(-3)})”.`,
    )
  })

  it('files one proposal when two runs of the twin go at once', async () => {
    const w = await world('Parallel runs')
    // Two runs of the person's twin queued together (run-now passes have no trigger), taken by two worker slots at once.
    const runs = await db().$transaction(async (tx) => {
      const made = []
      for (let i = 0; i < 2; i++) made.push((await createTwinRun(tx, { organizationId: w.t.organization.id, programId: w.t.program.id, twinId: w.twin.id, triggerId: null, initiatedBy: 'user', runAt: new Date() })).run)
      return made
    })
    expect(new Set(runs.map((r) => r.id)).size).toBe(2)
    const done = await Promise.all(runs.map((r) => waitForRun(db(), r.id, ['succeeded', 'failed'], 60_000)))
    expect(done.map((r) => r.status)).toEqual(['succeeded', 'succeeded'])
    const outcomes = done.map((r) => r.outcome as { proposals_filed: number; already_waiting: number })
    expect(outcomes.reduce((n, o) => n + o.proposals_filed, 0)).toBe(1)
    expect(outcomes.reduce((n, o) => n + o.already_waiting, 0)).toBe(1)
    expect(await openDecisions(w)).toBe(1)
  })

  it('files one proposal when eight filings of the same kind on the same basis arrive at once', async () => {
    const w = await world('Parallel filings')
    const { run } = await db().$transaction((tx) => createTwinRun(tx, {
      organizationId: w.t.organization.id, programId: w.t.program.id, twinId: w.twin.id, triggerId: w.trigger.id, initiatedBy: 'user', runAt: new Date(Date.now() + 3600_000),
    }))
    const ctx = await contextForUser(db(), w.t.users.program_lead.id, w.t.organization.id, { twinId: w.twin.id })
    const file = () => fileProposal(ctx, {
      runId: run.id, basisRecordIds: [w.milestone.id], draft: 'Read the milestone.',
      change: { kind: 'create', programId: w.t.program.id, recordType: 'progress.open_items', title: 'Clear the tox start', fields: { priority: 'high' } },
    })
    const filed = await Promise.all(Array.from({ length: 8 }, file))
    expect(filed.filter((f) => !f.alreadyWaiting)).toHaveLength(1)
    expect(new Set(filed.map((f) => f.proposalId)).size).toBe(1)
    expect(await openDecisions(w)).toBe(1)
    // Another title is another proposal.
    const other = await fileProposal(ctx, { runId: run.id, basisRecordIds: [w.milestone.id], draft: 'Read.', change: { kind: 'create', programId: w.t.program.id, recordType: 'progress.open_items', title: 'Book the lab' } })
    expect(other.alreadyWaiting).toBe(false)
  })
})
