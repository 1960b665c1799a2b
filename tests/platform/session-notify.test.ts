// The session-version trigger announces every change on session_changed (only the person's id and new version), and
// PgListener.sync() returns only after the notifications of everything committed before it were handled: the two
// facts the gateway's stamp cache rests on (gateway/session-stamps.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgListener } from '../../core/database'
import { useTestDatabase } from '../helpers/db'
import { createOrganization, createProgram, createUser } from '../helpers/factories'

const t = useTestDatabase()
const db = () => t.current.db
let listener: PgListener
const seen: unknown[] = []

beforeAll(async () => {
  listener = new PgListener(t.current.url)
  listener.on('session_changed', (payload) => seen.push(payload))
  await listener.start()
})
afterAll(async () => { await listener?.stop() })

const versionOf = async (userId: string) => Number((await db().sessionVersion.findUniqueOrThrow({ where: { userId } })).version)

describe('session changes announced by the trigger', () => {
  it('announces a deactivation, a membership and a persona with the person id and new version only', async () => {
    const org = await createOrganization(db())
    const program = await createProgram(db(), org.id)
    const person = await createUser(db(), org.id)
    await listener.sync() // what creating them announced is not this test's
    seen.length = 0
    await db().programMembership.create({ data: { organizationId: org.id, programId: program.id, userId: person.id } })
    await db().roleAssignment.create({ data: { organizationId: org.id, programId: program.id, userId: person.id, personaKey: 'viewer' } })
    await db().user.update({ where: { id: person.id }, data: { deactivatedAt: new Date() } })
    await listener.sync()
    const v = await versionOf(person.id)
    expect(seen).toEqual([v - 2, v - 1, v].map((version) => ({ userId: person.id, version })))
  })

  it('announces nothing for a change that rolls back', async () => {
    const org = await createOrganization(db())
    const person = await createUser(db(), org.id)
    await listener.sync() // what creating them announced is not this test's
    seen.length = 0
    await expect(db().$transaction(async (tx) => {
      await tx.user.update({ where: { id: person.id }, data: { name: 'Never' } })
      throw new Error('rolled back')
    })).rejects.toThrow('rolled back')
    await listener.sync()
    expect(seen).toEqual([])
  })

  it('has handled the notification of every change committed before sync() was called, every time', async () => {
    const org = await createOrganization(db())
    const person = await createUser(db(), org.id)
    for (let i = 0; i < 200; i++) {
      await db().user.update({ where: { id: person.id }, data: { name: `Name ${i}` } })
      await listener.sync()
      expect(seen.at(-1)).toEqual({ userId: person.id, version: await versionOf(person.id) })
    }
  })

  it('shares one round trip among callers that arrive while another is under way', async () => {
    const before = listener.syncRoundTrips
    await Promise.all(Array.from({ length: 20 }, () => listener.sync()))
    expect(listener.syncRoundTrips - before).toBe(2) // the first caller's, and one for all who came while it was out
  })
})
