// Owns the budget gate of platform-scoped sources: one window per source shared by every organisation (a platform row),
// and each organisation's fair share of it: an equal split of the window among the organisations that drew from the
// source in the last window, at least 1 (the design decisions (docs/contributors.md)). Exhaustion is the typed RateLimited 'budget exhausted for
// source X, retry after N s'; a paced source (a self-capped window of a second or less) whose window ends within a
// second is waited for instead. The vendor's own word (a 429's hold, credits nearly used) refuses before the window.
import type { Db } from '../../core/database'
import type { BudgetState } from '../adapters'
import { BudgetExhausted } from './connection-gate'
import {
  countOtherDrawingOrganisationsAcrossOrganisations, drawShare, drawSharedBudgetAcrossOrganisations, ensureShareRows,
  holdSharedBudgetAcrossOrganisations, lockShare, lockSharedBudgetAcrossOrganisations, noteSharedRemoteAcrossOrganisations,
  setSharedWindowAcrossOrganisations, shareRowsAcrossOrganisations, type SharedBudgetKey,
} from './sql'

/** The fair-share policy: an equal split of the window among the organisations drawing from it, at least 1. */
export function fairShare(limitPerWindow: number, otherOrganisations: number): number {
  return Math.max(1, Math.floor(limitPerWindow / (otherOrganisations + 1)))
}

export interface SharedWindow {
  limit: number
  windowSeconds: number
  /** Waited for instead of refused when the window ends within MAX_PACE_MS (self-capped sources of a second or less). */
  paced: boolean
  /** Refuse once this fraction of the vendor's remote limit is used (daily credits). */
  stopAtFraction?: number
}

/** A paced source waits at most this long for its window (longer refusals are RateLimited at once). */
const MAX_PACE_MS = 1_100

type Verdict = { ok: true } | { ok: false; retryMs: number }
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export class FairShareBudgetGate {
  private ensured = false
  private readonly key: SharedBudgetKey

  constructor(
    protected readonly db: Db,
    providerId: string,
    readonly source: string,
    private readonly organizationId: string,
    private readonly window: SharedWindow,
    private readonly clock: () => number = Date.now,
  ) {
    this.key = { providerId, source }
  }

  /** Takes `n` requests from the shared window and the organisation's fair share, or throws RateLimited. */
  async take(n = 1): Promise<void> {
    for (let waited = 0; ; ) {
      const v = await this.drawAcrossOrganisations(n)
      if (v.ok) return
      if (this.window.paced && v.retryMs <= MAX_PACE_MS && waited < 3 * MAX_PACE_MS) {
        await sleep(v.retryMs + 5)
        waited += v.retryMs + 5
        continue
      }
      throw new BudgetExhausted(this.source, Math.max(1, Math.ceil(v.retryMs / 1000)))
    }
  }

  private async ensure() {
    if (this.ensured) return
    await ensureShareRows(this.db, this.organizationId, this.key, this.window.limit, this.window.windowSeconds)
    this.ensured = true
  }

  /**
   * One transaction: lock the platform row then the organisation's, restart ended windows, take from both or neither.
   * Across organisations: the platform row is every organisation's, and the fair share counts the others drawing.
   */
  private async drawAcrossOrganisations(n: number): Promise<Verdict> {
    await this.ensure()
    const nowMs = this.clock()
    const now = new Date(nowMs)
    return this.db.$transaction(async (tx) => {
      const p = await lockSharedBudgetAcrossOrganisations(tx, this.key)
      const o = await lockShare(tx, this.organizationId, this.key)
      if (!p || !o) throw new Error(`${this.key.providerId} rate_budgets rows are missing`)
      const windowMs = p.window_seconds * 1000
      const restart = (r: { window_started_at: Date }) => nowMs >= r.window_started_at.getTime() + windowMs
      const pUsed = restart(p) ? 0 : p.used
      const pStart = restart(p) ? nowMs : p.window_started_at.getTime()
      const oUsed = restart(o) ? 0 : o.used
      const oStart = restart(o) ? nowMs : o.window_started_at.getTime()
      // The vendor's own word: a 429's hold, or its remote credits used down to the stop fraction.
      if (p.remote_reset_at && p.remote_reset_at.getTime() > nowMs && p.remote_remaining !== null) {
        const floor = this.window.stopAtFraction && p.remote_limit ? p.remote_limit * (1 - this.window.stopAtFraction) : 0
        if (p.remote_remaining - n < floor) return { ok: false, retryMs: p.remote_reset_at.getTime() - nowMs }
      }
      if (pUsed + n > p.limit_per_window) return { ok: false, retryMs: pStart + windowMs - nowMs }
      const others = await countOtherDrawingOrganisationsAcrossOrganisations(tx, this.organizationId, this.key, new Date(nowMs - windowMs))
      const share = fairShare(p.limit_per_window, others)
      if (oUsed + n > share) return { ok: false, retryMs: Math.max(1, oStart + windowMs - nowMs) }
      await drawSharedBudgetAcrossOrganisations(tx, p.id, pUsed + n, new Date(pStart), now)
      await drawShare(tx, this.organizationId, o.id, { used: oUsed + n, windowStartedAt: new Date(oStart), share, windowSeconds: p.window_seconds, now })
      return { ok: true } as const
    })
  }

  /** The vendor states the source's window (a limit per interval): it becomes the shared window. */
  protected async setWindow(limit: number, windowSeconds: number): Promise<void> {
    await setSharedWindowAcrossOrganisations(this.db, this.key, limit, windowSeconds)
  }

  /** The vendor's own credits for the source, until `resetAt`. */
  protected async noteRemote(limit: number, remaining: number, resetAt: Date): Promise<void> {
    await noteSharedRemoteAcrossOrganisations(this.db, this.key, limit, remaining, resetAt)
  }

  /** The source answered 429: nothing more is sent to it, by any organisation, before `seconds` pass. */
  async backOff(seconds: number): Promise<void> {
    await holdSharedBudgetAcrossOrganisations(this.db, this.key, new Date(this.clock() + Math.max(1, seconds) * 1000))
  }

  async state(): Promise<BudgetState[]> {
    await this.ensure()
    const rows = await shareRowsAcrossOrganisations(this.db, this.organizationId, this.key)
    return rows.map((r) => ({
      scope: r.scope, limitPerWindow: r.limit_per_window, windowSeconds: r.window_seconds, used: r.used, windowStartedAt: r.window_started_at,
      remoteLimit: r.remote_limit, remoteRemaining: r.remote_remaining, remoteResetAt: r.remote_reset_at,
    }))
  }

  protected get now(): number {
    return this.clock()
  }
}
