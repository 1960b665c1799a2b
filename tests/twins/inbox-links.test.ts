// Resolving from an e-mail or a phone: signed single-use links through the gateway's REST shim (never the private
// thread), the handoff_received e-mail that carries one, and the REST routes with a bearer token.
import { beforeAll, describe, expect, it } from 'vitest'
import { runOnce } from 'graphile-worker'
import { fileInboxItem, type FileInboxItem } from '../../domain/inbox'
import { LINK_TTL_SECONDS, signInboxLink } from '../../domain/inbox'
import { createTaskList } from '../../jobs/worker'
import { useStack } from '../helpers/stack'
import { createTenant, createTwoOrganizations, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
const gw = () => stack.current.gatewayUrl

let t: Tenant
beforeAll(async () => { t = await createTenant(db(), 'Links') })

const SECRET_TITLE = 'Private: the rat NOAEL looks wrong in study 14'
const file = (tenant: Tenant, persona: keyof Tenant['users'], over: Partial<FileInboxItem> = {}) => db().$transaction((tx) => fileInboxItem(tx, {
  organizationId: tenant.organization.id, userId: tenant.users[persona].id, programId: tenant.program.id,
  kind: 'question', sourceType: 'thread', sourceId: `t-${Math.random()}`, title: SECRET_TITLE, ...over,
}))
const linkPath = (itemId: string, token: string) => `/me/inbox/${itemId}/resolve?link=${encodeURIComponent(token)}`
const open = (path: string, init: RequestInit = {}) => fetch(`${gw()}${path}`, { redirect: 'manual', ...init })
const json = { accept: 'application/json' }

describe('a signed resolve link', () => {
  it('shows a confirmation naming only the kind of item, then resolves it once on POST, as the person it names', async () => {
    const item = await file(t, 'scientist')
    const token = await signInboxLink(item)
    const page = await open(linkPath(item.id, token))
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Mark as done')
    expect(html).toContain('question')
    expect(html).not.toContain('NOAEL')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('cache-control')).toBe('no-store')
    // Looking at the page (or a mail scanner fetching it) changes nothing.
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')

    const done = await open(linkPath(item.id, token), { method: 'POST' })
    expect(done.status).toBe(200)
    expect(await done.text()).toContain('Marked as done')
    expect(await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: 'done', doneBy: t.users.scientist.id })
    expect(await db().auditEvent.findFirstOrThrow({ where: { action: 'inbox.resolve', targetId: item.id } }))
      .toMatchObject({ actorUserId: t.users.scientist.id, details: { via: 'link', kind: 'question' } })
    expect(await db().inboxLinkUse.count({ where: { itemId: item.id } })).toBe(1)

    const again = await open(linkPath(item.id, token), { method: 'POST', headers: json })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ error: { code: 'inbox_link_used', message: 'This link was used already.' } })
    expect(await db().auditEvent.count({ where: { action: 'inbox.resolve', targetId: item.id } })).toBe(1)
  })

  it('answers a phone asking for JSON with the item\'s new status', async () => {
    const item = await file(t, 'quality_reviewer', { kind: 'information' })
    const r = await open(linkPath(item.id, await signInboxLink(item)), { method: 'POST', headers: json })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ status: 'done', item: { id: item.id, kind: 'information', status: 'done' } })
  })

  it('refuses an expired link (410), a tampered one or one for another item (404), and changes nothing', async () => {
    const item = await file(t, 'scientist')
    const other = await file(t, 'scientist')
    const expired = await signInboxLink(item, 'resolve', new Date(Date.now() - (LINK_TTL_SECONDS + 60) * 1000))
    const good = await signInboxLink(item)
    const [body, sig] = good.split('.')
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sub: t.users.program_owner.id })).toString('base64url')
    const cases: [string, number, string][] = [
      [linkPath(item.id, expired), 410, 'inbox_link_expired'],
      [linkPath(item.id, `${forged}.${sig}`), 404, 'inbox_link_invalid'],
      [linkPath(item.id, `${body}.${sig.slice(0, -2)}AA`), 404, 'inbox_link_invalid'],
      [linkPath(other.id, good), 404, 'inbox_link_invalid'],
      [linkPath(item.id, 'garbage'), 404, 'inbox_link_invalid'],
    ]
    for (const [path, status, code] of cases) {
      const r = await open(path, { method: 'POST', headers: json })
      expect([r.status, ((await r.json()) as any).error.code], path).toEqual([status, code])
    }
    expect(await db().inboxItem.count({ where: { id: { in: [item.id, other.id] }, status: 'open' } })).toBe(2)
    expect(await db().inboxLinkUse.count({ where: { itemId: { in: [item.id, other.id] } } })).toBe(0)
  })

  it('never resolves a decision item: the link answers decision_required and stays unused', async () => {
    const item = await file(t, 'program_lead', { kind: 'decision', sourceType: 'proposal' })
    const token = await signInboxLink(item)
    const page = await open(linkPath(item.id, token))
    expect(page.status).toBe(409)
    expect(await page.text()).toContain('Open the inbox to decide')
    const r = await open(linkPath(item.id, token), { method: 'POST', headers: json })
    expect([r.status, ((await r.json()) as any).error.code]).toEqual([409, 'decision_required'])
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
    expect(await db().inboxLinkUse.count({ where: { itemId: item.id } })).toBe(0)
  })

  it('stops working for a person who was deactivated', async () => {
    const tenant = await createTenant(db(), 'Gone')
    const item = await file(tenant, 'scientist')
    const token = await signInboxLink(item)
    await db().user.update({ where: { id: tenant.users.scientist.id }, data: { deactivatedAt: new Date() } })
    const r = await open(linkPath(item.id, token), { method: 'POST', headers: json })
    expect([r.status, ((await r.json()) as any).error.code]).toEqual([404, 'inbox_link_invalid'])
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
  })

  it('is refused with 403 for a person removed from the item\'s program since the link was sent', async () => {
    const tenant = await createTenant(db(), 'Removed')
    const item = await file(tenant, 'scientist')
    const token = await signInboxLink(item)
    await db().programMembership.updateMany({ where: { programId: tenant.program.id, userId: tenant.users.scientist.id }, data: { endedAt: new Date() } })
    const r = await open(linkPath(item.id, token), { method: 'POST', headers: json })
    expect([r.status, ((await r.json()) as any).error.code]).toEqual([403, 'forbidden'])
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
    expect(await db().inboxLinkUse.count({ where: { itemId: item.id } })).toBe(0)
  })

  it('is refused by the twins subgraph when it does not come through the gateway', async () => {
    const item = await file(t, 'scientist')
    const twins = new URL(stack.current.subgraphUrls.twins).origin
    const r = await fetch(`${twins}/links/inbox/${item.id}/resolve?link=${encodeURIComponent(await signInboxLink(item))}`, { method: 'POST' })
    expect(r.status).toBe(404)
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('open')
  })
})

