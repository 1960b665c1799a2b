// Starts the network-facing components (subgraphs, gateway, fakes) on given ports; used by npm start and tests.
import type { Db } from './core/database'
import { PgListener } from './core/database'
import { log } from './core/config'
import type { seedIllustrative } from './subgraphs/seed'
import type { DemoContext, DemoService } from './domain/adapters'
import { createConnectorsSubgraph } from './subgraphs/connectors/server'
import { createWorkbenchSubgraph } from './subgraphs/workbench/server'
import { createTwinsSubgraph } from './subgraphs/twins/server'
import { createToolServer } from './subgraphs/twins/tools/server'
import { setToolServerUrl } from './subgraphs/twins/tools/endpoint'
import { createGateway } from './gateway/server'
import type { SubgraphName } from './gateway/supergraph'

export interface StackOptions {
  db: Db
  databaseUrl: string
  dataDir: string
  host?: string
  gatewayHost?: string
  /** 0 = any free port (tests) */
  ports?: { gateway: number; connectors: number; workbench: number; twins: number; tools?: number }
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
  // The tool server (MCP) on its own port; harnesses in this process (the worker of npm start, tests) reach it here.
  const tools = createToolServer(opts.db)
  const toolsUrl = await tools.listen(ports.tools ?? 0, host)
  setToolServerUrl(toolsUrl)
  stoppables.push({ name: 'tool server', stop: async () => { setToolServerUrl(undefined); await tools.close() } })
  const gateway = await createGateway({ db: opts.db, databaseUrl: opts.databaseUrl, subgraphUrls: urls, production: opts.production, dataDir: opts.dataDir })
  const gatewayUrl = await gateway.listen(ports.gateway, opts.gatewayHost ?? host)
  stoppables.push({ name: 'gateway', stop: () => gateway.close() })
  return {
    gateway, subgraphs, listener, subgraphUrls: urls, gatewayUrl, toolsUrl, stoppables,
    async stop() { for (const s of [...stoppables].reverse()) await s.stop().catch((e) => log.error('stop.failed', { part: s.name, error: e })) },
  }
}

export interface ServiceContext {
  db: Db
  databaseUrl: string
  seed: Awaited<ReturnType<typeof seedIllustrative>>
  /** npm start's demo vendors (main.ts hands in fakes/demos.ts outside production): each provider's demo starts its fake. */
  startDemos?: (ctx: DemoContext) => Promise<DemoService[]>
}

/** npm start: the stack on the configured ports, plus the fake vendors for the demo. */
export async function startServices(ctx: ServiceContext) {
  const { env } = await import('./core/config')
  const e = env()
  const stack = await startStack({
    db: ctx.db, databaseUrl: ctx.databaseUrl, dataDir: e.DATA_DIR, host: e.HOST, gatewayHost: e.GATEWAY_HOST,
    ports: { gateway: e.GATEWAY_PORT, connectors: e.CONNECTORS_PORT, workbench: e.WORKBENCH_PORT, twins: e.TWINS_PORT, tools: e.TOOLS_PORT },
    production: e.NODE_ENV === 'production',
  })
  // Each provider's demo hook starts its fake vendor and connects the illustrative program to it.
  const demos = e.NODE_ENV === 'production' || !ctx.startDemos ? [] : await ctx.startDemos({
    db: ctx.db, programId: ctx.seed.program.id, ownerUserId: ctx.seed.users.program_owner.id, gatewayUrl: stack.gatewayUrl,
  })
  for (const demo of demos) stack.stoppables.push({ name: demo.name, stop: demo.close })
  if (e.NODE_ENV !== 'production') {
    // Demo twins with schedules due within a minute, so the worker's twin_schedule starts a run soon after start.
    const { seedIllustrativeTwins } = await import('./domain/twins')
    await seedIllustrativeTwins(ctx.db, ctx.seed).catch((error) => log.warn('demo.twins_not_seeded', { error }))
  }
  const urls: [string, string][] = [
    ['console (open this)', `${stack.gatewayUrl}/`],
    ['gateway (GraphQL + ws)', `${stack.gatewayUrl}/graphql`],
    ...(e.NODE_ENV === 'production' ? [] : [['GraphiQL', `${stack.gatewayUrl}/graphiql`] as [string, string]]),
    ['webhooks (REST)', `${stack.gatewayUrl}/hooks/{provider_id}/{connection_id}`],
    ...Object.entries(stack.subgraphUrls).map(([n, u]) => [`subgraph ${n}`, u] as [string, string]),
    ['tool server (MCP, run tokens only)', `${stack.toolsUrl}/runs/{run_id}/mcp`],
    ...demos.map((d) => [d.name, `${d.url} (${d.note})`] as [string, string]),
  ]
  return { stoppables: stack.stoppables, urls }
}
