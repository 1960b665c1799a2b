// The soak (npm run soak [-- --seconds N]): the service as production runs it, scaled out on this machine, under mixed
// load and faults, with one verdict: nothing accepted is lost or processed twice.
//
// On its own embedded PostgreSQL (never a shared server): two replicas of each subgraph (connectors, workbench, twins,
// tools) and two workers, each its own process; two gateways; a round-robin proxy in front of each kind
// (scripts/soak-proxy.ts); the fake notebook. Load for --seconds (default 300): signed webhooks at a steady rate,
// console queries, 500 live inbox subscriptions and inbox changes for them, skill runs. While it runs it kills
// (SIGKILL) and restarts one replica of each kind, and stops PostgreSQL for a few seconds once. Then it waits for the
// workers to drain and prints the table; the exit code is 1 when an accepted delivery was lost or processed twice, an
// event was not delivered to a subscriber connected throughout, or a stream ended without a code.
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import pg from 'pg'
import WebSocket from 'ws'
import { createClient, type Client } from 'graphql-ws'
import { freePort, removeEmbeddedData, startEmbeddedPostgres, withDatabase, type DatabaseHandle } from '../core/database'
import { createPrisma } from '../core/database'
import { ROOT_DIR, parseEnv, setEnv } from '../core/config'
import { resetAuthKeys, signInternalToken } from '../core/identity'
import { prepareDatabase } from '../jobs/prepare-database'
import { startFakeNotebook } from '../fakes/notebook/server'
import { createTenant, type Tenant } from '../tests/helpers/factories'
import { FOLDER, entryUpdated, ownerContext, sampleEntry } from '../tests/connectors/helpers'
import { createConnection, setConnectionCredentials } from '../domain/connections'
import { fileInboxItem } from '../domain/inbox'
import { SUBSCRIPTION_INTERRUPTED } from '../core/http'
import { installDomain } from '../subgraphs/install'
import { print } from 'graphql'
import { RoleHomeDocument } from '../clients/src/generated/graphql'

// This process calls domain functions (connections, the inbox, the seed): it installs the domain first, as every
// entry point does (the adapter registry, the audit hooks).
installDomain()

const arg = (name: string) => { const i = process.argv.indexOf(name); return i >= 0 ? process.argv[i + 1] : undefined }
const SECONDS = Number(arg('--seconds') ?? process.env.SOAK_SECONDS ?? 300)
const SUBSCRIBERS = Number(arg('--subscribers') ?? 500)
const WEBHOOKS_PER_SECOND = Number(arg('--webhook-rate') ?? 10)
const QUERIES_PER_SECOND = Number(arg('--query-rate') ?? 5)
const CHANGES_PER_SECOND = Number(arg('--change-rate') ?? 2)
const SKILL_RUNS_PER_SECOND = Number(arg('--skill-rate') ?? 0.5)
const SUBSCRIPTIONS_PER_SOCKET = 10
/** Subscriptions settle this long before the load starts. */
const SETTLE_MS = 3_000
/** ... and stayed open this long after the change was answered (delivery time). */
const DELIVERY_GRACE_MS = Number(process.env.SOAK_GRACE_MS ?? 15_000)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const now = () => Date.now()

// ---------------------------------------------------------------------------------------------------------------
// processes

interface Component {
  name: string
  kind: string
  file: string
  env: Record<string, string>
  ready: string
  child?: ChildProcess
  memoryStartMb?: number
  memoryEndMb?: number
  restarts: number
}

function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : undefined
  } catch { return undefined }
}

function start(c: Component, logDir: string): Promise<void> {
  const out = fs.createWriteStream(path.join(logDir, `${c.name}.log`), { flags: 'a' })
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT_DIR, c.file)], {
    cwd: ROOT_DIR, env: { ...process.env, ...c.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  c.child = child
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => reject(new Error(`${c.name} did not start within 120 s (see ${logDir}/${c.name}.log)`)), 120_000)
    const onData = (chunk: Buffer) => {
      out.write(chunk)
      if (seen !== null && seen.length < 100_000) {
        seen += chunk.toString()
        if (seen.includes(c.ready)) { clearTimeout(timer); seen = null as never; resolve() }
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code, signal) => { clearTimeout(timer); out.end(); if (seen !== null) reject(new Error(`${c.name} exited (${code ?? signal}) while starting`)) })
  })
}

