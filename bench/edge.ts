// Edge benchmarks: federated console query latency and gateway overhead (a), and subscription delivery
// commit-to-client latency with 1,000 graphql-ws subscribers through the gateway (b), the subscribers in a process of
// their own (bench/edge-subscribers.ts), and with BENCH_EDGE_PEERS (c): the same subscribers through our gateway and
// through Hive Gateway, each its own process in front of the same subgraphs, in turn, with ours/Hive ratios. Loopback
// only. Prints one `name value` line per figure; never asserts timings. Run alone with `npx tsx bench/edge.ts`.
//
// Knobs (environment): BENCH_EDGE_QUERIES (1000), BENCH_EDGE_WARMUP (100), BENCH_EDGE_SUBSCRIBERS (1000),
// BENCH_EDGE_SOCKETS_PER_USER (1), BENCH_EDGE_EVENTS (200), BENCH_EDGE_EVENT_INTERVAL_MS (unset: one inbox event per
// second per 100 people), BENCH_EDGE_PEERS (unset: no (c); `hive`; smoke mode: hive), BENCH_EDGE_PEER_ROUNDS (3).
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, sleep, runIfMain, smokeMode } from './figures'
import { cpuMs, loadAverage, startComponent } from './throughput'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import type { EventLoopUtilization } from 'node:perf_hooks'
import { mintDevToken, signInternalToken, INTERNAL_HEADER } from '../core/identity'
import { DEFAULT_USER_SETTINGS, freePort } from '../core/database'
import { ROOT_DIR } from '../core/config'
import { SERVICE_NODE_FLAGS } from '../core/jobs'
import { startStack } from '../services'
import { UPSTREAM_SOCKETS_PER_SUBGRAPH } from '../gateway/subscription-bridge'
import { fileInboxItem } from '../domain/inbox'
import { createTenant } from '../tests/helpers/factories'
import type { FromSubscribers, ToSubscribers } from './edge-subscribers'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ms = (x: number) => x.toFixed(2)

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > until) return false
    await sleep(20)
  }
  return true
}

/** The soft limit on open files of this process (Linux), or null where /proc is not available. */
function openFileLimit(): number | null {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const soft = line?.trim().split(/\s{2,}/)[1]
    return soft === 'unlimited' ? Infinity : Number(soft) || null
  } catch { return null }
}

function openFiles(): number | null {
  try { return fs.readdirSync('/proc/self/fd').length } catch { return null }
}

/** Wall-clock milliseconds with sub-millisecond resolution: comparable with the subscribers' process (same machine). */
const wallNow = () => performance.timeOrigin + performance.now()

/** A full garbage collection, so heap figures compare live objects (V8 exposes gc() to a new context once the flag is set). */
function collectGarbage() {
  v8.setFlagsFromString('--expose-gc')
  ;(vm.runInNewContext('gc') as () => void)()
}

/** This process's descriptors, resident memory and live heap (after a collection): the server side's footprint. */
function serverFootprint() {
  collectGarbage()
  const { rss, heapUsed } = process.memoryUsage()
  return { fds: openFiles(), rss, heap: heapUsed }
}

/** The subscribers' process (bench/edge-subscribers.ts) with its clock aligned to this one's. */
interface Subscribers {
  ask<T extends FromSubscribers['type']>(m: ToSubscribers, answer: T): Promise<Extract<FromSubscribers, { type: T }>>
  /** seq -> receive times (this process's wall clock, milliseconds), one per delivery */
  received: Map<number, number[]>
  /** the shortest IPC round trip of the clock calibration (the offset's error is at most half of it) */
  clockRttMs: number
}

