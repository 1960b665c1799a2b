// The inbox operations through the gateway and over graphql-ws: resolve, snooze, dismiss, feedback, what each kind
// allows, the live change kinds, the inbox header and brief, and isolation between people and organisations.
import { beforeAll, describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { closeItemsForSource, fileInboxItem, type FileInboxItem } from '../../domain/inbox'
import { enqueue } from '../../core/jobs'
import { createTaskList } from '../../jobs/worker'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db

let t: Tenant
beforeAll(async () => { t = await createTenant(db(), 'Inbox') })

const file = (tenant: Tenant, persona: keyof Tenant['users'], over: Partial<FileInboxItem> = {}) => db().$transaction((tx) => fileInboxItem(tx, {
  organizationId: tenant.organization.id, userId: tenant.users[persona].id, programId: tenant.program.id,
  kind: 'question', sourceType: 'thread', sourceId: `t-${Math.random()}`, title: 'Which species for the 28-day study?', ...over,
}))


/** Runs one job through graphile-worker with the service's task list (the real worker, in this process). */
async function runJob(task: 'inbox_expire') {
  await db().$transaction((tx) => enqueue(tx, task, {}))
  await runOnce({ connectionString: stack.db.url, taskList: createTaskList({ db: db(), databaseUrl: stack.db.url }), noHandleSignals: true })
}

const RESULT = (field: string) => `__typename ... on Mutation${field[0].toUpperCase()}${field.slice(1)}Success { item { id status change feedback doneAt snoozedUntil resolvable } } ... on Error { code message field } ... on InvalidTransition { from to }`
const RESOLVE = `mutation($id: ID!) { resolveInboxItem(id: $id) { ${RESULT('resolveInboxItem')} } }`
const SNOOZE = `mutation($id: ID!, $until: DateTime!) { snoozeInboxItem(id: $id, until: $until) { ${RESULT('snoozeInboxItem')} } }`
const DISMISS = `mutation($id: ID!) { dismissInboxItem(id: $id) { ${RESULT('dismissInboxItem')} } }`
const FEEDBACK = `mutation($id: ID!, $feedback: InboxFeedbackValue!) { inboxFeedback(id: $id, feedback: $feedback) { ${RESULT('inboxFeedback').replace(' ... on InvalidTransition { from to }', '')} } }`

async function as(persona: keyof Tenant['users'], query: string, variables: Record<string, unknown>, tenant = t) {
  const r = await gql(url(), query, variables, await tenant.token(persona))
  expect(r.body.errors).toBeUndefined()
  return Object.values(r.body.data)[0] as any
}

describe('live inbox changes over graphql-ws', () => {
  it('delivers created, snoozed, resolved, expired and reminded, in that order, to the item\'s person', async () => {
    const tenant = await createTenant(db(), 'Live')
    const client = wsClient(url(), await tenant.token('scientist'))
    const sub = collect(client, 'subscription { inboxChanged { id kind status change expiredNote } }', 7, 30_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1)
    const step = async (n: number, act: () => Promise<unknown>) => { await act(); await waitFor(() => sub.received.length >= n) }

    const question = await file(tenant, 'scientist')
    await waitFor(() => sub.received.length >= 1)
    await step(2, () => as('scientist', SNOOZE, { id: question.id, until: new Date(Date.now() + 3600_000).toISOString() }, tenant))
    await step(3, () => as('scientist', RESOLVE, { id: question.id }, tenant))
    const overdue = await file(tenant, 'scientist', { kind: 'decision', sourceType: 'proposal', dueAt: new Date(Date.now() + 1000) })
    await waitFor(() => sub.received.length >= 4)
    const waiting = await file(tenant, 'scientist', { kind: 'decision', sourceType: 'proposal' })
    await waitFor(() => sub.received.length >= 5)
    await db().inboxItem.update({ where: { id: overdue.id }, data: { dueAt: new Date(Date.now() - 1000) } })
    await db().inboxItem.update({ where: { id: waiting.id }, data: { createdAt: new Date(Date.now() - 2 * 86_400_000) } })
    await runJob('inbox_expire')
    await sub.finished
    await client.dispose()

    const got = sub.received.map((m) => [m.data!.inboxChanged.id, m.data!.inboxChanged.change])
    expect(got).toEqual([
      [question.id, 'created'], [question.id, 'snoozed'], [question.id, 'resolved'],
      [overdue.id, 'created'], [waiting.id, 'created'], [overdue.id, 'expired'], [waiting.id, 'reminded'],
    ])
    expect(sub.received[5].data!.inboxChanged).toMatchObject({ status: 'expired', expiredNote: 'Expired, nothing written' })
  })

  it('sends another person\'s changes to nobody else, in the organisation or outside it', async () => {
    const { a, b } = await createTwoOrganizations(db())
    const lead = wsClient(url(), await a.token('program_lead'))
    const outsider = wsClient(url(), await b.token('scientist'))
    const leadSub = collect(lead, 'subscription { inboxChanged { id change } }', 1, 2000)
    const outsiderSub = collect(outsider, 'subscription { inboxChanged { id change } }', 1, 2000)
    const owner = wsClient(url(), await a.token('scientist'))
    const ownerSub = collect(owner, 'subscription { inboxChanged { id change } }', 2, 15_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 3)
    const item = await file(a, 'scientist')
    await waitFor(() => ownerSub.received.length >= 1)
    await as('scientist', RESOLVE, { id: item.id }, a)
    await ownerSub.finished
    expect(ownerSub.received.map((m) => m.data!.inboxChanged.change)).toEqual(['created', 'resolved'])
    await expect(leadSub.finished).rejects.toThrow(/timed out with 0\/1/)
    await expect(outsiderSub.finished).rejects.toThrow(/timed out with 0\/1/)
    for (const c of [lead, outsider, owner]) await c.dispose()
  })
})

describe('resolve', () => {
  it('marks a question done with done_by and done_at, audits inbox.resolve and announces resolved', async () => {
    const item = await file(t, 'scientist')
    const r = await as('scientist', RESOLVE, { id: item.id })
    expect(r).toMatchObject({ __typename: 'MutationResolveInboxItemSuccess', item: { id: item.id, status: 'done', change: 'resolved', resolvable: true } })
    const row = await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })
    expect(row).toMatchObject({ status: 'done', doneBy: t.users.scientist.id })
    expect(row.doneAt).not.toBeNull()
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'inbox.resolve', targetId: item.id } })
    expect(audit).toMatchObject({ actorUserId: t.users.scientist.id, programId: t.program.id, details: { kind: 'question', via: 'inbox' } })
  })

  it('refuses to resolve or dismiss a decision item with decision_required: only deciding the proposal closes it', async () => {
    const item = await file(t, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: 'p-42' })
    for (const op of [RESOLVE, DISMISS]) {
      const r = await as('program_lead', op, { id: item.id })
      expect(r).toMatchObject({ __typename: 'DecisionRequired', code: 'decision_required', field: 'id' })
    }
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
    expect(await db().auditEvent.count({ where: { targetId: item.id } })).toBe(0)
    const listed = await gql(url(), `query($id: ID!) { inboxItem(id: $id) { resolvable } }`, { id: item.id }, await t.token('program_lead'))
    expect(listed.body.data.inboxItem).toEqual({ resolvable: false })
    // The decision's write closes it, with the person who decided.
    const closed = await db().$transaction((tx) => closeItemsForSource(tx, { organizationId: t.organization.id, sourceType: 'proposal', sourceId: 'p-42' }, t.users.program_lead.id))
    expect(closed.map((c) => [c.id, c.status, c.doneBy])).toEqual([[item.id, 'done', t.users.program_lead.id]])
  })

  it('refuses a second resolve with invalid_transition from done, leaving one audit row', async () => {
    const item = await file(t, 'scientist', { kind: 'information' })
    await as('scientist', RESOLVE, { id: item.id })
    const again = await as('scientist', RESOLVE, { id: item.id })
    expect(again).toMatchObject({ __typename: 'InvalidTransition', code: 'invalid_transition', from: 'done', to: 'done' })
    expect(await db().auditEvent.count({ where: { action: 'inbox.resolve', targetId: item.id } })).toBe(1)
  })

  it('answers not_found for another person\'s item and invalid_input for an id that is not one, changing nothing', async () => {
    const item = await file(t, 'scientist')
    const r = await as('program_lead', RESOLVE, { id: item.id })
    expect(r).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'id' })
    const bad = await as('scientist', RESOLVE, { id: 'not-an-id' })
    expect(bad).toMatchObject({ __typename: 'InvalidInput', field: 'id' })
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
  })

  it('refuses a person removed from the program with FORBIDDEN for the items filed there', async () => {
    const tenant = await createTenant(db(), 'Removed')
    const item = await file(tenant, 'manufacturing_specialist')
    const token = await tenant.token('manufacturing_specialist')
    await db().programMembership.updateMany({ where: { programId: tenant.program.id, userId: tenant.users.manufacturing_specialist.id }, data: { endedAt: new Date() } })
    const r = await gql(url(), RESOLVE, { id: item.id }, token)
    expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.twins.read_own' })
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
  })
})

