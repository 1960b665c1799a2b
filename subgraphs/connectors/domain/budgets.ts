// Owns request budgets (rate_budgets): a connection's window drawn from its organisation's, adaptive throttling on the
// vendor's x-rate-limit-* headers, and 429 back-off. Exhaustion is a typed RateLimited, never a wait.
//
// One draw is one statement that locks the organisation row, then the connection row (always in that order, so two
// draws never deadlock), restarts windows that have ended and takes from both or from neither.
import type { Db } from '../../../core/db'
import { log } from '../../../core/log'
import { RateLimited } from './adapters/errors'
import type { BudgetGate, BudgetState, RateHeaders } from './adapters/contract'
import type { BudgetSpec } from './providers'

/** Requests kept back from the vendor's advertised remainder (other apps of the same tenant share its window). */
export const REMOTE_RESERVE = 1

/** Our own budget refused the request (a vendor 429 arrives as a plain RateLimited). */
export class BudgetExhausted extends RateLimited {
  readonly origin = 'budget' as const
}

export function isVendorRateLimit(e: unknown): e is RateLimited {
  return e instanceof RateLimited && !(e instanceof BudgetExhausted)
}

interface Row {
  id: string
  scope: 'platform' | 'organization' | 'connection'
  limit_per_window: number
  window_seconds: number
  used: number
  window_started_at: Date
  remote_limit: number | null
  remote_remaining: number | null
  remote_reset_at: Date | null
}

export interface BudgetGateOptions {
  providerId: string
  organizationId: string
  connectionId: string
  spec: BudgetSpec
  /** Names the source in the RateLimited text. */
  source?: string
  clock?: () => number
}

export class PgBudgetGate implements BudgetGate {
  readonly source: string
  private pending: Promise<void> = Promise.resolve()
  private refusedUntil = 0
  private readonly clock: () => number

  constructor(private readonly db: Db, private readonly o: BudgetGateOptions) {
    this.source = o.source ?? o.providerId
    this.clock = o.clock ?? Date.now
  }

  async take(requests = 1): Promise<void> {
    await this.pending
    const now = this.clock()
    // A refusal seen by this process holds until its window ends: no database round trip to hear "no" again.
    if (now < this.refusedUntil) throw new BudgetExhausted(this.source, Math.max(1, Math.ceil((this.refusedUntil - now) / 1000)))
    for (let attempt = 0; ; attempt++) {
      const [v] = await this.drawStatement(requests, now)
      if (Number(v.rows) < this.rowCount && attempt === 0) {
        await this.ensureRows()
        continue
      }
      const retryAfter = Number(v.retry ?? 0)
      if (retryAfter > 0) {
        this.refusedUntil = now + Math.max(1, retryAfter) * 1000
        throw new BudgetExhausted(this.source, Math.max(1, retryAfter))
      }
      if (Number(v.rows) < this.rowCount) throw new Error('rate_budgets rows are missing')
      return
    }
  }

  /**
   * One statement (its own transaction): lock the organisation row then the connection row, restart windows that have
   * ended, and take `requests` from both, or from neither when one refuses (then `retry` is the wait in seconds).
   */
  private drawStatement(requests: number, nowMs: number) {
    const { providerId, organizationId, connectionId } = this.o
    const now = new Date(nowMs)
    return this.db.$queryRaw<{ retry: number | null; rows: bigint; updated: bigint }[]>`
      WITH locked AS (
        SELECT id, scope, limit_per_window, window_seconds, used, window_started_at, remote_remaining, remote_reset_at
        FROM rate_budgets
        WHERE provider_id = ${providerId}
          AND ((scope = 'organization' AND scope_key = ${organizationId}) OR (scope = 'connection' AND scope_key = ${connectionId}))
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
                 AND remote_remaining - ${requests}::int < ${REMOTE_RESERVE}::int
            THEN ceil(extract(epoch FROM (remote_reset_at - ${now}::timestamptz)))::int ELSE 0 END)) AS retry
        FROM state
      ), updated AS (
        UPDATE rate_budgets r SET used = s.used + ${requests}::int, window_started_at = s.started, updated_at = now(),
          remote_remaining = CASE WHEN s.remote_reset_at > ${now}::timestamptz AND s.remote_remaining IS NOT NULL
                                  THEN s.remote_remaining - ${requests}::int ELSE s.remote_remaining END
        FROM state s, verdict v
        WHERE r.id = s.id AND v.rows = ${this.rowCount} AND COALESCE(v.retry, 0) = 0
        RETURNING r.id
      )
      SELECT v.retry, v.rows, (SELECT count(*) FROM updated) AS updated FROM verdict v`
  }

