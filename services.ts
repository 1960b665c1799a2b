// Starts the network-facing components (subgraphs, gateway, fakes) on given ports; used by npm start and tests.
import type { Db } from './core/db'
import { PgListener } from './core/pubsub'
import { log } from './core/log'
import type { seedIllustrative } from './core/seed'
import { createConnectorsSubgraph } from './subgraphs/connectors/server'
import { createWorkbenchSubgraph } from './subgraphs/workbench/server'
import { createTwinsSubgraph } from './subgraphs/twins/server'
import { createGateway } from './gateway/server'
import type { SubgraphName } from './gateway/supergraph'

export interface StackOptions {
  db: Db
  databaseUrl: string
  dataDir: string
  host?: string
  gatewayHost?: string
  /** 0 = any free port (tests) */
  ports?: { gateway: number; connectors: number; workbench: number; twins: number }
  production?: boolean
}

type Stoppable = { name: string; stop: () => Promise<unknown> }

/** Subgraphs (bound to `host`, 127.0.0.1 by default) and the gateway in front of them. */
export async function startStack(opts: StackOptions) {
  const host = opts.host ?? '127.0.0.1'
  const ports = opts.ports ?? { gateway: 0, connectors: 0, workbench: 0, twins: 0 }
  const stoppables: Stoppable[] = []
  const listener = new PgListener(opts.databaseUrl, () => log.warn('pubsub.reconnected', { note: 'live events sent meanwhile were lost' }))
  const subgraphs = {
    connectors: createConnectorsSubgraph(opts.db),
    workbench: createWorkbenchSubgraph(opts.db),
    twins: createTwinsSubgraph(opts.db, listener),
  }
  await listener.start()
  stoppables.push({ name: 'listener', stop: () => listener.stop() })
  const urls = {} as Record<SubgraphName, string>
  for (const name of ['connectors', 'workbench', 'twins'] as const) {
    urls[name] = await subgraphs[name].listen(ports[name], host)
    stoppables.push({ name: `subgraph ${name}`, stop: () => subgraphs[name].close() })
  }
  const gateway = await createGateway({ db: opts.db, subgraphUrls: urls, production: opts.production, dataDir: opts.dataDir })
  const gatewayUrl = await gateway.listen(ports.gateway, opts.gatewayHost ?? host)
  stoppables.push({ name: 'gateway', stop: () => gateway.close() })
  return {
    gateway, subgraphs, listener, subgraphUrls: urls, gatewayUrl, stoppables,
    async stop() { for (const s of [...stoppables].reverse()) await s.stop().catch((e) => log.error('stop.failed', { part: s.name, error: e })) },
  }
}

export interface ServiceContext {
  db: Db
  databaseUrl: string
  seed: Awaited<ReturnType<typeof seedIllustrative>>
}

/** npm start: the stack on the configured ports, plus the fake vendors for the demo. */
export async function startServices(ctx: ServiceContext) {
  const { env } = await import('./core/env')
  const e = env()
  const stack = await startStack({
    db: ctx.db, databaseUrl: ctx.databaseUrl, dataDir: e.DATA_DIR, host: e.HOST, gatewayHost: e.GATEWAY_HOST,
    ports: { gateway: e.GATEWAY_PORT, connectors: e.CONNECTORS_PORT, workbench: e.WORKBENCH_PORT, twins: e.TWINS_PORT },
    production: e.NODE_ENV === 'production',
  })
  const urls: [string, string][] = [
    ['gateway (GraphQL + ws)', `${stack.gatewayUrl}/graphql`],
    ...(e.NODE_ENV === 'production' ? [] : [['GraphiQL', `${stack.gatewayUrl}/graphiql`] as [string, string]]),
    ['webhooks (REST)', `${stack.gatewayUrl}/hooks/{provider_id}/{connection_id}`],
    ...Object.entries(stack.subgraphUrls).map(([n, u]) => [`subgraph ${n}`, u] as [string, string]),
  ]
  return { stoppables: stack.stoppables, urls }
}
