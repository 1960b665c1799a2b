// Owns the tool server's raw SQL: the admission counters (agent_limit_counters: a twin's month, a run's turn). Each
// function takes the organisation first and binds it.
import type { Tx } from '../../../core/database'

/** Any client or transaction, tenant-scoped or not: what raw SQL needs of it. */
type Sql = Pick<Tx, '$queryRaw' | '$executeRaw'>
type Counter = { scope: string; subjectId: string; period: string }

/** Takes one from a counter unless it is at `limit`; answers the new count, or nothing when refused. */
export async function takeCounter(tx: Sql, organizationId: string, t: Counter & { limit: number }) {
  const [row] = await tx.$queryRaw<{ used: number }[]>`
          INSERT INTO agent_limit_counters (organization_id, scope, subject_id, period, used)
          VALUES (${organizationId}::uuid, ${t.scope}, ${t.subjectId}::uuid, ${t.period}, 1)
          ON CONFLICT (scope, subject_id, period) DO UPDATE SET used = agent_limit_counters.used + 1, updated_at = now()
          WHERE agent_limit_counters.used < ${t.limit}
          RETURNING used`
  return row
}

/** Gives one back (never below zero). */
export async function giveBackCounter(tx: Sql, organizationId: string, t: Counter) {
  await tx.$executeRaw`
      UPDATE agent_limit_counters SET used = used - 1, updated_at = now()
      WHERE organization_id = ${organizationId}::uuid AND scope = ${t.scope} AND subject_id = ${t.subjectId}::uuid AND period = ${t.period} AND used > 0`
}

/** A counter's row, if it was ever taken. */
export async function counterRow(q: Sql, organizationId: string, take: Counter) {
  const [row] = await q.$queryRaw<{ used: number }[]>`
    SELECT used FROM agent_limit_counters WHERE organization_id = ${organizationId}::uuid AND scope = ${take.scope} AND subject_id = ${take.subjectId}::uuid AND period = ${take.period}`
  return row
}
