// Owns the inbox concept's raw SQL (everything else goes through the tenant client of core/database/db.ts): each tenant
// function takes the organisation first and binds it in its filter; a function that reads across organisations (a job
// sweeping them all) says so in its name. Advisory locks read no rows: their keys name one person or twin (UUIDs).
import type { InboxItem, InboxItemStatus } from '../../generated/prisma/client'
import { asTx, type AnyTx, type Db } from '../../core/database'
import { hotRows } from '../../core/database'
import { keysetSql, type Keyset } from '../../core/database'

/** An inbox row read with its program's name and slug (null when the program is not in the organisation). */
export type InboxRowWithProgram = InboxItem & { programName: string | null; programSlug: string | null }

/**
 * One page of a person's inbox, newest first: a hot read (every console screen), plain SQL through
 * core/database/hot-reads.ts. `withPrograms`: each row also carries its program's name and slug, read in the same
 * statement (a page that shows `program { name slug }` then needs no second read for them).
 */
export function inboxPage(db: Db, organizationId: string, userId: string, status: InboxItemStatus[] | null | undefined, keyset: Keyset, withPrograms: true): Promise<InboxRowWithProgram[]>
export function inboxPage(db: Db, organizationId: string, userId: string, status: InboxItemStatus[] | null | undefined, keyset: Keyset, withPrograms?: boolean): Promise<InboxItem[]>
export function inboxPage(db: Db, organizationId: string, userId: string, status: InboxItemStatus[] | null | undefined, keyset: Keyset, withPrograms = false) {
  // $1 is the organisation (hotRows binds it); `values` are $2 onwards
  const values: unknown[] = [userId]
  let sql = 'SELECT * FROM inbox_items WHERE organization_id = $1::uuid AND user_id = $2::uuid'
  if (status?.length) {
    values.push(status)
    sql += ' AND status = ANY($3::inbox_item_status[])'
  }
  const page = keysetSql(keyset, 'created_at', values.length + 2)
  const name = `inbox.list.${values.length + 1}.${page.values.length}`
  if (!withPrograms) return hotRows<InboxItem>(organizationId, db, name, sql + page.sql, [...values, ...page.values])
  // the page as above, then its programs of the same organisation (the page's order again: a join keeps none)
  return hotRows<InboxRowWithProgram>(organizationId, db, `${name}.programs`,
    `SELECT i.*, p.name AS program_name, p.slug AS program_slug FROM (${sql}${page.sql}) i`
    + ' LEFT JOIN programs p ON p.organization_id = $1::uuid AND p.id = i.program_id ORDER BY i.created_at DESC, i.id DESC',
    [...values, ...page.values])
}

/** How many of a person's items in one program are open. */
export async function openInboxCount(db: Db, organizationId: string, userId: string, programId: string): Promise<number> {
  const [row] = await hotRows<{ n: number }>(organizationId, db, 'inbox.open_count',
    `SELECT count(*)::int AS n FROM inbox_items WHERE organization_id = $1::uuid AND program_id = $2::uuid AND user_id = $3::uuid AND status = 'open'`,
    [programId, userId])
  return row.n
}

/** The same for several programs in one query: a row per program with open items. */
export function openInboxCounts(db: Db, organizationId: string, userId: string, programIds: string[]) {
  return hotRows<{ programId: string; n: number }>(organizationId, db, 'inbox.open_counts',
    `SELECT program_id, count(*)::int AS n FROM inbox_items WHERE organization_id = $1::uuid AND program_id = ANY($2::uuid[]) AND user_id = $3::uuid AND status = 'open' GROUP BY program_id`,
    [programIds, userId])
}

/** A brief's item pointer, as the persona_brief artifact stores it. */
export interface BriefItemRow { id: string; kind: string; due_at: string | null }

/** What a person's brief in a program is composed of (domain/inbox/brief.ts), read in one statement. */
export interface BriefReadings {
  /** users.settings; null when the person is not a user of the organisation (settings is never null otherwise). */
  settings: unknown
  /** Open items of every kind in the program. */
  itemsWaiting: number
  /** Open decision items in the program. */
  decisionsWaiting: number
  /** Decision items open or snoozed across the person's programs: backpressure.ts's openDecisionCount. */
  openDecisions: number
  /** Every persona the person holds in the program is viewer (false when they hold none). */
  viewerOnly: boolean
  /** The person has an active twin in the program (at most one: twin_definitions_one_active_per_person). */
  hasActiveTwin: boolean
  /** digest_time of that twin. */
  twinDigestTime: string | null
  /** The earliest next_run_at of the enabled schedules of that twin. */
  nextRunAt: Date | null
  /** The first open items (due first, undated last, then oldest, then by id), when asked for; else null. */
  items: BriefItemRow[] | null
}