describe('snooze, dismiss and feedback', () => {
  it('snoozes until a time, audits inbox.snooze, and inbox_expire reopens it when the time passed', async () => {
    const item = await file(t, 'quality_reviewer')
    const until = new Date(Date.now() + 2 * 3600_000)
    const r = await as('quality_reviewer', SNOOZE, { id: item.id, until: until.toISOString() })
    expect(r.item).toMatchObject({ status: 'snoozed', change: 'snoozed', snoozedUntil: until.toISOString() })
    expect(await db().auditEvent.findFirstOrThrow({ where: { action: 'inbox.snooze', targetId: item.id } })).toMatchObject({ details: { until: until.toISOString(), kind: 'question' } })
    await runJob('inbox_expire')
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('snoozed')
    await db().inboxItem.update({ where: { id: item.id }, data: { snoozedUntil: new Date(Date.now() - 1000) } })
    await runJob('inbox_expire')
    expect(await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: 'open', snoozedUntil: null })
  })

  it('refuses a snooze time in the past or more than 30 days ahead with invalid_input on until', async () => {
    const item = await file(t, 'quality_reviewer')
    for (const until of [new Date(Date.now() - 60_000), new Date(Date.now() + 31 * 86_400_000)]) {
      const r = await as('quality_reviewer', SNOOZE, { id: item.id, until: until.toISOString() })
      expect(r).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'until' })
    }
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
    expect(await db().auditEvent.count({ where: { targetId: item.id } })).toBe(0)
  })

  it('snoozes a decision item (snoozing decides nothing)', async () => {
    const item = await file(t, 'program_owner', { kind: 'decision', sourceType: 'proposal' })
    const r = await as('program_owner', SNOOZE, { id: item.id, until: new Date(Date.now() + 3600_000).toISOString() })
    expect(r.item.status).toBe('snoozed')
  })

  it('dismisses a mention and audits inbox.dismiss', async () => {
    const item = await file(t, 'viewer', { kind: 'mention' })
    const r = await as('viewer', DISMISS, { id: item.id })
    expect(r.item).toMatchObject({ status: 'dismissed', change: 'dismissed' })
    expect(await db().auditEvent.count({ where: { action: 'inbox.dismiss', targetId: item.id } })).toBe(1)
  })

  it('records helpful or not useful on any item as evaluation data: audited inbox.feedback, nothing else changes', async () => {
    const item = await file(t, 'scientist', { kind: 'decision', sourceType: 'proposal' })
    const r = await as('scientist', FEEDBACK, { id: item.id, feedback: 'not_useful' })
    expect(r.item).toMatchObject({ status: 'open', feedback: 'not_useful', change: 'feedback' })
    await as('scientist', FEEDBACK, { id: item.id, feedback: 'helpful' })
    const audits = await db().auditEvent.findMany({ where: { action: 'inbox.feedback', targetId: item.id }, orderBy: { createdAt: 'asc' } })
    expect(audits.map((a) => a.details)).toEqual([
      expect.objectContaining({ feedback: 'not_useful', previous: 'none', kind: 'decision' }),
      expect.objectContaining({ feedback: 'helpful', previous: 'not_useful' }),
    ])
    const bad = await gql(url(), FEEDBACK, { id: item.id, feedback: 'none' }, await t.token('scientist'))
    expect(bad.body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT')
  })
})

