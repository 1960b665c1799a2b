// One peer federation gateway as its own process, for the peers bench (bench/peers.ts): `tsx bench/peer-gateway.ts apollo`
// (stock Apollo Server 5 with Apollo Gateway) or `… hive` (Hive Gateway), on PEER_PORT, in front of the subgraphs at
// CONNECTORS_URL, WORKBENCH_URL and TWINS_URL, serving schema/supergraph.graphql unchanged. Each peer gets what the
// subgraphs require exactly as ours sends it, through the hook its documentation gives for it: the caller's bearer token
// resolved by the same IdentityResolver our gateway uses (gateway/identity.ts: verified once, session stamps cached
// while PostgreSQL announces changes, one internal token per person and version), and on every subgraph call the
// internal token and the request id (gateway/subgraph-http.ts subgraphHeaders). Nothing else is tuned: each runs as its
// documentation's production set-up (no landing page or introspection).
//
// With PEER_SUBSCRIPTIONS=1 (the edge bench, bench/edge.ts with BENCH_EDGE_PEERS=hive; the peers bench leaves it unset, so
// its Hive runs without the hook and sockets below) Hive also serves subscriptions: clients over graphql-ws on
// its GraphQL path, set up as its CLI does on Node (graphql-ws's useServer with the runtime's getGraphQLWSOptions), and
// subgraphs over graphql-ws through its documented `subscriptions: { kind: 'ws' }` transport option. The subgraphs'
// socket takes what our bridge sends (gateway/server.ts, subgraphs/shared/server.ts): on connection_init the gateway's
// own token (signGatewayToken, here through the ws transport's connectionParams, interpolated from the context), and
// on every subscribe the person's internal token and request id in `extensions` (here set in an onSubgraphExecute
// hook). The caller's bearer token comes from connection_init as our gateway reads it (gateway/connection-init.ts).
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway'
import { ApolloServer } from '@apollo/server'
import { startStandaloneServer } from '@apollo/server/standalone'
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled'
import { ROOT_DIR } from '../core/config'
import { INTERNAL_HEADER, INTERNAL_TOKEN_TTL_MS, signGatewayToken } from '../core/identity'
import { runComponent } from '../core/jobs'
import { IdentityResolver, type CallerIdentity } from '../gateway/identity'
import { authorizationOfConnectionParams } from '../gateway/connection-init'

type Kind = 'apollo' | 'hive'
const kind = process.argv[2] as Kind
if (kind !== 'apollo' && kind !== 'hive') throw new Error(`peer-gateway: apollo or hive, not ${kind}`)

/** What our gateway sends a subgraph with every fetch (gateway/subgraph-http.ts subgraphHeaders). */
const subgraphHeaders = async (identity: CallerIdentity) => ({ [INTERNAL_HEADER]: await identity.internalToken(), 'x-request-id': identity.requestId })

