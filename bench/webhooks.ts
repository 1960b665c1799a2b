// Webhook ingress benchmark: signed notebook deliveries (real ECDSA P-256 signatures from the fake notebook) sent
// open-loop at a fixed rate through the gateway's webhook route, with the worker running as its own process (as in
// production). Prints throughput and 202 latency, then waits for the worker and checks that every accepted delivery
// was processed exactly once. Prints one `name value` line per figure; never asserts timings.
// Run alone with `npx tsx bench/webhooks.ts`.
//
// Knobs (environment): BENCH_WEBHOOKS_RATE (200 per second), BENCH_WEBHOOKS_SECONDS (30), BENCH_WEBHOOKS_ENTRIES (50),
// BENCH_WEBHOOKS_DRAIN_TIMEOUT_S (240).
import { provisionBenchDatabase } from './database'
import fsp from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import http from 'node:http'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'
import { createPrisma, type Db } from '../core/db'
import { ROOT_DIR, parseEnv, setEnv } from '../core/env'
import { startEmbeddedPostgres, withDatabase } from '../core/postgres'
import { resetAuthKeys } from '../core/auth'
import { deployMigrations } from '../prisma/migrate'
import { migrateWorkerSchema } from '../jobs/worker'
import { startStack } from '../services'
import { startFakeNotebook, type BuiltDelivery } from '../fakes/notebook/server'
import { createTenant } from '../tests/helpers/factories'
import { connectNotebook, entryUpdated, sampleEntry } from '../tests/connectors/helpers'

const int = (name: string, fallback: number) => {
  const v = Number(process.env[name])
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback
}
const out = (name: string, value: string | number | boolean) => console.log(`${name} ${value}`)
const sleep = (t: number) => new Promise((r) => setTimeout(r, t))

function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}


async function post(url: string, d: BuiltDelivery): Promise<{ status: number; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.rawBody })
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - t0 }
}

