// The committed supergraph on a second, independent federation gateway: Hive Gateway (@graphql-hive/gateway-runtime)
// serves schema/supergraph.graphql unchanged in front of the same subgraphs, queries and the inbox subscription over
// graphql-ws included. What the operator configures is what this file configures: the person's internal token on
// every subgraph request and in every subgraph subscribe message's extensions (`internalToken`), the gateway's own
// token in the subgraph socket's connection_init (`internalToken`), and graphql-ws towards subgraphs.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { useServer } from 'graphql-ws/use/ws'
import { ROOT_DIR } from '../../core/config'
import { getOperationAST } from 'graphql'
import { IdentityResolver } from '../../gateway/identity'
import { signGatewayToken } from '../../core/identity'
import { fileInboxItem } from '../../domain/inbox'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let server: http.Server
let hiveUrl: string
let dispose: () => Promise<void>
let t: Tenant

beforeAll(async () => {
  // Loaded by name at run time: its type declarations pull the DOM library into the whole program's type check.
  const hiveModule = '@graphql-hive/gateway-runtime'
  const { createGatewayRuntime, getGraphQLWSOptions } = await import(hiveModule) as any
  t = await createTenant(stack.db.db, 'Hive')
  const supergraph = fs.readFileSync(path.join(ROOT_DIR, 'schema/supergraph.graphql'), 'utf8') // unchanged
  // The caller's bearer token becomes the gateway's internal token, exactly as gateway/identity.ts does it.
  const identities = new IdentityResolver(stack.db.db)
  // A subgraph socket is opened by the gateway as itself and shared between people (sockets are kept per distinct
  // connection_init, so one gateway token is reused while it is young).
  let gatewayToken = { token: '', at: 0 }
  const currentGatewayToken = async () => {
    if (Date.now() - gatewayToken.at > 30_000) gatewayToken = { token: await signGatewayToken(), at: Date.now() }
    return gatewayToken.token
  }
  const subgraph = (name: 'connectors' | 'workbench' | 'twins') => ({
    location: stack.current.subgraphUrls[name],
    headers: [['x-internal-token', '{context.internalToken}']] as [string, string][],
    options: { subscriptions: { kind: 'ws', location: stack.current.subgraphUrls[name], options: { connectionParams: { internalToken: '{context.gatewayToken}' } } } },
  })
  const hive = createGatewayRuntime({
    supergraph,
    transportEntries: { connectors: subgraph('connectors'), workbench: subgraph('workbench'), twins: subgraph('twins') } as never,
    logging: false,
    plugins: () => [{
      async onContextBuilding({ context, extendContext }: { context: any; extendContext: (c: Record<string, unknown>) => void }) {
        const authorization = context.request?.headers?.get?.('authorization') ?? context.connectionParams?.authorization
        if (!authorization) return
        const identity = await identities.resolve(authorization).catch(() => undefined)
        if (identity) extendContext({ internalToken: await identity.internalToken(), gatewayToken: await currentGatewayToken() })
      },
      // every subscription carries its person's own internal token in the subscribe message's extensions
      onSubgraphExecute({ executionRequest, setExecutionRequest }: { executionRequest: any; setExecutionRequest: (r: unknown) => void }) {
        if (getOperationAST(executionRequest.document, executionRequest.operationName)?.operation !== 'subscription') return
        setExecutionRequest({ ...executionRequest, extensions: { ...executionRequest.extensions, internalToken: executionRequest.context?.internalToken } })
      },
    }],
  })
  server = http.createServer(hive)
  const wss = new WebSocketServer({ server, path: hive.graphqlEndpoint })
  const ws = useServer(getGraphQLWSOptions(hive, (ctx: any) => ({ req: ctx.extra?.request, socket: ctx.extra?.socket })) as never, wss)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  hiveUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}${hive.graphqlEndpoint}`
  dispose = async () => {
    await ws.dispose()
    server.closeAllConnections()
    await new Promise<void>((r) => server.close(() => r()))
    await hive.dispose()
  }
})
afterAll(async () => { await dispose?.() })

const CONSOLE = '{ me { user { name } programs { program { name slug connections { nodes { id } } myOpenInboxCount } personas } } }'

describe('the committed supergraph on Hive Gateway', () => {
  it('answers a query across the three subgraphs as the service\'s own gateway does', async () => {
    const token = await t.token('program_lead')
    const ours = await gql(`${stack.current.gatewayUrl}/graphql`, CONSOLE, {}, token)
    const hive = await gql(hiveUrl, CONSOLE, {}, token)
    expect(ours.body.errors).toBeUndefined()
    expect(hive.body.errors).toBeUndefined()
    expect(hive.body.data).toEqual(ours.body.data)
    expect(hive.body.data.me.programs[0].program.name).toBe(t.program.name)
  })

  it('answers a typed mutation result (a union with the error objects)', async () => {
    const r = await gql(hiveUrl, 'mutation($id: ID!) { resolveInboxItem(id: $id) { __typename ... on Error { code } } }', { id: crypto.randomUUID() }, await t.token('scientist'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.resolveInboxItem).toEqual({ __typename: 'NotFound', code: 'not_found' })
  })

  it('gets nothing from the subgraphs without a caller token (they refuse requests without the internal token)', async () => {
    const r = await gql(hiveUrl, '{ me { user { name } } }')
    expect(r.body.data?.me ?? null).toBeNull()
    expect(r.body.errors?.length).toBeGreaterThan(0)
  })

  it('delivers the inbox subscription over graphql-ws', async () => {
    const client = wsClient(hiveUrl, await t.token('scientist'))
    const sub = collect(client, 'subscription { inboxChanged { id change title } }', 1, 20_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1, 15_000, 'Hive subscribed upstream')
    const item = await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id,
      kind: 'question', sourceType: 'thread', sourceId: 'hive', title: 'Through another gateway',
    }))
    await sub.finished
    expect(sub.received).toEqual([{ data: { inboxChanged: { id: item.id, change: 'created', title: 'Through another gateway' } } }])
    await client.dispose()
  })
})
