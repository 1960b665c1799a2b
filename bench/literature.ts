// Literature benchmark: a search across the sources through the gateway (Program.literatureSearch against the fake
// literature sources on loopback: index, DOI registry, citation graph, archive metadata, full text), p50 and p99; and
// cluster de-duplication throughput over 10,000 source records. Prints `name value` lines; never asserts timings.
// Run alone with `npx tsx bench/literature.ts`.
//
// The sources' own rate rules would pace the searches (the index's self-cap of 5 per second alone allows about one
// search a second), so the timed searches run with the platform windows lifted; a few searches at the real rules are
// reported apart (search_paced_*).
//
// Knobs (environment): BENCH_LITERATURE_SEARCHES (40), BENCH_LITERATURE_PACED (4), BENCH_LITERATURE_RECORDS (10000),
// BENCH_LITERATURE_ROUNDS (5).
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { resetAuthKeys } from '../core/identity'
import { startStack } from '../services'
import { createTenant } from '../tests/helpers/factories'
import { startFakeLiterature } from '../fakes/literature/server'
import { configureLiterature } from '../domain/literature'
import { PROVIDER, ensureSourceBudgets } from '../domain/literature'
import { clusterRecords, type SourceRecord } from '../domain/literature'

const ms = (x: number) => x.toFixed(2)
const QUERY = `query($p: ID!, $q: String!) { program(id: $p) { literatureSearch(query: $q) {
  hitCount nodes { clusterKey aliases licence rendering { mode } provenance { provider snapshotField } } sources { source status } } } }`
const TERMS = ['allosteric kinase inhibitor', 'kinase inhibitor', 'hERG', 'in vivo efficacy', 'kinase']

/** 10,000 source records of about 4,000 works, each seen through one to three sources, identifiers overlapping as real answers do. */
function syntheticRecords(n: number): SourceRecord[] {
  const out: SourceRecord[] = []
  const base = (i: number) => ({ title: `Work ${i}`, abstract: null, year: 2020, venue: null, url: null, licence: null, snapshot: null })
  for (let w = 0; out.length < n; w++) {
    const doi = w % 5 === 0 ? null : `10.5555/bench.${w}`
    out.push({ source: 'literature_index', ids: { doi, pmid: String(10_000_000 + w), pmcid: w % 2 ? `PMC${20_000_000 + w}` : null }, ...base(w), snapshot: { field: 'retrieved_at', value: '2026-11-23T00:00:00Z' } })
    if (out.length < n && w % 3 !== 0) out.push({ source: 'citation_graph', ids: { wid: `W${30_000_000 + w}`, doi, pmid: doi ? null : String(10_000_000 + w) }, ...base(w) })
    if (out.length < n && doi && w % 2 === 0) out.push({ source: 'doi_registry', ids: { doi: doi.toUpperCase() }, ...base(w) })
  }
  return out.slice(0, n)
}

export async function benchLiterature(): Promise<void> {
  const restoreLogs = quietLogs()
  const { SEARCHES, PACED, RECORDS, ROUNDS } = knobs('BENCH_LITERATURE', { SEARCHES: 40, PACED: 4, RECORDS: 10_000, ROUNDS: 5 }, { SEARCHES: 2, PACED: 1, RECORDS: 200, ROUNDS: 1 })

  // ---- cluster de-duplication (pure) ----
  const records = syntheticRecords(RECORDS)
  clusterRecords(records) // warm-up
  const rounds: number[] = []
  let clusters = 0
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now()
    clusters = clusterRecords(records).length
    rounds.push(performance.now() - t0)
  }
  out('literature.dedup.records', RECORDS)
  out('literature.dedup.clusters', clusters)
  out('literature.dedup_p50_ms', ms(percentile(rounds, 50)))
  out('literature.dedup_records_per_s', Math.round(RECORDS / (percentile(rounds, 50) / 1000)))

  // ---- search through the gateway ----
  const database = await provisionBenchDatabase('literature')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  const fake = await startFakeLiterature({ port: 0 })
  configureLiterature({ baseUrl: fake.url })
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    const tenant = await createTenant(db, 'Bench literature')
    const url = `${stack.gatewayUrl}/graphql`
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${await tenant.token('scientist')}` }
    const search = async (q: string) => {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query: QUERY, variables: { p: tenant.program.id, q } }) })
      const body = await res.json() as any
      if (body.errors?.length) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 500)}`)
      return body.data.program.literatureSearch
    }
    // At the real rules first (a fresh budget), then with the windows lifted.
    const paced: number[] = []
    for (let i = 0; i < PACED; i++) {
      const t0 = performance.now()
      await search(TERMS[i % TERMS.length])
      paced.push(performance.now() - t0)
    }
    await ensureSourceBudgets(db)
    await db.$executeRaw`UPDATE rate_budgets SET limit_per_window = 1000000 WHERE provider_id = ${PROVIDER} AND scope = 'platform'`
    fake.control.doiRate = { limit: 1_000_000, interval: '1s' }
    for (let i = 0; i < 5; i++) await search(TERMS[i % TERMS.length]) // warm-up
    const times: number[] = []
    let clustersSeen = 0
    for (let i = 0; i < SEARCHES; i++) {
      const t0 = performance.now()
      const page = await search(TERMS[i % TERMS.length])
      times.push(performance.now() - t0)
      clustersSeen += page.nodes.length
      if (page.sources.some((s: { status: string }) => s.status !== 'ok' && s.status !== 'skipped')) throw new Error(`a source failed: ${JSON.stringify(page.sources)}`)
    }
    out('literature.search.searches', SEARCHES)
    out('literature.search.clusters_per_search', (clustersSeen / SEARCHES).toFixed(1))
    out('literature.search_p50_ms', ms(percentile(times, 50)))
    out('literature.search_p99_ms', ms(percentile(times, 99)))
    out('literature.search_paced.searches', PACED)
    out('literature.search_paced_p50_ms', ms(percentile(paced, 50)))
    out('literature.search_paced_max_ms', ms(Math.max(...paced)))
  } finally {
    await started?.stop()
    await fake.close()
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchLiterature)