describe('the handoff_received e-mail', () => {
  it('is written to the outbox with a link that resolves the hand-off item without the thread, held by the real worker without SMTP', async () => {
    const item = await file(t, 'manufacturing_specialist', { kind: 'handoff', sourceType: 'handoff_request' })
    const notification = await db().notification.findFirstOrThrow({ where: { userId: t.users.manufacturing_specialist.id, kind: 'handoff_received' } })
    expect(notification.payload).toMatchObject({ inbox_item_id: item.id, kind: 'handoff' })
    const mail = await db().emailOutbox.findUniqueOrThrow({ where: { notificationId: notification.id } })
    expect(mail.toAddress).toBe(t.users.manufacturing_specialist.email)
    expect(mail.body).not.toContain('NOAEL')
    await runOnce({ connectionString: stack.db.url, taskList: createTaskList({ db: db(), databaseUrl: stack.db.url }), noHandleSignals: true })
    expect((await db().emailOutbox.findUniqueOrThrow({ where: { id: mail.id } })).status).toBe('held')

    const link = /(https?:\/\/\S+\/me\/inbox\/\S+)/.exec(mail.body)![1]
    const path = new URL(link).pathname + new URL(link).search
    const r = await open(path, { method: 'POST', headers: json })
    expect(r.status).toBe(200)
    expect((await db().inboxItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe('done')
  })

  it('notifies a mention in the app only, without an e-mail', async () => {
    const item = await file(t, 'viewer', { kind: 'mention', sourceType: 'message' })
    const n = await db().notification.findFirstOrThrow({ where: { userId: t.users.viewer.id, kind: 'mention' } })
    expect(n.payload).toMatchObject({ inbox_item_id: item.id })
    expect(await db().emailOutbox.count({ where: { notificationId: n.id } })).toBe(0)
  })
})

describe('the REST shim with a bearer token', () => {
  it('resolves with POST /me/inbox/{item_id}/resolve and answers the typed refusal with its status', async () => {
    const item = await file(t, 'scientist')
    const auth = { authorization: `Bearer ${await t.token('scientist')}`, ...json }
    const r = await open(`/me/inbox/${item.id}/resolve`, { method: 'POST', headers: auth })
    expect(r.status).toBe(200)
    expect(((await r.json()) as any).item).toMatchObject({ id: item.id, status: 'done' })
    const decision = await file(t, 'scientist', { kind: 'decision', sourceType: 'proposal' })
    const refused = await open(`/me/inbox/${decision.id}/resolve`, { method: 'POST', headers: auth })
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as any).error.code).toBe('decision_required')
    const anonymous = await open(`/me/inbox/${item.id}/resolve`, { method: 'POST', headers: json })
    expect(anonymous.status).toBe(401)
  })

  it('answers GET /me/brief with the caller\'s briefs only, and 401 without a token', async () => {
    const { a, b } = await createTwoOrganizations(db())
    await file(a, 'program_lead', { kind: 'decision', sourceType: 'proposal' })
    await file(b, 'program_lead', { kind: 'decision', sourceType: 'proposal' })
    const r = await open('/me/brief', { headers: { authorization: `Bearer ${await a.token('program_lead')}` } })
    expect(r.status).toBe(200)
    const body = (await r.json()) as any
    expect(body.briefs).toHaveLength(1)
    expect(body.briefs[0]).toMatchObject({ program: { id: a.program.id }, heading: 'Decisions waiting for you', decisionsWaiting: 1, artifactId: null })
    expect((await open('/me/brief')).status).toBe(401)
    expect((await open('/me/brief?program_id=nope', { headers: { authorization: `Bearer ${await a.token('program_lead')}` } })).status).toBe(422)
  })
})