await runComponent(`peer-${kind}`, async ({ db, databaseUrl, env }) => {
  const supergraphSdl = fs.readFileSync(path.join(ROOT_DIR, 'schema', 'supergraph.graphql'), 'utf8')
  const urls: Record<string, string> = { connectors: env.CONNECTORS_URL!, workbench: env.WORKBENCH_URL!, twins: env.TWINS_URL! }
  // the identity pool and LISTEN as gateway/server.ts sets them up
  const identityPool = new pg.Pool({ connectionString: databaseUrl, max: 4, connectionTimeoutMillis: 5_000 })
  const identities = new IdentityResolver(db, identityPool, databaseUrl)
  const port = Number(process.env.PEER_PORT)
  const closeIdentities = async () => { await identities.close(); await identityPool.end() }

  if (kind === 'apollo') {
    // Apollo's documented way to add headers to subgraph fetches: a RemoteGraphQLDataSource whose willSendRequest sets them.
    class InternalTokenDataSource extends RemoteGraphQLDataSource<{ identity: CallerIdentity }> {
      override async willSendRequest({ request, context }: Parameters<NonNullable<RemoteGraphQLDataSource<{ identity: CallerIdentity }>['willSendRequest']>>[0]) {
        for (const [name, value] of Object.entries(await subgraphHeaders(context.identity))) request.http!.headers.set(name, value)
      }
    }
    const gateway = new ApolloGateway({
      supergraphSdl,
      buildService: ({ name }) => new InternalTokenDataSource({ url: urls[name] }),
    })
    const server = new ApolloServer<{ identity: CallerIdentity }>({
      gateway: gateway as never, // Gateway 2 types its interface v1, Server 5 takes v2: the same shape at run time
      introspection: false,
      plugins: [ApolloServerPluginLandingPageDisabled()],
    })
    const { url } = await startStandaloneServer(server, {
      listen: { port, host: '127.0.0.1' },
      context: async ({ req }) => ({ identity: await identities.resolve(req.headers.authorization) }),
    })
    return { url, stop: async () => { await server.stop(); await closeIdentities() } }
  }

  // Loaded by name at run time: its type declarations pull the DOM library into the whole program's type check.
  const hiveModule = '@graphql-hive/gateway'
  const { createGatewayRuntime, getGraphQLWSOptions } = await import(hiveModule) as any
  const http = await import('node:http')
  const subscriptions = process.env.PEER_SUBSCRIPTIONS === '1'
  // The gateway's own token for connection_init, renewed as our bridge renews it (a fresh one for every new socket;
  // here one is reused for half its life, so the ws transport, which keys its sockets by their connectionParams, opens
  // a new socket at most every 30 s while subscriptions arrive, and the older ones close after their last subscription).
  let gatewayToken: { token: Promise<string>; at: number } | undefined
  const currentGatewayToken = () => {
    if (!gatewayToken || Date.now() - gatewayToken.at > INTERNAL_TOKEN_TTL_MS / 2) gatewayToken = { token: signGatewayToken(), at: Date.now() }
    return gatewayToken.token
  }
  // each subscription to a subgraph carries its person's internal token and request id, as our bridge sends them
  const onSubgraphExecute = async ({ executionRequest, setExecutionRequest }: { executionRequest: any; setExecutionRequest: (r: unknown) => void }) => {
    const identity: CallerIdentity | undefined = executionRequest.context?.identity
    if (executionRequest.operationType !== 'subscription' || !identity) return
    setExecutionRequest({ ...executionRequest, extensions: { ...executionRequest.extensions, internalToken: await identity.internalToken(), requestId: identity.requestId } })
  }
  const hive = createGatewayRuntime({
    supergraph: supergraphSdl,
    transportEntries: Object.fromEntries(Object.entries(urls).map(([name, location]) => [name, {
      location,
      // Hive's documented subscriptions over graphql-ws to a subgraph (the same URL, ws: scheme), with connection_init
      // params interpolated per subscription from the context.
      ...(subscriptions ? { options: { subscriptions: { kind: 'ws', options: { connectionParams: { internalToken: '{context.gatewayToken}' } } } } } : {}),
    }])),
    logging: false,
    graphiql: false,
    landingPage: false,
    disableIntrospection: true,
    plugins: () => [{
      // the caller once per request (over graphql-ws: once per subscribe), as our gateway's context holds it
      async onContextBuilding({ context, extendContext }: { context: any; extendContext: (c: Record<string, unknown>) => void }) {
        if (context.connectionParams) { // graphql-ws: the bearer is in connection_init, and subgraph sockets need the gateway's token
          extendContext({ identity: await identities.resolve(authorizationOfConnectionParams(context.connectionParams)), gatewayToken: await currentGatewayToken() })
        } else {
          extendContext({ identity: await identities.resolve(context.request?.headers?.get?.('authorization')) })
        }
      },
      ...(subscriptions ? { onSubgraphExecute } : {}),
    }],
    // Hive's documented way to add headers to subgraph calls.
    propagateHeaders: {
      fromClientToSubgraphs: async ({ context }: { context: { identity?: CallerIdentity } }) => context.identity ? subgraphHeaders(context.identity) : undefined,
    },
  })
  const server = http.createServer(hive)
  let closeSockets = async () => {}
  if (subscriptions) {
    // graphql-ws on the GraphQL path, as Hive's CLI sets it up on Node
    const { WebSocketServer } = await import('ws')
    const { useServer } = await import('graphql-ws/use/ws')
    const serverModule = '@whatwg-node/server' // Hive's own dependency: its CLI turns the upgrade request into a fetch Request with it
    const { normalizeNodeRequest } = await import(serverModule) as any
    const wsServer = new WebSocketServer({ server, path: hive.graphqlEndpoint })
    const wsDisposable = useServer(getGraphQLWSOptions(hive, (ctx: any) => ({
      req: ctx.extra.request, socket: ctx.extra.socket, request: normalizeNodeRequest(ctx.extra.request, hive.fetchAPI),
    })), wsServer)
    closeSockets = async () => {
      for (const client of wsServer.clients) client.terminate()
      await wsDisposable.dispose()
    }
  }
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', () => resolve()) })
  if (subscriptions) {
    // Hive loads the supergraph on its first HTTP request: a subscription over graphql-ws before any finds no schema
    // ("Expected null to be a GraphQL schema"). Its readiness endpoint loads it, as an orchestrator's probe would.
    const readiness = await fetch(`http://127.0.0.1:${port}/readiness`)
    if (!readiness.ok) throw new Error(`peer-gateway hive: readiness answered ${readiness.status}`)
  }
  return {
    url: `http://127.0.0.1:${port}${hive.graphqlEndpoint}`,
    stop: async () => {
      await closeSockets()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await hive.dispose()
      await closeIdentities()
    },
  }
})
