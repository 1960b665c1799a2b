// Owns the literature sources' rate budgets: one platform-scoped rate_budgets row per source (provider
// literature_search, scope platform, scope_key the source id) and one row per organisation and source (scope
// organization, scope_key <source>:<organisation id>) holding its fair share: an equal split of the source's window
// among the organisations that used it in the last window, at least 1 (DESIGN.md §11). Agent tool calls and people's
// searches draw from the same rows. Exhaustion is the typed RateLimited 'budget exhausted for source X, retry after N s';
// a self-capped source whose window ends within a second is paced (waited for) instead.
//
// Header-driven sources: the DOI registry's x-rate-limit-limit per x-rate-limit-interval become the platform window; the
// citation graph's X-RateLimit-Limit / -Remaining / -Reset are its daily credits, refused once 90 % are used; a 429
// from any source holds it until its Retry-After.
import type { Db } from '../../../../core/db'
import { BudgetExhausted } from '../budgets'
import type { BudgetState } from '../adapters/contract'
import { intHeader } from '../adapters/contract'
import { SOURCES, type SourceId } from './sources'

export const PROVIDER = 'literature_search'
/** A paced source waits at most this long for its window (longer refusals are RateLimited at once). */
const MAX_PACE_MS = 1_100

interface Row {
  id: string
  scope: 'platform' | 'organization'
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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Creates the eight platform rows (idempotent; their limits come from the Limits table). */
export async function ensureSourceBudgets(db: Db): Promise<void> {
  for (const s of Object.values(SOURCES)) {
    await db.$executeRaw`
      INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
      VALUES (NULL, ${PROVIDER}, 'platform', ${s.id}, ${s.rate.limit}, ${s.rate.windowSeconds})
      ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
  }
}

type Verdict = { ok: true } | { ok: false; retryMs: number }

export class SourceBudget {
  private ensured = false
  constructor(
    private readonly db: Db,
    readonly source: SourceId,
    private readonly organizationId: string,
    private readonly clock: () => number = Date.now,
  ) {}

  private get orgKey() { return `${this.source}:${this.organizationId}` }

  /** Takes `n` requests from the platform window and the organisation's fair share, or throws RateLimited. */
  async take(n = 1): Promise<void> {
    for (let waited = 0; ; ) {
      const v = await this.draw(n)
      if (v.ok) return
      const paced = SOURCES[this.source].rate.kind === 'self' && SOURCES[this.source].rate.windowSeconds <= 1
      if (paced && v.retryMs <= MAX_PACE_MS && waited < 3 * MAX_PACE_MS) {
        await sleep(v.retryMs + 5)
        waited += v.retryMs + 5
        continue
      }
      throw new BudgetExhausted(this.source, Math.max(1, Math.ceil(v.retryMs / 1000)))
    }
  }

  private async ensure() {
    if (this.ensured) return
    const s = SOURCES[this.source]
    await this.db.$executeRaw`
      INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
      VALUES (NULL, ${PROVIDER}, 'platform', ${s.id}, ${s.rate.limit}, ${s.rate.windowSeconds}),
             (${this.organizationId}::uuid, ${PROVIDER}, 'organization', ${this.orgKey}, ${s.rate.limit}, ${s.rate.windowSeconds})
      ON CONFLICT (provider_id, scope, scope_key) DO NOTHING`
    this.ensured = true
  }

  /** One transaction: lock the platform row then the organisation's, restart ended windows, take from both or neither. */
  private async draw(n: number): Promise<Verdict> {
    await this.ensure()
    const nowMs = this.clock()
    const now = new Date(nowMs)
    const rule = SOURCES[this.source].rate
    return this.db.$transaction(async (tx) => {
      const [p] = await tx.$queryRaw<Row[]>`
        SELECT * FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = ${this.source} FOR UPDATE`
      const [o] = await tx.$queryRaw<Row[]>`
        SELECT * FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'organization' AND scope_key = ${this.orgKey} FOR UPDATE`
      if (!p || !o) throw new Error('literature rate_budgets rows are missing')
      const windowMs = p.window_seconds * 1000
      const restart = (r: Row) => nowMs >= r.window_started_at.getTime() + windowMs
      const pUsed = restart(p) ? 0 : p.used
      const pStart = restart(p) ? nowMs : p.window_started_at.getTime()
      const oUsed = restart(o) ? 0 : o.used
      const oStart = restart(o) ? nowMs : o.window_started_at.getTime()
      // The vendor's own word: a 429's hold, or (citation graph) 90 % of the daily credits used.
      if (p.remote_reset_at && p.remote_reset_at.getTime() > nowMs && p.remote_remaining !== null) {
        const floor = rule.stopAtFraction && p.remote_limit ? p.remote_limit * (1 - rule.stopAtFraction) : 0
        if (p.remote_remaining - n < floor) return { ok: false, retryMs: p.remote_reset_at.getTime() - nowMs }
      }
      if (pUsed + n > p.limit_per_window) return { ok: false, retryMs: pStart + windowMs - nowMs }
      // Fair share: organisations (other than this one) that drew from the source within the last window.
      const since = new Date(nowMs - windowMs)
      const [{ others }] = await tx.$queryRaw<{ others: bigint }[]>`
        SELECT count(*) AS others FROM rate_budgets
        WHERE provider_id = ${PROVIDER} AND scope = 'organization' AND scope_key LIKE ${`${this.source}:%`}
          AND scope_key <> ${this.orgKey} AND used > 0 AND updated_at >= ${since}`
      const share = Math.max(1, Math.floor(p.limit_per_window / (Number(others) + 1)))
      if (oUsed + n > share) return { ok: false, retryMs: Math.max(1, oStart + windowMs - nowMs) }
      await tx.$executeRaw`UPDATE rate_budgets SET used = ${pUsed + n}, window_started_at = ${new Date(pStart)}, updated_at = ${now} WHERE id = ${p.id}::uuid`
      await tx.$executeRaw`
        UPDATE rate_budgets SET used = ${oUsed + n}, window_started_at = ${new Date(oStart)}, limit_per_window = ${share},
          window_seconds = ${p.window_seconds}, updated_at = ${now}
        WHERE id = ${o.id}::uuid`
      return { ok: true } as const
    })
  }

  /** Rate headers of an answer, per source (see the module comment). */
  async observe(headers: Readonly<Record<string, string | string[] | undefined>>): Promise<void> {
    const nowMs = this.clock()
    if (this.source === 'doi_registry') {
      const limit = intHeader(headers['x-rate-limit-limit'])
      const interval = parseInterval(headers['x-rate-limit-interval'])
      if (limit === null || limit < 1 || interval === null) return
      await this.db.$executeRaw`
        UPDATE rate_budgets SET limit_per_window = ${limit}, window_seconds = ${interval}, remote_limit = ${limit}, updated_at = updated_at
        WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = ${this.source}`
      return
    }
    if (this.source === 'citation_graph') {
      const limit = intHeader(headers['x-ratelimit-limit'])
      const remaining = intHeader(headers['x-ratelimit-remaining'])
      const reset = intHeader(headers['x-ratelimit-reset'])
      if (limit === null || remaining === null) return
      const resetAt = new Date(nowMs + Math.max(1, reset ?? 86_400) * 1000)
      await this.db.$executeRaw`
        UPDATE rate_budgets SET remote_limit = ${limit}, remote_remaining = ${remaining}, remote_reset_at = ${resetAt}
        WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = ${this.source}`
    }
  }

  /** The source answered 429: nothing more is sent to it, by any organisation, before `seconds` pass. */
  async backOff(seconds: number): Promise<void> {
    const until = new Date(this.clock() + Math.max(1, seconds) * 1000)
    await this.db.$executeRaw`
      UPDATE rate_budgets SET remote_remaining = 0,
        remote_reset_at = GREATEST(COALESCE(remote_reset_at, ${until}::timestamptz), ${until}::timestamptz)
      WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = ${this.source}`
  }

  async state(): Promise<BudgetState[]> {
    await this.ensure()
    const rows = await this.db.$queryRaw<Row[]>`
      SELECT * FROM rate_budgets WHERE provider_id = ${PROVIDER}
        AND ((scope = 'platform' AND scope_key = ${this.source}) OR (scope = 'organization' AND scope_key = ${this.orgKey}))
      ORDER BY scope DESC`
    return rows.map((r) => ({
      scope: r.scope, limitPerWindow: r.limit_per_window, windowSeconds: r.window_seconds, used: r.used, windowStartedAt: r.window_started_at,
      remoteLimit: r.remote_limit, remoteRemaining: r.remote_remaining, remoteResetAt: r.remote_reset_at,
    }))
  }
}

/** "1s", "60s", "1m", "2" (seconds) -> seconds; null when unreadable. */
export function parseInterval(v: string | string[] | undefined): number | null {
  const s = (Array.isArray(v) ? v[0] : v)?.trim()
  const m = s?.match(/^(\d+)\s*(s|m|h)?$/i)
  if (!m) return null
  const n = Number(m[1]) * ({ s: 1, m: 60, h: 3600 }[(m[2] ?? 's').toLowerCase() as 's'] ?? 1)
  return n > 0 ? n : null
}
