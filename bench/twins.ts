// Bench `twins`: twin_schedule claiming and enqueuing 10,000 due schedules (DESIGN.md §12 budget: < 5 s). Seeds N active
// twins with approved schedule triggers all due, then times claimDueSchedules (SKIP LOCKED batches, runs inserted and
// twin_cycle jobs added in the same transactions) until none is due. Prints figures; never asserts timings.
import os from 'node:os'
import { createPrisma } from '../core/database'
import { claimDueSchedules } from '../domain/twins'
import { provisionBenchDatabase } from './database'
import { knobs, out, quietLogs } from './figures'

export async function benchTwins() {
  const restoreLogs = quietLogs()
  const k = knobs('BENCH_TWINS', { SCHEDULES: 10_000, BATCH: 2000 }, { SCHEDULES: 100, BATCH: 50 })
  const database = await provisionBenchDatabase('twins')
  const db = createPrisma(database.url, 4)
  try {
    const [org] = await db.$queryRaw<{ id: string }[]>`INSERT INTO organizations (slug, name) VALUES ('bench-twins', 'Bench twins') RETURNING id`
    const [program] = await db.$queryRaw<{ id: string }[]>`INSERT INTO programs (organization_id, slug, name) VALUES (${org.id}::uuid, 'bench', 'Bench') RETURNING id`
    await db.$executeRaw`
      WITH u AS (
        INSERT INTO users (organization_id, email, name)
        SELECT ${org.id}::uuid, 'bench-' || i || '@bench.example', 'Bench ' || i FROM generate_series(1, ${k.SCHEDULES}) i
        RETURNING id
      ), d AS (
        INSERT INTO twin_definitions (organization_id, program_id, user_id, persona_key, duties)
        SELECT ${org.id}::uuid, ${program.id}::uuid, u.id, 'scientist', '["blocker_scan"]' FROM u RETURNING id
      ), t AS (
        INSERT INTO twin_triggers (organization_id, program_id, twin_id, duty_key, kind, standing_plan_json, standing_plan_hash, standing_plan_approved_at)
        SELECT ${org.id}::uuid, ${program.id}::uuid, d.id, 'blocker_scan', 'schedule', '{}', 'bench', now() FROM d RETURNING id, twin_id
      )
      INSERT INTO twin_schedules (organization_id, twin_id, trigger_id, rrule, next_run_at)
      SELECT ${org.id}::uuid, t.twin_id, t.id, E'DTSTART:20261101T080000Z\nRRULE:FREQ=HOURLY;BYMINUTE=0', now() - interval '1 minute' FROM t`
    await db.$executeRaw`ANALYZE`
    const load = os.loadavg()[0]
    const t0 = performance.now()
    const r = await claimDueSchedules(db, { batch: k.BATCH, maxBatches: 1000 })
    const seconds = (performance.now() - t0) / 1000
    const [jobs] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'twin_cycle'`
    out('twins.schedules_due', k.SCHEDULES)
    out('twins.claimed', r.claimed)
    out('twins.runs_enqueued', r.enqueued)
    out('twins.jobs_added', jobs.n)
    out('twins.batches', r.batches)
    out('twins.claim_seconds', seconds.toFixed(2))
    out('twins.claim_per_second', Math.round(r.claimed / seconds))
    out('twins.budget_seconds', 5)
    out('twins.within_budget', seconds < 5)
    out('twins.load_avg_1m_before', load.toFixed(2))
  } finally {
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}
