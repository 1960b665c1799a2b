// Records benchmark: listing the 1,000 records of a program through the gateway (Program.records in ten cursor pages
// of 100, with typed fields, footer and source system), p50 and p99 over repeated full listings. Loopback only;
// prints `name value` lines and never asserts timings. Run alone with `npx tsx bench/records.ts`.
//
// Knobs (environment): BENCH_RECORDS_RECORDS (1000), BENCH_RECORDS_LISTINGS (50), BENCH_RECORDS_WARMUP (5).
import { randomUUID } from 'node:crypto'
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { startStack } from '../services'
import { RECORD_TYPES, RECORD_TYPE_KEYS } from '../domain/records'
import { createTenant } from '../tests/helpers/factories'

const ms = (x: number) => x.toFixed(2)

const QUERY = `query($p: ID!, $after: String) { program(id: $p) { records(first: 100, after: $after) {
  nodes { __typename id recordType title status version sourceSystem footer
    ... on HypothesisRecord { confidence } ... on MilestoneRecord { dueOn tags } ... on EvidenceFindingRecord { kind doseMgPerKg } }
  pageInfo { endCursor hasNextPage } } } }`

/** Sample fields that need no references (dependencies and approvals point at the first milestone). */
function fieldsFor(type: (typeof RECORD_TYPE_KEYS)[number], milestoneId: string): Record<string, string> {
  const spec = RECORD_TYPES[type]
  const out: Record<string, string> = {}
  for (const f of spec.fields) {
    if (!f.required) continue
    out[f.name] = f.kind === 'enum' ? f.values[0] : f.kind === 'date' ? '2027-01-01' : f.kind === 'record' ? milestoneId : 'x'
  }
  return out
}

export async function benchRecords(): Promise<void> {
  const restoreLogs = quietLogs()
  const { RECORDS, LISTINGS, WARMUP } = knobs('BENCH_RECORDS', { RECORDS: 1000, LISTINGS: 50, WARMUP: 5 }, { RECORDS: 30, LISTINGS: 2, WARMUP: 1 })
  const bench = await openStackBench('records')
  const { database, db, writer } = bench
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    out('records.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const tenant = await createTenant(writer, 'Bench')
    const org = tenant.organization.id
    const lead = tenant.users.program_lead.id
    // Rows written in bulk as the write path leaves them (record + its version row); a third came from a twin's
    // proposal, so their footer is read.
    const milestoneId = randomUUID()
    const t0 = Date.now() - RECORDS * 1000
    const rows = Array.from({ length: RECORDS }, (_, i) => {
      const type = i === 0 ? 'progress.milestones' : RECORD_TYPE_KEYS[i % RECORD_TYPE_KEYS.length]
      const spec = RECORD_TYPES[type]
      return {
        id: i === 0 ? milestoneId : randomUUID(), organizationId: org, programId: tenant.program.id, recordType: type,
        title: `Bench ${type} ${i}`, body: 'Bench body', status: spec.machine.initial[0], fields: fieldsFor(type, milestoneId),
        version: 1, createdByUserId: lead, updatedByUserId: lead, createdAt: new Date(t0 + i * 1000), updatedAt: new Date(t0 + i * 1000),
      }
    })
    await writer.programRecord.createMany({ data: rows.map((r) => ({ ...r, experimentId: null })) })
    await writer.programRecordVersion.createMany({
      data: rows.map((r, i) => ({
        organizationId: org, recordId: r.id, version: 1, change: 'create', title: r.title, body: r.body, status: r.status, fields: r.fields,
        decidedByUserId: lead, ...(i % 3 === 0 ? { proposalId: randomUUID(), proposedByUserId: tenant.users.scientist.id, proposedByTwinId: randomUUID() } : {}),
      })),
    })
    out('records.setup.records', RECORDS)

    const url = `${stack.gatewayUrl}/graphql`
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${await tenant.token('viewer')}` }
    const page = async (after: string | null) => {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query: QUERY, variables: { p: tenant.program.id, after } }) })
      const body = await res.json() as any
      if (body.errors?.length) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 500)}`)
      return body.data.program.records
    }
    const listings: number[] = []
    const pages: number[] = []
    for (let i = 0; i < WARMUP + LISTINGS; i++) {
      let after: string | null = null
      let seen = 0
      let footers = 0
      const start = performance.now()
      for (;;) {
        const p0 = performance.now()
        const p = await page(after)
        if (i >= WARMUP) pages.push(performance.now() - p0)
        seen += p.nodes.length
        footers += p.nodes.filter((n: { footer: string | null }) => n.footer).length
        if (!p.pageInfo.hasNextPage) break
        after = p.pageInfo.endCursor
      }
      if (seen !== RECORDS || footers !== Math.ceil(RECORDS / 3)) throw new Error(`listed ${seen} records with ${footers} footers, expected ${RECORDS}`)
      if (i >= WARMUP) listings.push(performance.now() - start)
    }
    out('records.list_all.records', RECORDS)
    out('records.list_all.listings', LISTINGS)
    out('records.list_all_p50_ms', ms(percentile(listings, 50)))
    out('records.list_all_p99_ms', ms(percentile(listings, 99)))
    out('records.page100_p50_ms', ms(percentile(pages, 50)))
    out('records.page100_p99_ms', ms(percentile(pages, 99)))
  } finally {
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchRecords)
