// Owns the inbox concept's raw SQL (everything else goes through the tenant client of core/db.ts): each tenant
// function takes the organisation first and binds it in its filter; a function that reads across organisations (a job
// sweeping them all) says so in its name. Advisory locks read no rows: their keys name one person or twin (UUIDs).
import type { InboxItem, InboxItemStatus } from '../../../../generated/prisma/client'
import { asTx, type AnyTx, type Db } from '../../../../core/db'
import { hotRows } from '../../../../core/hot-reads'
import { keysetSql, type KeysetQuery } from '../../../../core/pagination'

/** One page of a person's inbox, newest first: a hot read (every console screen), plain SQL through core/hot-reads.ts. */
export function inboxPage(db: Db, organizationId: string, userId: string, status: InboxItemStatus[] | null | undefined, q: KeysetQuery<'createdAt'>) {
  const values: unknown[] = [organizationId, userId]
  let sql = 'SELECT * FROM inbox_items WHERE organization_id = $1::uuid AND user_id = $2::uuid'
  if (status?.length) {
    values.push(status)
    sql += ' AND status = ANY($3::inbox_item_status[])'
  }
  const page = keysetSql(q, 'createdAt', 'created_at', values.length + 1)
  return hotRows<InboxItem>(db, `inbox.list.${values.length}.${page.values.length}`, sql + page.sql, [...values, ...page.values])
}

/** How many of a person's items in one program are open. */
export async function openInboxCount(db: Db, organizationId: string, userId: string, programId: string): Promise<number> {
  const [row] = await hotRows<{ n: number }>(db, 'inbox.open_count',
    `SELECT count(*)::int AS n FROM inbox_items WHERE organization_id = $1::uuid AND program_id = $2::uuid AND user_id = $3::uuid AND status = 'open'`,
    [organizationId, programId, userId])
  return row.n
}

/** The same for several programs in one query: a row per program with open items. */
export function openInboxCounts(db: Db, organizationId: string, userId: string, programIds: string[]) {
  return hotRows<{ programId: string; n: number }>(db, 'inbox.open_counts',
    `SELECT program_id, count(*)::int AS n FROM inbox_items WHERE organization_id = $1::uuid AND program_id = ANY($2::uuid[]) AND user_id = $3::uuid AND status = 'open' GROUP BY program_id`,
    [organizationId, programIds, userId])
}

/** Serialises filing for one person (backpressure's count and the filing in one transaction). */
export async function lockFilingFor(tx: AnyTx, userId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`backpressure:${userId}`}, 0))`
}

/** Serialises one twin's digest pass. */
export async function lockDigestOf(tx: AnyTx, twinId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`twin_digest:${twinId}`}))`
}

/** twin_digest sweeps every organisation: the digest moments already served since `since`, as 'twin id|slot'. */
export async function servedDigestSlotsAcrossOrganisations(db: Db, since: Date, twinIds: string[]): Promise<Set<string>> {
  const rows = await db.$queryRaw<{ k: string }[]>`
    SELECT (content->>'twin_id') || '|' || (content->>'digest_slot') AS k FROM artifacts
    WHERE kind = 'persona_brief' AND created_at >= ${since}
      AND content->>'twin_id' = ANY(${twinIds}::text[])`
  return new Set(rows.map((r) => r.k))
}
