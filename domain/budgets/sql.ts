// Owns every statement over rate_budgets (the one road to the table). Two kinds of rows:
// - a connection's window and its organisation's (scope connection / organization, organization_id set): tenant rows,
//   every function takes the organisation first and binds it;
// - a platform-scoped source's window (scope platform, organization_id NULL) shared by every organisation, and the
//   fair share of each organisation in it: functions that read or write the shared row, or count other organisations'
//   rows, say so in their name (...AcrossOrganisations).
import type { AnyTx, Db } from '../../core/database'

export interface BudgetRow {
  id: string
  scope: 'platform' | 'organization' | 'connection'
  scope_key: string
  limit_per_window: number
  window_seconds: number
  used: number
  window_started_at: Date
  remote_limit: number | null
  remote_remaining: number | null
  remote_reset_at: Date | null
  updated_at: Date
}

// ---------------------------------------------------------------------------------------------------------------
// A connection's window within its organisation's

export interface ConnectionBudgetKey {
  providerId: string
  connectionId: string
  /** 1: the connection row alone (no organisation budget); 2: the organisation's row and the connection's. */
  rowCount: 1 | 2
}

/**
 * One statement (its own transaction): lock the organisation row then the connection row (always in that order, so two
 * draws never deadlock), restart windows that have ended, and take `requests` from both, or from neither when one
 * refuses (then `retry` is the wait in seconds). `reserve`: requests kept back from the vendor's advertised remainder.
 */
export function drawConnectionBudget(db: Db, organizationId: string, k: ConnectionBudgetKey, requests: number, now: Date, reserve: number) {
  return db.$queryRaw<{ retry: number | null; rows: bigint; updated: bigint }[]>`
    WITH locked AS (
      SELECT id, scope, limit_per_window, window_seconds, used, window_started_at, remote_remaining, remote_reset_at
      FROM rate_budgets
      WHERE provider_id = ${k.providerId} AND organization_id = ${organizationId}::uuid
        AND ((scope = 'organization' AND scope_key = ${organizationId}) OR (scope = 'connection' AND scope_key = ${k.connectionId}))
      ORDER BY scope
      FOR UPDATE
    ), state AS (
      SELECT id, scope, limit_per_window, window_seconds, remote_remaining, remote_reset_at,
        CASE WHEN ${now}::timestamptz >= window_started_at + make_interval(secs => window_seconds) THEN 0 ELSE used END AS used,
        CASE WHEN ${now}::timestamptz >= window_started_at + make_interval(secs => window_seconds) THEN ${now}::timestamptz ELSE window_started_at END AS started
      FROM locked
    ), verdict AS (
      SELECT count(*) AS rows, max(GREATEST(
        CASE WHEN used + ${requests}::int > limit_per_window
          THEN ceil(extract(epoch FROM (started + make_interval(secs => window_seconds) - ${now}::timestamptz)))::int ELSE 0 END,
        -- adaptive throttling: the vendor's own remainder for its current window
        CASE WHEN scope = 'connection' AND remote_reset_at > ${now}::timestamptz AND remote_remaining IS NOT NULL
               AND remote_remaining - ${requests}::int < ${reserve}::int
          THEN ceil(extract(epoch FROM (remote_reset_at - ${now}::timestamptz)))::int ELSE 0 END)) AS retry
      FROM state
    ), updated AS (
      UPDATE rate_budgets r SET used = s.used + ${requests}::int, window_started_at = s.started, updated_at = now(),
        remote_remaining = CASE WHEN s.remote_reset_at > ${now}::timestamptz AND s.remote_remaining IS NOT NULL
                                THEN s.remote_remaining - ${requests}::int ELSE s.remote_remaining END
      FROM state s, verdict v
      WHERE r.id = s.id AND v.rows = ${k.rowCount} AND COALESCE(v.retry, 0) = 0
      RETURNING r.id
    )
    SELECT v.retry, v.rows, (SELECT count(*) FROM updated) AS updated FROM verdict v`
}

