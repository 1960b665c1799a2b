// Owns the per-source-address limit of rejected webhook deliveries: counted atomically in PostgreSQL (one upsert on
// webhook_source_counters, in the same statement as the rejected row, so concurrent requests and replicas never store
// more than the limit), and remembered in this process so an over-limit source is refused without a query, and where
// the headers alone decide, without reading its body.
import type { Db } from '../../../../core/db'

export const REJECTED_PER_MINUTE = 60
const WINDOW_SECONDS = 60

export interface RejectedRow {
  organizationId: string | null
  programId: string | null
  connectionId: string | null
  providerId: string
  requestedConnectionId: string
  deliveryId: string | null
  signatureOk: boolean
  reason: string
  statusCode: number
  sourceAddress: string
  bodyBytes: number
  webhookTimestamp: Date | null
}

export class RejectionLimit {
  /** Sources this process saw over the limit, until their window ends (epoch ms). */
  private readonly blocked = new Map<string, number>()

  constructor(private readonly db: Db, readonly perMinute = REJECTED_PER_MINUTE) {}

  /** Seconds until this source may be stored again, 0 when this process knows of no block. No query. */
  blockedFor(source: string): number {
    const until = this.blocked.get(source)
    if (until === undefined) return 0
    const left = until - Date.now()
    if (left <= 0) {
      this.blocked.delete(source)
      return 0
    }
    return Math.ceil(left / 1000)
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
    const [r] = await this.db.$queryRaw<{ rejected: number; retry_after: number; stored: bigint }[]>`
      WITH counted AS (
        INSERT INTO webhook_source_counters AS c (source_address, window_started_at, rejected)
        VALUES (${row.sourceAddress}, now(), 1)
        ON CONFLICT (source_address) DO UPDATE SET
          window_started_at = CASE WHEN c.window_started_at <= now() - make_interval(secs => ${WINDOW_SECONDS}) THEN now() ELSE c.window_started_at END,
          rejected = CASE WHEN c.window_started_at <= now() - make_interval(secs => ${WINDOW_SECONDS}) THEN 1 ELSE c.rejected + 1 END
        RETURNING rejected, window_started_at
      ), stored AS (
        INSERT INTO webhook_deliveries (organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
          signature_ok, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp)
        SELECT ${row.organizationId}::uuid, ${row.programId}::uuid, ${row.connectionId}::uuid, ${row.providerId}, ${row.requestedConnectionId},
          ${row.deliveryId}, ${row.signatureOk}, 'rejected'::webhook_outcome, ${row.reason}, ${row.statusCode}, ${row.sourceAddress},
          ${row.bodyBytes}, ${row.webhookTimestamp}::timestamptz
        FROM counted WHERE counted.rejected <= ${this.perMinute}
        RETURNING 1
      )
      SELECT counted.rejected,
        GREATEST(1, ceil(extract(epoch FROM counted.window_started_at + make_interval(secs => ${WINDOW_SECONDS}) - now())))::int AS retry_after,
        (SELECT count(*) FROM stored) AS stored
      FROM counted`
    if (Number(r.stored) === 1) return null
    this.blocked.set(row.sourceAddress, Date.now() + r.retry_after * 1000)
    if (this.blocked.size > 10_000) this.blocked.delete(this.blocked.keys().next().value!)
    return r.retry_after
  }

  private async insert(row: RejectedRow) {
    await this.db.$executeRaw`
      INSERT INTO webhook_deliveries (organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
        signature_ok, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp)
      VALUES (${row.organizationId}::uuid, ${row.programId}::uuid, ${row.connectionId}::uuid, ${row.providerId}, ${row.requestedConnectionId},
        ${row.deliveryId}, ${row.signatureOk}, 'rejected'::webhook_outcome, ${row.reason}, ${row.statusCode}, ${row.sourceAddress},
        ${row.bodyBytes}, ${row.webhookTimestamp}::timestamptz)`
  }
}

/** Counters whose window ended are kept no longer than this (webhook_retention). */
export async function sweepSourceCounters(db: Db): Promise<number> {
  return db.$executeRaw`DELETE FROM webhook_source_counters WHERE window_started_at < now() - make_interval(secs => ${WINDOW_SECONDS * 10})`
}
