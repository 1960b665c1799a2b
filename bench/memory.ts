// Bench `memory` (DESIGN.md §12: memory text search, 100,000 records, p50 < 20 ms): recall latency for a twin's run
// over BENCH_MEMORY_RECORDS records in one organisation, and propose-through-sanitiser throughput.
import { randomUUID } from 'node:crypto'
import { contextForUser } from '../core/jobs'
import { createPrisma } from '../core/database'
import { checkMemorySummary } from '../core/text'
import { proposeNote } from '../domain/memory'
import { BRIEF_LIMITS, recallForRun, recallStatement } from '../domain/memory'
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs } from './figures'

const WORDS = ('assay stability noael dose species rat dog monkey plasma exposure auc cmax clearance formulation salt form ' +
  'batch route oral intravenous tablet capsule suspension solubility permeability metabolite liver kidney cardiac herg ' +
  'qt margin safety tox report study protocol amendment deviation specification impurity degradation shelf life ' +
  'chamber humidity temperature month week table figure summary units molar mg kg ml hour day escalation cohort ' +
  'biomarker target binding potency selectivity series analogue scaffold synthesis yield purity hplc method validation').split(' ')

export async function benchMemory() {
  const k = knobs('BENCH_MEMORY', { RECORDS: 100_000, PEOPLE: 20, QUERIES: 300, WARMUP: 30, PROPOSALS: 300 }, { RECORDS: 500, PEOPLE: 3, QUERIES: 5, WARMUP: 1, PROPOSALS: 5 })
  const restore = quietLogs()
  const database = await provisionBenchDatabase('memory')
  const db = createPrisma(database.url, 4)
  try {
    const org = await db.organization.create({ data: { slug: `bench-${randomUUID().slice(0, 8)}`, name: 'Bench organisation' } })
    const programs = [await db.program.create({ data: { organizationId: org.id, slug: 'bench-a', name: 'Bench A' } }), await db.program.create({ data: { organizationId: org.id, slug: 'bench-b', name: 'Bench B' } })]
    const people = []
    for (let i = 0; i < k.PEOPLE; i++) {
      const user = await db.user.create({ data: { organizationId: org.id, email: `bench-${i}-${randomUUID().slice(0, 6)}@bench.example`, name: `Bench Person ${i}` } })
      for (const p of programs) {
        await db.programMembership.create({ data: { organizationId: org.id, programId: p.id, userId: user.id } })
        await db.roleAssignment.create({ data: { organizationId: org.id, programId: p.id, userId: user.id, personaKey: 'scientist' } })
      }
      people.push(user)
    }
    const t0 = performance.now()
    // Nine in ten records are tier 1 spread over people and both programs; one in ten is tier 2. Every person holds
    // both tiers (runs of ten consecutive records belong to one person: the tenth is tier 2).
    await db.$executeRawUnsafe(`
      INSERT INTO memory_records (organization_id, user_id, program_id, tier, kind, summary, origin, status, content_hash, namespace, created_at)
      SELECT $1::uuid, u.id, CASE WHEN g % 10 = 0 THEN NULL ELSE p.id END,
        (CASE WHEN g % 10 = 0 THEN 'person' ELSE 'individual' END)::memory_tier,
        (CASE g % 3 WHEN 0 THEN 'preference' WHEN 1 THEN 'vocabulary' ELSE 'rubric_adjustment' END)::memory_kind,
        (SELECT string_agg(($2::text[])[1 + floor(random() * array_length($2::text[], 1))::int], ' ') FROM generate_series(1, 8 + g % 5) s WHERE s > 0 AND g > 0),
        'human', 'kept', md5(g::text),
        CASE WHEN g % 10 = 0 THEN 'org/' || $1 || '/users/' || u.id ELSE 'org/' || $1 || '/programs/' || p.id || '/users/' || u.id END,
        now() - (g || ' seconds')::interval
      FROM generate_series(1, $3::int) g
      JOIN LATERAL (SELECT id FROM users WHERE organization_id = $1::uuid ORDER BY id OFFSET ((g / 10) % $4::int) LIMIT 1) u ON true
      JOIN LATERAL (SELECT id FROM programs WHERE organization_id = $1::uuid ORDER BY slug OFFSET (g / (10 * $4::int)) % 2 LIMIT 1) p ON true`,
    org.id, WORDS, k.RECORDS, k.PEOPLE)
    await db.$executeRawUnsafe('ANALYZE memory_records')
    out('memory.records', await db.memoryRecord.count({ where: { organizationId: org.id } }))
    out('memory.load_s', ((performance.now() - t0) / 1000).toFixed(1))

    const ctx = await contextForUser(db, people[0]!.id, org.id)
    const query = () => `${WORDS[Math.floor(Math.random() * WORDS.length)]} ${WORDS[Math.floor(Math.random() * WORDS.length)]}`
    const times: number[] = []
    let returned = 0
    for (let i = 0; i < k.WARMUP + k.QUERIES; i++) {
      const q = query()
      const s = performance.now()
      const r = await recallForRun(ctx, { programId: programs[0]!.id, query: q })
      const ms = performance.now() - s
      if (i >= k.WARMUP) { times.push(ms); returned += r.records.length }
    }
    out('memory.recall.records_per_person', Math.round(k.RECORDS / k.PEOPLE))
    // Database execution time of recall's own statement (EXPLAIN ANALYZE of recallStatement), less noisy than the
    // round trip on a loaded machine, and which indexes it uses.
    const server: number[] = []
    const indexes = new Set<string>()
    for (let i = 0; i < 50; i++) {
      const read = recallStatement(org.id, people[0]!.id, programs[0]!.id, query(), BRIEF_LIMITS)!
      const plan = await db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN (ANALYZE, COSTS OFF) ${read.sql}`, ...read.params)
      const lines = plan.map((r) => r['QUERY PLAN'])
      for (const name of lines.join(' ').match(/memory_records_[a-z]\w*/g) ?? []) indexes.add(name)
      server.push(Number(lines.find((l) => l.startsWith('Execution Time'))?.replace(/[^\d.]/g, '') ?? NaN))
    }
    out('memory.recall.indexes', [...indexes].sort().join(','))
    out('memory.recall.server_p50_ms', percentile(server, 50).toFixed(2))
    out('memory.recall.server_p99_ms', percentile(server, 99).toFixed(2))
    out('memory.recall.p50_ms', percentile(times, 50).toFixed(2))
    out('memory.recall.p99_ms', percentile(times, 99).toFixed(2))
    out('memory.recall.avg_records', (returned / times.length).toFixed(1))

    // Sanitiser alone (pure), then propose_note end to end (sanitiser, tombstone and source-text checks in PostgreSQL).
    const notes = Array.from({ length: 1000 }, (_, i) => `${query()} ${query()} note ${i}: prefers ${query()} in tables.`)
    let s = performance.now()
    for (let i = 0; i < 20_000; i++) checkMemorySummary(notes[i % notes.length]!)
    out('memory.sanitiser.per_s', Math.round(20_000 / ((performance.now() - s) / 1000)))
    // The same with markup in every note, so sanitize-html (the markup allow-list) parses each one.
    const marked = notes.map((n, i) => `<p>${n}</p><b>${i}</b> <a href="https://x.example/${i}">glossary</a>`)
    s = performance.now()
    for (let i = 0; i < 5_000; i++) checkMemorySummary(marked[i % marked.length]!)
    out('memory.sanitiser_markup.per_s', Math.round(5_000 / ((performance.now() - s) / 1000)))
    s = performance.now()
    for (let i = 0; i < k.PROPOSALS; i++) await proposeNote(ctx, { programId: programs[0]!.id, kind: 'preference', summary: notes[i % notes.length]! })
    out('memory.propose.per_s', Math.round(k.PROPOSALS / ((performance.now() - s) / 1000)))
  } finally {
    await db.$disconnect()
    await database.cleanup()
    restore()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) benchMemory().then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })
