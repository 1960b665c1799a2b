// Edge benchmarks: federated console query latency and gateway overhead (a), and subscription delivery
// commit-to-client latency with 1,000 graphql-ws subscribers through the gateway (b), the subscribers in a process of
// their own (bench/edge-subscribers.ts). Loopback only. Prints one `name value` line per figure; never asserts
// timings. Run alone with `npx tsx bench/edge.ts`.
//
// Knobs (environment): BENCH_EDGE_QUERIES (1000), BENCH_EDGE_WARMUP (100), BENCH_EDGE_SUBSCRIBERS (1000),
// BENCH_EDGE_SOCKETS_PER_USER (1), BENCH_EDGE_EVENTS (200), BENCH_EDGE_EVENT_INTERVAL_MS (unset: one inbox event per
// second per 100 people).
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, sleep, runIfMain } from './figures'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { randomBytes } from 'node:crypto'
import type { EventLoopUtilization } from 'node:perf_hooks'
import { mintDevToken, signInternalToken, INTERNAL_HEADER } from '../core/identity'
import { DEFAULT_USER_SETTINGS } from '../core/database'
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
  const { QUERIES, WARMUP, SUBSCRIBERS: REQUESTED_SUBSCRIBERS, SOCKETS_PER_USER, EVENTS, EVENT_INTERVAL_MS } = knobs('BENCH_EDGE', {
    // EVENT_INTERVAL_MS 0: derived from the people subscribed (one event per second per 100 people)
    QUERIES: 1000, WARMUP: 100, SUBSCRIBERS: 1000, SOCKETS_PER_USER: 1, EVENTS: 200, EVENT_INTERVAL_MS: 0,
  }, { QUERIES: 5, WARMUP: 1, SUBSCRIBERS: 5, EVENTS: 5, EVENT_INTERVAL_MS: 25 })

  const tSetup = performance.now()
  const bench = await openStackBench('edge')
  const { database, db, writer } = bench
  let subscriberProcess: ChildProcess | undefined
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

    const child = (subscriberProcess = fork(path.join(HERE, 'edge-subscribers.ts'), [], { cwd: path.resolve(HERE, '..'), execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }))
    const replies = new Map<string, (m: FromSubscribers) => void>()
    // seq -> receive times (this process's wall clock, milliseconds), per delivery
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
    out('edge.sub.clock_sync_rtt_ms', ms(bestRtt))

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
    /** Waits for the deliveries, then prints latency figures and this thread's event-loop utilisation since `elu`. */
    const measure = async (label: string, seqs: number[], expected: number, elu: EventLoopUtilization) => {
      const deliveredNow = () => seqs.reduce((n, s) => n + (received.get(s)?.length ?? 0), 0)
      await waitFor(() => deliveredNow() >= expected, 15_000)
      const utilisation = performance.eventLoopUtilization(elu).utilization
      const lat: number[] = []
      for (const s of seqs) for (const at of received.get(s) ?? []) lat.push(at - committedAt[s])
      out(`edge.sub.${label}_events`, seqs.length)
      out(`edge.sub.${label}_delivered`, `${lat.length}/${expected}`)
      out(`edge.sub.${label}_p50_ms`, ms(percentile(lat, 50)))
      out(`edge.sub.${label}_p99_ms`, ms(percentile(lat, 99)))
      out(`edge.sub.${label}_max_ms`, ms(lat.length ? Math.max(...lat) : NaN))
      out(`edge.sub.${label}_event_loop_utilisation`, utilisation.toFixed(2))
    }

    // Paced: one inbox event per second per 100 people unless BENCH_EDGE_EVENT_INTERVAL_MS says otherwise (open loop:
    // the next commit does not wait for delivery).
    const intervalMs = EVENT_INTERVAL_MS || 100_000 / userCount
    const paced = Array.from({ length: EVENTS }, (_, i) => i)
    const eluPaced = performance.eventLoopUtilization()
    const tPaced = performance.now()
    const inflight: Promise<void>[] = []
    for (const seq of paced) {
      const due = tPaced + seq * intervalMs
      const wait = due - performance.now()
      if (wait > 1) await sleep(wait)
      inflight.push(fileEvent(seq))
    }
    await Promise.all(inflight)
    out('edge.sub.paced_interval_ms', intervalMs.toFixed(1))
    out('edge.sub.paced_events_per_s', (1000 / intervalMs).toFixed(1))
    await measure('paced', paced, paced.reduce((n, s) => n + socketsOf(s), 0), eluPaced)

    // Burst: the same number of events committed as fast as 4 connections allow (shows queueing).
    const burst = Array.from({ length: EVENTS }, (_, i) => EVENTS + i)
    const eluBurst = performance.eventLoopUtilization()
    const tBurst = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: 4 }, async () => { while (next < burst.length) await fileEvent(burst[next++]) }))
    out('edge.sub.burst_commit_rate_per_s', Math.round(burst.length / ((performance.now() - tBurst) / 1000)))
    await measure('burst', burst, burst.reduce((n, s) => n + socketsOf(s), 0), eluBurst)
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
  } finally {
    subscriberProcess?.kill()
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchEdge)
