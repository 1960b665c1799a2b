// The per-person caches on the request path keep the people who use them: when a full cache takes a newcomer, the
// person least recently served goes, never a person sending requests all along (the oldest insertion went before,
// so under churn a busy person's stamp or session was read again while one-off callers stayed). Each cache here is
// made small (three people) so that a handful of real people churn it, over a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SessionCache } from '../../core/identity'
import { readSessionStamp } from '../../core/identity'
import { SessionStamps } from '../../gateway/session-stamps'
import { useTestDatabase } from '../helpers/db'
import { waitFor } from '../helpers/stack'
import { createTenant, createUser, type Tenant } from '../helpers/factories'

const t = useTestDatabase()
const db = () => t.current.db
let tenant: Tenant
let busy: string
/** six people who each send one request, one after another, between requests of the busy person */
let passersBy: string[]
let stamps: SessionStamps

beforeAll(async () => {
  tenant = await createTenant(db(), 'Churn')
  busy = tenant.users.program_lead.id
  passersBy = []
  for (let i = 0; i < 6; i++) passersBy.push((await createUser(db(), tenant.organization.id, { name: `Passer-by ${i}` })).id)
  stamps = new SessionStamps(db(), undefined, t.current.url, 3)
  stamps.maxAgeMs = 10 * 60_000 // no stamp expires by age within this file: every read counted is an eviction
  await waitFor(() => stamps.listening, 15_000, 'the stamps listening for session changes')
})
afterAll(async () => { await stamps?.close() })

describe('per-person caches under churn', () => {
  it("keep a busy person's session stamp at the gateway while others pass through a full cache", async () => {
    await stamps.read(busy)
    let busyReads = 0
    for (const person of passersBy) {
      await stamps.read(person)
      const before = stamps.reads
      expect((await stamps.read(busy))?.userId).toBe(busy)
      busyReads += stamps.reads - before
    }
    expect(busyReads).toBe(0)
    // the passers-by were evicted meanwhile, least recently used first: the first of them is read again
    const before = stamps.reads
    await stamps.read(passersBy[0])
    expect(stamps.reads - before).toBe(1)
  })

  it("keep a busy person's session in a subgraph while others pass through a full cache", async () => {
    const sessions = new SessionCache(db(), 10 * 60_000, 3)
    const version = async (userId: string) => (await readSessionStamp(db(), userId))!.version
    await sessions.session(busy, await version(busy))
    let busyLoads = 0
    for (const person of passersBy) {
      await sessions.session(person, await version(person))
      const before = sessions.loads
      expect((await sessions.session(busy, await version(busy))).userId).toBe(busy)
      busyLoads += sessions.loads - before
    }
    expect(busyLoads).toBe(0)
    const before = sessions.loads
    await sessions.session(passersBy[0], await version(passersBy[0]))
    expect(sessions.loads - before).toBe(1)
  })
})
