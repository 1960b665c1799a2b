// The gateway caches session stamps (gateway/session-stamps.ts) instead of reading one per request, and permissions stay
// live: a change committed while a stamp is cached is seen by the very next request (the trigger's NOTIFY drops the
// stamp), through every gateway replica; while the gateway's LISTEN connection is down it reads per request and still
// sees changes, and once the connection is back it caches again. `stamps.reads` counts the reads, so each test proves
// whether the cache was used.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createGateway, type Gateway } from '../../gateway/server'
import { STAMP_MAX_AGE_MS } from '../../gateway/session-stamps'
import { useStack, gql, waitFor } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
let tenant: Tenant
let personId: string
let token: string
let gatewayB: Gateway

const stamps = (gateway: Gateway = stack.current.gateway) => gateway.identities.stamps
const ME = '{ me { programs { program { id } personas } } }'

/** The person's personas in the tenant's program as the workbench subgraph sees them, or the refusal's code. */
async function personas(gateway: Gateway = stack.current.gateway) {
  const r = await gql(`${gateway.url}/graphql`, ME, {}, token)
  return r.body.errors?.[0]?.extensions?.code
    ?? r.body.data.me.programs.find((p: any) => p.program.id === tenant.program.id)?.personas.sort() ?? 'not a member'
}

const grant = (personaKey: string) => db().roleAssignment.create({
  data: { organizationId: tenant.organization.id, programId: tenant.program.id, userId: personId, personaKey },
})
const revoke = (personaKey: string) => db().roleAssignment.deleteMany({ where: { programId: tenant.program.id, userId: personId, personaKey } })

/** Counts reads of one request: 0 means the cached stamp answered. */
async function readsOf<T>(gateway: Gateway, request: () => Promise<T>): Promise<{ value: T; reads: number }> {
  const before = stamps(gateway).reads
  const value = await request()
  return { value, reads: stamps(gateway).reads - before }
}

beforeAll(async () => {
  tenant = await createTenant(db(), 'Stamps')
  personId = tenant.users.viewer.id
  token = await tenant.token('viewer')
  gatewayB = await createGateway({ db: db(), databaseUrl: stack.db.url, dataDir: stack.db.dataDir, subgraphUrls: stack.current.subgraphUrls })
  await gatewayB.listen(0, '127.0.0.1')
  for (const g of [stack.current.gateway, gatewayB]) {
    // counts of reads must not depend on how busy the machine is: no stamp expires by age within this file
    stamps(g).maxAgeMs = 10 * 60_000
    await waitFor(() => stamps(g).listening, 15_000, 'the gateway listening for session changes')
  }
})
afterAll(async () => {
  await gatewayB?.close()
})

describe('session stamps cached at the gateway', () => {
  it('trusts a cached stamp for a few seconds at most', () => {
    expect(STAMP_MAX_AGE_MS).toBeLessThanOrEqual(10_000)
  })

  it('answers repeated requests of a person from the cached stamp while nothing about them changed', async () => {
    await personas()
    const { value, reads } = await readsOf(stack.current.gateway, async () => [await personas(), await personas(), await personas()])
    expect(value).toEqual([['viewer'], ['viewer'], ['viewer']])
    expect(reads).toBe(0)
  })

  it('sees a persona granted and removed in the database on the very next request while the stamp was cached', async () => {
    await personas()
    expect((await readsOf(stack.current.gateway, personas)).reads).toBe(0) // cached
    await grant('scientist')
    const granted = await readsOf(stack.current.gateway, personas)
    expect(granted).toEqual({ value: ['scientist', 'viewer'], reads: 1 }) // the notification dropped the stamp
    expect((await readsOf(stack.current.gateway, personas)).reads).toBe(0) // and the new one is cached
    await revoke('scientist')
    expect(await readsOf(stack.current.gateway, personas)).toEqual({ value: ['viewer'], reads: 1 })
  })

  it('refuses a person deactivated in the database on the very next request while the stamp was cached', async () => {
    await personas()
    expect((await readsOf(stack.current.gateway, personas)).reads).toBe(0)
    await db().user.update({ where: { id: personId }, data: { deactivatedAt: new Date() } })
    expect(await personas()).toBe('UNAUTHENTICATED')
    await db().user.update({ where: { id: personId }, data: { deactivatedAt: null } })
    expect(await personas()).toEqual(['viewer'])
  })

  it('drops the stamp on every gateway replica: each sees the change on its very next request', async () => {
    for (const g of [stack.current.gateway, gatewayB]) {
      await personas(g)
      expect((await readsOf(g, () => personas(g))).reads).toBe(0)
    }
    await grant('quality_reviewer')
    for (const g of [stack.current.gateway, gatewayB]) {
      expect(await readsOf(g, () => personas(g))).toEqual({ value: ['quality_reviewer', 'viewer'], reads: 1 })
    }
    await revoke('quality_reviewer')
    for (const g of [stack.current.gateway, gatewayB]) expect(await personas(g)).toEqual(['viewer'])
  })

  it('reads per request while its LISTEN connection is down, still seeing changes, and caches again once it is back', async () => {
    const gateway = stack.current.gateway
    await personas()
    expect((await readsOf(gateway, personas)).reads).toBe(0)
    // Keep the connection down: refuse new connections to this test's database (open ones keep working), then end
    // the gateway's LISTEN backend, as a PostgreSQL restart or a network cut would.
    const dbName = new URL(stack.db.url).pathname.slice(1)
    const admin = new pg.Client({ connectionString: inject('databaseServerUrl') })
    await admin.connect()
    try {
      await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS false`)
      const pid = stamps().listenerPid
      expect(pid).toBeTypeOf('number')
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      await waitFor(() => !stamps().listening, 10_000, 'the loss noticed')

      expect(await readsOf(gateway, personas)).toEqual({ value: ['viewer'], reads: 1 })
      expect(await readsOf(gateway, personas)).toEqual({ value: ['viewer'], reads: 1 }) // not cached meanwhile
      await grant('scientist') // no notification reaches this gateway now
      expect(await readsOf(gateway, personas)).toEqual({ value: ['scientist', 'viewer'], reads: 1 })
    } finally {
      await admin.query(`ALTER DATABASE "${dbName}" WITH ALLOW_CONNECTIONS true`).finally(() => admin.end())
    }
    await waitFor(() => stamps().listening, 20_000, 'the LISTEN connection back')
    expect(await readsOf(gateway, personas)).toEqual({ value: ['scientist', 'viewer'], reads: 1 }) // cleared on reconnect
    expect(await readsOf(gateway, personas)).toEqual({ value: ['scientist', 'viewer'], reads: 0 }) // cached again
    await revoke('scientist')
    expect(await readsOf(gateway, personas)).toEqual({ value: ['viewer'], reads: 1 })
  })
})
