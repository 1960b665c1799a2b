import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useStack, collect, gql, startTestWorker, wsClient } from '../helpers/stack'
import { createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'
import { recordingHarness, seedTwin, waitForRun } from './twin-helpers'

const stack = useStack()
let tenant: Tenant
let worker: Awaited<ReturnType<typeof startTestWorker>>
beforeAll(async () => {
  tenant = await createTenant(stack.db.db, 'Live')
  worker = await startTestWorker(stack.db)
})
afterAll(async () => { await worker?.close() })

const SUB = (programId: string) => `subscription { twinRunUpdated(programId: "${programId}") { id status initiatedBy footer program { name } twin { personaKey } } }`
const waitFor = async (f: () => boolean) => { for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 25)) }

describe('Subscription.twinRunUpdated through the gateway', () => {
  it('streams a run from queued to succeeded to a program owner over graphql-ws, with the footer and cross-subgraph fields', async () => {
    const h = recordingHarness('test-live-ok')
    const client = wsClient(stack.current.gatewayUrl + '/graphql', await tenant.token('program_owner'))
    try {
      const { twin, trigger } = await seedTwin(stack.db.db, tenant, 'scientist', { harness: 'test-live-ok', nextRunAt: null })
      const sub = collect(client, SUB(tenant.program.id), 3, 15_000)
      await waitFor(() => stack.current.subgraphs.twins.twinRunEvents.subscriberCount >= 1)
      const r = await gql(`${stack.current.gatewayUrl}/graphql`, `mutation($id: ID!, $t: ID) { runTwinNow(id: $id, triggerId: $t) { __typename ... on MutationRunTwinNowSuccess { run { id } } } }`,
        { id: twin.id, t: trigger.id }, await tenant.token('scientist'))
      const runId = r.body.data.runTwinNow.run.id
      await waitForRun(stack.db.db, runId, ['succeeded'])
      await sub.finished
      const statuses = sub.received.map((m) => m.data?.twinRunUpdated.status)
      expect(statuses.at(-1)).toBe('succeeded')
      expect(statuses[0]).toMatch(/queued|running/)
      const last = sub.received.at(-1)!.data!.twinRunUpdated
      expect(last).toMatchObject({ id: runId, initiatedBy: 'user', program: { name: tenant.program.name }, twin: { personaKey: 'scientist' } })
      expect(last.footer).toMatch(/^started by the person, under .+'s standing plan \(approved 2026-11-20, plan [0-9a-f]{12}\)$/)
      sub.unsubscribe()
    } finally { h.off(); await client.dispose() }
  })

  it("gives a person without program.twins.read only their own twin's runs", async () => {
    const scientist = wsClient(stack.current.gatewayUrl + '/graphql', await tenant.token('manufacturing_specialist'))
    try {
      const own = collect(scientist, SUB(tenant.program.id), 1, 15_000)
      const before = stack.current.subgraphs.twins.twinRunEvents.subscriberCount
      await waitFor(() => stack.current.subgraphs.twins.twinRunEvents.subscriberCount > before - 1)
      await new Promise((r) => setTimeout(r, 200))
      const lead = await seedTwin(stack.db.db, tenant, 'program_lead', { nextRunAt: null })
      const mine = await seedTwin(stack.db.db, tenant, 'manufacturing_specialist', { nextRunAt: null })
      // The lead's run first: never delivered to the manufacturing specialist; then their own.
      await stack.db.db.$transaction(async (tx) => {
        const { createTwinRun } = await import('../../domain/twins')
        await createTwinRun(tx, { organizationId: tenant.organization.id, programId: tenant.program.id, twinId: lead.twin.id, triggerId: lead.trigger.id, initiatedBy: 'event', runAt: new Date(Date.now() + 3600_000) })
      })
      await new Promise((r) => setTimeout(r, 300))
      await stack.db.db.$transaction(async (tx) => {
        const { createTwinRun } = await import('../../domain/twins')
        await createTwinRun(tx, { organizationId: tenant.organization.id, programId: tenant.program.id, twinId: mine.twin.id, triggerId: mine.trigger.id, initiatedBy: 'event', runAt: new Date(Date.now() + 3600_000) })
      })
      await own.finished
      expect(own.received[0].data?.twinRunUpdated).toMatchObject({ twin: { personaKey: 'manufacturing_specialist' }, status: 'queued' })
      own.unsubscribe()
    } finally { await scientist.dispose() }
  })

  it("never streams another organisation's runs", async () => {
    const { a, b } = await createTwoOrganizations(stack.db.db)
    const client = wsClient(stack.current.gatewayUrl + '/graphql', await a.token('program_owner'))
    try {
      const refused = collect(client, SUB(b.program.id), 1, 10_000)
      await refused.finished
      expect(JSON.stringify(refused.received[0].errors)).toMatch(/FORBIDDEN|program\.twins\.read_own/)
      const bTwin = await seedTwin(stack.db.db, b, 'scientist', { nextRunAt: null })
      await stack.db.db.$transaction(async (tx) => {
        const { createTwinRun } = await import('../../domain/twins')
        await createTwinRun(tx, { organizationId: b.organization.id, programId: b.program.id, twinId: bTwin.twin.id, triggerId: bTwin.trigger.id, initiatedBy: 'event', runAt: new Date(Date.now() + 3600_000) })
      })
      await expectRowsExist(stack.db.db, 'agent_runs', b.organization.id)
      const runs = await gql(`${stack.current.gatewayUrl}/graphql`, `query($id: ID!) { twin(id: $id) { runs { nodes { id } } } }`, { id: bTwin.twin.id }, await a.token('program_owner'))
      expect(runs.body.data.twin).toBeNull()
    } finally { await client.dispose() }
  })
})