interface LoadInput { url: string; rate: number; deliveries: Array<{ headers: Record<string, string>; body: string }> }
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
    const req = http.request(input.url, { method: 'POST', agent, headers: { ...d.headers, 'content-length': String(body.length) } }, (res) => {
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

export async function benchWebhooks(): Promise<void> {
  const previousLogLevel = process.env.LOG_LEVEL
  process.env.LOG_LEVEL ??= 'warn'
  const RATE = int('BENCH_WEBHOOKS_RATE', 200)
  const SECONDS = int('BENCH_WEBHOOKS_SECONDS', 30)
  const ENTRIES = int('BENCH_WEBHOOKS_ENTRIES', 50)
  const DRAIN_TIMEOUT_S = int('BENCH_WEBHOOKS_DRAIN_TIMEOUT_S', 240)

  const tSetup = performance.now()
  const database = await provisionBenchDatabase('webhooks')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  const reader: Db = createPrisma(database.url, 2)
  const fake = await startFakeNotebook()
  let stack: Awaited<ReturnType<typeof startStack>> | undefined
  let worker: ReturnType<typeof spawn> | undefined
  try {
    stack = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true })
    const tenant = await createTenant(db, 'Bench')
    const nb = await connectNotebook(db, tenant, { fake })
    const entryIds = Array.from({ length: ENTRIES }, (_, i) => `etr_bench_${String(i).padStart(3, '0')}`)
    for (const id of entryIds) sampleEntry(fake, id, { variant: 1 + (Number(id.slice(-3)) % 5) })
    const url = nb.hookUrl(stack.gatewayUrl)
    out('webhooks.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')

    // The worker in its own process, as production runs it (BENCH_WEBHOOKS_WORKER_AFTER=1 starts it after the load).
    const startWorkerProcess = () => spawn(process.execPath, [...(process.env.BENCH_WORKER_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/wprof'] : []), '--import', 'tsx', path.join(ROOT_DIR, 'jobs/main.ts')], {
      cwd: ROOT_DIR,
      env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'error', WORKER_CONCURRENCY: '4' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    const workerAfter = process.env.BENCH_WEBHOOKS_WORKER_AFTER === '1'
    if (!workerAfter) worker = startWorkerProcess()

    // Warm-up (JWKS fetch, connection pools, JIT); counted in the exactly-once check, not in the figures.
    const warm = Array.from({ length: 200 }, (_, i) => fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated(entryIds[i % ENTRIES])))
    for (const d of warm) {
      const r = await post(url, d)
      if (r.status !== 202) throw new Error(`warm-up delivery answered ${r.status}`)
    }
    out('webhooks.setup_s', ((performance.now() - tSetup) / 1000).toFixed(1))

    // Pre-signed deliveries: signing is the vendor's cost, not ours.
    const total = RATE * SECONDS
    const deliveries = Array.from({ length: total }, (_, i) => fake.control.buildDelivery(nb.app.appDefinitionId, entryUpdated(entryIds[i % ENTRIES])))
    const load = await runLoadGeneratorProcess({
      url, rate: RATE, deliveries: deliveries.map((d) => ({ headers: d.headers, body: d.rawBody.toString('base64') })),
    })
    const { latencies, errors, elapsed } = load
    const accepted = load.statuses['202'] ?? 0
    out('webhooks.offered', total)
    out('webhooks.offered_per_second', (total / elapsed).toFixed(1))
    out('webhooks.accepted', accepted)
    out('webhooks.accepted_per_second', (accepted / elapsed).toFixed(1))
    out('webhooks.non_202', total - accepted)
    out('webhooks.transport_errors', errors)
    out('webhooks.latency_p50_ms', percentile(latencies, 50).toFixed(2))
    out('webhooks.latency_p99_ms', percentile(latencies, 99).toFixed(2))
    out('webhooks.latency_max_ms', Math.max(...latencies).toFixed(2))
    if (process.env.BENCH_WEBHOOKS_TIMELINE === '1') {
      // p50/p99 per second of the run, to see where the tail comes from.
      const bySecond = new Map<number, number[]>()
      load.sentAt.forEach((at, i) => { const sec = Math.floor(at / 1000); bySecond.set(sec, [...(bySecond.get(sec) ?? []), latencies[i]]) })
      for (const [sec, xs] of [...bySecond].sort((a, b) => a[0] - b[0])) console.log(`  second ${sec}: p50 ${percentile(xs, 50).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} max ${Math.max(...xs).toFixed(1)}`)
    }

    // Drain: every accepted delivery processed, exactly once.
    if (workerAfter) worker = startWorkerProcess()
    const tDrain = performance.now()
    const expected = accepted + warm.length
    let processed = 0
    while ((performance.now() - tDrain) / 1000 < DRAIN_TIMEOUT_S) {
      processed = await reader.webhookDelivery.count({ where: { connectionId: nb.connection.id, outcome: 'enqueued', processedAt: { not: null } } })
      if (processed >= expected) break
      await sleep(500)
    }
    out('webhooks.drain_s', ((performance.now() - tDrain) / 1000).toFixed(1))
    const enqueued = await reader.webhookDelivery.count({ where: { connectionId: nb.connection.id, outcome: 'enqueued' } })
    const distinct = await reader.$queryRaw<{ n: bigint }[]>`SELECT count(DISTINCT delivery_id)::bigint AS n FROM webhook_deliveries WHERE connection_id = ${nb.connection.id}::uuid AND outcome = 'enqueued'`
    const pending = await reader.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE task_identifier = 'notebook_process_delivery'`
    const results = await reader.webhookDelivery.groupBy({ by: ['processingResult'], where: { connectionId: nb.connection.id, outcome: 'enqueued' }, _count: true })
    const byResult = Object.fromEntries(results.map((r) => [r.processingResult ?? 'unprocessed', r._count]))
    const rescheduled = await reader.webhookDelivery.count({ where: { connectionId: nb.connection.id, processingAttempts: { gt: 1 } } })
    out('webhooks.processed', processed)
    for (const [result, n] of Object.entries(byResult).sort()) out(`webhooks.result.${result}`, n)
    out('webhooks.deliveries_waited_for_budget', rescheduled)
    out('webhooks.vendor_entry_reads', fake.control.getStats().entryReads)
    out('webhooks.vendor_429', fake.control.getStats().rateLimited)
    const exactlyOnce = enqueued === expected && Number(distinct[0].n) === expected && processed === expected && Number(pending[0].n) === 0
    out('webhooks.processed_exactly_once', exactlyOnce)
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM')
      await Promise.race([new Promise((r) => worker!.once('exit', r)), sleep(10_000)])
      if (worker.exitCode === null) worker.kill('SIGKILL')
    }
    await stack?.stop()
    await fake.close()
    await reader.$disconnect()
    await db.$disconnect()
    await database.cleanup().catch((e) => console.error('bench cleanup failed:', e))
    if (previousLogLevel === undefined) delete process.env.LOG_LEVEL
    else process.env.LOG_LEVEL = previousLogLevel
  }
}

const runDirectly = import.meta.url === pathToFileURL(process.argv[1] ?? '').href
if (runDirectly && process.argv.includes('--load-generator')) {
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