// $1 organisation, $2 person, $3 program, $4 how many item pointers (every table filtered on organization_id = $1).
// Open items are read once for both counts. Counts are int (the hot path refuses int8); due_at is written as
// toISOString writes it (UTC, milliseconds, 'Z'), and json_build_object keeps the artifact's key order.
const briefSql = (withItems: boolean) => `
  WITH open AS (
    SELECT id, kind, due_at, created_at FROM inbox_items
    WHERE organization_id = $1::uuid AND user_id = $2::uuid AND program_id = $3::uuid AND status = 'open'
  ), twins AS (
    SELECT id, digest_time FROM twin_definitions
    WHERE organization_id = $1::uuid AND program_id = $3::uuid AND user_id = $2::uuid AND status = 'active'
  )
  SELECT
    (SELECT settings FROM users WHERE organization_id = $1::uuid AND id = $2::uuid) AS "settings",
    (SELECT count(*)::int FROM open) AS "itemsWaiting",
    (SELECT count(*)::int FROM open WHERE kind = 'decision') AS "decisionsWaiting",
    (SELECT count(*)::int FROM inbox_items
      WHERE organization_id = $1::uuid AND user_id = $2::uuid AND kind = 'decision' AND status IN ('open', 'snoozed')) AS "openDecisions",
    (SELECT COALESCE(bool_and(persona_key = 'viewer'), false) FROM role_assignments
      WHERE organization_id = $1::uuid AND program_id = $3::uuid AND user_id = $2::uuid) AS "viewerOnly",
    EXISTS (SELECT 1 FROM twins) AS "hasActiveTwin",
    (SELECT digest_time FROM twins LIMIT 1) AS "twinDigestTime",
    (SELECT min(s.next_run_at) FROM twin_schedules s
      JOIN twins t ON t.id = s.twin_id
      JOIN twin_triggers tr ON tr.organization_id = $1::uuid AND tr.id = s.trigger_id
      WHERE s.organization_id = $1::uuid AND s.next_run_at IS NOT NULL AND tr.enabled) AS "nextRunAt",
    ${withItems ? `(SELECT COALESCE(json_agg(json_build_object('id', id, 'kind', kind,
        'due_at', to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY due_at ASC NULLS LAST, created_at ASC, id ASC), '[]')
      FROM (SELECT * FROM open ORDER BY due_at ASC NULLS LAST, created_at ASC, id ASC LIMIT $4::int) page) AS "items"` : 'NULL::json AS "items"'}`

const BRIEF_SQL = briefSql(true)
const SUMMARY_SQL = briefSql(false)

/**
 * A person's brief readings in a program in one statement, a hot read (the role home asks it): with the first `items`
 * item pointers, or none (null: the inbox summary's counts only).
 */
export async function briefReadings(db: Db, organizationId: string, userId: string, programId: string, items: number | null): Promise<BriefReadings> {
  const [row] = items === null
    ? await hotRows<BriefReadings>(organizationId, db, 'inbox.brief.summary', SUMMARY_SQL, [userId, programId])
    : await hotRows<BriefReadings>(organizationId, db, 'inbox.brief', BRIEF_SQL, [userId, programId, items])
  return row
}

/** The brief's readings in a transaction: a digest composes the brief it writes there, seeing the transaction's rows. */
export async function briefReadingsIn(tx: AnyTx, organizationId: string, userId: string, programId: string, items: number): Promise<BriefReadings> {
  const [row] = await asTx(tx).$queryRawUnsafe<BriefReadings[]>(BRIEF_SQL, organizationId, userId, programId, items)
  return row
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

/**
 * inbox_expire sweeps every organisation: marks escalated (priority now) the open items of these kinds older than their
 * program's escalation_days (the default when unset; 0 turns escalation off), answering their ids.
 */
export function escalateOverdueAcrossOrganisations(tx: AnyTx, now: Date, kinds: readonly string[], defaultDays: number) {
  return asTx(tx).$queryRaw<{ id: string }[]>`
    UPDATE inbox_items i SET escalated_at = ${now}, priority = 'now', updated_at = ${now}
    FROM programs p
    WHERE p.id = i.program_id AND p.organization_id = i.organization_id
      AND i.status = 'open' AND i.escalated_at IS NULL AND i.kind::text = ANY(${[...kinds]}::text[])
      AND COALESCE((p.settings->>'escalation_days')::int, ${defaultDays}) > 0
      AND i.created_at <= ${now}::timestamptz - make_interval(days => COALESCE((p.settings->>'escalation_days')::int, ${defaultDays}))
    RETURNING i.id`
}

/** inbox_expire sweeps every organisation: open or snoozed notices of `sourceType` whose item is neither any more. */
export function staleNoticesAcrossOrganisations(tx: AnyTx, sourceType: string) {
  return asTx(tx).$queryRaw<{ id: string; organization_id: string }[]>`
    SELECT n.id, n.organization_id FROM inbox_items n JOIN inbox_items i ON i.id::text = n.source_id AND i.organization_id = n.organization_id
    WHERE n.source_type = ${sourceType} AND n.status IN ('open', 'snoozed') AND i.status NOT IN ('open', 'snoozed')`
}
