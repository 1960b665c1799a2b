// Edge benchmarks: federated console query latency and gateway overhead (a), and subscription delivery
// commit-to-client latency with 1,000 graphql-ws subscribers through the gateway (b). Loopback only.
// Prints one `name value` line per figure; never asserts timings. Run alone with `npx tsx bench/edge.ts`.
//
// Knobs (environment): BENCH_EDGE_QUERIES (1000), BENCH_EDGE_WARMUP (100), BENCH_EDGE_SUBSCRIBERS (1000),
// BENCH_EDGE_SOCKETS_PER_USER (1), BENCH_EDGE_EVENTS (200), BENCH_EDGE_EVENT_INTERVAL_MS (25).
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, sleep, runIfMain } from './figures'
import fs from 'node:fs'
import { randomBytes } from 'node:crypto'
import type { EventLoopUtilization } from 'node:perf_hooks'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { mintDevToken, signInternalToken, INTERNAL_HEADER } from '../core/identity'
import { DEFAULT_USER_SETTINGS } from '../core/database'
import { startStack } from '../services'
import { fileInboxItem } from '../domain/inbox'
import { createTenant } from '../tests/helpers/factories'

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
    QUERIES: 1000, WARMUP: 100, SUBSCRIBERS: 1000, SOCKETS_PER_USER: 1, EVENTS: 200, EVENT_INTERVAL_MS: 25,
  }, { QUERIES: 5, WARMUP: 1, SUBSCRIBERS: 5, EVENTS: 5 })

  const tSetup = performance.now()
  const bench = await openStackBench('edge')
  const { database, db, writer } = bench
  const clients: Client[] = []
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
    const fdLimit = openFileLimit()
    // Each subscriber holds four descriptors in this process: its socket, the gateway's end, the bridge's
    // upstream socket to twins and twins' end of it. Keep 200 for the pools, PostgreSQL clients and files.
    const fdNeed = REQUESTED_SUBSCRIBERS * 4 + 200
    let subscribers = REQUESTED_SUBSCRIBERS
    out('edge.sub.open_file_limit', fdLimit ?? 'unknown')
    if (fdLimit !== null && fdLimit < fdNeed) {
      subscribers = Math.max(1, Math.floor((fdLimit - 200) / 4))
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

    // seq -> receive times (performance.now()), per delivery
    const received = new Map<number, number[]>()
    let errorMessages = 0
    let socketClosedAbnormally = 0
    let extraDeliveries = 0
    const SUBSCRIPTION = 'subscription { inboxChanged { id status title program { name } } }'

    const tConnect = performance.now()
    const BATCH = 50
    for (let start = 0; start < subscribers; start += BATCH) {
      const batch: Promise<void>[] = []
      for (let i = start; i < Math.min(subscribers, start + BATCH); i++) {
        const token = tokens[i % userCount]
        batch.push(new Promise<void>((resolve) => {
          const client = createClient({
            url: gatewayUrl.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false,
            connectionParams: { authorization: `Bearer ${token}` },
            on: {
              connected: () => resolve(),
              closed: (ev: any) => { if (ev?.code !== 1000) socketClosedAbnormally++; resolve() },
            },
          })
          clients.push(client)
          client.subscribe<{ inboxChanged: { title: string } }>({ query: SUBSCRIPTION }, {
            next: (m) => {
              const at = performance.now()
              if (m.errors?.length || !m.data) { errorMessages++; return }
              const seq = Number(/^bench#(\d+)$/.exec(m.data.inboxChanged.title)?.[1])
              if (!Number.isInteger(seq)) { extraDeliveries++; return }
              let list = received.get(seq)
              if (!list) received.set(seq, (list = []))
              list.push(at)
            },
            error: () => { errorMessages++ },
            complete: () => {},
          })
        }))
      }
      await Promise.all(batch)
    }
    const allSubscribed = await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount >= subscribers, 60_000)
    out('edge.sub.connect_s', ((performance.now() - tConnect) / 1000).toFixed(1))
    out('edge.sub.subscribers', stack.subgraphs.twins.inboxEvents.subscriberCount)
    out('edge.sub.bridge_active', stack.gateway.bridge.activeCount)
    if (!allSubscribed) out('edge.sub.note', `only_${stack.subgraphs.twins.inboxEvents.subscriberCount}_of_${subscribers}_subscriptions_reached_twins_within_60_s`)
    out('edge.sub.open_fds', openFiles() ?? 'unknown')
    out('edge.sub.rss_mb', Math.round(process.memoryUsage().rss / 2 ** 20))

    // Events go to distinct users (spread over all of them); each is delivered to that user's sockets.
    const committedAt: number[] = []
    const targetOf = (seq: number) => users[(seq * 7919) % userCount] // 7919 is prime: a spread, distinct for seq < userCount
    const fileEvent = async (seq: number) => {
      const u = targetOf(seq)
      await writer.$transaction((tx) => fileInboxItem(tx, {
        organizationId: tenant.organization.id, userId: u.id, programId: tenant.program.id,
        kind: 'information', sourceType: 'bench', sourceId: `s-${seq}`, title: `bench#${seq}`,
      }))
      committedAt[seq] = performance.now()
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

    // Paced: one commit every EVENT_INTERVAL_MS (open loop: the next commit does not wait for delivery).
    const paced = Array.from({ length: EVENTS }, (_, i) => i)
    const eluPaced = performance.eventLoopUtilization()
    const tPaced = performance.now()
    const inflight: Promise<void>[] = []
    for (const seq of paced) {
      const due = tPaced + seq * EVENT_INTERVAL_MS
      const wait = due - performance.now()
      if (wait > 1) await sleep(wait)
      inflight.push(fileEvent(seq))
    }
    await Promise.all(inflight)
    out('edge.sub.paced_interval_ms', EVENT_INTERVAL_MS)
    await measure('paced', paced, paced.reduce((n, s) => n + socketsOf(s), 0), eluPaced)

    // Burst: the same number of events committed as fast as 4 connections allow (shows queueing).
    const burst = Array.from({ length: EVENTS }, (_, i) => EVENTS + i)
    const eluBurst = performance.eventLoopUtilization()
    const tBurst = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: 4 }, async () => { while (next < burst.length) await fileEvent(burst[next++]) }))
    out('edge.sub.burst_commit_rate_per_s', Math.round(burst.length / ((performance.now() - tBurst) / 1000)))
    await measure('burst', burst, burst.reduce((n, s) => n + socketsOf(s), 0), eluBurst)
    out('edge.sub.error_messages', errorMessages)
    out('edge.sub.unexpected_deliveries', extraDeliveries)
    out('edge.sub.sockets_closed_abnormally', socketClosedAbnormally)

    // ---- dispose: the fan-out and the bridge must drain to zero ----
    const tDispose = performance.now()
    await Promise.all(clients.splice(0).map((c) => c.dispose()))
    const drained = await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount === 0 && stack.gateway.bridge.activeCount === 0, 15_000)
    out('edge.sub.after_dispose_subscribers', stack.subgraphs.twins.inboxEvents.subscriberCount)
    out('edge.sub.after_dispose_bridge_active', stack.gateway.bridge.activeCount)
    out('edge.sub.drained', drained ? 'yes' : 'NO')
    out('edge.sub.drain_ms', Math.round(performance.now() - tDispose))
  } finally {
    await Promise.all(clients.map((c) => c.dispose()))
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchEdge)
