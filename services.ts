// Starts the network-facing components (subgraphs, gateway, fakes) on given ports; used by npm start and tests.
import type { Db } from './core/db'
import { PgListener } from './core/pubsub'
import { log } from './core/log'
import { listenFailure } from './core/start-failure'
import type { seedIllustrative } from './subgraphs/seed'
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
}

/** npm start: the stack on the configured ports, plus the fake vendors for the demo. */
export async function startServices(ctx: ServiceContext) {
  const { env } = await import('./core/env')
  const e = env()
  const stack = await startStack({
    db: ctx.db, databaseUrl: ctx.databaseUrl, dataDir: e.DATA_DIR, host: e.HOST, gatewayHost: e.GATEWAY_HOST,
    ports: { gateway: e.GATEWAY_PORT, connectors: e.CONNECTORS_PORT, workbench: e.WORKBENCH_PORT, twins: e.TWINS_PORT, tools: e.TOOLS_PORT },
    production: e.NODE_ENV === 'production',
  })
  const notebook = e.NODE_ENV === 'production' ? null : await startIllustrativeNotebook(ctx, e.FAKE_NOTEBOOK_PORT, stack.gatewayUrl)
  if (e.NODE_ENV !== 'production') {
    // Demo twins with schedules due within a minute, so the worker's twin_schedule starts a run soon after start.
    const { seedIllustrativeTwins } = await import('./subgraphs/twins/domain/twins')
    await seedIllustrativeTwins(ctx.db, ctx.seed).catch((error) => log.warn('demo.twins_not_seeded', { error }))
  }
  if (notebook) stack.stoppables.push({ name: 'fake notebook', stop: notebook.close })
  const qms = e.NODE_ENV === 'production' ? null : await startIllustrativeQms(ctx, e.FAKE_QMS_PORT)
  if (qms) stack.stoppables.push({ name: 'fake QMS', stop: qms.close })
  const literature = e.NODE_ENV === 'production' ? null : await startIllustrativeLiterature(e.FAKE_LITERATURE_PORT, e.LITERATURE_BASE_URL)
  if (literature) stack.stoppables.push({ name: 'fake literature sources', stop: literature.close })
  const urls: [string, string][] = [
    ['console (open this)', `${stack.gatewayUrl}/`],
    ['gateway (GraphQL + ws)', `${stack.gatewayUrl}/graphql`],
    ...(e.NODE_ENV === 'production' ? [] : [['GraphiQL', `${stack.gatewayUrl}/graphiql`] as [string, string]]),
    ['webhooks (REST)', `${stack.gatewayUrl}/hooks/{provider_id}/{connection_id}`],
    ...Object.entries(stack.subgraphUrls).map(([n, u]) => [`subgraph ${n}`, u] as [string, string]),
    ['tool server (MCP, run tokens only)', `${stack.toolsUrl}/runs/{run_id}/mcp`],
    ...(notebook ? [['fake notebook', `${notebook.url} (illustrative; connection ${notebook.connectionId})`] as [string, string]] : []),
    ...(qms ? [['fake QMS', `${qms.url} (illustrative; connection ${qms.connectionId})`] as [string, string]] : []),
    ...(literature ? [['fake literature sources', `${literature.url} (illustrative; Program.literatureSearch reads them)`] as [string, string]] : []),
  ]
  return { stoppables: stack.stoppables, urls }
}

/**
 * Demo only: the fake notebook on FAKE_NOTEBOOK_PORT, connected to the illustrative program (connection, vendor app with
 * the connection's hook URL, credentials, health check) and a first full sync queued for the worker. Idempotent across
 * restarts; a taken port skips the demo connection instead of failing start-up.
 */
async function startIllustrativeNotebook(ctx: ServiceContext, port: number, gatewayUrl: string) {
  const { startFakeNotebook } = await import('./fakes/notebook/server')
  const { seedIllustrative } = await import('./fakes/notebook/seed')
  const demo = await import('./subgraphs/connectors/domain/notebook/demo')
  const { hookUrlFor } = await import('./subgraphs/connectors/domain/urls')
  let fake: Awaited<ReturnType<typeof startFakeNotebook>>
  try {
    fake = await startFakeNotebook({ port, host: '127.0.0.1' })
  } catch (error) {
    log.warn('fake_notebook.not_started', { port, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
  try {
    const owner = ctx.seed.users.program_owner.id
    const connection = await demo.connectIllustrativeNotebook(ctx.db, { programId: ctx.seed.program.id, ownerUserId: owner, notebookUrl: fake.url })
    seedIllustrative(fake.control, {
      appDefinitionId: demo.DEMO_NOTEBOOK.appDefinitionId, clientId: demo.DEMO_NOTEBOOK.clientId,
      clientSecret: demo.DEMO_NOTEBOOK.clientSecret, webhookUrl: hookUrlFor(connection, gatewayUrl) ?? undefined,
    })
    await demo.finishIllustrativeOnboarding(ctx.db, { connectionId: connection.id, ownerUserId: owner })
    return { url: fake.url, connectionId: connection.id, close: fake.close }
  } catch (error) {
    log.warn('fake_notebook.not_connected', { error })
    await fake.close()
    return null
  }
}

/**
 * Demo only: the fake QMS on FAKE_QMS_PORT with illustrative SOPs, connected to the illustrative program (configured,
 * credentials, health check) and a first poll queued for the worker. A taken port skips it instead of failing start-up.
 */
async function startIllustrativeQms(ctx: ServiceContext, port: number) {
  const { startFakeQms } = await import('./fakes/qms/server')
  const { seedIllustrativeQms, ILLUSTRATIVE_QMS_USER, ILLUSTRATIVE_CLIENT_ID } = await import('./fakes/qms/seed')
  const { connectIllustrativeQms } = await import('./subgraphs/connectors/domain/qms/demo')
  let fake: Awaited<ReturnType<typeof startFakeQms>>
  try {
    fake = await startFakeQms({ port, host: '127.0.0.1' })
  } catch (error) {
    log.warn('fake_qms.not_started', { port, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
  try {
    seedIllustrativeQms(fake.state)
    const connection = await connectIllustrativeQms(ctx.db, {
      programId: ctx.seed.program.id, ownerUserId: ctx.seed.users.program_owner.id, qmsUrl: fake.url, instanceId: String(fake.state.vaultId),
      clientId: ILLUSTRATIVE_CLIENT_ID, username: ILLUSTRATIVE_QMS_USER.username, password: ILLUSTRATIVE_QMS_USER.password,
    })
    return { url: fake.url, connectionId: connection.id, close: fake.close }
  } catch (error) {
    log.warn('fake_qms.not_connected', { error })
    await fake.close()
    return null
  }
}

/**
 * Demo only: the fake literature sources on FAKE_LITERATURE_PORT, and the literature connector pointed at them (unless
 * LITERATURE_BASE_URL names other sources). A taken port leaves the connector on its configured sources.
 */
async function startIllustrativeLiterature(port: number, configured: string | undefined) {
  if (configured) return null
  const { startFakeLiterature } = await import('./fakes/literature/server')
  const { configureLiterature } = await import('./subgraphs/connectors/domain/literature/config')
  try {
    const fake = await startFakeLiterature({ port, host: '127.0.0.1' })
    configureLiterature({ baseUrl: fake.url })
    return fake
  } catch (error) {
    log.warn('fake_literature.not_started', { port, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
}
