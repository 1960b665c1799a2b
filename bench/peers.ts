// Our gateway beside its peers (issue 38): stock Apollo Server 5 with Apollo Gateway, and Hive Gateway, each in its own
// process (bench/peer-gateway.ts) in front of the SAME three subgraph processes and database as ours, in one run. For
// each query every gateway runs in turn within every round (the first gateway of a round rotates), with the same distinct
// callers (each program lead with 50 inbox items of their own, sending in turn, each with their own token), every
// answer compared: before the load each caller's answer must be equal on the three gateways, and under load every answer
// must be, byte for byte, one of the answers that gateway gave before (otherwise the bench fails). Prints each gateway's
// rps, latency and CPU per request by process, and the ours/peer ratios: a ratio measured in one run holds on a noisy
// machine where an absolute figure does not. Never asserts timings.
//
// Knobs: BENCH_PEERS_SECONDS (10), _WARMUP_SECONDS (3, before every measured run), _ROUNDS (2), _CALLERS (200),
// _CONCURRENCY (10), _QUERIES (role_home,console,one_fetch,federated). Alone: `npx tsx bench/peers.ts`.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Kind, parse, print, type OperationDefinitionNode } from 'graphql'
import { Supergraph, operationFromDocument } from '@apollo/federation-internals'
import { QueryPlanner, prettyFormatQueryPlan } from '@apollo/query-planner'
import { closeStackBench, openStackBench } from './database'
import { knobs, out, quietLogs, runIfMain, smokeMode } from './figures'
import { summariseFolder } from './profile-summary'
import { THROUGHPUT_QUERIES, componentMode, cpuMs, loadAverage, median, runLoad, startComponent, stopProcesses, type LoadResult } from './throughput'
import type { Db } from '../core/database'
import { freePort } from '../core/database'
import { ROOT_DIR } from '../core/config'
import { SERVICE_NODE_FLAGS } from '../core/jobs'
import { mintDevToken } from '../core/identity'
import { fileInboxItem } from '../domain/inbox'
import { addMember, createTenant, createUser } from '../tests/helpers/factories'

const HERE = path.dirname(fileURLToPath(import.meta.url))

/** The console's role home, as the console sends it (console/src/operations/home.graphql, operation RoleHome). */
function roleHomeQuery(): string {
  const doc = parse(readFileSync(path.join(ROOT_DIR, 'console', 'src', 'operations', 'home.graphql'), 'utf8'))
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === 'RoleHome')
  if (!op) throw new Error('console/src/operations/home.graphql has no RoleHome operation')
  return print(op)
}

export const PEER_QUERIES = {
  /** the console's role home (program, workbench regions, sources): what a person's first screen asks */
  role_home: roleHomeQuery(),
  /** the console's first screen of the throughput bench: every subgraph, three fetches */
  console: THROUGHPUT_QUERIES.console,
  /** one fetch to twins */
  one_fetch: THROUGHPUT_QUERIES.gateway,
  /** twins' inbox, then an entity fetch to connectors for the programs' connections */
  federated: '{ myInbox(first: 50) { nodes { id kind status title program { name slug connections { nodes { id } } } } } }',
} as const
type QueryName = keyof typeof PEER_QUERIES

const GATEWAYS = ['ours', 'apollo', 'hive'] as const
type GatewayName = (typeof GATEWAYS)[number]
const PEERS = ['apollo', 'hive'] as const
const PROCESSES = ['gateway', 'workbench', 'connectors', 'twins'] as const
type Cpu = Record<(typeof PROCESSES)[number], number> & { postgres: Map<number, number> }

/** How many subgraph fetches Apollo's planner makes for each query (Hive plans on its own; ours plans as Apollo does). */
function subgraphFetches(queries: QueryName[]): Record<string, number> {
  const supergraph = Supergraph.build(readFileSync(path.join(ROOT_DIR, 'schema', 'supergraph.graphql'), 'utf8'))
  const planner = new QueryPlanner(supergraph)
  return Object.fromEntries(queries.map((q) => [q, (prettyFormatQueryPlan(planner.buildQueryPlan(operationFromDocument(supergraph.schema, parse(PEER_QUERIES[q])))).match(/Fetch\(service:/g) ?? []).length]))
}

/** CPU used so far by the gateway under test, each subgraph, and the bench database's PostgreSQL backends (from /proc). */
async function cpuSnapshot(db: Db, pids: Record<(typeof PROCESSES)[number], number | undefined>): Promise<Cpu> {
  const backends = await db.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
  return { ...Object.fromEntries(PROCESSES.map((p) => [p, cpuMs(pids[p])])) as Record<(typeof PROCESSES)[number], number>, postgres: new Map(backends.map((b) => [b.pid, cpuMs(b.pid)])) }
}

/** CPU ms per request by process (backends that exited during the run are not counted: PostgreSQL is a lower bound). */
function cpuPerRequest(before: Cpu, after: Cpu, requests: number): Record<string, number> {
  const per = (ms: number) => ms / Math.max(1, requests)
  const pg = [...after.postgres].reduce((sum, [pid, ms]) => sum + ms - (before.postgres.get(pid) ?? 0), 0)
  const parts = { ...Object.fromEntries(PROCESSES.map((p) => [p, per(after[p] - before[p])])), postgres: per(pg) } as Record<string, number>
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) }
}

