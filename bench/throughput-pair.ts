// Two checkouts side by side under the console's load (issue 38): each checkout's four components in their own
// processes on a database of their own (seeded alike: BENCH_THROUGHPUT_PAIR_CALLERS people, each program lead with 50
// inbox items), the load alternating between them in short slices, so that a busy machine's slow phases fall on both
// alike. Prints CPU per request per process (median over the slices) for each, and this checkout's over the other's.
// Never asserts timings.
//
// Knobs: BENCH_THROUGHPUT_PAIR_ROOT (the other checkout, e.g. a worktree of an older commit sharing node_modules and
// generated/; this one by default: a self-comparison, ratios near 1), BENCH_THROUGHPUT_PAIR_SLICES (8 per checkout),
// BENCH_THROUGHPUT_PAIR_SLICE_SECONDS (6), BENCH_THROUGHPUT_PAIR_CALLERS (200), BENCH_THROUGHPUT_PAIR_CONCURRENCY (10).
// Without DATABASE_URL each database is a private embedded PostgreSQL (no shared server's connection limit to meet).
import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { provisionBenchDatabase, type BenchDatabase } from './database'
import { knobs, out, quietLogs, runIfMain } from './figures'
import { THROUGHPUT_QUERIES, backendCpuMs, componentMode, cpuMs, loadAverage, median, runLoad, startComponent, stopProcesses } from './throughput'
import { createPrisma, freePort, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { mintDevToken, resetAuthKeys } from '../core/identity'
import { SERVICE_NODE_FLAGS } from '../core/jobs'
import { fileInboxItem } from '../domain/inbox'
import { addMember, createTenant, createUser } from '../tests/helpers/factories'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const COMPONENTS = ['gateway', 'workbench', 'connectors', 'twins'] as const
const PARTS = [...COMPONENTS, 'postgres', 'total'] as const

interface Side { label: string; root: string; database: BenchDatabase; db: Db; closeMode(): Promise<void>; pids: Record<string, number>; url: string; bearers: Record<string, string>[]; slices: Record<string, number>[] }

/** A database seeded as the throughput bench seeds it, and `root`'s four components on it. */
async function startSide(label: string, root: string, callers: number, children: ChildProcess[]): Promise<Side> {
  const database = await provisionBenchDatabase('pair')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db = createPrisma(database.url, 2)
  const tenant = await createTenant(db, 'Bench')
  const people = [tenant.users.program_lead]
  for (let i = 1; i < callers; i++) {
    const user = await createUser(db, tenant.organization.id, { name: `Bench caller ${i}` })
    await addMember(db, tenant.program, user.id, ['program_lead'])
    people.push(user)
  }
  for (const person of people) {
    await db.$transaction(async (tx) => {
      for (let i = 0; i < 50; i++) {
        await fileInboxItem(tx, { organizationId: tenant.organization.id, userId: person.id, programId: tenant.program.id, kind: 'decision', sourceType: 'bench', sourceId: `q-${i}`, title: `Bench item ${i}` })
      }
    })
  }
  // statistics for the rows just written, as autovacuum would give them a minute later (see throughput.ts)
  await db.$executeRawUnsafe('ANALYZE')
  const ports = { GATEWAY_PORT: await freePort(), CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort() }
  // this side's development key pair (its DATA_DIR) is the one its JWKS serves in production mode
  const mode = await componentMode()
  const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...mode.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) }
  const pids: Record<string, number> = {}
  for (const name of COMPONENTS) {
    const file = name === 'gateway' ? 'gateway/main.ts' : `subgraphs/${name}/main.ts`
    await startComponent(root, file, env, [...SERVICE_NODE_FLAGS], children)
    pids[name] = children.at(-1)!.pid!
  }
  const bearers = await Promise.all(people.map(async (p) => ({ authorization: `Bearer ${await mintDevToken(p)}` })))
  return { label, root, database, db, closeMode: mode.close, pids, url: `http://127.0.0.1:${ports.GATEWAY_PORT}/graphql`, bearers, slices: [] }
}

