// twin_digest and inbox_expire through the real worker (graphile-worker with the service's task list): persona briefs,
// digest notifications and e-mail, quiet hours, digest_time / batch_times / timezone, decision reminders at most daily.
import { beforeAll, describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { fileInboxItem, type FileInboxItem } from '../../domain/inbox'
import { pauseTwin } from '../../domain/twins'
import { systemActor } from '../../core/audit'
import { formatLocal, instantAt, wallClock } from '../../core/text'
import { enqueue, type TaskName } from '../../core/jobs'
import { createTaskList } from '../../jobs/worker'
import { useStack, gql } from '../helpers/stack'
import { createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'
import { seedTwin } from './twin-helpers'

const stack = useStack()
const db = () => stack.db.db

/** A fixed-offset zone where it is now about noon, so 'earlier today' and 'later today' exist whatever the UTC hour. */
function noonZone(now = new Date()) {
  const offset = 12 - now.getUTCHours()
  return offset === 0 ? 'UTC' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`
}
let tz: string
beforeAll(() => { tz = noonZone() })

async function runJob(task: Extract<TaskName, 'twin_digest' | 'inbox_expire'>) {
  await db().$transaction((tx) => enqueue(tx, task, {}))
  await runOnce({ connectionString: stack.db.url, taskList: createTaskList({ db: db(), databaseUrl: stack.db.url }), noHandleSignals: true })
}

const file = (tenant: Tenant, persona: keyof Tenant['users'], over: Partial<FileInboxItem> = {}) => db().$transaction((tx) => fileInboxItem(tx, {
  organizationId: tenant.organization.id, userId: tenant.users[persona].id, programId: tenant.program.id,
  kind: 'decision', sourceType: 'proposal', sourceId: `p-${Math.random()}`, title: 'Approve the revised dose range', ...over,
}))

async function setSettings(userId: string, settings: Record<string, unknown>) {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId } })
  await db().user.update({ where: { id: userId }, data: { settings: { ...(user.settings as object), ...settings } as object } })
}

/** A twin of the scientist whose schedule next runs in two hours, created yesterday (so today's moments count). */
async function twinFor(tenant: Tenant, over: { digestTime?: string | null; batchTimes?: string[] } = {}) {
  const seeded = await seedTwin(db(), tenant, 'scientist', { nextRunAt: new Date(Date.now() + 2 * 3600_000) })
  const twin = await db().twinDefinition.update({
    where: { id: seeded.twin.id },
    data: { createdAt: new Date(Date.now() - 86_400_000), digestTime: over.digestTime ?? null, batchTimes: over.batchTimes ?? [] },
  })
  return { ...seeded, twin }
}

const today = (hhmm: string) => {
  const w = wallClock(new Date(), tz)
  const [h, m] = hhmm.split(':').map(Number)
  return { at: instantAt(tz, w.y, w.mo, w.d, h * 60 + m), slot: `${w.y}-${String(w.mo).padStart(2, '0')}-${String(w.d).padStart(2, '0')}T${hhmm}` }
}
const briefsOf = (twinId: string) => db().artifact.findMany({ where: { kind: 'persona_brief', content: { path: ['twin_id'], equals: twinId } } })

describe('twin_digest', () => {
  it('writes the persona brief, then the digest notification pointing to it, e-mailed through the outbox, once per moment', async () => {
    const tenant = await createTenant(db(), 'Digest')
    await setSettings(tenant.users.scientist.id, { timezone: tz, digest_time: '11:00', quiet_hours: null })
    const { twin, schedule } = await twinFor(tenant)
    await file(tenant, 'scientist')
    await file(tenant, 'scientist')
    const question = await file(tenant, 'scientist', { kind: 'question', sourceType: 'thread' })
    await runJob('twin_digest')

    const [brief] = await briefsOf(twin.id)
    expect(brief).toMatchObject({ programId: tenant.program.id, agentGenerated: true, runId: null })
    expect(brief.content).toMatchObject({
      heading: 'Decisions waiting for you', decisions_waiting: 2, items_waiting: 3, user_id: tenant.users.scientist.id,
      footer: 'Agent-generated draft, unsigned.', digest_slot: today('11:00').slot, filing_paused: null, empty_state: null,
      next_pass_at: schedule!.nextRunAt!.toISOString(),
    })
    const notification = await db().notification.findFirstOrThrow({ where: { userId: tenant.users.scientist.id, kind: 'digest' } })
    expect(notification.payload).toMatchObject({ artifact_id: brief.id, twin_id: twin.id, decisions_waiting: 2 })
    expect(notification.deliverAfter.getTime()).toBeLessThanOrEqual(Date.now())
    const mail = await db().emailOutbox.findUniqueOrThrow({ where: { notificationId: notification.id } })
    expect(mail).toMatchObject({ toAddress: tenant.users.scientist.email, status: 'held' }) // delivered by the worker, no SMTP here
    expect(mail.subject).toContain('Decisions waiting for you')
    expect(mail.body).toContain('Agent-generated draft, unsigned.')
    expect(mail.body).toContain(`/me/inbox/${question.id}/resolve?link=`)
    expect(mail.body).not.toContain('Approve the revised dose range')
    expect(mail.body.match(/\/resolve\?link=/g)).toHaveLength(1) // decisions get no resolve link

    await runJob('twin_digest')
    expect(await briefsOf(twin.id)).toHaveLength(1)
    expect(await db().notification.count({ where: { userId: tenant.users.scientist.id, kind: 'digest' } })).toBe(1)

    const r = await gql(`${stack.current.gatewayUrl}/graphql`, '{ myBrief { artifactId footer decisionsWaiting itemsWaiting nextPassAt items { id kind } } }', {}, await tenant.token('scientist'))
    expect(r.body.data.myBrief).toEqual([expect.objectContaining({
      artifactId: brief.id, footer: 'Agent-generated draft, unsigned.', decisionsWaiting: 2, itemsWaiting: 3, nextPassAt: schedule!.nextRunAt!.toISOString(),
    })])
  })

  it('holds the digest until the person\'s quiet hours end', async () => {
    const tenant = await createTenant(db(), 'Quiet')
    await setSettings(tenant.users.scientist.id, { timezone: tz, digest_time: '11:00', quiet_hours: { start: '11:30', end: '13:45' } })
    await twinFor(tenant)
    await file(tenant, 'scientist')
    await runJob('twin_digest')
    const notification = await db().notification.findFirstOrThrow({ where: { userId: tenant.users.scientist.id, kind: 'digest' } })
    expect(notification.deliverAfter.toISOString()).toBe(today('13:45').at.toISOString())
    const mail = await db().emailOutbox.findUniqueOrThrow({ where: { notificationId: notification.id } })
    expect(mail).toMatchObject({ status: 'pending', deliverAfter: today('13:45').at })
  })

  it('honours the twin\'s digest_time over the person\'s, and its batch_times, on the person\'s clock', async () => {
    const tenant = await createTenant(db(), 'Clock')
    await setSettings(tenant.users.scientist.id, { timezone: tz, digest_time: '11:00' })
    const { twin } = await twinFor(tenant, { digestTime: '13:00' })
    await file(tenant, 'scientist')
    await runJob('twin_digest')
    expect(await briefsOf(twin.id)).toHaveLength(0) // 13:00 has not come yet where the person is
    await db().twinDefinition.update({ where: { id: twin.id }, data: { batchTimes: ['09:30', '12:00'] } })
    await runJob('twin_digest')
    const briefs = await briefsOf(twin.id)
    expect(briefs.map((b) => (b.content as any).digest_slot)).toEqual([today('12:00').slot])
  })

  it('writes the brief but sends no digest when nothing waits; the brief names the next pass', async () => {
    const tenant = await createTenant(db(), 'Empty')
    await setSettings(tenant.users.scientist.id, { timezone: tz, digest_time: '11:00' })
    const { twin, schedule } = await twinFor(tenant)
    await runJob('twin_digest')
    const [brief] = await briefsOf(twin.id)
    expect((brief.content as any).empty_state).toBe(`Nothing waiting. Your twin's next pass is at ${formatLocal(schedule!.nextRunAt!, tz)}.`)
    expect(await db().notification.count({ where: { userId: tenant.users.scientist.id, kind: 'digest' } })).toBe(0)
  })

  it('skips paused twins, and keeps each organisation\'s briefs to its own people', async () => {
    const { a, b } = await createTwoOrganizations(db())
    for (const tenant of [a, b]) await setSettings(tenant.users.scientist.id, { timezone: tz, digest_time: '11:00' })
    const ta = await twinFor(a)
    const tb = await twinFor(b)
    await file(a, 'scientist')
    await file(b, 'scientist')
    await db().$transaction((tx) => pauseTwin(tx, tb.twin, 'user', { actor: systemActor('test') }))
    await runJob('twin_digest')
    expect(await briefsOf(ta.twin.id)).toHaveLength(1)
    expect(await briefsOf(tb.twin.id)).toHaveLength(0)
    await db().twinDefinition.update({ where: { id: tb.twin.id }, data: { status: 'active', pausedReason: null } })
    await runJob('twin_digest')
    expect(await expectRowsExist(db(), 'artifacts', b.organization.id)).toBe(1)
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, '{ myBrief { artifactId program { id } } }', {}, await a.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.myBrief).toEqual([{ artifactId: (await briefsOf(ta.twin.id))[0].id, program: { id: a.program.id } }])
  })
})

