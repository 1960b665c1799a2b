// Webhook ingress benchmark: signed notebook deliveries (real ECDSA P-256 signatures from the fake notebook) sent
// open-loop at a fixed rate through the gateway's webhook route, with the worker running as its own process (as in
// production) and the fake vendor in a third process (its API work is the vendor's, not ours). Three runs of RATE/s for
// SECONDS each print 202 latency p50/p99/max and whether every accepted delivery was processed exactly once; a fourth
// run sends valid deliveries from one address during a flood of bad signatures from another and prints the valid
// deliveries' latency and what the flood cost. Prints one `name value` line per figure; never asserts timings.
// Run alone with `npx tsx bench/webhooks.ts`.
//
// Knobs (environment): BENCH_WEBHOOKS_RATE (200 per second), BENCH_WEBHOOKS_SECONDS (30), BENCH_WEBHOOKS_RUNS (3),
// BENCH_WEBHOOKS_ENTRIES (50), BENCH_WEBHOOKS_FLOOD_RATE (150 per second), BENCH_WEBHOOKS_FLOOD_SECONDS (20),
// BENCH_WEBHOOKS_DRAIN_TIMEOUT_S (240), BENCH_WEBHOOKS_WARMUP (200 deliveries before the figures).
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs, sleep } from './figures'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { spawn } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createPrisma, type Db } from '../core/database'
import { ROOT_DIR, parseEnv, setEnv } from '../core/config'
import { resetAuthKeys } from '../core/identity'
import { startStack } from '../services'
import { startFakeNotebook } from '../fakes/notebook/server'
import { createTenant } from '../tests/helpers/factories'
import { FOLDER, entryUpdated, ownerContext, sampleEntry } from '../tests/connectors/helpers'
import { createConnection, setConnectionCredentials } from '../domain/connections'

interface LoadInput { url: string; rate: number; deliveries: Array<{ headers: Record<string, string>; body: string }>; localAddress?: string }
interface LoadOutput { latencies: number[]; sentAt: number[]; statuses: Record<string, number>; errors: number; elapsed: number }

/**
 * The load generator runs as its own process (like autocannon would), so its HTTP client does not share an event loop
 * with the gateway it measures. Open loop: every 2 ms it sends whatever the schedule says is due, answered or not.
 */
async function generateLoad(input: LoadInput): Promise<LoadOutput> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const latencies: number[] = []
  const sentAt: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let start = 0
  const send = (d: LoadInput['deliveries'][number]) => new Promise<void>((resolve) => {
    const body = Buffer.from(d.body, 'base64')
    const t0 = performance.now()
    const req = http.request(input.url, { method: 'POST', agent, localAddress: input.localAddress, headers: { ...d.headers, 'content-length': String(body.length) } }, (res) => {
      res.resume()
      res.on('end', () => {
        latencies.push(performance.now() - t0)
        sentAt.push(t0 - start)
        statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1
        resolve()
      })
    })
    req.on('error', () => { errors++; resolve() })
    req.end(body)
  })
  const inFlight: Promise<void>[] = []
  let sent = 0
  const t0 = performance.now()
  start = t0
  while (sent < input.deliveries.length) {
    const due = Math.min(input.deliveries.length, Math.floor(((performance.now() - t0) / 1000) * input.rate) + 1)
    while (sent < due) inFlight.push(send(input.deliveries[sent++]))
    await sleep(2)
  }
  await Promise.all(inFlight)
  agent.destroy()
  return { latencies, sentAt, statuses, errors, elapsed: (performance.now() - t0) / 1000 }
}

async function runLoadGeneratorProcess(input: LoadInput): Promise<LoadOutput> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--load-generator'], { cwd: ROOT_DIR, stdio: ['pipe', 'pipe', 'inherit'] })
  const chunks: Buffer[] = []
  child.stdout!.on('data', (c) => chunks.push(c))
  const done = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)))
  child.stdin!.end(JSON.stringify(input))
  if ((await done) !== 0) throw new Error('the load generator failed')
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadOutput
}

/** Answers from the vendor process: its URL, the registered app, and signed deliveries on request. */
type VendorReply = { kind: 'ready'; url: string; app: { appDefinitionId: string; clientId: string; clientSecret: string } } | { kind: 'signed'; deliveries: Array<{ headers: Record<string, string>; body: string }> }

