// One peer federation gateway as its own process, for the peers bench (bench/peers.ts): `tsx bench/peer-gateway.ts apollo`
// (stock Apollo Server 5 with Apollo Gateway) or `… hive` (Hive Gateway), on PEER_PORT, in front of the subgraphs at
// CONNECTORS_URL, WORKBENCH_URL and TWINS_URL, serving schema/supergraph.graphql unchanged. Each peer gets what the
// subgraphs require exactly as ours sends it, through the hook its documentation gives for it: the caller's bearer token
// resolved by the same IdentityResolver our gateway uses (gateway/identity.ts: verified once, session stamps cached
// while PostgreSQL announces changes, one internal token per person and version), and on every subgraph call the
// internal token and the request id (gateway/subgraph-http.ts subgraphHeaders). Nothing else is tuned: each runs as its
// documentation's production set-up (no landing page or introspection).
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway'
import { ApolloServer } from '@apollo/server'
import { startStandaloneServer } from '@apollo/server/standalone'
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled'
import { ROOT_DIR } from '../core/config'
import { INTERNAL_HEADER } from '../core/identity'
import { runComponent } from '../core/jobs'
import { IdentityResolver, type CallerIdentity } from '../gateway/identity'

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
  const { createGatewayRuntime } = await import(hiveModule) as any
  const http = await import('node:http')
  const hive = createGatewayRuntime({
    supergraph: supergraphSdl,
    transportEntries: Object.fromEntries(Object.entries(urls).map(([name, location]) => [name, { location }])),
    logging: false,
    graphiql: false,
    landingPage: false,
    disableIntrospection: true,
    plugins: () => [{
      // the caller once per request, as our gateway's context holds it
      async onContextBuilding({ context, extendContext }: { context: any; extendContext: (c: Record<string, unknown>) => void }) {
        extendContext({ identity: await identities.resolve(context.request?.headers?.get?.('authorization')) })
      },
    }],
    // Hive's documented way to add headers to subgraph calls.
    propagateHeaders: {
      fromClientToSubgraphs: async ({ context }: { context: { identity?: CallerIdentity } }) => context.identity ? subgraphHeaders(context.identity) : undefined,
    },
  })
  const server = http.createServer(hive)
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', () => resolve()) })
  return {
    url: `http://127.0.0.1:${port}${hive.graphqlEndpoint}`,
    stop: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await hive.dispose()
      await closeIdentities()
    },
  }
})
