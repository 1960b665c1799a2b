// Owns the per-source-address limit of rejected webhook deliveries: counted atomically in PostgreSQL (one upsert on
// webhook_source_counters, in the same statement as the rejected row, so concurrent requests and replicas never store
// more than the limit), and remembered in this process so an over-limit source is refused without a query, and where
// the headers alone decide, without reading its body.
import type { Db } from '../../core/database'
import { countAndStoreRejectedAcrossOrganisations, storeRejectedAcrossOrganisations, sweepSourceCountersAcrossOrganisations, type RejectedRow } from './sql'
import { boundedCache, ttlUntil } from '../../core/config'

export const REJECTED_PER_MINUTE = 60
const WINDOW_SECONDS = 60

export type { RejectedRow }

export class RejectionLimit {
  /** Sources this process saw over the limit, until their window ends (epoch ms; the entry's TTL ends with it). */
  private readonly blocked = boundedCache<string, number>({ max: 10_000 })

  constructor(private readonly db: Db, readonly perMinute = REJECTED_PER_MINUTE) {}

  /** Seconds until this source may be stored again, 0 when this process knows of no block. No query. */
  blockedFor(source: string): number {
    const until = this.blocked.get(source)
    if (until === undefined) return 0
    const left = until - Date.now()
    return left <= 0 ? 0 : Math.ceil(left / 1000)
  }

  /**
   * Stores a rejected delivery unless its source is over the limit. One statement: the counter upsert (row-locked,
   * the window restarts when it is over a minute old) and the row insert guarded by the count.
   * Returns null when stored, else the seconds until the source's window ends.
   */
  async store(row: RejectedRow, counts: boolean): Promise<number | null> {
    if (!counts) {
      await this.insert(row)
      return null
    }
    const r = await countAndStoreRejectedAcrossOrganisations(this.db, row, this.perMinute, WINDOW_SECONDS)
    if (Number(r.stored) === 1) return null
    const until = Date.now() + r.retry_after * 1000
    this.blocked.set(row.sourceAddress, until, { ttl: ttlUntil(until) })
    return r.retry_after
  }

  private async insert(row: RejectedRow) {
    await storeRejectedAcrossOrganisations(this.db, row)
  }
}

/** Counters whose window ended are kept no longer than this (webhook_retention). */
export async function sweepSourceCounters(db: Db): Promise<number> {
  return sweepSourceCountersAcrossOrganisations(db, WINDOW_SECONDS * 10)
}