/** The fake notebook in its own process (mode --vendor): serves the vendor API and signs deliveries over IPC. */
async function startVendorProcess(entries: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--vendor', String(entries)], { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const next = () => new Promise<VendorReply>((resolve, reject) => {
    child.once('message', (m) => resolve(m as VendorReply))
    child.once('exit', (code) => reject(new Error(`the vendor process exited (${code})`)))
  })
  const ready = (await next()) as Extract<VendorReply, { kind: 'ready' }>
  return {
    url: ready.url, app: ready.app,
    async sign(count: number, signature: 'valid' | 'garbage' = 'valid') {
      const reply = next()
      child.send({ count, signature })
      return ((await reply) as Extract<VendorReply, { kind: 'signed' }>).deliveries
    },
    async stats(): Promise<{ entryReads: number; rateLimited: number }> {
      return (await fetch(`${ready.url}/_control/stats`)).json() as never
    },
    stop() { child.kill('SIGTERM') },
  }
}

async function runVendor(entries: number) {
  const fake = await startFakeNotebook()
  const app = fake.control.registerApp({ client: {} })
  const entryIds = Array.from({ length: entries }, (_, i) => `etr_bench_${String(i).padStart(3, '0')}`)
  for (const id of entryIds) sampleEntry(fake, id, { variant: 1 + (Number(id.slice(-3)) % 5) })
  let n = 0
  process.on('message', (m: { count: number; signature: 'valid' | 'garbage' }) => {
    const deliveries = Array.from({ length: m.count }, () => {
      const d = fake.control.buildDelivery(app.appDefinitionId, entryUpdated(entryIds[n++ % entries]), { signature: m.signature })
      return { headers: d.headers, body: d.rawBody.toString('base64') }
    })
    process.send!({ kind: 'signed', deliveries } satisfies VendorReply)
  })
  process.send!({ kind: 'ready', url: fake.url, app: { appDefinitionId: app.appDefinitionId, clientId: app.clientId!, clientSecret: app.clientSecret! } } satisfies VendorReply)
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux); 0 where unreadable. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0
  }
}

/**
 * Where the CPU goes during a run, per delivery: this process (gateway + connectors), the worker process, and the
 * PostgreSQL backends serving this bench's database. Work done, unlike latency, does not depend on the machine's load.
 */
