// Owns the processing marks of webhook_deliveries: a delivery is marked processed in the same transaction as the writes
// it caused, and only once (a second run of the same job finds it marked and rolls its own writes back). Statements: ./sql.ts.
import type { AnyTx, Db } from '../../core/database'
import { TaskPayloads } from '../../core/jobs'
import {
  markProcessedAcrossOrganisations, noteAttemptAcrossOrganisations, postponeWithDrainAcrossOrganisations, waitingDeliveryIdsAcrossOrganisations,
} from './sql'

export class AlreadyProcessed extends Error {
  override readonly name = 'AlreadyProcessed'
}

export async function markDeliveryProcessed(anyTx: AnyTx, deliveryRowId: string, result: string): Promise<void> {
  const n = await markProcessedAcrossOrganisations(anyTx, deliveryRowId, result)
  if (n !== 1) throw new AlreadyProcessed(`delivery ${deliveryRowId} was processed already`)
}

/** A failed or postponed attempt: the delivery stays unprocessed and says why (no secrets: messages are ours). */
export async function noteDeliveryAttempt(anyTx: AnyTx, deliveryRowId: string, error: string): Promise<void> {
  await noteAttemptAcrossOrganisations(anyTx, deliveryRowId, error.slice(0, 500))
}

/**
 * Postpones a delivery (budget exhausted, vendor 429): notes why and makes sure the connection's drain job runs at
 * `runAt`, in one statement. One keyed job per connection then works through every waiting delivery, so a long
 * exhaustion neither uses up attempts nor wakes thousands of jobs at the window's end.
 */
export async function postponeDelivery(db: Db, delivery: { id: string; connectionId: string }, error: string, runAt: Date): Promise<void> {
  const payload = JSON.stringify(TaskPayloads.connector_drain_deliveries.parse({ connectionId: delivery.connectionId }))
  await postponeWithDrainAcrossOrganisations(db, delivery.id, error.slice(0, 500), {
    task: 'connector_drain_deliveries', payload, runAt, jobKey: `connector_drain_deliveries:${delivery.connectionId}`,
  })
}

/** Unprocessed accepted deliveries of a connection, oldest first. */
export async function waitingDeliveries(db: Db, connectionId: string, limit: number): Promise<string[]> {
  return waitingDeliveryIdsAcrossOrganisations(db, connectionId, limit)
}