  /** Connection and organisation rows, or the connection row alone when the provider has no organisation budget (QMS). */
  private get rowCount(): number {
    return this.o.spec.organizationLimit === null ? 1 : 2
  }

  private async ensureRows() {
    const { providerId, organizationId, connectionId } = this.o
    const { connectionLimit, organizationLimit, windowSeconds } = this.o.spec
    if (organizationLimit === null) {
      await this.db.$executeRaw`
        INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
        VALUES (${organizationId}::uuid, ${providerId}, 'connection', ${connectionId}, ${connectionLimit}, ${windowSeconds})
        ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
      return
    }
    await this.db.$executeRaw`
      INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
      VALUES (${organizationId}::uuid, ${providerId}, 'organization', ${organizationId}, ${organizationLimit}, ${windowSeconds}),
             (${organizationId}::uuid, ${providerId}, 'connection', ${connectionId}, ${connectionLimit}, ${windowSeconds})
      ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
  }

  observe(h: RateHeaders): void {
    if (h.remaining === null && h.limit === null) return
    const now = this.clock()
    const resetAt = h.resetSeconds !== null ? new Date(now + h.resetSeconds * 1000) : null
    const { providerId, connectionId } = this.o
    this.pending = this.pending
      .then(async () => {
        await this.db.$executeRaw`
          UPDATE rate_budgets SET remote_limit = COALESCE(${h.limit}::int, remote_limit),
            remote_remaining = ${h.remaining}::int, remote_reset_at = ${resetAt}::timestamptz, updated_at = now()
          WHERE provider_id = ${providerId} AND scope = 'connection' AND scope_key = ${connectionId}`
      })
      .catch((error) => log.warn('budget.observe_failed', { connectionId, error }))
  }

  async backOff(retryAfterSeconds: number): Promise<void> {
    await this.pending
    const until = new Date(this.clock() + Math.max(1, retryAfterSeconds) * 1000)
    this.refusedUntil = Math.max(this.refusedUntil, until.getTime())
    const { providerId, connectionId } = this.o
    await this.db.$executeRaw`
      UPDATE rate_budgets SET remote_remaining = 0,
        remote_reset_at = GREATEST(COALESCE(remote_reset_at, ${until}::timestamptz), ${until}::timestamptz), updated_at = now()
      WHERE provider_id = ${providerId} AND scope = 'connection' AND scope_key = ${connectionId}`
  }

  refusedFor(): number {
    const left = this.refusedUntil - this.clock()
    return left > 0 ? Math.ceil(left / 1000) : 0
  }

  flush(): Promise<void> {
    return this.pending
  }

  async state(): Promise<BudgetState[]> {
    await this.pending
    await this.ensureRows()
    const { providerId, organizationId, connectionId } = this.o
    const rows = await this.db.$queryRaw<Row[]>`
      SELECT id, scope, limit_per_window, window_seconds, used, window_started_at, remote_limit, remote_remaining, remote_reset_at
      FROM rate_budgets
      WHERE provider_id = ${providerId}
        AND ((scope = 'organization' AND scope_key = ${organizationId}) OR (scope = 'connection' AND scope_key = ${connectionId}))
      ORDER BY scope`
    return rows.map((r) => ({
      scope: r.scope,
      limitPerWindow: r.limit_per_window,
      windowSeconds: r.window_seconds,
      used: r.used,
      windowStartedAt: r.window_started_at,
      remoteLimit: r.remote_limit,
      remoteRemaining: r.remote_remaining,
      remoteResetAt: r.remote_reset_at,
    }))
  }
}