async function cpuSnapshot(reader: Db, workerPid: number | undefined) {
  const backends = await reader.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`
  const pg = new Map(backends.map((b) => [b.pid, cpuMs(b.pid)]))
  return { stack: cpuMs(process.pid), worker: workerPid ? cpuMs(workerPid) : 0, pg, backends: backends.length }
}

function printCpu(prefix: string, before: Awaited<ReturnType<typeof cpuSnapshot>>, after: Awaited<ReturnType<typeof cpuSnapshot>>, deliveries: number) {
  const per = (a: number, b: number) => ((b - a) / Math.max(1, deliveries)).toFixed(2)
  out(`${prefix}.cpu_ms_per_delivery.gateway_and_connectors`, per(before.stack, after.stack))
  out(`${prefix}.cpu_ms_per_delivery.worker`, per(before.worker, after.worker))
  // Per backend present at the end (a backend that exited during the run is not counted: a lower bound).
  const pgUsed = [...after.pg].reduce((sum, [pid, ms]) => sum + ms - (before.pg.get(pid) ?? 0), 0)
  out(`${prefix}.cpu_ms_per_delivery.postgres_backends_at_least`, per(0, pgUsed))
  out(`${prefix}.postgres_backends`, after.backends)
}

function printLatency(prefix: string, load: LoadOutput, offered: number) {
  const accepted = load.statuses['202'] ?? 0
  out(`${prefix}.offered`, offered)
  out(`${prefix}.offered_per_second`, (offered / load.elapsed).toFixed(1))
  out(`${prefix}.accepted`, accepted)
  out(`${prefix}.non_202`, offered - accepted)
  out(`${prefix}.transport_errors`, load.errors)
  out(`${prefix}.latency_p50_ms`, percentile(load.latencies, 50).toFixed(2))
  out(`${prefix}.latency_p99_ms`, percentile(load.latencies, 99).toFixed(2))
  out(`${prefix}.latency_max_ms`, Math.max(...load.latencies).toFixed(2))
  out(`${prefix}.over_2s`, load.latencies.filter((ms) => ms > 2000).length)
}

export async function benchWebhooks(): Promise<void> {
  const restoreLogs = quietLogs()
  const { RATE, SECONDS, RUNS, ENTRIES, FLOOD_RATE, FLOOD_SECONDS, DRAIN_TIMEOUT_S, WARMUP } = knobs('BENCH_WEBHOOKS', {
    RATE: 200, SECONDS: 30, RUNS: 3, ENTRIES: 50, FLOOD_RATE: 150, FLOOD_SECONDS: 20, DRAIN_TIMEOUT_S: 240, WARMUP: 200,
  }, { RATE: 10, SECONDS: 1, RUNS: 1, ENTRIES: 5, FLOOD_RATE: 10, FLOOD_SECONDS: 1, DRAIN_TIMEOUT_S: 60, WARMUP: 10 })

  const tSetup = performance.now()
  const database = await provisionBenchDatabase('webhooks')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  const reader: Db = createPrisma(database.url, 2)
  const vendor = await startVendorProcess(ENTRIES)
  let stack: Awaited<ReturnType<typeof startStack>> | undefined
  let worker: ReturnType<typeof spawn> | undefined
  try {
    stack = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true })
    const tenant = await createTenant(db, 'Bench')
    const ctx = await ownerContext(db, tenant)
    const created = await createConnection(ctx, {
      programId: tenant.program.id, providerId: 'eln_provider', name: 'Bench notebook',
      scopeRules: { projectIds: [FOLDER] }, baseUrl: vendor.url, appDefinitionId: vendor.app.appDefinitionId, consent: true,
    })
    await setConnectionCredentials(ctx, created.id, { clientId: vendor.app.clientId, clientSecret: vendor.app.clientSecret })
    const connectionId = created.id
    const url = `${stack.gatewayUrl}/api/v1/hooks/eln_provider/${connectionId}`
    out('webhooks.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')

    // The worker in its own process, as production runs it (its default priority: WORKER_NICE).
    worker = spawn(process.execPath, [...(process.env.BENCH_WORKER_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/wprof'] : []), '--import', 'tsx', path.join(ROOT_DIR, 'jobs/main.ts')], {
      cwd: ROOT_DIR,
      env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })

    // Warm-up (JWKS fetch, connection pools, JIT); counted in the exactly-once check, not in the figures.
    for (const d of await vendor.sign(WARMUP)) {
      const res = await fetch(url, { method: 'POST', headers: d.headers, body: Buffer.from(d.body, 'base64') })
      await res.arrayBuffer()
      if (res.status !== 202) throw new Error(`warm-up delivery answered ${res.status}`)
    }
    let expected = WARMUP
    out('webhooks.setup_s', ((performance.now() - tSetup) / 1000).toFixed(1))

    /**
     * Waits until every stored delivery is processed; prints whether each was processed exactly once. A delivery
     * answered 202 always has its row; one stored after the ingress deadline (answered 503, row marked 503) counts too.
     */
    const drain = async (prefix: string) => {
      const tDrain = performance.now()
      const enqueuedNow = () => reader.webhookDelivery.count({ where: { connectionId, outcome: 'enqueued' } })
      let processed = 0
      while ((performance.now() - tDrain) / 1000 < DRAIN_TIMEOUT_S) {
        processed = await reader.webhookDelivery.count({ where: { connectionId, outcome: 'enqueued', processedAt: { not: null } } })
        if (processed >= Math.max(expected, await enqueuedNow())) break
        await sleep(500)
      }
      out(`${prefix}.drain_s`, ((performance.now() - tDrain) / 1000).toFixed(1))
      const enqueued = await enqueuedNow()
      const answered202 = await reader.webhookDelivery.count({ where: { connectionId, outcome: 'enqueued', statusCode: 202 } })
      const distinct = await reader.$queryRaw<{ n: bigint }[]>`SELECT count(DISTINCT delivery_id)::bigint AS n FROM webhook_deliveries WHERE connection_id = ${connectionId}::uuid AND outcome = 'enqueued'`
      const pending = await reader.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE task_identifier = 'connector_delivery_process'`
      out(`${prefix}.processed`, processed)
      out(`${prefix}.stored_after_deadline`, enqueued - answered202)
      out(`${prefix}.processed_exactly_once`, answered202 === expected && Number(distinct[0].n) === enqueued && processed === enqueued && Number(pending[0].n) === 0)
    }

    for (let run = 1; run <= RUNS; run++) {
      const prefix = `webhooks.run${run}`
      // Pre-signed deliveries: signing is the vendor's cost, not ours.
      const deliveries = await vendor.sign(RATE * SECONDS)
      const cpuBefore = await cpuSnapshot(reader, worker.pid)
      const load = await runLoadGeneratorProcess({ url, rate: RATE, deliveries })
      printLatency(prefix, load, deliveries.length)
      if (process.env.BENCH_WEBHOOKS_TIMELINE === '1') {
        // p50/p99 per second of the run, to see where the tail comes from.
        const bySecond = new Map<number, number[]>()
        load.sentAt.forEach((at, i) => { const sec = Math.floor(at / 1000); bySecond.set(sec, [...(bySecond.get(sec) ?? []), load.latencies[i]]) })
        for (const [sec, xs] of [...bySecond].sort((a, b) => a[0] - b[0])) console.log(`  second ${sec}: p50 ${percentile(xs, 50).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} max ${Math.max(...xs).toFixed(1)}`)
      }
      expected += load.statuses['202'] ?? 0
      await drain(prefix)
      // Backends that ended during the run drop out of the sum: read the figures as a lower bound for postgres.
      printCpu(prefix, cpuBefore, await cpuSnapshot(reader, worker.pid), deliveries.length)
    }

    // Flood: bad signatures from 127.0.0.9 while valid deliveries come from 127.0.0.1 at half the rate.
    const validRate = Math.max(1, Math.floor(RATE / 2))
    // One request at a time on the IPC channel: replies are matched by order.
    const valid = await vendor.sign(validRate * FLOOD_SECONDS)
    const flood = await vendor.sign(FLOOD_RATE * FLOOD_SECONDS, 'garbage')
    const [validLoad, floodLoad] = await Promise.all([
      runLoadGeneratorProcess({ url, rate: validRate, deliveries: valid }),
      runLoadGeneratorProcess({ url, rate: FLOOD_RATE, deliveries: flood, localAddress: '127.0.0.9' }),
    ])
    printLatency('webhooks.flood.valid', validLoad, valid.length)
    out('webhooks.flood.bad_offered', flood.length)
    out('webhooks.flood.bad_answered_401', floodLoad.statuses['401'] ?? 0)
    out('webhooks.flood.bad_answered_429', floodLoad.statuses['429'] ?? 0)
    out('webhooks.flood.bad_latency_p50_ms', percentile(floodLoad.latencies, 50).toFixed(2))
    out('webhooks.flood.bad_rows_stored', await reader.webhookDelivery.count({ where: { sourceAddress: '127.0.0.9' } }))
    expected += validLoad.statuses['202'] ?? 0
    await drain('webhooks.flood')

    const stats = await vendor.stats()
    out('webhooks.vendor_entry_reads', stats.entryReads)
    out('webhooks.vendor_429', stats.rateLimited)
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM')
      await Promise.race([new Promise((r) => worker!.once('exit', r)), sleep(10_000)])
      if (worker.exitCode === null) worker.kill('SIGKILL')
    }
    await stack?.stop()
    vendor.stop()
    await reader.$disconnect()
    await db.$disconnect()
    await database.cleanup().catch((e) => console.error('bench cleanup failed:', e))
    restoreLogs()
  }
}

const runDirectly = import.meta.url === pathToFileURL(process.argv[1] ?? '').href
if (runDirectly && process.argv.includes('--vendor')) {
  runVendor(Number(process.argv[process.argv.indexOf('--vendor') + 1]) || 50).catch((e) => {
    console.error(e)
    process.exit(1)
  })
} else if (runDirectly && process.argv.includes('--load-generator')) {
  const chunks: Buffer[] = []
  process.stdin.on('data', (c) => chunks.push(c))
  process.stdin.on('end', () => {
    generateLoad(JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadInput).then((r) => {
      process.stdout.write(JSON.stringify(r), () => process.exit(0))
    }, (e) => {
      console.error(e)
      process.exit(1)
    })
  })
} else if (runDirectly) {
  benchWebhooks().then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
}