describe('the inbox header and the brief', () => {
  const SUMMARY = `query($id: ID!) { program(id: $id) { myInboxSummary { heading decisionsWaiting itemsWaiting emptyState filingPaused footer artifactId } } }`

  it('reads \'Decisions waiting for you\' with the counts, and \'Filing paused: <N> decisions waiting\' at 25 open decisions', async () => {
    const tenant = await createTenant(db(), 'Backpressure')
    for (let i = 0; i < 24; i++) await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: `p-${i}` })
    await file(tenant, 'program_lead', { kind: 'question' })
    const read = async () => (await gql(url(), SUMMARY, { id: tenant.program.id }, await tenant.token('program_lead'))).body.data.program.myInboxSummary
    expect(await read()).toEqual({ heading: 'Decisions waiting for you', decisionsWaiting: 24, itemsWaiting: 25, emptyState: null, filingPaused: null, footer: null, artifactId: null })
    await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: 'p-25' })
    expect(await read()).toMatchObject({ decisionsWaiting: 25, filingPaused: 'Filing paused: 25 decisions waiting' })
  })

  it('says \'Viewers have no twin. Nothing waits for you.\' to a viewer with nothing waiting', async () => {
    const tenant = await createTenant(db(), 'Viewer')
    const r = await gql(url(), SUMMARY, { id: tenant.program.id }, await tenant.token('viewer'))
    expect(r.body.data.program.myInboxSummary).toMatchObject({ itemsWaiting: 0, emptyState: 'Viewers have no twin. Nothing waits for you.' })
  })

  it('shows a person only their own brief and inbox: another organisation\'s rows exist and never appear', async () => {
    const { a, b } = await createTwoOrganizations(db())
    await file(b, 'scientist', { kind: 'decision', sourceType: 'proposal' })
    await file(a, 'scientist', { kind: 'information' })
    expect(await expectRowsExist(db(), 'inbox_items', b.organization.id)).toBeGreaterThan(0)
    const r = await gql(url(), `query($other: ID!) { myBrief { program { id } itemsWaiting decisionsWaiting } other: myBrief(programId: $other) { itemsWaiting } myInbox { nodes { kind } } }`,
      { other: b.program.id }, await a.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data).toEqual({ myBrief: [{ program: { id: a.program.id }, itemsWaiting: 1, decisionsWaiting: 0 }], other: [], myInbox: { nodes: [{ kind: 'information' }] } })
  })
})
