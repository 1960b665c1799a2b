// Owns the processing marks of webhook_deliveries: a delivery is marked processed in the same transaction as the writes
// it caused, and only once (a second run of the same job finds it marked and rolls its own writes back).
import { asTx, type AnyTx, type Db } from '../../../../core/db'
import { TaskPayloads } from '../../../../core/jobs'

export class AlreadyProcessed extends Error {
  override readonly name = 'AlreadyProcessed'
}

export async function markDeliveryProcessed(anyTx: AnyTx, deliveryRowId: string, result: string): Promise<void> {
  const n = await asTx(anyTx).$executeRaw`
    UPDATE webhook_deliveries
    SET processed_at = now(), processing_result = ${result}, processing_attempts = processing_attempts + 1, last_error = NULL
    WHERE id = ${deliveryRowId}::uuid AND processed_at IS NULL`
  if (n !== 1) throw new AlreadyProcessed(`delivery ${deliveryRowId} was processed already`)
}

/** A failed or postponed attempt: the delivery stays unprocessed and says why (no secrets: messages are ours). */
export async function noteDeliveryAttempt(anyTx: AnyTx, deliveryRowId: string, error: string): Promise<void> {
  await asTx(anyTx).$executeRaw`
    UPDATE webhook_deliveries SET processing_attempts = processing_attempts + 1, last_error = ${error.slice(0, 500)}
    WHERE id = ${deliveryRowId}::uuid AND processed_at IS NULL`
}

/**
 * Postpones a delivery (budget exhausted, vendor 429): notes why and makes sure the connection's drain job runs at
 * `runAt`, in one statement. One keyed job per connection then works through every waiting delivery, so a long
 * exhaustion neither uses up attempts nor wakes thousands of jobs at the window's end.
 */
export async function postponeDelivery(db: Db, delivery: { id: string; connectionId: string }, error: string, runAt: Date): Promise<void> {
  const payload = JSON.stringify(TaskPayloads.connector_drain_deliveries.parse({ connectionId: delivery.connectionId }))
  await db.$queryRaw`
    WITH noted AS (
      UPDATE webhook_deliveries SET processing_attempts = processing_attempts + 1, last_error = ${error.slice(0, 500)}
      WHERE id = ${delivery.id}::uuid AND processed_at IS NULL
      RETURNING id
    )
    SELECT (graphile_worker.add_job('connector_drain_deliveries', ${payload}::json, run_at => ${runAt}::timestamptz,
      job_key => ${`connector_drain_deliveries:${delivery.connectionId}`}, job_key_mode => 'preserve_run_at')).id
    FROM noted`
}

/** Unprocessed accepted deliveries of a connection, oldest first. */
export async function waitingDeliveries(db: Db, connectionId: string, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM webhook_deliveries
    WHERE connection_id = ${connectionId}::uuid AND processed_at IS NULL AND outcome = 'enqueued'
    ORDER BY received_at LIMIT ${limit}`
  return rows.map((r) => r.id)
}