function kill(c: Component, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const child = c.child
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => { child.once('exit', () => resolve()); child.kill(signal) })
}

// ---------------------------------------------------------------------------------------------------------------
// measurements

const outcomes = new Map<string, Map<string, number>>()
const latencies = new Map<string, number[]>()
function record(kind: string, outcome: string, ms?: number) {
  const m = outcomes.get(kind) ?? new Map<string, number>()
  m.set(outcome, (m.get(outcome) ?? 0) + 1)
  outcomes.set(kind, m)
  if (ms !== undefined && outcome === 'ok') { const l = latencies.get(kind) ?? []; l.push(ms); latencies.set(kind, l) }
}
const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

async function post(url: string, body: unknown, token: string): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body), signal: AbortSignal.timeout(35_000),
  })
  const text = await res.text()
  let json: any
  try { json = JSON.parse(text) } catch { json = undefined }
  return { status: res.status, json }
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const t0 = now()
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ew-soak-'))
  await fsp.chmod(dir, 0o755)
  const logDir = path.join(dir, 'logs')
  await fsp.mkdir(logDir)
  const pgPort = await freePort()
  const pgDir = path.join(dir, 'pg')
  let pgHandle: DatabaseHandle | undefined = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort })
  const admin = new pg.Client({ connectionString: pgHandle.url })
  await admin.connect()
  await admin.query('CREATE DATABASE soak')
  await admin.end()
  const url = withDatabase(pgHandle.url, 'soak')
  await prepareDatabase(url)
  setEnv(parseEnv({ ...process.env, NODE_ENV: 'development', DATABASE_URL: url, DATA_DIR: dir }))
  resetAuthKeys()
  await signInternalToken({ userId: 'soak', organizationId: 'soak', requestId: 'soak' }) // key pairs exist before any replica starts
  const db = createPrisma(url, 4)

  // tenant, fake notebook and its connection
  const tenant: Tenant = await createTenant(db, 'Soak')
  const fake = await startFakeNotebook({ host: '127.0.0.1' })
  const app = fake.control.registerApp({ client: {} })
  const entryIds = Array.from({ length: 20 }, (_, i) => `etr_soak_${String(i).padStart(3, '0')}`)
  for (const id of entryIds) sampleEntry(fake, id, { variant: 1 + (Number(id.slice(-3)) % 5) })
  const ctx = await ownerContext(db, tenant)
  const connection = await createConnection(ctx, {
    programId: tenant.program.id, providerId: 'eln_provider', name: 'Soak notebook',
    scopeRules: { projectIds: [FOLDER] }, baseUrl: fake.url, appDefinitionId: app.appDefinitionId, consent: true,
  })
  await setConnectionCredentials(ctx, connection.id, { clientId: app.clientId!, clientSecret: app.clientSecret! })
  const personas = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer', 'manufacturing_specialist', 'viewer'] as const
  const tokens = Object.fromEntries(await Promise.all(personas.map(async (p) => [p, await tenant.token(p)] as const))) as Record<(typeof personas)[number], string>

  // ports, proxies, components
  const kinds = ['connectors', 'workbench', 'twins', 'tools', 'gateway'] as const
  const ports = Object.fromEntries(await Promise.all(kinds.map(async (k) => [k, [await freePort(), await freePort()]] as const))) as unknown as Record<(typeof kinds)[number], number[]>
  // the balancers run in a process of their own, so the load generator's event loop does not sit on every request path
  const balancer = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT_DIR, 'scripts/soak-proxy.ts'), JSON.stringify(ports)], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'inherit'] })
  const proxyPorts = await new Promise<Record<string, number>>((resolve, reject) => {
    let buf = ''
    balancer.stdout!.on('data', (c: Buffer) => { buf += c.toString(); if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0])) })
    balancer.once('exit', (code) => reject(new Error(`the balancer process exited (${code})`)))
  })
  process.on('exit', () => balancer.kill('SIGKILL'))
  const proxies = Object.fromEntries(kinds.map((k) => [k, { url: `http://127.0.0.1:${proxyPorts[k]}` }])) as Record<(typeof kinds)[number], { url: string }>
  const common = {
    DATABASE_URL: url, DATA_DIR: dir, NODE_ENV: 'development', HOST: '127.0.0.1', GATEWAY_HOST: '127.0.0.1',
    CONNECTORS_URL: `${proxies.connectors.url}/graphql`, WORKBENCH_URL: `${proxies.workbench.url}/graphql`,
    TWINS_URL: `${proxies.twins.url}/graphql`, TOOLS_URL: proxies.tools.url, PUBLIC_URL: proxies.gateway.url,
    WORKER_CONCURRENCY: '2', WORKER_NICE: '0',
  }
  const files = { connectors: 'subgraphs/connectors/main.ts', workbench: 'subgraphs/workbench/main.ts', twins: 'subgraphs/twins/main.ts', tools: 'subgraphs/twins/tools/main.ts', gateway: 'gateway/main.ts' }
  const portVar = { connectors: 'CONNECTORS_PORT', workbench: 'WORKBENCH_PORT', twins: 'TWINS_PORT', tools: 'TOOLS_PORT', gateway: 'GATEWAY_PORT' }
  const components: Component[] = []
  for (const k of kinds) for (const i of [0, 1]) {
    components.push({ name: `${k}-${i + 1}`, kind: k, file: files[k], env: { ...common, [portVar[k]]: String(ports[k][i]) }, ready: '"component.ready"', restarts: 0 })
  }
  for (const i of [0, 1]) components.push({ name: `worker-${i + 1}`, kind: 'worker', file: 'jobs/main.ts', env: common, ready: '"worker.started"', restarts: 0 })
  process.on('exit', () => { for (const comp of components) comp.child?.kill('SIGKILL') }) // never leave replicas behind
  process.on('SIGINT', () => process.exit(130))
  process.stdout.write(`soak: ${components.length} processes starting (logs in ${logDir})\n`)
  // subgraphs first, then the gateways (they read nothing from the subgraphs at start, but queries need them)
  await Promise.all(components.filter((c) => c.kind !== 'gateway').map((c) => start(c, logDir)))
  await Promise.all(components.filter((c) => c.kind === 'gateway').map((c) => start(c, logDir)))
  for (const c of components) c.memoryStartMb = rssMb(c.child?.pid)
  const gatewayUrl = `${proxies.gateway.url}/graphql`
  const hookUrl = `${proxies.gateway.url}/api/v1/hooks/eln_provider/${connection.id}`
  process.stdout.write(`soak: started in ${((now() - t0) / 1000).toFixed(0)} s; load for ${SECONDS} s\n`)

  // inbox items the load resolves (filed before the load: their 'created' events are not counted)
  const itemsPerUser = Math.ceil((CHANGES_PER_SECOND * SECONDS * 1.2) / personas.length) + 5
  const items = new Map<string, string[]>()
  for (const p of personas) {
    const ids: string[] = []
    for (let i = 0; i < itemsPerUser; i++) {
      const item = await db.$transaction((tx) => fileInboxItem(tx, {
        organizationId: tenant.organization.id, userId: tenant.users[p].id, programId: tenant.program.id,
        kind: 'question', sourceType: 'thread', sourceId: `soak-${p}-${i}`, title: `Soak question ${i}`,
      }))
      ids.push(item.id)
    }
    items.set(p, ids)
  }

  // ---- subscribers: SUBSCRIBERS subscriptions, SUBSCRIPTIONS_PER_SOCKET per socket, spread over the personas -------
  // An interval is one stream of a subscription; firstAt is its first event: from then on it is known to be registered
  // at a twins replica (subscribing says nothing back in graphql-ws), so every later change for its person must arrive.
  interface Sub { persona: string; received: Set<string>; intervals: { from: number; firstAt?: number; to?: number; ended?: 'code' | 'socket' | 'silent' }[] }
  const subs: Sub[] = []
  const sockets: { client?: Client; subs: Sub[]; persona: string; closing: boolean }[] = []
  let streamEndsWithCode = 0
  let streamEndsBySocket = 0
  let streamEndsSilent = 0
  let resubscribes = 0
  let reopenedSockets = 0
  const endCodes = new Map<string, number>()
  let stopping = false
  // A client as an application would write it: a stream that ends with a code is subscribed again on the same socket
  // (after refetching); a socket that closes is opened again with all its streams.
  const subscribeOne = (s: (typeof sockets)[number], client: Client, sub: Sub, alive: () => boolean) => {
    const interval: Sub['intervals'][number] = { from: now() }
    sub.intervals.push(interval)
    const resubscribe = () => {
      if (stopping || !alive()) return
      resubscribes++
      setTimeout(() => { if (!stopping && alive()) subscribeOne(s, client, sub, alive) }, 1_000 + Math.random() * 1_000)
    }
    client.subscribe<{ inboxChanged: { id: string; change: string } }>({ query: 'subscription { inboxChanged { id change } }' }, {
      next: (m) => {
        if (m.data?.inboxChanged) {
          interval.firstAt ??= now()
          sub.received.add(`${m.data.inboxChanged.id}:${m.data.inboxChanged.change}`)
          return
        }
        const code = String((m.errors?.[0] as any)?.extensions?.code ?? 'none')
        endCodes.set(code, (endCodes.get(code) ?? 0) + 1)
        if (code === SUBSCRIPTION_INTERRUPTED) streamEndsWithCode++
        if (interval.to === undefined) { interval.to = now(); interval.ended = 'code' }
      },
      error: (e) => {
        if (Array.isArray(e)) { // an error message for this operation: it has its code
          const code = String((e[0] as any)?.extensions?.code ?? 'none')
          endCodes.set(code, (endCodes.get(code) ?? 0) + 1)
          if (interval.to === undefined) { interval.to = now(); interval.ended = 'code' }
          return resubscribe()
        }
        if (interval.to === undefined) { interval.to = now(); interval.ended = 'socket'; streamEndsBySocket++ }
        reopen(s, client)
      },
      complete: () => {
        if (stopping || !alive()) { if (interval.to === undefined) { interval.to = now(); interval.ended = 'socket' } return }
        if (interval.to === undefined) { interval.to = now(); interval.ended = 'silent'; streamEndsSilent++ }
        resubscribe()
      },
    })
  }
  const reopen = (s: (typeof sockets)[number], client: Client) => {
    if (s.client !== client) return // already reopened
    s.client = undefined
    void client.dispose()
    if (stopping) return
    reopenedSockets++
    setTimeout(() => openSocket(s), 1_000 + Math.random() * 1_000)
  }
  const openSocket = (s: (typeof sockets)[number]) => {
    const client = createClient({
      url: gatewayUrl.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false,
      onNonLazyError: () => {}, connectionParams: { authorization: `Bearer ${tokens[s.persona as keyof typeof tokens]}` },
    })
    s.client = client
    const alive = () => s.client === client
    for (const sub of s.subs) subscribeOne(s, client, sub, alive)
  }
  for (let i = 0; i < SUBSCRIBERS; i++) subs.push({ persona: personas[i % personas.length], received: new Set(), intervals: [] })
  for (const p of personas) {
    const mine = subs.filter((s) => s.persona === p)
    for (let i = 0; i < mine.length; i += SUBSCRIPTIONS_PER_SOCKET) sockets.push({ subs: mine.slice(i, i + SUBSCRIPTIONS_PER_SOCKET), persona: p, closing: false })
  }
  for (const s of sockets) { openSocket(s); await sleep(20) }
  await sleep(SETTLE_MS)

  // ---- load ---------------------------------------------------------------------------------------------------
  const accepted = new Set<string>()
  const committed: { persona: string; key: string; sentAt: number; answeredAt: number }[] = []
  let loadRunning = true
  const inFlight = new Set<Promise<unknown>>()
  const track = (p: Promise<unknown>) => { inFlight.add(p); void p.finally(() => inFlight.delete(p)) }
  const every = (perSecond: number, fn: () => Promise<void>) => (async () => {
    const interval = 1000 / perSecond
    let due = now()
    while (loadRunning) {
      due += interval
      track(fn().catch(() => {}))
      await sleep(Math.max(0, due - now()))
    }
  })()

  let entry = 0
  const webhook = async () => {
    const d = fake.control.buildDelivery(app.appDefinitionId, entryUpdated(entryIds[entry++ % entryIds.length]))
    // the vendor retries a delivery that was not accepted (same id, same signature), as a real one does
    for (let attempt = 0; attempt < 8; attempt++) {
      const t = now()
      try {
        const res = await fetch(hookUrl, { method: 'POST', headers: d.headers, body: d.rawBody, signal: AbortSignal.timeout(10_000) })
        await res.arrayBuffer()
        record('webhook', res.status === 202 || res.status === 200 ? 'ok' : String(res.status), now() - t)
        if (res.status === 202 || res.status === 200) { accepted.add(d.deliveryId); return }
        if (res.status < 500 && res.status !== 429) return
      } catch { record('webhook', 'transport_error') }
      await sleep(1_000 * (attempt + 1))
    }
  }
  // The console's first screen as it sends it (the role home, console/src/operations/home.graphql), which every
  // persona may open; before, a query asking every persona for `connections` was refused to the half without
  // program.connections.read and counted FORBIDDEN.
  const CONSOLE = { query: print(RoleHomeDocument), variables: { slug: tenant.program.slug } }
  const INBOX = { query: '{ myInbox(first: 20) { nodes { id status kind } pageInfo { hasNextPage } } }' }
  let q = 0
  const query = async () => {
    const persona = personas[q % personas.length]
    const body = q++ % 2 ? CONSOLE : INBOX
    const t = now()
    try {
      const r = await post(gatewayUrl, body, tokens[persona])
      record('query', r.status === 200 && !r.json?.errors ? 'ok' : r.status !== 200 ? String(r.status) : String(r.json.errors[0]?.extensions?.code ?? 'error'), now() - t)
    } catch { record('query', 'transport_error') }
  }
  let c = 0
  const change = async () => {
    const persona = personas[c++ % personas.length]
    const id = items.get(persona)!.pop()
    if (!id) return
    const sentAt = now()
    try {
      const r = await post(gatewayUrl, { query: 'mutation($id: ID!) { resolveInboxItem(id: $id) { __typename } }', variables: { id } }, tokens[persona])
      const ok = r.status === 200 && r.json?.data?.resolveInboxItem?.__typename === 'MutationResolveInboxItemSuccess'
      record('inbox_change', ok ? 'ok' : r.status !== 200 ? String(r.status) : String(r.json?.errors?.[0]?.extensions?.code ?? r.json?.data?.resolveInboxItem?.__typename ?? 'error'), now() - sentAt)
      if (ok) committed.push({ persona, key: `${id}:resolved`, sentAt, answeredAt: now() })
    } catch { record('inbox_change', 'transport_error') }
  }
  const SKILL = `mutation($programId: ID!, $input: SkillRunInput!) { runSkill(programId: $programId, input: $input) { __typename } }`
  const fih = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] }
  const skill = async () => {
    const t = now()
    try {
      const r = await post(gatewayUrl, { query: SKILL, variables: { programId: tenant.program.id, input: { skillKey: 'tox.fih_dose_projection', inputs: fih } } }, tokens.scientist)
      const ok = r.status === 200 && r.json?.data?.runSkill?.__typename === 'MutationRunSkillSuccess'
      record('skill_run', ok ? 'ok' : r.status !== 200 ? String(r.status) : String(r.json?.errors?.[0]?.extensions?.code ?? r.json?.data?.runSkill?.__typename ?? 'error'), now() - t)
    } catch { record('skill_run', 'transport_error') }
  }

  // ---- faults -------------------------------------------------------------------------------------------------
  const faults: string[] = []
  const loadStart = now()
  const at = (fraction: number) => loadStart + fraction * SECONDS * 1000
  const restartOne = async (name: string, fraction: number) => {
    await sleep(Math.max(0, at(fraction) - now()))
    if (!loadRunning) return
    const comp = components.find((x) => x.name === name)!
    await kill(comp)
    faults.push(`${((now() - loadStart) / 1000).toFixed(0)} s: killed ${name} (SIGKILL)`)
    await sleep(3_000)
    try {
      await start(comp, logDir)
      comp.restarts++
      faults.push(`${((now() - loadStart) / 1000).toFixed(0)} s: ${name} restarted`)
    } catch (e) { faults.push(`${name} failed to restart: ${(e as Error).message}`) }
  }
  const restartPostgres = async (fraction: number) => {
    await sleep(Math.max(0, at(fraction) - now()))
    if (!loadRunning) return
    await pgHandle!.stop()
    pgHandle = undefined
    faults.push(`${((now() - loadStart) / 1000).toFixed(0)} s: PostgreSQL stopped`)
    await sleep(5_000)
    pgHandle = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort })
    faults.push(`${((now() - loadStart) / 1000).toFixed(0)} s: PostgreSQL started again`)
  }
  const schedule = [
    restartOne('connectors-1', 0.15), restartOne('twins-1', 0.25), restartOne('workbench-1', 0.35),
    restartOne('tools-1', 0.4), restartOne('worker-1', 0.45), restartOne('gateway-1', 0.55), restartPostgres(0.7),
  ]

  const loops = [every(WEBHOOKS_PER_SECOND, webhook), every(QUERIES_PER_SECOND, query), every(CHANGES_PER_SECOND, change), every(SKILL_RUNS_PER_SECOND, skill)]
  await sleep(SECONDS * 1000)
  loadRunning = false
  await Promise.all(loops)
  await Promise.all(schedule)
  await Promise.all([...inFlight])
  await sleep(DELIVERY_GRACE_MS)
  for (const comp of components) comp.memoryEndMb = rssMb(comp.child?.pid)

  // ---- drain: every accepted delivery processed ---------------------------------------------------------------
  const drainStart = now()
  const reader = createPrisma(url, 2)
  let processedRows = 0
  for (;;) {
    const [r] = await reader.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM webhook_deliveries WHERE connection_id = ${connection.id}::uuid AND outcome = 'enqueued' AND processed_at IS NOT NULL AND delivery_id = ANY(${[...accepted]}::text[])`
    processedRows = Number(r.n)
    if (processedRows >= accepted.size || now() - drainStart > 180_000) break
    await sleep(1_000)
  }
  const [dup] = await reader.$queryRaw<{ rows: bigint; distinct: bigint }[]>`
    SELECT count(*)::bigint AS rows, count(DISTINCT delivery_id)::bigint AS distinct FROM webhook_deliveries
     WHERE connection_id = ${connection.id}::uuid AND outcome = 'enqueued' AND delivery_id = ANY(${[...accepted]}::text[])`
  const [processedDistinct] = await reader.$queryRaw<{ n: bigint }[]>`
    SELECT count(DISTINCT delivery_id)::bigint AS n FROM webhook_deliveries
     WHERE connection_id = ${connection.id}::uuid AND outcome = 'enqueued' AND processed_at IS NOT NULL AND delivery_id = ANY(${[...accepted]}::text[])`
  const [jobs] = await reader.$queryRaw<{ failing: bigint; dead: bigint; waiting: bigint }[]>`
    SELECT count(*) FILTER (WHERE last_error IS NOT NULL AND attempts < max_attempts)::bigint AS failing,
           count(*) FILTER (WHERE attempts >= max_attempts)::bigint AS dead,
           count(*)::bigint AS waiting FROM graphile_worker.jobs`
  const lost = accepted.size - Number(processedDistinct.n)
  const twice = Number(dup.rows) - Number(dup.distinct)

  // ---- events: committed vs delivered to subscriptions connected throughout ------------------------------------
  let expected = 0
  let missedButTold = 0
  const missedAges: number[] = []
  let delivered = 0
  let excused = 0
  for (const e of committed) {
    for (const s of subs) {
      if (s.persona !== e.persona) continue
      // Expected: the stream was live when the change was sent and was never told it missed anything afterwards (still
      // open at the end, or ended silently). A stream that later ended with a code or a socket close was told, and its
      // client refetches: what it missed until then is counted apart.
      const live = s.intervals.filter((iv) => iv.firstAt !== undefined && iv.firstAt <= e.sentAt && (iv.to === undefined || iv.to >= e.answeredAt))
      const open = live.some((iv) => iv.to === undefined || iv.ended === 'silent')
      const got = s.received.has(e.key)
      if (!open && live.length && !got) missedButTold++
      if (open) {
        expected++
        if (got) delivered++
        else missedAges.push(Math.round((e.sentAt - Math.max(...s.intervals.filter((iv) => iv.firstAt !== undefined && iv.firstAt <= e.sentAt).map((iv) => iv.firstAt!))) / 1000))
      } else if (!got && !live.length) excused++
    }
  }
  stopping = true
  for (const s of sockets) await s.client?.dispose()

  // ---- the table ------------------------------------------------------------------------------------------------
  const lines: string[] = []
  const row = (...cells: (string | number)[]) => lines.push(`| ${cells.join(' | ')} |`)
  lines.push('', `## Soak: ${SECONDS} s of load, ${components.length} processes, ${SUBSCRIBERS} subscriptions`, '')
  lines.push('| operation | outcomes | p50 ms | p99 ms |', '|---|---|---|---|')
  for (const [kind, m] of outcomes) {
    const l = latencies.get(kind) ?? []
    row(kind, [...m].map(([k, v]) => `${k} ${v}`).join(', '), pct(l, 50).toFixed(0), pct(l, 99).toFixed(0))
  }
  lines.push('', '| check | value |', '|---|---|')
  const queriesOk = outcomes.get('query')?.get('ok') ?? 0
  row('queries answered per second (the console\'s role home and inbox queries, half each; asked for)', `${(queriesOk / SECONDS).toFixed(1)} (${QUERIES_PER_SECOND})`)
  row('deliveries accepted (202)', accepted.size)
  row('accepted and processed exactly once', Number(processedDistinct.n))
  row('accepted but lost (not processed)', lost)
  row('processed twice (duplicate rows)', twice)
  row('inbox events committed', committed.length)
  row('deliveries expected (streams live before the change and never told they missed events)', expected)
  row('delivered', delivered)
  if (missedAges.length) row('seconds since the stream\'s first event at each missed change: min / median / max', `${Math.min(...missedAges)} / ${pct(missedAges, 50)} / ${Math.max(...missedAges)}`)
  row('missed while their stream was down (told by a code or a socket close)', excused)
  row('missed by a live stream that later ended with a code or a socket close (told)', missedButTold)
  row('streams ended with SUBSCRIPTION_INTERRUPTED / by socket close / silently', `${streamEndsWithCode} / ${streamEndsBySocket} / ${streamEndsSilent}`)
  row('stream end codes', [...endCodes].map(([k, v]) => `${k} ${v}`).join(', ') || '-')
  row('streams subscribed again after a code / sockets reopened', `${resubscribes} / ${reopenedSockets}`)
  row('jobs failing (will retry) / failed permanently / still queued', `${jobs.failing} / ${jobs.dead} / ${jobs.waiting}`)
  row('drain after load (s)', ((now() - drainStart) / 1000).toFixed(0))
  lines.push('', '| process | RSS at start MB | RSS at end MB | restarts |', '|---|---|---|---|')
  for (const comp of components) row(comp.name, comp.memoryStartMb ?? '-', comp.memoryEndMb ?? '-', comp.restarts)
  lines.push('', 'Faults:', ...faults.map((f) => `- ${f}`), '')
  const failures: string[] = []
  if (lost > 0) failures.push(`${lost} accepted deliveries were not processed`)
  if (twice > 0) failures.push(`${twice} deliveries were stored or processed twice`)
  if (delivered < expected) failures.push(`${expected - delivered} events did not reach live streams that were never told`)
  if (streamEndsSilent > 0) failures.push(`${streamEndsSilent} streams ended without a code`)
  if (accepted.size === 0 || committed.length === 0) failures.push('no load was accepted')
  else if (expected === 0) failures.push('no event could be checked (no subscription was live when a change committed)')
  lines.push(failures.length ? `FAILED: ${failures.join('; ')}` : 'PASSED: nothing accepted was lost or processed twice')
  process.stdout.write(lines.join('\n') + '\n')

  // ---- stop ---------------------------------------------------------------------------------------------------
  await reader.$disconnect()
  await db.$disconnect()
  await Promise.all(components.map((comp) => kill(comp, 'SIGTERM')))
  balancer.kill('SIGTERM')
  await fake.close()
  await pgHandle?.stop()
  await removeEmbeddedData(pgDir).catch(() => {})
  if (!process.env.SOAK_KEEP_LOGS) await fsp.rm(dir, { recursive: true, force: true })
  process.exit(failures.length ? 1 : 0)
}

main().catch((e) => { console.error(e); process.exit(2) })