describe('inbox_expire', () => {
  it('raises decision_reminder for a decision or a question waiting a day, at most once a day per item, and none for information', async () => {
    const tenant = await createTenant(db(), 'Remind')
    const old = await file(tenant, 'program_lead')
    const fresh = await file(tenant, 'program_lead')
    const question = await file(tenant, 'program_lead', { kind: 'question', sourceType: 'thread' })
    const info = await file(tenant, 'program_lead', { kind: 'information', sourceType: 'handoff' })
    await db().inboxItem.updateMany({ where: { id: { in: [old.id, question.id, info.id] } }, data: { createdAt: new Date(Date.now() - 2 * 86_400_000) } })
    const reminders = () => db().notification.findMany({ where: { userId: tenant.users.program_lead.id, kind: 'decision_reminder' } })
    await runJob('inbox_expire')
    // questions are reminded as decisions are (issue 29, item 6)
    expect((await reminders()).map((n) => (n.payload as any).inbox_item_id).sort()).toEqual([old.id, question.id].sort())
    expect(await db().emailOutbox.count({ where: { notificationId: { in: (await reminders()).map((n) => n.id) } } })).toBe(0)
    await runJob('inbox_expire')
    expect(await reminders()).toHaveLength(2)
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: fresh.id } })).remindedAt).toBeNull()
    await db().inboxItem.update({ where: { id: old.id }, data: { remindedAt: new Date(Date.now() - 86_400_000 - 1000) } })
    await runJob('inbox_expire')
    expect(await reminders()).toHaveLength(3)
  })

  it('delivers a reminder and a twin_paused notification after the person\'s quiet hours', async () => {
    const tenant = await createTenant(db(), 'Night')
    await setSettings(tenant.users.scientist.id, { timezone: tz, quiet_hours: { start: '11:00', end: '14:15' } })
    const item = await file(tenant, 'scientist')
    await db().inboxItem.update({ where: { id: item.id }, data: { createdAt: new Date(Date.now() - 2 * 86_400_000) } })
    await runJob('inbox_expire')
    const reminder = await db().notification.findFirstOrThrow({ where: { userId: tenant.users.scientist.id, kind: 'decision_reminder' } })
    expect(reminder.deliverAfter.toISOString()).toBe(today('14:15').at.toISOString())
    const { twin } = await twinFor(tenant)
    await db().$transaction((tx) => pauseTwin(tx, twin, 'budget', { actor: systemActor('test') }))
    const paused = await db().notification.findFirstOrThrow({ where: { userId: tenant.users.scientist.id, kind: 'twin_paused' } })
    expect(paused.deliverAfter.toISOString()).toBe(today('14:15').at.toISOString())
  })

  it('expires an item past its due time: the card reads \'Expired, nothing written\' and no reminder follows', async () => {
    const tenant = await createTenant(db(), 'Expire')
    const item = await file(tenant, 'scientist', { dueAt: new Date(Date.now() - 1000) })
    await db().inboxItem.update({ where: { id: item.id }, data: { createdAt: new Date(Date.now() - 3 * 86_400_000) } })
    await runJob('inbox_expire')
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, 'query($id: ID!) { inboxItem(id: $id) { status expiredNote change } }', { id: item.id }, await tenant.token('scientist'))
    expect(r.body.data.inboxItem).toEqual({ status: 'expired', expiredNote: 'Expired, nothing written', change: 'expired' })
    expect(await db().notification.count({ where: { userId: tenant.users.scientist.id, kind: 'decision_reminder' } })).toBe(0)
  })
})
