import { CONNECTION_INIT_SHAPE_REASON } from '../../gateway/connection-init'
import { describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import * as jose from 'jose'
import { createClient } from 'graphql-ws'
import WebSocket from 'ws'
import { mintDevToken, signGatewayToken, signInternalToken } from '../../core/identity'
import { fileInboxItem } from '../../domain/inbox'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTwoOrganizations } from '../helpers/factories'

const stack = useStack()
const run = promisify(execFile)

/** Runs due graphile-worker jobs in a separate OS process, as production's worker would. */
async function runWorkerInAnotherProcess() {
  await run(process.execPath, ['--import', 'tsx', 'jobs/main.ts', '--once'], {
    env: { ...process.env, DATABASE_URL: stack.db.url, DATA_DIR: stack.db.dataDir, LOG_LEVEL: 'warn' }, timeout: 60_000,
  })
}


describe('federated GraphQL edge', () => {
  it('answers a query that crosses all three subgraphs through the gateway', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: a.organization.id, userId: a.users.program_lead.id, programId: a.program.id,
      kind: 'decision', sourceType: 'proposal', sourceId: 'p-1', title: 'Decide on the dose range study',
    }))
    const token = await a.token('program_lead')
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{
      me { user { name } organization { name } programs { personas program { name connections { nodes { id } } myOpenInboxCount } } }
      myInbox(first: 10) { nodes { kind status title program { name slug } } pageInfo { hasNextPage } }
    }`, {}, token)
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.me.user.name).toBe(a.users.program_lead.name)
    expect(r.body.data.me.programs).toEqual([{ personas: ['program_lead'], program: { name: a.program.name, connections: { nodes: [] }, myOpenInboxCount: 1 } }])
    expect(r.body.data.myInbox.nodes).toEqual([{ kind: 'decision', status: 'open', title: 'Decide on the dose range study', program: { name: a.program.name, slug: a.program.slug } }])
  })

  it('refuses a request without a valid bearer token with UNAUTHENTICATED and no stack trace', async () => {
    const none = await gql(`${stack.current.gatewayUrl}/graphql`, '{ me { user { id } } }')
    expect(none.status).toBe(401)
    expect(none.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED')
    const bad = await gql(`${stack.current.gatewayUrl}/graphql`, '{ me { user { id } } }', {}, 'garbage')
    expect(bad.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED')
    expect(JSON.stringify(bad.body)).not.toMatch(/stacktrace|at .*\.ts/i)
  })

  it('makes a subgraph refuse a direct call that carries a valid user token but no internal token', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const token = await a.token('program_owner')
    for (const url of Object.values(stack.current.subgraphUrls)) {
      const r = await gql(url, '{ __typename }', {}, token)
      expect(r.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED')
      expect(r.body.data ?? null).toBeNull()
    }
    const ws = wsClient(stack.current.subgraphUrls.twins, token)
    const sub = collect(ws, 'subscription { inboxChanged { id } }', 1)
    await sub.finished
    expect(JSON.stringify(sub.received)).toMatch(/4403|Forbidden/)
    await ws.dispose()
  })

  it('delivers an inbox event committed by a worker job in another process, with the program name from another subgraph', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const token = await a.token('program_lead')
    const item = await stack.db.db.inboxItem.create({ data: {
      organizationId: a.organization.id, userId: a.users.program_lead.id, programId: a.program.id, kind: 'decision',
      sourceType: 'proposal', sourceId: 'p-2', title: 'Approve the plan change', dueAt: new Date(Date.now() - 60_000),
    } })
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, token)
    const sub = collect(client, 'subscription { inboxChanged { id kind status program { name } } }', 1, 30_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 1)
    await stack.db.db.$executeRaw`SELECT graphile_worker.add_job('inbox_expire', '{}'::json)`
    await runWorkerInAnotherProcess()
    await sub.finished
    expect(sub.received).toEqual([{ data: { inboxChanged: { id: item.id, kind: 'decision', status: 'expired', program: { name: a.program.name } } } }])
    await client.dispose()
  })

  it('releases the upstream subscription when the client disconnects', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('scientist'))
    collect(client, 'subscription { inboxChanged { id } }', 1)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 1)
    expect(stack.current.gateway.bridge.activeCount).toBe(1)
    await client.dispose()
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 0)
    await waitFor(() => stack.current.gateway.bridge.activeCount === 0)
  })

  it('refuses a socket whose connection_init carries no valid token, closing it with 4403 and what to send', async () => {
    for (const [token, reason] of [[undefined, CONNECTION_INIT_SHAPE_REASON], ['not-a-token', 'The bearer token is not valid: send a valid one as authorization in connection_init.']]) {
      const closes: { code: number; reason: string }[] = []
      const client = wsClient(`${stack.current.gatewayUrl}/graphql`, token, { on: { closed: (e: any) => closes.push({ code: e.code, reason: e.reason }) } })
      const sub = collect(client, 'subscription { inboxChanged { id } }', 1)
      await sub.finished
      expect(JSON.stringify(sub.received)).not.toMatch(/"data"/)
      expect(closes[0]).toEqual({ code: 4403, reason })
      await client.dispose()
    }
  })

  it('sends a user of another organisation nothing, while the owner of the item receives it', async () => {
    const { a, b } = await createTwoOrganizations(stack.db.db)
    const owner = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('scientist'))
    const outsider = wsClient(`${stack.current.gatewayUrl}/graphql`, await b.token('scientist'))
    const ownerSub = collect(owner, 'subscription { inboxChanged { id title } }', 1)
    const outsiderSub = collect(outsider, 'subscription { inboxChanged { id title } }', 1, 1500)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 2)
    const item = await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: a.organization.id, userId: a.users.scientist.id, programId: a.program.id,
      kind: 'question', sourceType: 'thread', sourceId: 't-1', title: 'Which species?',
    }))
    await ownerSub.finished
    expect(ownerSub.received).toEqual([{ data: { inboxChanged: { id: item.id, title: 'Which species?' } } }])
    await expect(outsiderSub.finished).rejects.toThrow(/timed out with 0\/1/)
    const leak = await gql(`${stack.current.gatewayUrl}/graphql`, `query($id: ID!) { inboxItem(id: $id) { id } }`, { id: item.id }, await b.token('program_owner'))
    expect(leak.body.data.inboxItem).toBeNull()
    await owner.dispose()
    await outsider.dispose()
  })

  it('does not let a member read a program of another organisation by id or slug', async () => {
    const { a, b } = await createTwoOrganizations(stack.db.db)
    const token = await mintDevToken(a.users.program_owner)
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `query($id: ID, $slug: String) { byId: program(id: $id) { name } bySlug: program(slug: $slug) { name } }`,
      { id: b.program.id, slug: b.program.slug }, token)
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data).toEqual({ byId: null, bySlug: null })
  })
})

describe('permission on every subscription event', () => {
  it('stops delivering a program\'s items to a person removed from it, and ends the subscription when the person is deactivated, while another person\'s stream on the same upstream socket goes on', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('scientist'))
    const other = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('program_lead'))
    const sub = collect(client, 'subscription { inboxChanged { title } }', 3, 15_000)
    const otherSub = collect(other, 'subscription { inboxChanged { title } }', 1, 15_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 2)
    expect(stack.current.gateway.bridge.upstreamSockets.twins).toBe(1)
    const file = (title: string, programId: string | null, userId = a.users.scientist.id) => stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: a.organization.id, userId, programId, kind: 'information', sourceType: 'note', sourceId: title, title,
    }))
    await file('while a member', a.program.id)
    await waitFor(() => sub.received.length === 1)
    await stack.db.db.programMembership.updateMany({ where: { programId: a.program.id, userId: a.users.scientist.id }, data: { endedAt: new Date() } })
    await file('after removal', a.program.id)
    await file('not in a program', null)
    await waitFor(() => sub.received.length === 2)
    await stack.db.db.user.update({ where: { id: a.users.scientist.id }, data: { deactivatedAt: new Date() } })
    await file('after deactivation', null)
    await sub.finished
    expect(sub.received.slice(0, 2)).toEqual([{ data: { inboxChanged: { title: 'while a member' } } }, { data: { inboxChanged: { title: 'not in a program' } } }])
    expect(JSON.stringify(sub.received[2])).toMatch(/UNAUTHENTICATED|not active/)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 1, 5_000, 'the ended stream left twins\' fan-out')
    // the refusal ended one person's stream, not the socket it shared
    await file('for the lead', a.program.id, a.users.program_lead.id)
    await otherSub.finished
    expect(otherSub.received).toEqual([{ data: { inboxChanged: { title: 'for the lead' } } }])
    await client.dispose()
    await other.dispose()
  })
})

describe('shared upstream sockets', () => {
  const twinsWs = () => stack.current.subgraphUrls.twins.replace(/^http/, 'ws')

  it('carries two people\'s subscriptions over one upstream socket, each receiving only their own inbox events', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const scientist = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('scientist'))
    const lead = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('program_lead'))
    const scientistSub = collect(scientist, 'subscription { inboxChanged { title program { name } } }', 1, 15_000)
    const leadSub = collect(lead, 'subscription { inboxChanged { title program { name } } }', 1, 15_000)
    await waitFor(() => stack.current.gateway.bridge.activeCount === 2 && stack.current.subgraphs.twins.inboxEvents.subscriberCount === 2)
    expect(stack.current.gateway.bridge.upstreamSockets).toEqual({ twins: 1 })
    for (const [userId, title] of [[a.users.scientist.id, 'for the scientist'], [a.users.program_lead.id, 'for the lead']]) {
      await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
        organizationId: a.organization.id, userId, programId: a.program.id, kind: 'question', sourceType: 'thread', sourceId: title, title,
      }))
    }
    await Promise.all([scientistSub.finished, leadSub.finished])
    await new Promise((r) => setTimeout(r, 300)) // room for a wrong delivery to arrive
    expect(scientistSub.received).toEqual([{ data: { inboxChanged: { title: 'for the scientist', program: { name: a.program.name } } } }])
    expect(leadSub.received).toEqual([{ data: { inboxChanged: { title: 'for the lead', program: { name: a.program.name } } } }])
    await scientist.dispose()
    await lead.dispose()
    await waitFor(() => stack.current.gateway.bridge.upstreamSocketCount === 0, 10_000, 'the idle upstream socket closed')
  })

  it('keeps another person\'s stream alive when one client disconnects from the shared upstream socket', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const leaving = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('scientist'))
    const staying = wsClient(`${stack.current.gatewayUrl}/graphql`, await a.token('program_lead'))
    collect(leaving, 'subscription { inboxChanged { id } }', 1, 15_000).finished.catch(() => {})
    const stayingSub = collect(staying, 'subscription { inboxChanged { title } }', 1, 15_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 2)
    expect(stack.current.gateway.bridge.upstreamSockets.twins).toBe(1)
    await leaving.dispose()
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount === 1 && stack.current.gateway.bridge.activeCount === 1)
    expect(stack.current.gateway.bridge.upstreamSockets.twins).toBe(1)
    await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: a.organization.id, userId: a.users.program_lead.id, programId: a.program.id, kind: 'question', sourceType: 'thread', sourceId: 'still-here', title: 'Still here',
    }))
    await stayingSub.finished
    expect(stayingSub.received).toEqual([{ data: { inboxChanged: { title: 'Still here' } } }])
    await staying.dispose()
  })

  it('makes a subgraph refuse, on a socket the gateway opened, a subscription without its person\'s token or with a forged one, and keeps the socket open', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const closes: number[] = []
    const gatewaySocket = createClient({
      url: twinsWs(), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {},
      connectionParams: async () => ({ internalToken: await signGatewayToken() }), on: { closed: (e: any) => closes.push(e.code) },
    })
    const subscribe = (extensions?: Record<string, unknown>) => new Promise<{ data?: any; errors?: any[] }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 10_000)
      const unsubscribe = gatewaySocket.subscribe({ query: 'subscription { inboxChanged { title } }', extensions }, {
        next: (m: any) => { clearTimeout(timer); unsubscribe(); resolve(m) },
        error: (e: any) => { clearTimeout(timer); resolve({ errors: Array.isArray(e) ? e : [{ message: String(e?.code ?? e) }] }) },
        complete: () => {},
      })
    })
    const claims = { userId: a.users.scientist.id, organizationId: a.organization.id }
    const { privateKey } = await jose.generateKeyPair('ES256')
    const forged = await new jose.SignJWT({ org: claims.organizationId }).setProtectedHeader({ alg: 'ES256' }).setSubject(claims.userId)
      .setIssuer('urn:evidence-workspace:gateway').setAudience('urn:evidence-workspace:subgraph').setIssuedAt().setExpirationTime('60s').sign(privateKey)
    try {
      for (const extensions of [undefined, {}, { internalToken: forged }, { internalToken: await signGatewayToken() }, { internalToken: await mintDevToken(a.users.scientist) }]) {
        const refused = await subscribe(extensions)
        expect(refused.data).toBeUndefined()
        expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED')
      }
      // the same socket still serves a subscription that carries its person's token
      const accepted = subscribe({ internalToken: await signInternalToken(claims) })
      await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1)
      await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
        organizationId: a.organization.id, userId: a.users.scientist.id, programId: a.program.id, kind: 'question', sourceType: 'thread', sourceId: 'direct', title: 'Direct',
      }))
      expect(await accepted).toEqual({ data: { inboxChanged: { title: 'Direct' } } })
      expect(closes).toEqual([])
    } finally {
      await gatewaySocket.dispose()
    }
  })

  it('makes a subgraph refuse a socket whose connection_init carries a person\'s internal token instead of the gateway\'s', async () => {
    const { a } = await createTwoOrganizations(stack.db.db)
    const internalToken = await signInternalToken({ userId: a.users.scientist.id, organizationId: a.organization.id })
    const closes: number[] = []
    const client = createClient({ url: twinsWs(), webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { internalToken }, on: { closed: (e: any) => closes.push(e.code) } })
    const sub = collect(client, 'subscription { inboxChanged { id } }', 1)
    await sub.finished
    expect(JSON.stringify(sub.received)).not.toMatch(/"data"/)
    expect(closes).toEqual([4403])
    await client.dispose()
  })
})
