// Owns the notebook connector's raw statements: the per-entry lock, the "seen again" mark of an unchanged entry, and
// the coalescing of a delivery already covered by a later fetch (one statement in the worker, handed the delivery's
// id by its job: AcrossOrganisations). The database clock is read here too.
import type { AnyTx, Db } from '../../core/database'
import { asTx } from '../../core/database'

/** The database's clock (the one received_at uses). */
export async function databaseNow(db: Db): Promise<Date> {
  const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`
  return row.now
}

/** Writes of one entry of one connection take turns. */
export async function lockEntry(tx: AnyTx, connectionId: string, entryId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${connectionId}:entry:${entryId}`}, 0))`
}

/** An unchanged entry was seen (and fetched at fetchStartedAt, never moving the mark back). */
export async function markEntrySeen(tx: AnyTx, organizationId: string, objectId: string, fetchStartedAt: Date) {
  await asTx(tx).$executeRaw`UPDATE connector_objects SET last_seen_at = now(),
    last_fetched_at = GREATEST(COALESCE(last_fetched_at, ${fetchStartedAt}::timestamptz), ${fetchStartedAt}::timestamptz)
    WHERE id = ${objectId}::uuid AND organization_id = ${organizationId}::uuid`
}

/**
 * Marks a delivery processed ("coalesced") when its entry event's entry was fetched after the delivery arrived, by an
 * active connection on the supported API version. Returns the number of rows marked.
 */
export function coalesceCoveredDeliveryAcrossOrganisations(db: Db, deliveryRowId: string, o: { providerId: string; entryEvents: readonly [string, string, string]; entryType: string; apiVersion: string }): Promise<number> {
  return db.$executeRaw`
    UPDATE webhook_deliveries d
    SET processed_at = now(), processing_result = 'coalesced', processing_attempts = d.processing_attempts + 1, last_error = NULL
    WHERE d.id = ${deliveryRowId}::uuid AND d.processed_at IS NULL AND d.outcome = 'enqueued'
      AND d.provider_id = ${o.providerId} AND d.event_type IN (${o.entryEvents[0]}, ${o.entryEvents[1]}, ${o.entryEvents[2]})
      AND EXISTS (
        SELECT 1 FROM connector_objects o JOIN connections c ON c.id = o.connection_id
        WHERE o.connection_id = d.connection_id AND o.external_type = ${o.entryType} AND o.external_id = d.payload->'message'->>'resourceId'
          AND o.deleted_at IS NULL AND o.last_fetched_at >= d.received_at AND c.status = 'active' AND c.api_version = ${o.apiVersion})`
}
