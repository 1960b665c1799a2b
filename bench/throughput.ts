// Throughput of the federated edge (issue 20): the gateway and the three subgraphs each in their own process, as in
// production, and the load generator (autocannon, bench/throughput-load.ts) in another. Runs each query at each
// concurrency for BENCH_THROUGHPUT_SECONDS after a warm-up and prints rps, p50, p99, errors and the gateway/direct
// ratio, beside the figures issue 20 measured before the work. Never asserts timings.
//
// Knobs: BENCH_THROUGHPUT_SECONDS (20), BENCH_THROUGHPUT_WARMUP_SECONDS (5), BENCH_THROUGHPUT_ROUNDS (1; rounds
// alternate the queries, medians are reported), BENCH_THROUGHPUT_PROGRAMS (1: programs the caller belongs to),
// BENCH_THROUGHPUT_QUERIES (direct,gateway,federated,console), BENCH_THROUGHPUT_CONCURRENCY (10,50),
// BENCH_THROUGHPUT_ROOT (the checkout whose components are started: compare another version with the same bench),
// BENCH_THROUGHPUT_COMPARE_ROOT (another checkout whose components are started too, on the same database, and asked
// every query for every caller before the load: its answers must be the same bytes; then they stop),
// BENCH_THROUGHPUT_PROFILE (a folder, or 1 for a new one in the temporary folder: the components run with --cpu-prof and
// write their profiles there; the bench prints each component's self time by package and its top functions over the
// load runs, bench/profile-summary.ts; BENCH_THROUGHPUT_PROFILE_TOP functions, 20),
// BENCH_THROUGHPUT_NODE_FLAGS (every component's node flags; core/jobs/component.ts SERVICE_NODE_FLAGS by default),
// BENCH_THROUGHPUT_CALLERS (1: distinct people sending the requests in turn, each program lead with 50 inbox items;
// many callers exercise the per-person caches as production does, one caller keeps every cache hot),
// BENCH_THROUGHPUT_TRACING (0; 1: every component exports its traces over OTLP/HTTP to a receiver this bench runs,
// which reads and drops them, as a collector would take them: compare with 0, where no component loads the SDK),
// BENCH_THROUGHPUT_TRUSTED_DOCUMENTS (off; `only`: the gateway runs only registered operations, the bench's queries
// registered in a manifest of their own (TRUSTED_DOCUMENTS_MANIFESTS) and sent as documents; `id`: the same, each
// request naming its operation by documentId instead of sending the document).
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Supergraph, operationFromDocument } from '@apollo/federation-internals'
import { QueryPlanner, prettyFormatQueryPlan } from '@apollo/query-planner'
import { parse } from 'graphql'
import { provisionBenchDatabase } from './database'
import { knobs, out, quietLogs, runIfMain, smokeMode } from './figures'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { resetAuthKeys, signInternalToken, INTERNAL_HEADER } from '../core/identity'
import { freePort } from '../core/database'
import { SERVICE_NODE_FLAGS } from '../core/jobs'
import { fileInboxItem } from '../domain/inbox'
import { readSessionStamp } from '../core/identity'
import { addMember, createProgram, createTenant, createUser } from '../tests/helpers/factories'
import { mintDevToken } from '../core/identity'
import { documentHash, manifestOf } from '../core/http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { summariseFolder } from './profile-summary'
import { randomBytes } from 'node:crypto'
import * as jose from 'jose'
import { devKeyPair } from '../core/identity'
import { env as currentEnv } from '../core/config'

const HERE = path.dirname(fileURLToPath(import.meta.url))

export const THROUGHPUT_QUERIES = {
  /** sent to the twins subgraph directly, with an internal token */
  direct: '{ myInbox(first: 50) { nodes { id kind status title program { id } } } }',
  /** the same through the gateway: one fetch to twins */
  gateway: '{ myInbox(first: 50) { nodes { id kind status title program { id } } } }',
  /** program fields from workbench: an entity fetch */
  federated: '{ myInbox(first: 50) { nodes { id kind status title program { name slug } } } }',
  /** the console's first screen: every subgraph */
  console: `{
  me { programs { program { name connections { nodes { id } } myOpenInboxCount } } }
  myInbox(first: 50) { nodes { id kind status title program { name slug } } }
}`,
} as const
type QueryName = keyof typeof THROUGHPUT_QUERIES
/** A bench query as a named operation (a manifest holds one operation per entry): `{ … }` → `query Bench_<name> { … }`. */
const namedQuery = (name: string, text: string) => `query Bench_${name} ${text}`

