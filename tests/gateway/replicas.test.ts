// Several replicas on one PostgreSQL: a subscriber on one twins replica receives a change written through another
// gateway and twins replica; a stream whose replica goes away, or whose replica loses its LISTEN connection, ends with
// SUBSCRIPTION_INTERRUPTED (never goes quiet), and subscribing again works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileInboxItem } from '../../domain/inbox'
import { createTwinsSubgraph } from '../../subgraphs/twins/server'
import { createGateway, type Gateway } from '../../gateway/server'
import { LISTEN_APPLICATION_NAME, PgListener } from '../../core/database'
import { SUBSCRIPTION_INTERRUPTED } from '../../core/http'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
let twinsB: ReturnType<typeof createTwinsSubgraph>
let listenerB: PgListener
let gatewayB: Gateway
let t: Tenant

beforeAll(async () => {
  t = await createTenant(db(), 'Replicas')
  listenerB = new PgListener(stack.db.url)
  twinsB = createTwinsSubgraph(db(), listenerB)
  await listenerB.start()
  const twinsUrl = await twinsB.listen(0, '127.0.0.1')
  gatewayB = await createGateway({
    db: db(), databaseUrl: stack.db.url, dataDir: stack.db.dataDir,
    subgraphUrls: { ...stack.current.subgraphUrls, twins: twinsUrl },
  })
  await gatewayB.listen(0, '127.0.0.1')
})
afterAll(async () => {
  await gatewayB?.close()
  await twinsB?.close()
  await listenerB?.stop()
})

const file = () => db().$transaction((tx) => fileInboxItem(tx, {
  organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id,
  kind: 'question', sourceType: 'thread', sourceId: `t-${Math.random()}`, title: 'Which species for the 28-day study?',
}))
const RESOLVE = 'mutation($id: ID!) { resolveInboxItem(id: $id) { __typename } }'
const SUB = 'subscription { inboxChanged { id change } }'

describe('replicas on one PostgreSQL', () => {
  it('delivers a change written through another gateway and twins replica to a subscriber on the first', async () => {
    const item = await file()
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, await t.token('scientist'))
    const sub = collect(client, SUB, 1, 15_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1)
    expect(twinsB.inboxEvents.subscriberCount).toBe(0)
    const r = await gql(`${gatewayB.url}/graphql`, RESOLVE, { id: item.id }, await t.token('scientist'))
    expect(r.body.data.resolveInboxItem.__typename).toBe('MutationResolveInboxItemSuccess')
    await sub.finished
    expect(sub.received).toEqual([{ data: { inboxChanged: { id: item.id, change: 'resolved' } } }])
    await client.dispose()
  })

  it('ends a stream with SUBSCRIPTION_INTERRUPTED when its replica loses the LISTEN connection, and a new stream receives again', async () => {
    const client = wsClient(`${gatewayB.url}/graphql`, await t.token('scientist'))
    const sub = collect(client, SUB, 1, 15_000)
    await waitFor(() => twinsB.inboxEvents.subscriberCount >= 1)
    // what a PostgreSQL restart or failover does to the connection, for this replica's listener only
    const ended = await db().$queryRawUnsafe<{ ok: boolean }[]>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`,
      LISTEN_APPLICATION_NAME)
    expect(ended.length).toBeGreaterThanOrEqual(1)
    await sub.finished
    expect(sub.received[0].errors?.[0]?.extensions?.code).toBe(SUBSCRIPTION_INTERRUPTED)

    await waitFor(() => listenerB.connected && stack.current.listener.connected, 15_000, 'listeners reconnected')
    const again = collect(client, SUB, 1, 15_000)
    await waitFor(() => twinsB.inboxEvents.subscriberCount >= 1)
    const item = await file()
    await again.finished
    expect(again.received).toEqual([{ data: { inboxChanged: { id: item.id, change: 'created' } } }])
    await client.dispose()
  })

  it('ends every stream on a shared upstream socket, each person\'s, with SUBSCRIPTION_INTERRUPTED when the twins replica carrying it stops', async () => {
    const spareListener = new PgListener(stack.db.url)
    const spare = createTwinsSubgraph(db(), spareListener)
    await spareListener.start()
    const spareUrl = await spare.listen(0, '127.0.0.1')
    const gatewayC = await createGateway({
      db: db(), databaseUrl: stack.db.url, dataDir: stack.db.dataDir,
      subgraphUrls: { ...stack.current.subgraphUrls, twins: spareUrl },
    })
    await gatewayC.listen(0, '127.0.0.1')
    try {
      const clients = [wsClient(`${gatewayC.url}/graphql`, await t.token('scientist')), wsClient(`${gatewayC.url}/graphql`, await t.token('program_lead'))]
      const subs = clients.map((client) => collect(client, SUB, 1, 15_000))
      await waitFor(() => spare.inboxEvents.subscriberCount === 2)
      expect(gatewayC.bridge.upstreamSockets).toEqual({ twins: 1 })
      await spare.close()
      await Promise.all(subs.map((sub) => sub.finished))
      for (const sub of subs) expect(sub.received[0].errors?.[0]?.extensions?.code).toBe(SUBSCRIPTION_INTERRUPTED)
      await waitFor(() => gatewayC.bridge.activeCount === 0 && gatewayC.bridge.upstreamSocketCount === 0, 5_000, 'the bridge released both streams')
      await Promise.all(clients.map((client) => client.dispose()))
    } finally {
      await gatewayC.close()
      await spare.close().catch(() => {})
      await spareListener.stop()
    }
  })
})
