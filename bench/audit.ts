// Audit chain benchmark (issue 35): what chaining costs a write, and how fast a chain verifies. Prints `name value`
// lines; never asserts timings. Alone: `npx tsx bench/audit.ts`.
//
// (a) append: BENCH_AUDIT_WRITES (2,000) transactions of one audit row each, one after another, chained
//     (recordAudit: insert, lock the organisation's head, hash, insert the position) interleaved with the same row
//     inserted unchained (the insert alone, what an audit write cost before the chain); then BENCH_AUDIT_WRITERS (8) writers at
//     once, all in one organisation (they queue on its head) and each in its own (they never wait for each other).
// (b) verify: BENCH_AUDIT_ENTRIES (1,000,000) chained entries of one organisation (loaded in bulk, hashed as the append
//     hashes them), then verifyChain over all of them: entries per second.
// Knobs (environment): BENCH_AUDIT_WRITES, BENCH_AUDIT_WRITERS, BENCH_AUDIT_ENTRIES.
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { createPrisma, type Db } from '../core/database'
import { recordAudit } from '../core/audit'
import { entryHash, verifyChain } from '../core/audit'
import { createTenant, type Tenant } from '../tests/helpers/factories'

const ms = (t0: number) => performance.now() - t0

function auditOf(tenant: Tenant, i: number) {
  return {
    organizationId: tenant.organization.id, programId: tenant.program.id, action: 'program.update' as const,
    actor: { type: 'user' as const, userId: tenant.users.program_lead.id }, target: { type: 'program', id: tenant.program.id },
    details: { n: i, note: 'bench entry with a few words of detail', record_type: 'evidence.hypotheses' },
  }
}

async function timeWrites(n: number, write: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < n; i++) { const t0 = performance.now(); await write(i); times.push(ms(t0)) }
  return times
}