/** What issue 20 measured on main before this work (2-core machine, concurrency 10). */
const ISSUE_BEFORE: Partial<Record<QueryName, string>> = {
  direct: '667 rps, p50 14 ms',
  gateway: '462 rps, p50 20 ms, p99 47 ms',
  federated: '255 rps, p50 38 ms, p99 75 ms',
  console: '135 rps, p50 73 ms, p99 125 ms (c50: 141 rps, p50 351 ms)',
}

export interface LoadResult { cpu?: Record<string, number>; requests: number; rps: number; mean: number; p50: number; p99: number; max: number; non2xx: number; errors: number; graphqlErrors: number; firstError?: string; mismatches?: number; firstMismatch?: string }

function tsxNode(root: string, file: string, args: string[], env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeFlags, '--import', 'tsx', file, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Starts one component (its main.ts, with `args`) and resolves when it logs component.ready. */
/**
 * How the benches start the components: as in production by default (`NODE_ENV=production`: no development
 * fallbacks, and graphql-js without its development checks, which were 5 to 9 % of the twins subgraph's CPU), or as
 * `BENCH_NODE_ENV=development` asks. In production the components trust callers' tokens only through a JWKS URL: this
 * process serves one with the development public key, as an identity provider would, so the bench's development
 * tokens (mintDevToken, signed in this process) are accepted by every gateway under test.
 */
export async function componentMode(): Promise<{ env: Record<string, string>; mode: string; close(): Promise<void> }> {
  const mode = process.env.BENCH_NODE_ENV || 'production'
  if (mode !== 'production' && mode !== 'development') throw new Error(`BENCH_NODE_ENV: production or development, not ${mode}`)
  if (mode === 'development') return { env: { NODE_ENV: 'development' }, mode, close: async () => {} }
  const { publicKey, kid } = await devKeyPair()
  const jwks = JSON.stringify({ keys: [{ ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] })
  const server = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(jwks) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const e = currentEnv()
  return {
    mode,
    env: {
      NODE_ENV: 'production', AUTH_JWKS_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks.json`,
      AUTH_ISSUER: e.AUTH_ISSUER, AUTH_AUDIENCE: e.AUTH_AUDIENCE, CONNECTION_SECRET_KEY: randomBytes(32).toString('hex'),
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** SIGTERM to every process still running, resolved once all have exited (a component writes its CPU profile then). */
export function stopProcesses(children: ChildProcess[]): Promise<void[]> {
  return Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve()
    c.once('exit', () => resolve())
    c.kill('SIGTERM')
  })))
}

export function startComponent(root: string, file: string, env: Record<string, string>, nodeFlags: string[], children: ChildProcess[], args: string[] = []) {
  const child = tsxNode(root, file, args, { ...env, LOG_LEVEL: 'info' }, nodeFlags)
  children.push(child)
  pids[path.basename(path.dirname(file)) as keyof typeof pids] = child.pid // <component>/main.ts
  return new Promise<void>((resolve, reject) => {
    let output = ''
    let ready = false
    const timer = setTimeout(() => reject(new Error(`${file} did not start:\n${output}`)), 120_000)
    const onData = (chunk: Buffer) => {
      if (ready) return // keep reading (a full pipe would block the child) but hold nothing
      output += chunk.toString()
      if (output.includes('"component.ready"')) { ready = true; output = ''; clearTimeout(timer); resolve() }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (c: Buffer) => { if (!ready) onData(c); else if (/error/i.test(c.toString())) process.stderr.write(c) })
    child.once('exit', (code) => { clearTimeout(timer); if (!ready) reject(new Error(`${file} exited with ${code}:\n${output}`)) })
  })
}

/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux); 0 where unreadable. */
export function cpuMs(pid: number | undefined): number {
  if (!pid) return 0
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0
  }
}

const COMPONENTS = ['gateway', 'workbench', 'connectors', 'twins'] as const
type Cpu = Record<(typeof COMPONENTS)[number], number> & { postgres: Map<number, number> }

/**
 * CPU used so far by each component and by the PostgreSQL backends of the bench's database. CPU per request, unlike
 * latency and rps, hardly depends on what else the machine runs: the figure to compare versions on a shared machine.
 */
async function cpuSnapshot(db: Db, pids: Record<(typeof COMPONENTS)[number], number | undefined>): Promise<Cpu> {
  return {
    ...Object.fromEntries(COMPONENTS.map((c) => [c, cpuMs(pids[c])])) as Record<(typeof COMPONENTS)[number], number>,
    postgres: await backendCpuMs(db),
  }
}

/** CPU milliseconds used so far by each PostgreSQL backend of `db`'s database (but the asking one), by pid. */
export async function backendCpuMs(db: Db): Promise<Map<number, number>> {
  const backends = await db.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
  return new Map(backends.map((b) => [b.pid, cpuMs(b.pid)]))
}

/** CPU ms per request by component over a run (backends that exited during it are not counted: PostgreSQL is a lower bound). */
function cpuPerRequest(before: Cpu, after: Cpu, requests: number) {
  const per = (ms: number) => ms / Math.max(1, requests)
  const pg = [...after.postgres].reduce((sum, [pid, ms]) => sum + ms - (before.postgres.get(pid) ?? 0), 0)
  const parts = { ...Object.fromEntries(COMPONENTS.map((c) => [c, per(after[c] - before[c])])), postgres: per(pg) } as Record<string, number>
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) }
}

/** `variables` are sent with every request besides the nonce; `expected`: the only bodies accepted (bench/throughput-load.ts). */
export interface LoadSpec { url: string; query: string; documentId?: string; variables?: Record<string, unknown>; distinct: number; headerSets: Record<string, string>[]; connections: number; seconds: number; expected?: string[] }

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  // a large spec (expected answers) goes through a file: one argument may hold at most 128 KiB on Linux
  const json = JSON.stringify(spec)
  const specFile = json.length > 100_000 ? path.join(os.tmpdir(), `ew-bench-load-${process.pid}-${Date.now()}.json`) : undefined
  if (specFile) writeFileSync(specFile, json)
  return new Promise<LoadResult>((resolve, reject) => {
    const child = tsxNode(path.resolve(HERE, '..'), path.join(HERE, 'throughput-load.ts'), [specFile ? `@${specFile}` : json], {})
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (c: Buffer) => { stdout += c })
    child.stderr!.on('data', (c: Buffer) => { stderr += c })
    child.once('exit', (code) => {
      const line = stdout.trim().split('\n').pop()
      if (code !== 0 || !line) return reject(new Error(`load generator exited with ${code}: ${stderr.slice(0, 2000)}`))
      resolve(JSON.parse(line) as LoadResult)
    })
  }).finally(() => { if (specFile) rmSync(specFile, { force: true }) })
}

const pids: Record<(typeof COMPONENTS)[number], number | undefined> = { gateway: undefined, workbench: undefined, connectors: undefined, twins: undefined }
/** How many subgraph fetches the gateway's query planner makes for each query, over `root`'s supergraph. */
export function subgraphFetches(root: string): Record<string, number> {
  const supergraph = Supergraph.build(readFileSync(path.join(root, 'schema', 'supergraph.graphql'), 'utf8'))
  const planner = new QueryPlanner(supergraph)
  return Object.fromEntries(Object.entries(THROUGHPUT_QUERIES).map(([name, query]) => {
    const plan = prettyFormatQueryPlan(planner.buildQueryPlan(operationFromDocument(supergraph.schema, parse(query))))
    return [name, name === 'direct' ? 1 : (plan.match(/Fetch\(service:/g) ?? []).length]
  }))
}

export const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN }
export const loadAverage = () => os.loadavg().map((x) => x.toFixed(2)).join(' ')

export async function benchThroughput(): Promise<void> {
  const restoreLogs = quietLogs()
  const { SECONDS, WARMUP_SECONDS, ROUNDS, PROGRAMS, CALLERS } = knobs('BENCH_THROUGHPUT', { SECONDS: 20, WARMUP_SECONDS: 5, ROUNDS: 1, PROGRAMS: 1, CALLERS: 1 }, { SECONDS: 1, WARMUP_SECONDS: 1 })
  const list = (name: string, fallback: string) => (process.env[`BENCH_THROUGHPUT_${name}`] || fallback).split(',').map((s) => s.trim()).filter(Boolean)
  const queries = list('QUERIES', smokeMode() ? 'direct,console' : 'direct,gateway,federated,console') as QueryName[]
  for (const q of queries) if (!(q in THROUGHPUT_QUERIES)) throw new Error(`BENCH_THROUGHPUT_QUERIES: unknown query ${q}; known: ${Object.keys(THROUGHPUT_QUERIES).join(', ')}`)
  const concurrencies = list('CONCURRENCY', smokeMode() ? '4' : '10,50').map(Number)
  const root = path.resolve(process.env.BENCH_THROUGHPUT_ROOT || path.resolve(HERE, '..'))
  const compareRoot = process.env.BENCH_THROUGHPUT_COMPARE_ROOT ? path.resolve(process.env.BENCH_THROUGHPUT_COMPARE_ROOT) : undefined
  const profileKnob = process.env.BENCH_THROUGHPUT_PROFILE
  const profileDir = !profileKnob || profileKnob === '0' ? undefined
    : profileKnob === '1' ? mkdtempSync(path.join(os.tmpdir(), 'ew-bench-profile-')) : path.resolve(profileKnob)
  const tracing = process.env.BENCH_THROUGHPUT_TRACING === '1'
  const trustedMode = process.env.BENCH_THROUGHPUT_TRUSTED_DOCUMENTS || 'off'
  if (!['off', 'only', 'id'].includes(trustedMode)) throw new Error(`BENCH_THROUGHPUT_TRUSTED_DOCUMENTS: off, only or id, not ${trustedMode}`)
  // an OTLP/HTTP receiver that reads every export and answers 200 (the collector's side, at no cost to the components)
  const exported = { requests: 0, bytes: 0 }
  const receiver = tracing ? http.createServer((req, res) => {
    req.on('data', (c: Buffer) => { exported.bytes += c.length })
    req.on('end', () => { exported.requests++; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() })
  }) : undefined
  if (receiver) await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))

  const database = await provisionBenchDatabase('throughput')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  let mode: Awaited<ReturnType<typeof componentMode>> | undefined
  const writer: Db = createPrisma(database.url, 2)
  const children: ChildProcess[] = []
  const stopChildren = () => stopProcesses(children)
  try {
    // ---- data: the bench caller is program lead of PROGRAMS programs, with 50 inbox items in the first ----
    const tenant = await createTenant(writer, 'Bench')
    const lead = tenant.users.program_lead
    // CALLERS people (the tenant's program lead first), each lead of the same programs with 50 inbox items of their own
    const callers: { id: string; email: string; name: string }[] = [lead]
    for (let i = 1; i < CALLERS; i++) {
      const user = await createUser(writer, tenant.organization.id, { name: `Bench caller ${i}` })
      await addMember(writer, tenant.program, user.id, ['program_lead'])
      callers.push(user)
    }
    for (let i = 1; i < PROGRAMS; i++) {
      const program = await createProgram(writer, tenant.organization.id)
      for (const caller of callers) await addMember(writer, program, caller.id, ['program_lead'])
    }
    for (const caller of callers) {
      await writer.$transaction(async (tx) => {
        for (let i = 0; i < 50; i++) {
          await fileInboxItem(tx, {
            organizationId: tenant.organization.id, userId: caller.id, programId: tenant.program.id,
            kind: 'decision', sourceType: 'bench', sourceId: `q-${i}`, title: `Bench item ${i}`,
          })
        }
      })
    }
    // statistics for the rows just written, as autovacuum would give them a minute later: without them the planner
    // took a program's 10,000 open decisions for one row and scanned them all for each person's 50 (the role home)
    await writer.$executeRawUnsafe('ANALYZE')

    // ---- the four components, each its own process, from `root` ----
    const ports = { GATEWAY_PORT: await freePort(), CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort() }
    mode = await componentMode()
    const env: Record<string, string> = {
      DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...mode.env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as { port: number }).port}` } : {}),
    }
    if (trustedMode !== 'off') {
      // the bench's queries registered as a client team would register theirs (each named, one manifest)
      const manifest = path.join(database.dataDir, 'bench-trusted-documents.json')
      writeFileSync(manifest, JSON.stringify(manifestOf(Object.entries(THROUGHPUT_QUERIES).map(([q, text]) => namedQuery(q, text)).join('\n'))))
      Object.assign(env, { TRUSTED_DOCUMENTS_ONLY: 'true', TRUSTED_DOCUMENTS_MANIFESTS: manifest })
    }
    // one folder per component: tsx's loader thread writes a profile of its own beside the main thread's
    const flags = (name: string) => profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []
    // every component starts as package.json starts it (BENCH_THROUGHPUT_NODE_FLAGS replaces the flags, '' for none)
    const nodeFlags = (process.env.BENCH_THROUGHPUT_NODE_FLAGS ?? SERVICE_NODE_FLAGS.join(' ')).split(' ').filter(Boolean)
    await Promise.all(['connectors', 'workbench', 'twins'].map((n) => startComponent(root, `subgraphs/${n}/main.ts`, env, [...nodeFlags, ...flags(n)], children)))
    await startComponent(root, 'gateway/main.ts', env, [...nodeFlags, ...flags('gateway')], children)
    const gatewayUrl = `http://127.0.0.1:${ports.GATEWAY_PORT}/graphql`
    const twinsUrl = `http://127.0.0.1:${ports.TWINS_PORT}/graphql`

    out('throughput.root', root)
    out('throughput.node_env', mode.mode)
    out('throughput.cpus', os.cpus().length)
    out('throughput.programs', PROGRAMS)
    out('throughput.callers', CALLERS)
    out('throughput.seconds', SECONDS)
    out('throughput.tracing', tracing ? 'on' : 'off')
    out('throughput.trusted_documents', trustedMode)
    for (const [q, n] of Object.entries(subgraphFetches(root))) out(`throughput.${q}.subgraph_fetches`, n)
    out('throughput.load_average_before', `"${loadAverage()}"`)

    const bearers = await Promise.all(callers.map(async (c) => ({ authorization: `Bearer ${await mintDevToken(c)}` })))
    // A fresh internal token per run (they live 60 s); every request of a run carries it, as the gateway's would.
    // It carries the person's session version like the gateway's token, so twins serves it from its session cache as it
    // would a gateway request (without a version every request would load the session).
    const internal = (c: (typeof callers)[number]) => async () => ({
      [INTERNAL_HEADER]: await signInternalToken({ userId: c.id, organizationId: tenant.organization.id, sessionVersion: (await readSessionStamp(writer, c.id))!.version, requestId: 'bench' }),
    })
    /** one header set per caller; the load generator sends them in turn */
    const headerSetsFor = async (q: QueryName): Promise<Record<string, string>[]> => q === 'direct'
      ? Promise.all(callers.map((c) => internal(c)()))
      : bearers
    const urlFor = (q: QueryName) => q === 'direct' ? twinsUrl : gatewayUrl
    // where only registered operations run, the bench sends its queries as the operations it registered
    const queryFor = (q: QueryName) => trustedMode !== 'off' && q !== 'direct' ? namedQuery(q, THROUGHPUT_QUERIES[q]) : THROUGHPUT_QUERIES[q]

    // Every caller's answer to each query, as text: each must have 50 items and no errors; the load runs then accept only
    // these bodies (a different one counts as a mismatch), and a second checkout (COMPARE_ROOT) must answer the same bytes.
    const answersOf = async (q: QueryName, url: string, caller?: number): Promise<string[]> => {
      const all = await headerSetsFor(q)
      const sets = caller === undefined ? all : [all[caller]]
      const bodies: string[] = []
      for (let i = 0; i < sets.length; i += 10) {
        bodies.push(...await Promise.all(sets.slice(i, i + 10).map(async (headers) => {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: queryFor(q), variables: { nonce: 0 } }) })
          return res.text()
        })))
      }
      return bodies
    }
    const answers = new Map<QueryName, string[]>()
    for (const q of queries) {
      const bodies = await answersOf(q, urlFor(q))
      const unexpected = (text: string) => { const body = JSON.parse(text) as any; return !!body.errors || body.data?.myInbox?.nodes?.length !== 50 }
      for (let i = 0; i < bodies.length; i++) {
        // asked again (twice at most) before failing: a cold pool's connect may time out on a busy machine
        for (let again = 0; again < 2 && unexpected(bodies[i]); again++) bodies[i] = (await answersOf(q, urlFor(q), i))[0]
        if (unexpected(bodies[i])) throw new Error(`${q}: unexpected answer ${bodies[i].slice(0, 500)}`)
      }
      answers.set(q, bodies)
    }
    if (compareRoot) {
      // the other checkout's four components on the same database (ports of their own), asked the same, then stopped
      const before = { ...pids }
      const comparePorts = { GATEWAY_PORT: await freePort(), CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort() }
      const compareEnv = { ...env, ...Object.fromEntries(Object.entries(comparePorts).map(([k, v]) => [k, String(v)])) }
      const compareChildren: ChildProcess[] = []
      try {
        await Promise.all(['connectors', 'workbench', 'twins'].map((n) => startComponent(compareRoot, `subgraphs/${n}/main.ts`, compareEnv, nodeFlags, compareChildren)))
        await startComponent(compareRoot, 'gateway/main.ts', compareEnv, nodeFlags, compareChildren)
        let compared = 0
        let differing = 0
        let retried = 0
        for (const q of queries) {
          const url = q === 'direct' ? `http://127.0.0.1:${comparePorts.TWINS_PORT}/graphql` : `http://127.0.0.1:${comparePorts.GATEWAY_PORT}/graphql`
          const theirs = await answersOf(q, url)
          const mine = answers.get(q)!
          for (let i = 0; i < mine.length; i++) {
            compared++
            if (mine[i] === theirs[i]) continue
            // asked again once, both: a transient failure (a cold pool's connect timing out on a busy machine) is not a difference
            retried++
            const [again, theirsAgain] = await Promise.all([answersOf(q, urlFor(q), i), answersOf(q, url, i)])
            if (again[0] === theirsAgain[0]) { mine[i] = again[0]; continue }
            if (!differing++) process.stderr.write(`answers differ (${q}, caller ${i}):\n  ${root}: ${again[0].slice(0, 2000)}\n  ${compareRoot}: ${theirsAgain[0].slice(0, 2000)}\n`)
          }
        }
        out('throughput.answers_asked_again', retried)
        out('throughput.compare_root', compareRoot)
        out('throughput.answers_compared', compared)
        out('throughput.answers_differing', differing)
      } finally {
        children.push(...compareChildren) // stopped with the others should this throw
        await stopProcesses(compareChildren)
        Object.assign(pids, before)
      }
    }

    const results = new Map<string, LoadResult[]>()
    const loadStart = performance.now()
    for (let round = 0; round < ROUNDS; round++) {
      // alternate the order between rounds, so a slow phase of a shared machine does not always hit the same query
      const order = round % 2 ? [...queries].reverse() : queries
      for (const c of concurrencies) {
        for (const q of order) {
          // distinct: every request differs (a variable the query ignores), so no de-duplication could merge them
          const documentId = trustedMode === 'id' && q !== 'direct' ? `sha256:${documentHash(namedQuery(q, THROUGHPUT_QUERIES[q]))}` : undefined
          const spec = { url: urlFor(q), query: queryFor(q), documentId, distinct: 1000, headerSets: await headerSetsFor(q), connections: c, expected: answers.get(q) }
          await runLoad({ ...spec, seconds: WARMUP_SECONDS }) // warm-up: JIT, pools, plan and session caches
          const cpuBefore = await cpuSnapshot(writer, pids)
          const r = await runLoad({ ...spec, seconds: SECONDS })
          r.cpu = cpuPerRequest(cpuBefore, await cpuSnapshot(writer, pids), r.requests)
          const key = `${q}.c${c}`
          results.set(key, [...(results.get(key) ?? []), r])
          process.stderr.write(`round ${round + 1} ${key}: ${r.rps.toFixed(0)} rps mean ${r.mean.toFixed(1)} p50 ${r.p50} p99 ${r.p99} errors ${r.errors + r.non2xx + r.graphqlErrors} mismatches ${r.mismatches ?? 0}, CPU ms/request ${Object.entries(r.cpu).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' ')} (load ${loadAverage()})\n`)
          if (r.firstError) process.stderr.write(`  first error: ${r.firstError}\n`)
          if (r.firstMismatch) process.stderr.write(`  first answer not among the expected: ${r.firstMismatch}\n`)
        }
      }
    }

    // ---- figures and table ----
    const rows: string[] = []
    const med = (key: string, f: (r: LoadResult) => number) => median((results.get(key) ?? []).map(f))
    for (const c of concurrencies) {
      for (const q of queries) {
        const key = `${q}.c${c}`
        const rps = med(key, (r) => r.rps), mean = med(key, (r) => r.mean), p50 = med(key, (r) => r.p50), p99 = med(key, (r) => r.p99)
        const errors = (results.get(key) ?? []).reduce((n, r) => n + r.errors + r.non2xx + r.graphqlErrors, 0)
        out(`throughput.${key}.rps`, rps.toFixed(0))
        out(`throughput.${key}.mean_ms`, mean.toFixed(2))
        out(`throughput.${key}.p50_ms`, p50)
        out(`throughput.${key}.p99_ms`, p99)
        out(`throughput.${key}.errors`, errors)
        out(`throughput.${key}.mismatches`, (results.get(key) ?? []).reduce((n, r) => n + (r.mismatches ?? 0), 0))
        const cpu = Object.fromEntries(['gateway', 'workbench', 'connectors', 'twins', 'postgres', 'total'].map((k) => [k, med(key, (r) => r.cpu![k])]))
        for (const [k, v] of Object.entries(cpu)) out(`throughput.${key}.cpu_ms_per_request.${k}`, v.toFixed(2))
        // what two cores could serve if nothing else ran (the load generator left out): the figure that survives a busy machine
        const capacity = (os.cpus().length * 1000) / cpu.total
        out(`throughput.${key}.capacity_rps_all_cores`, capacity.toFixed(0))
        rows.push(`| ${q} | ${c} | ${rps.toFixed(0)} | ${mean.toFixed(1)} | ${p50} | ${p99} | ${errors} | ${cpu.total.toFixed(2)} (gw ${cpu.gateway.toFixed(2)}, wb ${cpu.workbench.toFixed(2)}, co ${cpu.connectors.toFixed(2)}, tw ${cpu.twins.toFixed(2)}, pg ${cpu.postgres.toFixed(2)}) | ${capacity.toFixed(0)} | ${c === 10 ? ISSUE_BEFORE[q] ?? '' : ''} |`)
      }
      if (queries.includes('direct') && queries.includes('gateway')) {
        // the gateway's time for the same query over the subgraph's own: mean latency (autocannon's percentiles are whole
        // milliseconds, too coarse at 4 to 7 ms), p50, and rps (direct/gateway; at a fixed concurrency it is the mean's)
        out(`throughput.gateway_direct_ratio.c${c}.mean`, (med(`gateway.c${c}`, (r) => r.mean) / med(`direct.c${c}`, (r) => r.mean)).toFixed(2))
        out(`throughput.gateway_direct_ratio.c${c}.p50`, (med(`gateway.c${c}`, (r) => r.p50) / med(`direct.c${c}`, (r) => r.p50)).toFixed(2))
        out(`throughput.gateway_direct_ratio.c${c}.rps`, (med(`direct.c${c}`, (r) => r.rps) / med(`gateway.c${c}`, (r) => r.rps)).toFixed(2))
      }
    }
    out('throughput.load_average_after', `"${loadAverage()}"`)
    if (receiver) {
      out('throughput.tracing.export_requests', exported.requests)
      out('throughput.tracing.exported_bytes', exported.bytes)
    }
    console.log(`\n| query | concurrency | rps | mean ms | p50 ms | p99 ms | errors | CPU ms per request | rps the cores could serve | issue 20 before (c10) |\n|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}`)
    console.log('Target (issue 20): console at c10 >= 400 rps with p99 < 60 ms; gateway within 1.2x of direct (mean latency ratio; p50 printed too).')
    if (profileDir) {
      // a component writes its profile as it exits: stop them, then read the load runs' part (start-up left out)
      const loadSeconds = Math.ceil((performance.now() - loadStart) / 1000)
      await stopChildren()
      out('throughput.profile_dir', profileDir)
      console.log(`\nCPU profiles, the last ${loadSeconds} s of each component (the load runs, warm-ups included; self time, % of the busy samples):\n`)
      console.log(summariseFolder(profileDir, Number(process.env.BENCH_THROUGHPUT_PROFILE_TOP) || 20, loadSeconds))
    }
  } finally {
    await stopChildren()
    await mode?.close()
    await writer.$disconnect()
    await database.cleanup()
    if (receiver) await new Promise((resolve) => receiver.close(resolve))
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchThroughput)
