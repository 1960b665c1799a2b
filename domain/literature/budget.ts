// Owns the literature sources' rate budgets over the shared fair-share gate (domain/budgets/fair-share.ts): one
// platform-scoped rate_budgets row per source (provider literature_search, scope platform, scope_key the source id) and
// one row per organisation and source (scope organization, scope_key <source>:<organisation id>) holding its fair share.
// Agent tool calls and people's searches draw from the same rows. What is this provider's own: each source's window
// (the Limits table), which sources are paced, and how each source's rate headers are read.
//
// Header-driven sources: the DOI registry's x-rate-limit-limit per x-rate-limit-interval become the platform window; the
// citation graph's X-RateLimit-Limit / -Remaining / -Reset are its daily credits, refused once 90 % are used; a 429
// from any source holds it until its Retry-After.
import type { Db } from '../../core/database'
import { FairShareBudgetGate, ensureSharedBudgetAcrossOrganisations } from '../budgets'
import { intHeader } from '../adapters'
import { SOURCES, type SourceId } from './sources'

export const PROVIDER = 'literature_search'

/** Creates the eight platform rows (idempotent; their limits come from the Limits table). */
export async function ensureSourceBudgets(db: Db): Promise<void> {
  for (const s of Object.values(SOURCES)) await ensureSharedBudgetAcrossOrganisations(db, { providerId: PROVIDER, source: s.id }, s.rate.limit, s.rate.windowSeconds)
}

export class SourceBudget extends FairShareBudgetGate {
  declare readonly source: SourceId

  constructor(db: Db, source: SourceId, organizationId: string, clock: () => number = Date.now) {
    const rate = SOURCES[source].rate
    super(db, PROVIDER, source, organizationId, {
      limit: rate.limit, windowSeconds: rate.windowSeconds, paced: rate.kind === 'self' && rate.windowSeconds <= 1, stopAtFraction: rate.stopAtFraction,
    }, clock)
  }

  /** Rate headers of an answer, per source (see the module comment). */
  async observe(headers: Readonly<Record<string, string | string[] | undefined>>): Promise<void> {
    if (this.source === 'doi_registry') {
      const limit = intHeader(headers['x-rate-limit-limit'])
      const interval = parseInterval(headers['x-rate-limit-interval'])
      if (limit === null || limit < 1 || interval === null) return
      await this.setWindow(limit, interval)
      return
    }
    if (this.source === 'citation_graph') {
      const limit = intHeader(headers['x-ratelimit-limit'])
      const remaining = intHeader(headers['x-ratelimit-remaining'])
      const reset = intHeader(headers['x-ratelimit-reset'])
      if (limit === null || remaining === null) return
      await this.noteRemote(limit, remaining, new Date(this.now + Math.max(1, reset ?? 86_400) * 1000))
    }
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
