// Owns the budget gate of connection-scoped providers: a connection's window drawn from its organisation's (or the
// connection's alone when the provider has no organisation budget), adaptive throttling on the vendor's rate headers,
// and 429 back-off. Exhaustion is a typed RateLimited, never a wait.
//
// One draw is one statement that locks the organisation row, then the connection row (always in that order, so two
// draws never deadlock), restarts windows that have ended and takes from both or from neither (budgets/sql.ts).
import type { Db } from '../../core/database'
import { log } from '../../core/config'
import { RateLimited } from '../adapters'
import type { BudgetGate, BudgetState, RateHeaders } from '../adapters'
import type { BudgetSpec } from '../adapters'
import {
  connectionBudgetRows, drawConnectionBudget, ensureConnectionBudgetRows, holdConnectionBudget, noteConnectionRemoteRate,
  type ConnectionBudgetKey,
} from './sql'

/** Requests kept back from the vendor's advertised remainder (other apps of the same tenant share its window). */
export const REMOTE_RESERVE = 1

/** Our own budget refused the request (a vendor 429 arrives as a plain RateLimited). */
export class BudgetExhausted extends RateLimited {
  readonly origin = 'budget' as const
}

export function isVendorRateLimit(e: unknown): e is RateLimited {
  return e instanceof RateLimited && !(e instanceof BudgetExhausted)
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

  private get key(): ConnectionBudgetKey {
    return { providerId: this.o.providerId, connectionId: this.o.connectionId, rowCount: this.o.spec.organizationLimit === null ? 1 : 2 }
  }

  private get rowCount(): number {
    return this.key.rowCount
  }

  private drawStatement(requests: number, nowMs: number) {
    return drawConnectionBudget(this.db, this.o.organizationId, this.key, requests, new Date(nowMs), REMOTE_RESERVE)
  }

  /** Connection and organisation rows, or the connection row alone when the provider has no organisation budget. */
  private async ensureRows() {
    const { connectionLimit, organizationLimit, windowSeconds } = this.o.spec
    await ensureConnectionBudgetRows(this.db, this.o.organizationId, this.key, { connection: connectionLimit, organization: organizationLimit, windowSeconds })
  }

  observe(h: RateHeaders): void {
    if (h.remaining === null && h.limit === null) return
    const now = this.clock()
    const resetAt = h.resetSeconds !== null ? new Date(now + h.resetSeconds * 1000) : null
    const { connectionId } = this.o
    this.pending = this.pending
      .then(() => noteConnectionRemoteRate(this.db, this.o.organizationId, this.key, { limit: h.limit, remaining: h.remaining, resetAt }))
      .catch((error) => log.warn('budget.observe_failed', { connectionId, error }))
  }

  async backOff(retryAfterSeconds: number): Promise<void> {
    await this.pending
    const until = new Date(this.clock() + Math.max(1, retryAfterSeconds) * 1000)
    this.refusedUntil = Math.max(this.refusedUntil, until.getTime())
    await holdConnectionBudget(this.db, this.o.organizationId, this.key, until)
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
    const rows = await connectionBudgetRows(this.db, this.o.organizationId, this.key)
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