/** Forks a subscribers' process (pushed on `children`, which the caller kills) and measures the offset of its clock. */
async function startSubscribers(children: ChildProcess[]): Promise<Subscribers> {
  const child = fork(path.join(HERE, 'edge-subscribers.ts'), [], { cwd: path.resolve(HERE, '..'), execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  children.push(child)
  const replies = new Map<string, (m: FromSubscribers) => void>()
  const received = new Map<number, number[]>()
  let clockOffset = 0 // subscribers' clock minus this one's
  child.on('message', (m: FromSubscribers) => {
    if (m.type === 'got') {
      let list = received.get(m.seq)
      if (!list) received.set(m.seq, (list = []))
      list.push(m.at - clockOffset)
    } else {
      replies.get(m.type)?.(m)
    }
  })
  const ask = <T extends FromSubscribers['type']>(m: ToSubscribers, answer: T) => new Promise<Extract<FromSubscribers, { type: T }>>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the subscribers' process exited (${code}) before answering ${m.type}`))
    child.once('exit', onExit)
    replies.set(answer, (r) => { replies.delete(answer); child.off('exit', onExit); resolve(r as Extract<FromSubscribers, { type: T }>) })
    child.send(m)
  })
  // The two processes' clocks: the offset at the round trip with the least delay (its error is at most half of it).
  let bestRtt = Infinity
  for (let i = 0; i < 50; i++) {
    const t = wallNow()
    const r = await ask({ type: 'clock', t }, 'clock')
    const rtt = wallNow() - t
    if (rtt < bestRtt) { bestRtt = rtt; clockOffset = r.at - (t + rtt / 2) }
  }
  return { ask, received, clockRttMs: bestRtt }
}

/** Open descriptors and resident memory (KB) of another process, from /proc (Linux); null where unreadable. */
function processFootprint(pid: number): { fds: number | null; rssKb: number | null } {
  let fds: number | null = null
  let rssKb: number | null = null
  try { fds = fs.readdirSync(`/proc/${pid}/fd`).length } catch { /* not Linux */ }
  try { rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) || null } catch { /* not Linux */ }
  return { fds, rssKb }
}

/**
 * A process's established TCP connections to each of `ports` (by name), from its descriptors and its network
 * namespace's TCP tables (Linux): the same count for any gateway, whatever it keeps in its own state.
 */