export async function benchAudit(): Promise<void> {
  const k = knobs('BENCH_AUDIT', { WRITES: 2000, WRITERS: 8, ENTRIES: 1_000_000 }, { WRITES: 50, WRITERS: 2, ENTRIES: 2000 })
  const restoreLogs = quietLogs()
  const database = await provisionBenchDatabase('audit')
  const db: Db = createPrisma(database.url, k.WRITERS + 2)
  try {
    out('audit.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const tenant = await createTenant(db, 'Bench')
    const warm = Math.min(100, k.WRITES)
    await timeWrites(warm, (i) => db.$transaction((tx) => recordAudit(tx, auditOf(tenant, i))))

    // (a) one writer: chained against unchained, interleaved one for one so the machine's load weighs on both alike.
    // The unchained rows are outside the chain by design, so they go to another tenant: the chained one stays clean.
    const plainTenant = await createTenant(db, 'Unchained')
    const chainedTenant = await createTenant(db, 'Chained')
    const plain: number[] = []
    const chained: number[] = []
    for (let i = 0; i < k.WRITES; i++) {
      let t = performance.now()
      await db.$transaction((tx) => tx.auditEvent.create({ data: {
        organizationId: plainTenant.organization.id, programId: plainTenant.program.id, action: 'program.update', actorType: 'user',
        actorUserId: plainTenant.users.program_lead.id, targetType: 'program', targetId: plainTenant.program.id, details: auditOf(plainTenant, i).details,
      } }))
      plain.push(ms(t))
      t = performance.now()
      await db.$transaction((tx) => recordAudit(tx, auditOf(chainedTenant, i)))
      chained.push(ms(t))
    }
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(2)
    out('audit.append.writes', k.WRITES)
    out('audit.append.unchained_p50_ms', p(plain, 50))
    out('audit.append.unchained_p99_ms', p(plain, 99))
    out('audit.append.chained_p50_ms', p(chained, 50))
    out('audit.append.chained_p99_ms', p(chained, 99))
    out('audit.append.cost_per_write_p50_ms', (percentile(chained, 50) - percentile(plain, 50)).toFixed(2))

    // (a) many writers: one organisation (they queue on its head) against one organisation each
    const tenants = [chainedTenant, ...await Promise.all(Array.from({ length: k.WRITERS - 1 }, (_, i) => createTenant(db, `Writer ${i}`)))]
    const perWriter = Math.max(1, Math.floor(k.WRITES / k.WRITERS))
    const parallel = async (pick: (w: number) => Tenant) => {
      const t0 = performance.now()
      await Promise.all(Array.from({ length: k.WRITERS }, (_, w) => timeWrites(perWriter, (i) => db.$transaction((tx) => recordAudit(tx, auditOf(pick(w), i))))))
      return (k.WRITERS * perWriter) / (ms(t0) / 1000)
    }
    out('audit.append.writers', k.WRITERS)
    out('audit.append.one_org_writes_per_s', (await parallel(() => chainedTenant)).toFixed(0))
    out('audit.append.own_org_writes_per_s', (await parallel((w) => tenants[w]!)).toFixed(0))
    const quick = await verifyChain(db, chainedTenant.organization.id, { record: false })
    out('audit.append.chain_verified', quick.verified)

    // (b) a long chain, loaded in bulk: rows inserted, then each page hashed and its positions inserted, exactly as
    // the append would have.
    const big = await createTenant(db, 'Long chain')
    const org = big.organization.id
    const t0 = performance.now()
    const BATCH = 20_000
    for (let done = 0; done < k.ENTRIES; done += BATCH) {
      const n = Math.min(BATCH, k.ENTRIES - done)
      await db.$executeRaw`INSERT INTO audit_events (organization_id, program_id, action, actor_type, actor_user_id, target_type, target_id, details)
        SELECT ${org}::uuid, ${big.program.id}::uuid, 'program.update', 'user', ${big.users.program_lead.id}::uuid, 'program_record', gen_random_uuid()::text,
          jsonb_build_object('n', ${done}::int + g, 'record_type', 'evidence.hypotheses', 'version', g % 7)
        FROM generate_series(1, ${n}::int) g`
    }
    let prev = ''
    let seq = 0
    let after = 0n
    for (;;) {
      const rows = await db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('timezone', 'UTC', true)`
        return tx.$queryRaw<{ id: string; entry_seq: bigint; entry: string }[]>`SELECT id, entry_seq, to_jsonb(a)::text AS entry FROM audit_events a
          WHERE organization_id = ${org}::uuid AND entry_seq > ${after} ORDER BY entry_seq LIMIT ${BATCH}`
      }, { timeout: 600_000 })
      if (!rows.length) break
      after = rows.at(-1)!.entry_seq
      const ids: string[] = []; const seqs: number[] = []; const prevs: string[] = []; const hashes: string[] = []
      for (const r of rows) {
        seq += 1
        const hash = entryHash(seq, prev, JSON.parse(r.entry), [])
        ids.push(r.id); seqs.push(seq); prevs.push(prev); hashes.push(hash)
        prev = hash
      }
      await db.$executeRaw`INSERT INTO audit_chain_entries (organization_id, chain_seq, event_id, prev_hash, entry_hash)
        SELECT ${org}::uuid, v.seq, v.id, v.prev, v.hash
        FROM unnest(${ids}::uuid[], ${seqs}::bigint[], ${prevs}::text[], ${hashes}::text[]) AS v(id, seq, prev, hash)`
    }
    await db.$executeRaw`INSERT INTO audit_chain_heads (organization_id, seq, head_hash) VALUES (${org}::uuid, ${seq}, ${prev})
      ON CONFLICT (organization_id) DO UPDATE SET seq = EXCLUDED.seq, head_hash = EXCLUDED.head_hash`
    // A million rows written at once leave the planner's statistics behind (autovacuum would catch up in time):
    // without them it may choose a poor plan for the verifier's pages.
    await db.$executeRaw`ANALYZE audit_events`
    await db.$executeRaw`ANALYZE audit_chain_entries`
    out('audit.verify.entries', seq)
    out('audit.verify.load_s', (ms(t0) / 1000).toFixed(1))
    const v0 = performance.now()
    const v = await verifyChain(db, org, { record: false })
    const seconds = ms(v0) / 1000
    out('audit.verify.verified', v.verified)
    out('audit.verify.seconds', seconds.toFixed(1))
    out('audit.verify.entries_per_s', (v.entries / seconds).toFixed(0))
    out('audit.verify.rss_mb', (process.memoryUsage().rss / 1048576).toFixed(0))
  } finally {
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchAudit)