export async function benchThroughputPair(): Promise<void> {
  const restoreLogs = quietLogs()
  const { SLICES, SLICE_SECONDS, CALLERS, CONCURRENCY } = knobs('BENCH_THROUGHPUT_PAIR', { SLICES: 8, SLICE_SECONDS: 6, CALLERS: 200, CONCURRENCY: 10 }, { SLICES: 2, SLICE_SECONDS: 1, CALLERS: 2 })
  const here = path.resolve(HERE, '..')
  const other = path.resolve(process.env.BENCH_THROUGHPUT_PAIR_ROOT || here)
  const children: ChildProcess[] = []
  const sides: Side[] = []
  try {
    sides.push(await startSide('this', here, CALLERS, children))
    sides.push(await startSide('other', other, CALLERS, children))
    out('throughput_pair.this', here)
    out('throughput_pair.other', other)
    out('throughput_pair.callers', CALLERS)
    out('throughput_pair.load_average_before', `"${loadAverage()}"`)
    const spec = (s: Side, seconds: number) => ({ url: s.url, query: THROUGHPUT_QUERIES.console, distinct: 1000, headerSets: s.bearers, connections: CONCURRENCY, seconds })
    const snapshot = async (s: Side) => ({ cpu: Object.fromEntries(COMPONENTS.map((c) => [c, cpuMs(s.pids[c])])), postgres: await backendCpuMs(s.db) })
    for (const s of sides) await runLoad(spec(s, Math.max(2, SLICE_SECONDS))) // warm-up: JIT, pools, session caches
    for (let i = 0; i < SLICES; i++) {
      for (const s of i % 2 ? [...sides].reverse() : sides) { // alternate which goes first
        const before = await snapshot(s)
        const r = await runLoad(spec(s, SLICE_SECONDS))
        const after = await snapshot(s)
        const n = Math.max(1, r.requests)
        const slice: Record<string, number> = Object.fromEntries(COMPONENTS.map((c) => [c, (after.cpu[c] - before.cpu[c]) / n]))
        slice.postgres = [...after.postgres].reduce((sum, [pid, ms]) => sum + ms - (before.postgres.get(pid) ?? 0), 0) / n
        slice.total = [...COMPONENTS, 'postgres'].reduce((sum, k) => sum + slice[k], 0)
        Object.assign(slice, { rps: r.rps, p99: r.p99, errors: r.errors + r.non2xx + r.graphqlErrors })
        s.slices.push(slice)
        process.stderr.write(`slice ${i + 1} ${s.label}: ${r.rps.toFixed(0)} rps p99 ${r.p99}, CPU ms/request ${PARTS.map((k) => `${k} ${slice[k].toFixed(2)}`).join(' ')} (load ${loadAverage()})\n`)
      }
    }
    const med = (s: Side, k: string) => median(s.slices.map((x) => x[k]))
    for (const s of sides) {
      for (const k of PARTS) out(`throughput_pair.${s.label}.cpu_ms_per_request.${k}`, med(s, k).toFixed(2))
      out(`throughput_pair.${s.label}.rps`, med(s, 'rps').toFixed(0))
      out(`throughput_pair.${s.label}.p99_ms`, med(s, 'p99'))
      out(`throughput_pair.${s.label}.errors`, s.slices.reduce((n, x) => n + x.errors, 0))
    }
    for (const k of PARTS) out(`throughput_pair.ratio.cpu_ms_per_request.${k}`, (med(sides[0], k) / med(sides[1], k)).toFixed(2))
    out('throughput_pair.load_average_after', `"${loadAverage()}"`)
  } finally {
    await stopProcesses(children)
    for (const s of sides) { await s.closeMode(); await s.db.$disconnect(); await s.database.cleanup() }
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchThroughputPair)