function connectionsTo(pid: number, ports: Record<string, number>): Record<string, number> | null {
  try {
    const inodes = new Set<string>()
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try { const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`)); if (m) inodes.add(m[1]) } catch { /* closed meanwhile */ }
    }
    const byPort = new Map(Object.entries(ports).map(([name, port]) => [port, name]))
    const counts: Record<string, number> = Object.fromEntries(Object.keys(ports).map((name) => [name, 0]))
    for (const table of ['tcp', 'tcp6']) {
      let text = ''
      try { text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8') } catch { continue }
      for (const line of text.split('\n').slice(1)) {
        const f = line.trim().split(/\s+/)
        if (f.length < 10 || f[3] !== '01' || !inodes.has(f[9])) continue // 01: ESTABLISHED
        const name = byPort.get(parseInt(f[2].split(':')[1], 16))
        if (name) counts[name]++
      }
    }
    return counts
  } catch { return null }
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  if (!s.length) return NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/** Ends a child process (SIGTERM: a component's graceful stop), SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/** The gateways of the side-by-side (c): ours, and the peers that serve subscriptions (Apollo Gateway does not). */
const EDGE_PEERS = ['hive'] as const
type EdgeGateway = 'ours' | (typeof EDGE_PEERS)[number]

/** One gateway's phase of (c): the subscribers through it, paced events, its process's footprint. */
interface PeerPhase {
  gateway: EdgeGateway
  connected: number
  /** subscriptions live in twins' fan-out once connected */
  reached: number
  connectS: number
  /** commit-to-client latencies of the deliveries (ms) */
  lat: number[]
  expected: number
  errors: number
  firstError?: string
  extra: number
  closedAbnormally: number
  fdsPerSubscriber: number
  rssKbPerSubscriber: number
  rssMb: number
  /** the gateway process's established connections to each subgraph with every subscriber connected */
  upstream: Record<string, number> | null
  cpuMsPerSubscriberConnect: number
  /** the gateway process's CPU over the paced events, per delivery (idle work included) */
  cpuMsPerDelivery: number
  /** the same number of events again, committed as fast as four connections allow: latencies, expected, CPU per delivery */
  burstLat: number[]
  burstExpected: number
  cpuMsPerBurstDelivery: number
  drained: boolean
  drainMs: number
}

// ---------------------------------------------------------------------------------------------------------
// (a) queries

const FEDERATED_QUERY = '{ myInbox(first: 50) { nodes { id kind status title program { name slug } } } }'
const DIRECT_QUERY = '{ myInbox(first: 50) { nodes { id kind status title program { id } } } }'
const CONSOLE_QUERY = `{
  me { programs { program { name connections { nodes { id } } myOpenInboxCount } } }
  myInbox(first: 50) { nodes { id kind status title program { name slug } } }
}`

async function post(url: string, query: string, headers: Record<string, string>): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) })
  return res.json()
}

/** `n` sequential requests after `warm` unmeasured ones; every answer is checked (50 nodes, no errors). */
async function timeQuery(label: string, url: string, query: string, headers: () => Promise<Record<string, string>>, n: number, warm: number): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < warm + n; i++) {
    const h = await headers()
    const t0 = performance.now()
    const body = await post(url, query, h)
    const dt = performance.now() - t0
    if (body.errors?.length || body.data?.myInbox?.nodes?.length !== 50) {
      throw new Error(`${label}: unexpected answer: ${JSON.stringify(body).slice(0, 500)}`)
    }
    if (i >= warm) times.push(dt)
  }
  return times
}

// ---------------------------------------------------------------------------------------------------------

export async function benchEdge(): Promise<void> {
  const restoreLogs = quietLogs()
  const { QUERIES, WARMUP, SUBSCRIBERS: REQUESTED_SUBSCRIBERS, SOCKETS_PER_USER, EVENTS, EVENT_INTERVAL_MS, PEER_ROUNDS } = knobs('BENCH_EDGE', {
    // EVENT_INTERVAL_MS 0: derived from the people subscribed (one event per second per 100 people)
    QUERIES: 1000, WARMUP: 100, SUBSCRIBERS: 1000, SOCKETS_PER_USER: 1, EVENTS: 200, EVENT_INTERVAL_MS: 0, PEER_ROUNDS: 3,
  }, { QUERIES: 5, WARMUP: 1, SUBSCRIBERS: 5, EVENTS: 5, EVENT_INTERVAL_MS: 25, PEER_ROUNDS: 1 })
  // (c): the peers beside ours, comma-separated; none unless asked (smoke mode: hive, so its path keeps working)
  const peers = (process.env.BENCH_EDGE_PEERS ?? (smokeMode() ? 'hive' : '')).split(',').map((p) => p.trim()).filter(Boolean) as EdgeGateway[]
  for (const p of peers) {
    if (!(EDGE_PEERS as readonly string[]).includes(p)) throw new Error(`BENCH_EDGE_PEERS: ${p} is not a peer that serves subscriptions here; known: ${EDGE_PEERS.join(', ')}`)
  }

  const tSetup = performance.now()
  const bench = await openStackBench('edge')
  const { database, db, writer } = bench
  const children: ChildProcess[] = [] // the subscribers' processes, and the gateways of the side-by-side (c)
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    // production: no GraphiQL asset build, no introspection; otherwise the same gateway.
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    out('edge.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const gatewayUrl = `${stack.gatewayUrl}/graphql`
    const tenant = await createTenant(writer, 'Bench')
    const lead = tenant.users.program_lead
    await writer.$transaction(async (tx) => {
      for (let i = 0; i < 50; i++) {
        await fileInboxItem(tx, {
          organizationId: tenant.organization.id, userId: lead.id, programId: tenant.program.id,
          kind: 'decision', sourceType: 'bench', sourceId: `q-${i}`, title: `Bench item ${i}`,
        })
      }
    })
    out('edge.setup_s', ((performance.now() - tSetup) / 1000).toFixed(1))

    // ---- (a) queries ----
    const bearer = { authorization: `Bearer ${await tenant.token('program_lead')}` }
    let internal = { token: '', at: 0 }
    const internalHeaders = async () => {
      if (Date.now() - internal.at > 30_000) { // internal tokens live 60 s; the gateway reuses one for 30 s
        internal = { token: await signInternalToken({ userId: lead.id, organizationId: tenant.organization.id, requestId: `bench-${randomBytes(4).toString('hex')}` }), at: Date.now() }
      }
      return { [INTERNAL_HEADER]: internal.token }
    }
    const bearerHeaders = async () => bearer

    out('edge.query.requests_each', QUERIES)
    const direct = await timeQuery('direct', stack.subgraphUrls.twins, DIRECT_QUERY, internalHeaders, QUERIES, WARMUP)
    const same = await timeQuery('gateway same', gatewayUrl, DIRECT_QUERY, bearerHeaders, QUERIES, WARMUP)
    const federated = await timeQuery('federated', gatewayUrl, FEDERATED_QUERY, bearerHeaders, QUERIES, WARMUP)
    const consoleQ = await timeQuery('console', gatewayUrl, CONSOLE_QUERY, bearerHeaders, QUERIES, WARMUP)
    for (const [name, xs] of [['direct', direct], ['gateway_same', same], ['federated', federated], ['console', consoleQ]] as const) {
      out(`edge.query.${name}_p50_ms`, ms(percentile(xs, 50)))
      out(`edge.query.${name}_p99_ms`, ms(percentile(xs, 99)))
    }
    out('edge.query.overhead_ratio', (percentile(federated, 50) / percentile(direct, 50)).toFixed(2))
    out('edge.query.overhead_ratio_same_query', (percentile(same, 50) / percentile(direct, 50)).toFixed(2))

    // ---- (b) subscriptions ----
    // The subscribers run in a process of their own (bench/edge-subscribers.ts): this process's descriptors and memory
    // are then the server side's alone (gateway and subgraphs), and the clients' work is not on the gateway's loop.
    const fdLimit = openFileLimit()
    // In this process each subscriber holds one descriptor (the gateway's end of its socket); the bridge's upstream
    // sockets are shared (two ends each, at most UPSTREAM_SOCKETS_PER_SUBGRAPH per subgraph). The subscribers'
    // process holds one per subscriber. Keep 200 for the pools, PostgreSQL clients and files.
    const fdNeed = REQUESTED_SUBSCRIBERS + 2 * UPSTREAM_SOCKETS_PER_SUBGRAPH * Object.keys(stack.subgraphUrls).length + 200
    let subscribers = REQUESTED_SUBSCRIBERS
    out('edge.sub.open_file_limit', fdLimit ?? 'unknown')
    if (fdLimit !== null && fdLimit < fdNeed) {
      subscribers = Math.max(1, fdLimit - (fdNeed - REQUESTED_SUBSCRIBERS))
      out('edge.sub.note', `REDUCED_from_${REQUESTED_SUBSCRIBERS}_to_${subscribers}:_open_file_limit_${fdLimit}_<_needed_${fdNeed};_raise_with_ulimit_-n_${fdNeed}`)
    }
    const userCount = Math.max(1, Math.ceil(subscribers / SOCKETS_PER_USER))
    const tag = randomBytes(3).toString('hex')
    const users = await writer.user.createManyAndReturn({
      data: Array.from({ length: userCount }, (_, i) => ({
        organizationId: tenant.organization.id, email: `bench-${tag}-${i}@bench.example`, name: `Bench subscriber ${i}`, settings: DEFAULT_USER_SETTINGS,
      })),
      select: { id: true, email: true },
    })
    await writer.programMembership.createMany({ data: users.map((u) => ({ organizationId: tenant.organization.id, programId: tenant.program.id, userId: u.id })) })
    await writer.roleAssignment.createMany({ data: users.map((u) => ({ organizationId: tenant.organization.id, programId: tenant.program.id, userId: u.id, personaKey: 'scientist' })) })
    const tokens = await Promise.all(users.map((u) => mintDevToken(u)))

    out('edge.sub.subscribers_requested', REQUESTED_SUBSCRIBERS)
    out('edge.sub.users', userCount)
    out('edge.sub.sockets_per_user', SOCKETS_PER_USER)

    const { ask, received, clockRttMs } = await startSubscribers(children)
    out('edge.sub.clock_sync_rtt_ms', ms(clockRttMs))

    // the server side before and after the subscribers: what they cost it
    const before = serverFootprint()
    const clientBefore = await ask({ type: 'stats' }, 'stats')
    const SUBSCRIPTION = 'subscription { inboxChanged { id status title program { name } } }'
    const tConnect = performance.now()
    const opened = await ask({ type: 'open', url: gatewayUrl.replace(/^http/, 'ws'), tokens, subscribers, query: SUBSCRIPTION, batch: 50 }, 'opened')
    const allSubscribed = await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount >= subscribers, Math.max(60_000, subscribers * 10))
    out('edge.sub.connect_s', ((performance.now() - tConnect) / 1000).toFixed(1))
    out('edge.sub.connected', opened.connected)
    out('edge.sub.subscribers', stack.subgraphs.twins.inboxEvents.subscriberCount)
    out('edge.sub.bridge_active', stack.gateway.bridge.activeCount)
    if (!allSubscribed) out('edge.sub.note', `only_${stack.subgraphs.twins.inboxEvents.subscriberCount}_of_${subscribers}_subscriptions_reached_twins_within_the_wait`)
    for (const [subgraph, n] of Object.entries(stack.gateway.bridge.upstreamSockets)) out(`edge.sub.upstream_sockets.${subgraph}`, n)
    const after = serverFootprint()
    const per = (a: number | null, b: number | null, scale = 1) => a === null || b === null ? 'unknown' : ((a - b) / scale / subscribers).toFixed(2)
    out('edge.sub.server_open_fds', after.fds ?? 'unknown')
    out('edge.sub.server_fds_per_subscriber', per(after.fds, before.fds))
    out('edge.sub.server_rss_mb', Math.round(after.rss / 2 ** 20))
    out('edge.sub.server_heap_mb', Math.round(after.heap / 2 ** 20))
    out('edge.sub.server_rss_kb_per_subscriber', per(after.rss, before.rss, 1024))
    out('edge.sub.server_heap_kb_per_subscriber', per(after.heap, before.heap, 1024))
    const clientSide = await ask({ type: 'stats' }, 'stats')
    out('edge.sub.client_process_fds_per_subscriber', per(clientSide.fds, clientBefore.fds))

    // Events go to distinct users (spread over all of them); each is delivered to that user's sockets.
    const committedAt: number[] = []
    const targetOf = (seq: number) => users[(seq * 7919) % userCount] // 7919 is prime: a spread, distinct for seq < userCount
    const fileEvent = async (seq: number) => {
      const u = targetOf(seq)
      await writer.$transaction((tx) => fileInboxItem(tx, {
        organizationId: tenant.organization.id, userId: u.id, programId: tenant.program.id,
        kind: 'information', sourceType: 'bench', sourceId: `s-${seq}`, title: `bench#${seq}`,
      }))
      committedAt[seq] = wallNow()
    }
    const socketsOf = (seq: number) => {
      const idx = users.indexOf(targetOf(seq))
      let n = 0
      for (let i = idx; i < subscribers; i += userCount) n++
      return n
    }
    const expectedOf = (seqs: number[]) => seqs.reduce((n, s) => n + socketsOf(s), 0)
    /** Waits (up to 15 s) for the deliveries of `seqs` the subscribers' process reported; commit-to-client latencies. */
    const latencies = async (seqs: number[], received: Map<number, number[]>): Promise<number[]> => {
      const expected = expectedOf(seqs)
      const deliveredNow = () => seqs.reduce((n, s) => n + (received.get(s)?.length ?? 0), 0)
      await waitFor(() => deliveredNow() >= expected, 15_000)
      const lat: number[] = []
      for (const s of seqs) for (const at of received.get(s) ?? []) lat.push(at - committedAt[s])
      return lat
    }
    /** Waits for the deliveries, then prints latency figures and this thread's event-loop utilisation since `elu`. */
    const measure = async (label: string, seqs: number[], elu: EventLoopUtilization) => {
      const lat = await latencies(seqs, received)
      const utilisation = performance.eventLoopUtilization(elu).utilization
      out(`edge.sub.${label}_events`, seqs.length)
      out(`edge.sub.${label}_delivered`, `${lat.length}/${expectedOf(seqs)}`)
      out(`edge.sub.${label}_p50_ms`, ms(percentile(lat, 50)))
      out(`edge.sub.${label}_p99_ms`, ms(percentile(lat, 99)))
      out(`edge.sub.${label}_max_ms`, ms(lat.length ? Math.max(...lat) : NaN))
      out(`edge.sub.${label}_event_loop_utilisation`, utilisation.toFixed(2))
    }

    // Paced: one inbox event per second per 100 people unless BENCH_EDGE_EVENT_INTERVAL_MS says otherwise (open loop:
    // the next commit does not wait for delivery).
    const intervalMs = EVENT_INTERVAL_MS || 100_000 / userCount
    const filePaced = async (seqs: number[]) => {
      const t0 = performance.now()
      const inflight: Promise<void>[] = []
      for (const [i, seq] of seqs.entries()) {
        const wait = t0 + i * intervalMs - performance.now()
        if (wait > 1) await sleep(wait)
        inflight.push(fileEvent(seq))
      }
      await Promise.all(inflight)
    }
    const paced = Array.from({ length: EVENTS }, (_, i) => i)
    const eluPaced = performance.eventLoopUtilization()
    await filePaced(paced)
    out('edge.sub.paced_interval_ms', intervalMs.toFixed(1))
    out('edge.sub.paced_events_per_s', (1000 / intervalMs).toFixed(1))
    await measure('paced', paced, eluPaced)

    // Burst: the same number of events committed as fast as 4 connections allow (shows queueing).
    const burst = Array.from({ length: EVENTS }, (_, i) => EVENTS + i)
    const eluBurst = performance.eventLoopUtilization()
    const tBurst = performance.now()
    const fileBurst = async (seqs: number[]) => {
      let next = 0
      await Promise.all(Array.from({ length: 4 }, async () => { while (next < seqs.length) await fileEvent(seqs[next++]) }))
    }
    await fileBurst(burst)
    out('edge.sub.burst_commit_rate_per_s', Math.round(burst.length / ((performance.now() - tBurst) / 1000)))
    await measure('burst', burst, eluBurst)
    const stats = await ask({ type: 'stats' }, 'stats')
    out('edge.sub.error_messages', stats.errorMessages)
    if (stats.firstError) out('edge.sub.first_error', stats.firstError.replace(/\s+/g, '_'))
    out('edge.sub.unexpected_deliveries', stats.extraDeliveries)
    out('edge.sub.sockets_closed_abnormally', stats.socketClosedAbnormally)

    // ---- dispose: the fan-out, the bridge and its shared upstream sockets must drain to zero ----
    const tDispose = performance.now()
    await ask({ type: 'dispose' }, 'disposed')
    const drained = await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount === 0 && stack.gateway.bridge.activeCount === 0 && stack.gateway.bridge.upstreamSocketCount === 0, 15_000)
    out('edge.sub.after_dispose_subscribers', stack.subgraphs.twins.inboxEvents.subscriberCount)
    out('edge.sub.after_dispose_bridge_active', stack.gateway.bridge.activeCount)
    out('edge.sub.after_dispose_upstream_sockets', stack.gateway.bridge.upstreamSocketCount)
    out('edge.sub.drained', drained ? 'yes' : 'NO')
    out('edge.sub.drain_ms', Math.round(performance.now() - tDispose))

    // ---- (c) the same subscribers through our gateway and through each peer, side by side ----
    // Each gateway runs as its own process in front of this process's subgraphs (same database, same people, same
    // subscription, same pacing), one after the other, the first rotating between rounds; every phase starts a fresh
    // gateway process and a fresh subscribers' process, so each gateway's descriptors, memory and CPU are its own.
    if (!peers.length) return
    const subgraphPorts = Object.fromEntries(Object.entries(stack.subgraphUrls).map(([name, url]) => [name, Number(new URL(url).port)]))
    const childEnv: Record<string, string> = {
      DATABASE_URL: database.url, DATA_DIR: database.dataDir, NODE_ENV: 'development', // development: the bench's dev tokens
      CONNECTORS_URL: stack.subgraphUrls.connectors, WORKBENCH_URL: stack.subgraphUrls.workbench, TWINS_URL: stack.subgraphUrls.twins,
      CONNECTORS_PORT: String(subgraphPorts.connectors), WORKBENCH_PORT: String(subgraphPorts.workbench), TWINS_PORT: String(subgraphPorts.twins),
    }
    const twins = stack.subgraphs.twins.inboxEvents
    let nextSeq = 2 * EVENTS
    const phase = async (gateway: EdgeGateway): Promise<PeerPhase> => {
      const port = await freePort()
      const at = children.length
      const ready = gateway === 'ours'
        ? startComponent(ROOT_DIR, 'gateway/main.ts', { ...childEnv, GATEWAY_PORT: String(port) }, [...SERVICE_NODE_FLAGS], children)
        : startComponent(ROOT_DIR, path.join(HERE, 'peer-gateway.ts'), { ...childEnv, PEER_PORT: String(port), PEER_SUBSCRIPTIONS: '1' }, [...SERVICE_NODE_FLAGS], children, [gateway])
      const gatewayProcess = children[at]
      await ready
      const pid = gatewayProcess.pid!
      try {
        const subs = await startSubscribers(children)
        const twinsBefore = twins.subscriberCount
        const before = processFootprint(pid)
        const cpuStart = cpuMs(pid)
        const tConnect = performance.now()
        const opened = await subs.ask({ type: 'open', url: `ws://127.0.0.1:${port}/graphql`, tokens, subscribers, query: SUBSCRIPTION, batch: 50 }, 'opened')
        await waitFor(() => twins.subscriberCount >= twinsBefore + subscribers, Math.max(60_000, subscribers * 10))
        const connectS = (performance.now() - tConnect) / 1000
        const reached = twins.subscriberCount - twinsBefore
        const cpuConnect = cpuMs(pid) - cpuStart
        await sleep(1000) // the last acknowledgements and upstream subscribes settle
        const after = processFootprint(pid)
        const upstream = connectionsTo(pid, subgraphPorts)
        // EVENTS new events filed by `file`: their sequence numbers, latencies and the gateway's CPU meanwhile
        const events = async (file: (seqs: number[]) => Promise<unknown>) => {
          const seqs = Array.from({ length: EVENTS }, (_, i) => nextSeq + i)
          nextSeq += EVENTS
          const cpu0 = cpuMs(pid)
          await file(seqs)
          const lat = await latencies(seqs, subs.received)
          return { seqs, lat, cpu: cpuMs(pid) - cpu0 }
        }
        const { seqs, lat, cpu: cpuEvents } = await events(filePaced)
        // the burst: its CPU is the deliveries' work, where the paced run's also holds the idle gateway's timers
        const { seqs: burst, lat: burstLat, cpu: cpuBurstEvents } = await events(fileBurst)
        const stats = await subs.ask({ type: 'stats' }, 'stats')
        const tDispose = performance.now()
        await subs.ask({ type: 'dispose' }, 'disposed')
        const drained = await waitFor(() => twins.subscriberCount === twinsBefore, 15_000)
        const per = (a: number | null, b: number | null) => a === null || b === null ? NaN : (a - b) / subscribers
        return {
          gateway, connected: opened.connected, reached, connectS, lat, expected: expectedOf(seqs),
          errors: stats.errorMessages, firstError: stats.firstError, extra: stats.extraDeliveries, closedAbnormally: stats.socketClosedAbnormally,
          fdsPerSubscriber: per(after.fds, before.fds), rssKbPerSubscriber: per(after.rssKb, before.rssKb), rssMb: (after.rssKb ?? NaN) / 1024,
          upstream, cpuMsPerSubscriberConnect: cpuConnect / subscribers, cpuMsPerDelivery: cpuEvents / Math.max(1, lat.length),
          burstLat, burstExpected: expectedOf(burst), cpuMsPerBurstDelivery: cpuBurstEvents / Math.max(1, burstLat.length),
          drained, drainMs: performance.now() - tDispose,
        }
      } finally {
        await stopChild(gatewayProcess)
      }
    }

    const gateways: EdgeGateway[] = ['ours', ...peers]
    const phases: PeerPhase[] = []
    out('edge.peers.gateways', gateways.join(','))
    out('edge.peers.rounds', PEER_ROUNDS)
    out('edge.peers.subscribers', subscribers)
    out('edge.peers.events_per_phase', EVENTS)
    out('edge.peers.paced_events_per_s', (1000 / intervalMs).toFixed(1))
    out('edge.peers.load_average_before', `"${loadAverage()}"`)
    for (let round = 0; round < PEER_ROUNDS; round++) {
      for (const gateway of gateways.map((_, i) => gateways[(i + round) % gateways.length])) {
        const r = await phase(gateway)
        phases.push(r)
        process.stderr.write(`edge peers round ${round + 1} ${gateway}: delivered ${r.lat.length}/${r.expected}, p50 ${ms(percentile(r.lat, 50))} p99 ${ms(percentile(r.lat, 99))} ms, `
          + `${r.fdsPerSubscriber.toFixed(2)} fds and ${r.rssKbPerSubscriber.toFixed(1)} KB RSS per subscriber, upstream ${JSON.stringify(r.upstream)}, `
          + `CPU ${r.cpuMsPerDelivery.toFixed(2)} ms per delivery (burst ${r.cpuMsPerBurstDelivery.toFixed(2)}, p99 ${ms(percentile(r.burstLat, 99))} ms), errors ${r.errors} (load ${loadAverage()})\n`)
      }
    }
    out('edge.peers.load_average_after', `"${loadAverage()}"`)
    // per gateway: each figure as the median of its rounds (a round that met a load spike from elsewhere does not decide
    // it), latencies also by round and pooled
    const summary = new Map<EdgeGateway, Record<string, number>>()
    for (const gateway of gateways) {
      const runs = phases.filter((r) => r.gateway === gateway)
      const lat = runs.flatMap((r) => r.lat)
      const med = (f: (r: PeerPhase) => number) => median(runs.map(f))
      const key = `edge.peers.${gateway}`
      const figures: Record<string, number> = {
        paced_p50_ms: med((r) => percentile(r.lat, 50)), paced_p99_ms: med((r) => percentile(r.lat, 99)),
        gateway_fds_per_subscriber: med((r) => r.fdsPerSubscriber), gateway_rss_kb_per_subscriber: med((r) => r.rssKbPerSubscriber),
        gateway_cpu_ms_per_subscriber_connect: med((r) => r.cpuMsPerSubscriberConnect), gateway_cpu_ms_per_delivery: med((r) => r.cpuMsPerDelivery),
        burst_p50_ms: med((r) => percentile(r.burstLat, 50)), burst_p99_ms: med((r) => percentile(r.burstLat, 99)),
        gateway_cpu_ms_per_burst_delivery: med((r) => r.cpuMsPerBurstDelivery),
      }
      summary.set(gateway, figures)
      out(`${key}.connected`, runs.map((r) => r.connected).join('/'))
      out(`${key}.subscriptions_reached_twins`, runs.map((r) => r.reached).join('/'))
      out(`${key}.connect_s`, med((r) => r.connectS).toFixed(1))
      out(`${key}.paced_delivered`, `${lat.length}/${runs.reduce((n, r) => n + r.expected, 0)}`)
      out(`${key}.paced_p50_ms`, ms(figures.paced_p50_ms))
      out(`${key}.paced_p99_ms`, ms(figures.paced_p99_ms))
      out(`${key}.paced_p50_ms_by_round`, runs.map((r) => ms(percentile(r.lat, 50))).join('/'))
      out(`${key}.paced_p99_ms_by_round`, runs.map((r) => ms(percentile(r.lat, 99))).join('/'))
      out(`${key}.paced_pooled_p50_ms`, ms(percentile(lat, 50)))
      out(`${key}.paced_pooled_p99_ms`, ms(percentile(lat, 99)))
      out(`${key}.paced_max_ms`, ms(lat.length ? Math.max(...lat) : NaN))
      out(`${key}.burst_delivered`, `${runs.reduce((n, r) => n + r.burstLat.length, 0)}/${runs.reduce((n, r) => n + r.burstExpected, 0)}`)
      out(`${key}.burst_p50_ms`, ms(figures.burst_p50_ms))
      out(`${key}.burst_p99_ms`, ms(figures.burst_p99_ms))
      out(`${key}.error_messages`, runs.reduce((n, r) => n + r.errors, 0))
      const firstError = runs.find((r) => r.firstError)?.firstError
      if (firstError) out(`${key}.first_error`, firstError.replace(/\s+/g, '_'))
      out(`${key}.unexpected_deliveries`, runs.reduce((n, r) => n + r.extra, 0))
      out(`${key}.sockets_closed_abnormally`, runs.reduce((n, r) => n + r.closedAbnormally, 0))
      out(`${key}.gateway_fds_per_subscriber`, figures.gateway_fds_per_subscriber.toFixed(2))
      out(`${key}.gateway_rss_mb`, Math.round(med((r) => r.rssMb)))
      out(`${key}.gateway_rss_kb_per_subscriber`, figures.gateway_rss_kb_per_subscriber.toFixed(1))
      out(`${key}.gateway_cpu_ms_per_subscriber_connect`, figures.gateway_cpu_ms_per_subscriber_connect.toFixed(2))
      out(`${key}.gateway_cpu_ms_per_delivery`, figures.gateway_cpu_ms_per_delivery.toFixed(2))
      out(`${key}.gateway_cpu_ms_per_burst_delivery`, figures.gateway_cpu_ms_per_burst_delivery.toFixed(2))
      for (const subgraph of Object.keys(subgraphPorts)) out(`${key}.upstream_sockets.${subgraph}`, runs.map((r) => r.upstream?.[subgraph] ?? 'unknown').join('/'))
      out(`${key}.drained`, runs.every((r) => r.drained) ? 'yes' : 'NO')
      out(`${key}.drain_ms`, Math.round(med((r) => r.drainMs)))
    }
    const ours = summary.get('ours')!
    for (const peer of peers) {
      const theirs = summary.get(peer)!
      for (const [name, value] of Object.entries(ours)) out(`edge.peers.ours_${peer}_ratio.${name}`, (value / theirs[name]).toFixed(2))
    }
  } finally {
    for (const child of children) child.kill('SIGKILL')
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchEdge)