/** Creates the connection's row (and the organisation's, when it has one) if missing. */
export async function ensureConnectionBudgetRows(db: Db, organizationId: string, k: ConnectionBudgetKey, limits: { connection: number; organization: number | null; windowSeconds: number }) {
  if (limits.organization === null) {
    await db.$executeRaw`
      INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
      VALUES (${organizationId}::uuid, ${k.providerId}, 'connection', ${k.connectionId}, ${limits.connection}, ${limits.windowSeconds})
      ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
    return
  }
  await db.$executeRaw`
    INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
    VALUES (${organizationId}::uuid, ${k.providerId}, 'organization', ${organizationId}, ${limits.organization}, ${limits.windowSeconds}),
           (${organizationId}::uuid, ${k.providerId}, 'connection', ${k.connectionId}, ${limits.connection}, ${limits.windowSeconds})
    ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
}

/** The vendor's rate headers of an answer on the connection's row (adaptive throttling). */
export async function noteConnectionRemoteRate(db: Db, organizationId: string, k: ConnectionBudgetKey, h: { limit: number | null; remaining: number | null; resetAt: Date | null }) {
  await db.$executeRaw`
    UPDATE rate_budgets SET remote_limit = COALESCE(${h.limit}::int, remote_limit),
      remote_remaining = ${h.remaining}::int, remote_reset_at = ${h.resetAt}::timestamptz, updated_at = now()
    WHERE provider_id = ${k.providerId} AND organization_id = ${organizationId}::uuid AND scope = 'connection' AND scope_key = ${k.connectionId}`
}

/** A vendor 429: the connection's row holds nothing until `until` (or a later reset already known). */
export async function holdConnectionBudget(db: Db, organizationId: string, k: ConnectionBudgetKey, until: Date) {
  await db.$executeRaw`
    UPDATE rate_budgets SET remote_remaining = 0,
      remote_reset_at = GREATEST(COALESCE(remote_reset_at, ${until}::timestamptz), ${until}::timestamptz), updated_at = now()
    WHERE provider_id = ${k.providerId} AND organization_id = ${organizationId}::uuid AND scope = 'connection' AND scope_key = ${k.connectionId}`
}

/** The organisation's row (when it has one), then the connection's. */
export function connectionBudgetRows(db: Db, organizationId: string, k: ConnectionBudgetKey) {
  return db.$queryRaw<BudgetRow[]>`
    SELECT id, scope, scope_key, limit_per_window, window_seconds, used, window_started_at, remote_limit, remote_remaining, remote_reset_at, updated_at
    FROM rate_budgets
    WHERE provider_id = ${k.providerId} AND organization_id = ${organizationId}::uuid
      AND ((scope = 'organization' AND scope_key = ${organizationId}) OR (scope = 'connection' AND scope_key = ${k.connectionId}))
    ORDER BY scope`
}

// ---------------------------------------------------------------------------------------------------------------
// A platform-scoped source's window, shared by every organisation, and each organisation's fair share of it

export interface SharedBudgetKey {
  providerId: string
  /** The source's id: the platform row's scope_key; an organisation's share is keyed <source>:<organisation id>. */
  source: string
}

export const shareKey = (k: SharedBudgetKey, organizationId: string) => `${k.source}:${organizationId}`

/** Creates the source's platform row if missing (shared by every organisation: organization_id NULL). */
export async function ensureSharedBudgetAcrossOrganisations(db: Db, k: SharedBudgetKey, limit: number, windowSeconds: number) {
  await db.$executeRaw`
    INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
    VALUES (NULL, ${k.providerId}, 'platform', ${k.source}, ${limit}, ${windowSeconds})
    ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
}

/** Creates the source's platform row and the organisation's share row if missing. */
export async function ensureShareRows(db: Db, organizationId: string, k: SharedBudgetKey, limit: number, windowSeconds: number) {
  await db.$executeRaw`
    INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
    VALUES (NULL, ${k.providerId}, 'platform', ${k.source}, ${limit}, ${windowSeconds}),
           (${organizationId}::uuid, ${k.providerId}, 'organization', ${shareKey(k, organizationId)}, ${limit}, ${windowSeconds})
    ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
}

/** Locks the shared platform row (inside the draw's transaction). */
export async function lockSharedBudgetAcrossOrganisations(tx: AnyTx, k: SharedBudgetKey): Promise<BudgetRow | undefined> {
  const [row] = await (tx as Db).$queryRaw<BudgetRow[]>`
    SELECT * FROM rate_budgets WHERE provider_id = ${k.providerId} AND scope = 'platform' AND scope_key = ${k.source} FOR UPDATE`
  return row
}

/** Locks the organisation's share row (after the platform row: always in that order). */
export async function lockShare(tx: AnyTx, organizationId: string, k: SharedBudgetKey): Promise<BudgetRow | undefined> {
  const [row] = await (tx as Db).$queryRaw<BudgetRow[]>`
    SELECT * FROM rate_budgets WHERE provider_id = ${k.providerId} AND organization_id = ${organizationId}::uuid
      AND scope = 'organization' AND scope_key = ${shareKey(k, organizationId)} FOR UPDATE`
  return row
}

/** How many organisations other than this one drew from the source since `since` (the fair share's divisor). */
export async function countOtherDrawingOrganisationsAcrossOrganisations(tx: AnyTx, organizationId: string, k: SharedBudgetKey, since: Date): Promise<number> {
  const [{ others }] = await (tx as Db).$queryRaw<{ others: bigint }[]>`
    SELECT count(*) AS others FROM rate_budgets
    WHERE provider_id = ${k.providerId} AND scope = 'organization' AND scope_key LIKE ${`${k.source}:%`}
      AND scope_key <> ${shareKey(k, organizationId)} AND used > 0 AND updated_at >= ${since}`
  return Number(others)
}

/** Writes a draw on the shared platform row. */
export async function drawSharedBudgetAcrossOrganisations(tx: AnyTx, rowId: string, used: number, windowStartedAt: Date, now: Date) {
  await (tx as Db).$executeRaw`UPDATE rate_budgets SET used = ${used}, window_started_at = ${windowStartedAt}, updated_at = ${now} WHERE id = ${rowId}::uuid`
}

/** Writes a draw on the organisation's share row, with its share as the row's limit. */
export async function drawShare(tx: AnyTx, organizationId: string, rowId: string, s: { used: number; windowStartedAt: Date; share: number; windowSeconds: number; now: Date }) {
  await (tx as Db).$executeRaw`
    UPDATE rate_budgets SET used = ${s.used}, window_started_at = ${s.windowStartedAt}, limit_per_window = ${s.share},
      window_seconds = ${s.windowSeconds}, updated_at = ${s.now}
    WHERE id = ${rowId}::uuid AND organization_id = ${organizationId}::uuid`
}

/** The source's window as its vendor states it (a header-driven limit per interval). */
export async function setSharedWindowAcrossOrganisations(db: Db, k: SharedBudgetKey, limit: number, windowSeconds: number) {
  await db.$executeRaw`
    UPDATE rate_budgets SET limit_per_window = ${limit}, window_seconds = ${windowSeconds}, remote_limit = ${limit}, updated_at = updated_at
    WHERE provider_id = ${k.providerId} AND scope = 'platform' AND scope_key = ${k.source}`
}

/** The vendor's own credits for the source (limit, remaining, reset). */
export async function noteSharedRemoteAcrossOrganisations(db: Db, k: SharedBudgetKey, limit: number, remaining: number, resetAt: Date) {
  await db.$executeRaw`
    UPDATE rate_budgets SET remote_limit = ${limit}, remote_remaining = ${remaining}, remote_reset_at = ${resetAt}
    WHERE provider_id = ${k.providerId} AND scope = 'platform' AND scope_key = ${k.source}`
}

/** A 429 from the source: nothing more is sent to it, by any organisation, before `until`. */
export async function holdSharedBudgetAcrossOrganisations(db: Db, k: SharedBudgetKey, until: Date) {
  await db.$executeRaw`
    UPDATE rate_budgets SET remote_remaining = 0,
      remote_reset_at = GREATEST(COALESCE(remote_reset_at, ${until}::timestamptz), ${until}::timestamptz)
    WHERE provider_id = ${k.providerId} AND scope = 'platform' AND scope_key = ${k.source}`
}

/** The shared platform row (read by every organisation) and this organisation's share. */
export function shareRowsAcrossOrganisations(db: Db, organizationId: string, k: SharedBudgetKey) {
  return db.$queryRaw<BudgetRow[]>`
    SELECT * FROM rate_budgets WHERE provider_id = ${k.providerId}
      AND ((scope = 'platform' AND scope_key = ${k.source}) OR (scope = 'organization' AND scope_key = ${shareKey(k, organizationId)} AND organization_id = ${organizationId}::uuid))
    ORDER BY scope DESC`
}
