import { describe, expect, it } from 'vitest'
import { SlowConsumerError } from '../../core/database'
import { LIVE_TOPIC_PENDING_LIMIT } from '../../core/http'
import { useStack } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()

/** NOTIFYs for `ids` (repeated `times`) in one transaction, as a sweep would send them. */
async function notify(ids: string[], userId: string, organizationId: string, times = 1) {
  await stack.db.db.$executeRaw`
    SELECT pg_notify('inbox_changed', json_build_object('id', id, 'userId', ${userId}::text, 'organizationId', ${organizationId}::text)::text)
    FROM unnest(${ids}::text[]) AS id, generate_series(1, ${times})`
}

describe('live topics (the inbox topic as the example)', () => {
  it('delivers a row changed three times before the subscriber read it once, in its latest state', async () => {
    const t = await createTenant(stack.db.db, 'Coalesce')
    const user = t.users.scientist
    const item = await stack.db.db.inboxItem.create({ data: {
      organizationId: t.organization.id, userId: user.id, programId: t.program.id, kind: 'information', sourceType: 'note', sourceId: 'c', title: 'v1',
    } })
    const events = stack.current.subgraphs.twins.inboxEvents.subscribeOwn(await t.session('scientist'))
    await stack.db.db.inboxItem.update({ where: { id: item.id }, data: { title: 'v3' } })
    await notify([item.id], user.id, t.organization.id, 3)
    await new Promise((r) => setTimeout(r, 300)) // all three NOTIFYs arrived before the first read
    const first = await events.next()
    expect(first.value).toMatchObject({ id: item.id, title: 'v3' })
    const second = await Promise.race([events.next(), new Promise((r) => setTimeout(() => r('nothing more'), 500))])
    expect(second).toBe('nothing more')
    await events.return!()
  })

  it('closes a subscriber that does not read with SlowConsumerError once more distinct rows wait than the limit', async () => {
    const t = await createTenant(stack.db.db, 'Slow')
    const events = stack.current.subgraphs.twins.inboxEvents.subscribeOwn(await t.session('scientist'))
    const ids = Array.from({ length: LIVE_TOPIC_PENDING_LIMIT + 1 }, () => crypto.randomUUID())
    await notify(ids, t.users.scientist.id, t.organization.id)
    await new Promise((r) => setTimeout(r, 500))
    await expect(events.next()).rejects.toBeInstanceOf(SlowConsumerError)
    expect(stack.current.subgraphs.twins.inboxEvents.subscriberCount).toBe(0)
  })

  it('re-reads the rows of one burst in a handful of queries, not one per event', async () => {
    const t = await createTenant(stack.db.db, 'Batch')
    const user = t.users.scientist
    await stack.db.db.inboxItem.createMany({ data: Array.from({ length: 1000 }, (_, i) => ({
      organizationId: t.organization.id, userId: user.id, programId: t.program.id, kind: 'information', sourceType: 'note', sourceId: `b${i}`, title: `b${i}`,
    })) })
    const ids = (await stack.db.db.inboxItem.findMany({ where: { userId: user.id }, select: { id: true } })).map((r) => r.id)
    const topic = stack.current.subgraphs.twins.inboxEvents
    const spec = (topic as any).spec
    let reads = 0
    const read = spec.read
    spec.read = (db: unknown, keys: string[]) => { reads++; return read(db, keys) }
    try {
      const events = topic.subscribeOwn(await t.session('scientist'))
      await notify(ids, user.id, t.organization.id)
      const seen = new Set<string>()
      while (seen.size < 1000) seen.add(((await events.next()).value as { id: string }).id)
      await events.return!()
      expect(reads).toBeLessThanOrEqual(10)
    } finally {
      spec.read = read
    }
  })
})
