// The inbox operations through the gateway and over graphql-ws: resolve, snooze, dismiss, feedback, what each kind
// allows, the live change kinds, the inbox header and brief, and isolation between people and organisations.
import { beforeAll, describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { closeItemsForSource, fileInboxItem, type FileInboxItem } from '../../domain/inbox'
import { enqueue } from '../../core/jobs'
import { createTaskList } from '../../jobs/worker'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createProgram, addMember, createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'
import { formatLocal, nextLocalMinute } from '../../core/text'
import { seedTwin } from './twin-helpers'

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

  const NEXT_PASS = `query($id: ID!) { program(id: $id) { myInboxSummary { nextPassAt emptyState } } }`
  const nextPassOf = async (tenant: Tenant) => (await gql(url(), NEXT_PASS, { id: tenant.program.id }, await tenant.token('scientist'))).body.data.program.myInboxSummary

  it('names the earliest next run of the active twin\'s enabled schedules: a disabled trigger\'s or a paused twin\'s earlier run does not count', async () => {
    const tenant = await createTenant(db(), 'Next pass')
    expect(await nextPassOf(tenant)).toEqual({ nextPassAt: null, emptyState: null }) // no twin, no next pass
    const paused = await seedTwin(db(), tenant, 'scientist', { nextRunAt: new Date('2031-01-01T06:00:00.000Z') })
    await db().twinDefinition.update({ where: { id: paused.twin.id }, data: { status: 'paused', pausedReason: 'user', pausedAt: new Date() } })
    const active = await seedTwin(db(), tenant, 'program_lead', { userId: tenant.users.scientist.id, nextRunAt: new Date('2031-01-03T06:00:00.000Z') })
    const second = await db().twinTrigger.create({ data: { organizationId: tenant.organization.id, programId: tenant.program.id, twinId: active.twin.id, dutyKey: 'blocker_scan', kind: 'schedule', enabled: false } })
    await db().twinSchedule.create({ data: { organizationId: tenant.organization.id, twinId: active.twin.id, triggerId: second.id, rrule: 'RRULE:FREQ=DAILY', nextRunAt: new Date('2031-01-02T06:00:00.000Z') } })
    expect(await nextPassOf(tenant)).toEqual({ nextPassAt: '2031-01-03T06:00:00.000Z', emptyState: `Nothing waiting. Your twin's next pass is at ${formatLocal(new Date('2031-01-03T06:00:00.000Z'), 'UTC')}.` })
    await db().twinTrigger.update({ where: { id: second.id }, data: { enabled: true } })
    expect((await nextPassOf(tenant)).nextPassAt).toBe('2031-01-02T06:00:00.000Z')
  })

  it('without a scheduled run, names the active twin\'s next digest moment (its digest_time over the person\'s) on the person\'s clock', async () => {
    const tenant = await createTenant(db(), 'Digest moment')
    await db().user.update({ where: { id: tenant.users.scientist.id }, data: { settings: { timezone: 'Asia/Tokyo', digest_time: '07:00' } } })
    const { twin } = await seedTwin(db(), tenant, 'scientist', { nextRunAt: null })
    const before = new Date()
    const at = (await nextPassOf(tenant)).nextPassAt
    expect([nextLocalMinute(before, 'Asia/Tokyo', 7 * 60).toISOString(), nextLocalMinute(new Date(), 'Asia/Tokyo', 7 * 60).toISOString()]).toContain(at)
    await db().twinDefinition.update({ where: { id: twin.id }, data: { digestTime: '18:30' } })
    const later = await nextPassOf(tenant)
    expect(later.nextPassAt).toBe(nextLocalMinute(new Date(), 'Asia/Tokyo', 18 * 60 + 30).toISOString())
    expect(later.emptyState).toBe(`Nothing waiting. Your twin's next pass is at ${formatLocal(new Date(later.nextPassAt), 'Asia/Tokyo')}.`)
  })

  it('pauses filing at 25 decisions waiting across the person\'s programs, snoozed ones counted, and not at 24', async () => {
    const tenant = await createTenant(db(), 'Threshold')
    const elsewhere = await createProgram(db(), tenant.organization.id, { slug: 'elsewhere' })
    await addMember(db(), elsewhere, tenant.users.program_lead.id, ['program_lead'])
    for (let i = 0; i < 20; i++) await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: `p-${i}`, programId: elsewhere.id })
    for (let i = 0; i < 3; i++) await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: `q-${i}` })
    const snoozed = await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: 'q-snoozed' })
    await db().inboxItem.update({ where: { id: snoozed.id }, data: { status: 'snoozed', snoozedUntil: new Date(Date.now() + 86_400_000) } })
    const done = await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: 'q-done' })
    await db().inboxItem.update({ where: { id: done.id }, data: { status: 'done' } })
    const read = async () => (await gql(url(), `query($id: ID!) { program(id: $id) { myInboxSummary { decisionsWaiting openDecisionsTotal filingPaused } } }`, { id: tenant.program.id }, await tenant.token('program_lead'))).body.data.program.myInboxSummary
    expect(await read()).toEqual({ decisionsWaiting: 3, openDecisionsTotal: 24, filingPaused: null })
    await file(tenant, 'program_lead', { kind: 'decision', sourceType: 'proposal', sourceId: 'q-25' })
    expect(await read()).toEqual({ decisionsWaiting: 4, openDecisionsTotal: 25, filingPaused: 'Filing paused: 25 decisions waiting' })
  })

  it('gives the viewer phrase only to a person who is nothing but a viewer, and only when nothing waits', async () => {
    const tenant = await createTenant(db(), 'Viewer only')
    const read = async () => (await gql(url(), SUMMARY, { id: tenant.program.id }, await tenant.token('viewer'))).body.data.program.myInboxSummary
    expect((await read()).emptyState).toBe('Viewers have no twin. Nothing waits for you.')
    await file(tenant, 'viewer', { kind: 'information' })
    expect(await read()).toMatchObject({ itemsWaiting: 1, emptyState: null })
    await db().inboxItem.updateMany({ where: { userId: tenant.users.viewer.id }, data: { status: 'done' } })
    await addMember(db(), tenant.program, tenant.users.viewer.id, ['scientist'])
    expect(await read()).toMatchObject({ itemsWaiting: 0, emptyState: null }) // a scientist too, without a twin: no phrase
  })

  it('lists the summary\'s item pointers as the brief composed now lists them: the first ten open, due first, undated last, then oldest', async () => {
    const tenant = await createTenant(db(), 'Pointers')
    const filed = []
    for (let i = 0; i < 12; i++) {
      filed.push(await file(tenant, 'scientist', { kind: i % 2 ? 'decision' : 'question', sourceType: i % 2 ? 'proposal' : 'thread', dueAt: i % 3 ? new Date(Date.UTC(2031, 0, 20 - i, 9, 30, 0, 123)) : null }))
    }
    const r = await gql(url(), `query($id: ID!) { program(id: $id) { myInboxSummary { itemsWaiting items { id kind dueAt } } } myBrief { artifactId items { id kind dueAt } } }`, { id: tenant.program.id }, await tenant.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    const rows = await db().inboxItem.findMany({ where: { userId: tenant.users.scientist.id, status: 'open' }, orderBy: [{ dueAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }], take: 10 })
    const expected = rows.map((i) => ({ id: i.id, kind: i.kind, dueAt: i.dueAt?.toISOString() ?? null }))
    expect(expected[0].dueAt).toBe('2031-01-09T09:30:00.123Z')
    expect(expected.at(-1)!.dueAt).toBeNull()
    expect(r.body.data.program.myInboxSummary).toEqual({ itemsWaiting: 12, items: expected })
    expect(r.body.data.myBrief).toEqual([{ artifactId: null, items: expected }])
  })

  it('shows ten decisions on the role home, due first, each as the inbox reads it, and counts the others', async () => {
    const tenant = await createTenant(db(), 'Role home')
    for (let i = 0; i < 13; i++) await file(tenant, 'scientist', { kind: 'decision', sourceType: 'proposal', sourceId: `p-${i}`, dueAt: i % 4 ? new Date(Date.UTC(2031, 1, 28 - i)) : null })
    await file(tenant, 'scientist', { kind: 'question' })
    const fields = 'id kind title status priority dueAt createdAt snoozedUntil'
    const r = await gql(url(), `query($p: ID!) { workbench(programId: $p) { decisions { ${fields} } otherDecisionCount } myInbox(first: 50) { nodes { ${fields} } } }`, { p: tenant.program.id }, await tenant.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    const inbox = new Map(r.body.data.myInbox.nodes.map((n: any) => [n.id, n]))
    const rows = await db().inboxItem.findMany({ where: { userId: tenant.users.scientist.id, kind: 'decision' }, orderBy: [{ dueAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }, { id: 'asc' }], take: 10 })
    expect(r.body.data.workbench.decisions).toEqual(rows.map((row) => inbox.get(row.id)))
    expect(r.body.data.workbench.otherDecisionCount).toBe(3)
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
