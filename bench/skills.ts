// Skills benchmarks: NCA throughput (class A) on 1,000 twelve-point profiles, the p50/p99 of an NCA run
// through the gateway (runSkill over HTTP: permission, tool_calls row, artifact and audit committed), and
// SAR table latency for 200 compounds (class B). Prints one `name value` line per figure. Run alone with
// `npx tsx bench/skills.ts`.
import os from 'node:os'
import { pathToFileURL } from 'node:url'
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs } from './figures'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { resetAuthKeys } from '../core/identity'
import { startStack } from '../services'
import { createTenant } from '../tests/helpers/factories'
import { executeSkill, loadRdkit, runSkillSync } from '../domain/skills'

// Theoph subject 1 and a twelfth sample at 36 h on its terminal slope (lambda_z 0.0485 /h).
const THEOPH_TIMES = [0, 0.25, 0.57, 1.12, 2.02, 3.82, 5.1, 7.03, 9.05, 12.12, 24.37, 36]
const THEOPH_CONC = [0.74, 2.84, 6.57, 10.5, 9.66, 8.58, 8.36, 7.47, 6.89, 5.94, 3.28, 1.87]

/** Deterministic pseudo-random numbers (LCG), so every run benchmarks the same profiles. */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

async function benchGatewayRun(profiles: ReturnType<typeof theophLikeProfiles>, runs: number, warmup: number): Promise<void> {
  const restoreLogs = quietLogs()
  const database = await provisionBenchDatabase('skills')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    const tenant = await createTenant(db, 'Bench skills')
    const token = await tenant.token('scientist')
    const query = 'mutation($programId: ID!, $input: SkillRunInput!) { runSkill(programId: $programId, input: $input) { __typename ... on MutationRunSkillSuccess { skillResult { artifactId inputsHash } } } }'
    const xs: number[] = []
    for (let i = 0; i < warmup + runs; i++) {
      const body = JSON.stringify({ query, variables: { programId: tenant.program.id, input: { skillKey: 'tox.pk_parameter_extraction', inputs: profiles[i % profiles.length] } } })
      const t = performance.now()
      const res = await fetch(`${stack.gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body })
      const json = (await res.json()) as { data?: { runSkill?: { __typename: string } } }
      if (json.data?.runSkill?.__typename !== 'MutationRunSkillSuccess') throw new Error(`skill run ${i} failed: ${JSON.stringify(json)}`)
      if (i >= warmup) xs.push(performance.now() - t)
    }
    out('skills.gateway_run.runs', runs)
    out('skills.gateway_run.p50_ms', percentile(xs, 50).toFixed(2))
    out('skills.gateway_run.p99_ms', percentile(xs, 99).toFixed(2))
  } finally {
    await started?.stop()
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

function theophLikeProfiles(n: number, seed = 42) {
  const rnd = lcg(seed)
  return Array.from({ length: n }, () => ({
    rows: THEOPH_TIMES.map((t, i) => ({ time: t, conc: THEOPH_CONC[i] * (0.8 + 0.4 * rnd()) })),
    time_unit: 'h',
    conc_unit: 'mg/L',
    dose: { value: 320, unit: 'mg' },
    route: 'oral',
  }))
}

// Para substituents written so that their last atom bonds to the ring.
const PARA = ['C', 'CC', 'Cl', 'F', 'Br', 'O', 'CO', 'N', 'N#C', 'FC(F)(F)', 'FC(F)(F)O', 'CS(=O)(=O)', 'NC(=O)', 'CN(C)', 'C1CC1', 'CCO', 'CS', 'CC(C)', 'CC(C)(C)', 'c1ccccc1']
const AMINE = ['C', 'CC', 'C(C)C', 'C1CC1', 'CCO', 'CCN(C)C', 'Cc1ccccc1', 'C1CCOCC1', 'CC(F)(F)F', 'CCC']

function sarSeries(n: number) {
  const rnd = lcg(7)
  const compounds = []
  const activities = []
  for (let i = 0; i < n; i++) {
    const id = `BZ-${String(i + 1).padStart(3, '0')}`
    const smiles = `${PARA[i % PARA.length]}c1ccc(cc1)C(=O)N${AMINE[Math.floor(i / PARA.length) % AMINE.length]}`
    const licence = i % 10 === 0 ? 'CC BY-SA 3.0' : 'internal'
    compounds.push({ id, smiles, source: i % 10 === 0 ? 'chembl_34' : 'eln:bench', licence })
    for (const target of ['KDR', 'FLT3'])
      activities.push({ compound_id: id, target, value: { value: Math.round(1 + 5000 * rnd()), unit: 'nmol/L' }, source: 'eln:bench', licence: 'internal', citation: `assay:${id}:${target}` })
  }
  return { compounds, activities }
}

export async function benchSkills(): Promise<void> {
  // ---- NCA throughput: 1,000 twelve-point profiles after 1,000 warm-up runs ----
  const k = knobs('BENCH_SKILLS', { PROFILES: 1000, GATEWAY_RUNS: 200, WARMUP: 20 }, { PROFILES: 20, GATEWAY_RUNS: 3, WARMUP: 1 })
  const warm = theophLikeProfiles(1000)
  for (const p of warm) runSkillSync('tox.pk_parameter_extraction', p) // warm-up (JIT)
  const profiles = theophLikeProfiles(k.PROFILES, 43)
  const t0 = performance.now()
  for (const p of profiles) runSkillSync('tox.pk_parameter_extraction', p)
  const ncaMs = performance.now() - t0
  out('skills.nca.profiles', profiles.length)
  out('skills.nca.points_per_profile', THEOPH_TIMES.length)
  out('skills.nca.profiles_per_second', Math.round((profiles.length / ncaMs) * 1000))
  out('skills.load_avg_1m', os.loadavg()[0].toFixed(2))

  // ---- one NCA run through the gateway, client-side ----
  await benchGatewayRun(profiles, k.GATEWAY_RUNS, k.WARMUP)

  // ---- SAR latency, 200 compounds ----
  const tLoad = performance.now()
  await loadRdkit()
  out('skills.sar.rdkit_load_ms', (performance.now() - tLoad).toFixed(1))
  const series = sarSeries(200)
  const withCore = { ...series, core_smarts: '[*:1]c1ccc(cc1)C(=O)N[*:2]', primary_target: 'KDR' }
  await executeSkill('chem.sar_table_build', withCore) // warm-up (JIT)
  const runs: number[] = []
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    await executeSkill('chem.sar_table_build', withCore)
    runs.push(performance.now() - t)
  }
  out('skills.sar.compounds', 200)
  out('skills.sar.latency_ms_median', median(runs).toFixed(1))
  const tm = performance.now()
  await executeSkill('chem.sar_table_build', { ...series, primary_target: 'KDR' })
  out('skills.sar.latency_ms_mcs_core', (performance.now() - tm).toFixed(1))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchSkills().catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
}