/** A body as the bytes of its value (key order kept): how answers from different gateways are compared. */
const canonical = (body: string) => JSON.stringify(JSON.parse(body))

export async function benchPeers(): Promise<void> {
  const restoreLogs = quietLogs()
  const { SECONDS, WARMUP_SECONDS, ROUNDS, CALLERS, CONCURRENCY } = knobs('BENCH_PEERS',
    { SECONDS: 10, WARMUP_SECONDS: 3, ROUNDS: 2, CALLERS: 200, CONCURRENCY: 10 },
    { SECONDS: 1, WARMUP_SECONDS: 0, ROUNDS: 1, CALLERS: 3, CONCURRENCY: 2 }) // smoke: no warm-up
  const queries = (process.env.BENCH_PEERS_QUERIES || (smokeMode() ? 'role_home,federated' : Object.keys(PEER_QUERIES).join(','))).split(',').map((s) => s.trim()).filter(Boolean) as QueryName[]
  for (const q of queries) if (!(q in PEER_QUERIES)) throw new Error(`BENCH_PEERS_QUERIES: unknown query ${q}; known: ${Object.keys(PEER_QUERIES).join(', ')}`)

  let mode: Awaited<ReturnType<typeof componentMode>> | undefined
  const bench = await openStackBench('peers')
  const { writer, database } = bench
  const children: ChildProcess[] = []
  const stopChildren = () => stopProcesses(children)
  try {
    // ---- data: CALLERS program leads of one program, each with 50 inbox items of their own ----
    const tenant = await createTenant(writer, 'Peers')
    const callers: { id: string; email: string; name: string }[] = [tenant.users.program_lead]
    for (let i = 1; i < CALLERS; i++) {
      const user = await createUser(writer, tenant.organization.id, { name: `Peers caller ${i}` })
      await addMember(writer, tenant.program, user.id, ['program_lead'])
      callers.push(user)
    }
    for (let from = 0; from < callers.length; from += 4) { // the writer's four connections
      await Promise.all(callers.slice(from, from + 4).map((caller) => writer.$transaction(async (tx) => {
        for (let i = 0; i < 50; i++) {
          await fileInboxItem(tx, {
            organizationId: tenant.organization.id, userId: caller.id, programId: tenant.program.id,
            kind: 'decision', sourceType: 'bench', sourceId: `q-${i}`, title: `Peers item ${i}`,
          })
        }
      }, { timeout: 60_000 })))
    }
    // statistics for the rows just written, as autovacuum would give them a minute later: without them the planner
    // took a program's 10,000 open decisions for one row and scanned them all for each person's 50 (the role home)
    await writer.$executeRawUnsafe('ANALYZE')
    const variablesOf = (q: QueryName): Record<string, unknown> => (q === 'role_home' ? { slug: tenant.program.slug } : {})

    // ---- the subgraphs, then the three gateways, each its own process (as package.json starts them) ----
    const ports = { CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort(), GATEWAY_PORT: await freePort() }
    const local = (port: number) => `http://127.0.0.1:${port}/graphql`
    mode = await componentMode()
    const env: Record<string, string> = {
      DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...mode.env,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      CONNECTORS_URL: local(ports.CONNECTORS_PORT), WORKBENCH_URL: local(ports.WORKBENCH_PORT), TWINS_URL: local(ports.TWINS_PORT),
    }
    const nodeFlags = [...SERVICE_NODE_FLAGS]
    // BENCH_PEERS_PROFILE: each subgraph and our gateway run with --cpu-prof, one folder each (tsx's loader thread
    // writes a profile of its own beside the main thread's); read after the load, as throughput reads its own
    const profileKnob = process.env.BENCH_PEERS_PROFILE
    const profileDir = !profileKnob || profileKnob === '0' ? undefined
      : profileKnob === '1' ? mkdtempSync(path.join(os.tmpdir(), 'ew-bench-peers-profile-')) : path.resolve(profileKnob)
    const flags = (name: string) => profileDir ? [...nodeFlags, '--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : nodeFlags
    const started = (n: number) => children[n].pid
    const subgraphPids: Record<string, number | undefined> = {}
    await Promise.all((['connectors', 'workbench', 'twins'] as const).map(async (name) => {
      const at = children.length
      const ready = startComponent(ROOT_DIR, `subgraphs/${name}/main.ts`, env, flags(name), children)
      subgraphPids[name] = started(at)
      await ready
    }))
    const peerPorts = { apollo: await freePort(), hive: await freePort() }
    const gatewayPids = {} as Record<GatewayName, number | undefined>
    const urls: Record<GatewayName, string> = { ours: local(ports.GATEWAY_PORT), apollo: `http://127.0.0.1:${peerPorts.apollo}/`, hive: `http://127.0.0.1:${peerPorts.hive}/graphql` }
    for (const g of GATEWAYS) {
      const at = children.length
      const ready = g === 'ours'
        ? startComponent(ROOT_DIR, 'gateway/main.ts', env, flags('gateway'), children)
        : startComponent(ROOT_DIR, path.join(HERE, 'peer-gateway.ts'), { ...env, PEER_PORT: String(peerPorts[g]) }, nodeFlags, children, [g])
      gatewayPids[g] = started(at)
      await ready
    }

    out('peers.cpus', os.cpus().length)
    out('peers.node_env', mode.mode)
    out('peers.callers', CALLERS)
    out('peers.concurrency', CONCURRENCY)
    out('peers.seconds', SECONDS)
    out('peers.rounds', ROUNDS)
    for (const [q, n] of Object.entries(subgraphFetches(queries))) out(`peers.${q}.subgraph_fetches`, n)
    out('peers.load_average_before', `"${loadAverage()}"`)
    const loadStart = performance.now()

    // ---- answers compared: each caller's answer to each query, equal on the three gateways ----
    const bearers = await Promise.all(callers.map(async (c) => ({ authorization: `Bearer ${await mintDevToken(c)}` })))
    const ask = async (g: GatewayName, q: QueryName, caller: number): Promise<string> => {
      const res = await fetch(urls[g], { method: 'POST', headers: { 'content-type': 'application/json', ...bearers[caller] }, body: JSON.stringify({ query: PEER_QUERIES[q], variables: { ...variablesOf(q), nonce: 0 } }) })
      const body = await res.text()
      if (res.status !== 200 || body.includes('"errors"')) throw new Error(`peers: ${g} answered ${q} for caller ${caller} with ${res.status} ${body.slice(0, 600)}`)
      return body
    }
    /** per gateway and query, the bodies it gave (one per caller): under load, the only bodies accepted */
    const expected = new Map<string, string[]>()
    let compared = 0
    for (const q of queries) {
      const bodies: Record<GatewayName, string[]> = { ours: [], apollo: [], hive: [] }
      // a few callers at a time, one gateway after the other for each: a person's first role home opens their workbench
      // state, and on a loaded machine many first opens at once outlast workbench's transaction timeout
      for (let from = 0; from < callers.length; from += 4) {
        await Promise.all(callers.slice(from, from + 4).map(async (_, k) => {
          const caller = from + k
          const answers: string[] = []
          for (const g of GATEWAYS) answers.push(await ask(g, q, caller))
          GATEWAYS.forEach((g, i) => { bodies[g][caller] = answers[i] })
          const reference = canonical(answers[0])
          for (const [i, g] of GATEWAYS.entries()) {
            if (canonical(answers[i]) !== reference) throw new Error(`peers: ${g}'s answer to ${q} for caller ${caller} differs from ours:\nours: ${reference.slice(0, 800)}\n${g}: ${canonical(answers[i]).slice(0, 800)}`)
          }
          if (q !== 'role_home' && JSON.parse(answers[0]).data?.myInbox?.nodes?.length !== 50) throw new Error(`peers: ${q} did not answer 50 inbox items: ${answers[0].slice(0, 400)}`)
          compared++
        }))
      }
      for (const g of GATEWAYS) expected.set(`${g}.${q}`, [...new Set(bodies[g])])
    }
    out('peers.answers_compared', compared)

    // ---- load: every query on every gateway in turn, the first gateway rotating between rounds ----
    const results = new Map<string, LoadResult[]>()
    for (let round = 0; round < ROUNDS; round++) {
      const order = GATEWAYS.map((_, i) => GATEWAYS[(i + round) % GATEWAYS.length])
      for (const q of queries) {
        for (const g of order) {
          const spec = { url: urls[g], query: PEER_QUERIES[q], variables: variablesOf(q), distinct: 1000, headerSets: bearers, connections: CONCURRENCY, expected: expected.get(`${g}.${q}`) }
          if (WARMUP_SECONDS > 0) await runLoad({ ...spec, seconds: WARMUP_SECONDS }) // JIT, pools, plan and session caches
          const pids = { gateway: gatewayPids[g], workbench: subgraphPids.workbench, connectors: subgraphPids.connectors, twins: subgraphPids.twins }
          const before = await cpuSnapshot(writer, pids)
          const r = await runLoad({ ...spec, seconds: SECONDS })
          r.cpu = cpuPerRequest(before, await cpuSnapshot(writer, pids), r.requests)
          results.set(`${q}.${g}`, [...(results.get(`${q}.${g}`) ?? []), r])
          process.stderr.write(`round ${round + 1} ${q} ${g}: ${r.rps.toFixed(0)} rps p50 ${r.p50} p99 ${r.p99} errors ${r.errors + r.non2xx + r.graphqlErrors} mismatches ${r.mismatches ?? 0}, CPU ms/request ${Object.entries(r.cpu).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' ')} (load ${loadAverage()})\n`)
        }
      }
    }

    // ---- figures: per gateway, then ours/peer ----
    const med = (key: string, f: (r: LoadResult) => number) => median((results.get(key) ?? []).map(f))
    const rows: string[] = []
    const failures: string[] = []
    for (const q of queries) {
      for (const g of GATEWAYS) {
        const key = `${q}.${g}`
        const runs = results.get(key) ?? []
        const errors = runs.reduce((n, r) => n + r.non2xx + r.graphqlErrors, 0)
        const socketErrors = runs.reduce((n, r) => n + r.errors, 0)
        const mismatches = runs.reduce((n, r) => n + (r.mismatches ?? 0), 0)
        const rps = med(key, (r) => r.rps), p50 = med(key, (r) => r.p50), p99 = med(key, (r) => r.p99)
        out(`peers.${key}.rps`, rps.toFixed(0))
        out(`peers.${key}.mean_ms`, med(key, (r) => r.mean).toFixed(2))
        out(`peers.${key}.p50_ms`, p50)
        out(`peers.${key}.p99_ms`, p99)
        out(`peers.${key}.errors`, errors)
        out(`peers.${key}.socket_errors`, socketErrors)
        out(`peers.${key}.mismatches`, mismatches)
        const cpu = Object.fromEntries(['gateway', 'workbench', 'connectors', 'twins', 'postgres', 'total'].map((k) => [k, med(key, (r) => r.cpu![k])]))
        for (const [k, v] of Object.entries(cpu)) out(`peers.${key}.cpu_ms_per_request.${k}`, v.toFixed(2))
        if (errors || mismatches) failures.push(`${key}: ${errors} errors (${runs.find((r) => r.firstError)?.firstError ?? ''}), ${mismatches} answers unlike the compared ones (${runs.find((r) => r.firstMismatch)?.firstMismatch ?? ''})`)
        rows.push(`| ${q} | ${g} | ${rps.toFixed(0)} | ${p50} | ${p99} | ${cpu.total.toFixed(2)} (gw ${cpu.gateway.toFixed(2)}, wb ${cpu.workbench.toFixed(2)}, co ${cpu.connectors.toFixed(2)}, tw ${cpu.twins.toFixed(2)}, pg ${cpu.postgres.toFixed(2)}) |`)
      }
      for (const peer of PEERS) {
        // ours/peer from the medians: rps above 1 and p99 below 1 mean ours is ahead
        out(`peers.${q}.ours_over_${peer}.rps`, (med(`${q}.ours`, (r) => r.rps) / med(`${q}.${peer}`, (r) => r.rps)).toFixed(2))
        out(`peers.${q}.ours_over_${peer}.p99`, (med(`${q}.ours`, (r) => r.p99) / med(`${q}.${peer}`, (r) => r.p99)).toFixed(2))
        out(`peers.${q}.ours_over_${peer}.gateway_cpu_per_request`, (med(`${q}.ours`, (r) => r.cpu!.gateway) / med(`${q}.${peer}`, (r) => r.cpu!.gateway)).toFixed(2))
      }
    }
    out('peers.load_average_after', `"${loadAverage()}"`)
    console.log(`\n| query | gateway | rps | p50 ms | p99 ms | CPU ms per request |\n|---|---|---|---|---|---|\n${rows.join('\n')}`)
    if (profileDir) {
      // a component writes its profile as it exits: stop them, then read the load runs' part (start-up left out)
      const loadSeconds = Math.ceil((performance.now() - loadStart) / 1000)
      await stopChildren()
      out('peers.profile_dir', profileDir)
      console.log(`\nCPU profiles, the last ${loadSeconds} s of each component (every gateway's load runs and warm-ups; self time, % of the busy samples):\n`)
      console.log(summariseFolder(profileDir, Number(process.env.BENCH_PEERS_PROFILE_TOP) || 20, loadSeconds))
    }
    if (failures.length) throw new Error(`peers: answers under load were not the compared ones:\n${failures.join('\n')}`)
  } finally {
    await stopChildren()
    await mode?.close()
    await closeStackBench(bench, undefined)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchPeers)
