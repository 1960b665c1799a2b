// Owns what the worker does with a stored delivery: builds the IntegrationContext, calls the
// adapter, and decides what happens on failure so that no accepted delivery is ever lost:
//
// | failure                               | what happens                                                               |
// |---------------------------------------|----------------------------------------------------------------------------|
// | budget exhausted / vendor 429         | last_error = "budget exhausted for source X, retry after N s"; the        |
// |                                       | connection's keyed drain job runs N s later and works through every       |
// |                                       | waiting delivery (attempts are not used up); a 429 also holds the         |
// |                                       | connection back until the vendor's reset                                  |
// | vendor 5xx, timeout, network error    | last_error noted; the job fails and graphile-worker retries with back-off  |
// | credentials refused                   | last_error noted, health set to failing; retried with back-off            |
// | connection disconnected meanwhile     | processed with result connection_disconnected                             |
// | the vendor answers 404 for the object | processed with result not_found (entry, canvas or any other object the    |
// |                                       | event points to: a retry would meet the same 404)                         |
// | a second run of the same delivery     | finds it processed and changes nothing (AlreadyProcessed)                 |
import { forOrganization, type Db } from '../../core/database'
import { log } from '../../core/config'
import { adapterFor, coalesceDelivery } from '../adapters'
import { failureText } from '../adapters'
import { isVendorRateLimit } from '../budgets'
import { budgetExhausted } from '../../core/text'
import { RateLimited, VendorAuthFailed, VendorNotFound } from '../adapters'
import { connectorRuntime } from '../connections'
import { markConnectionFailing } from '../connections'
import { AlreadyProcessed, markDeliveryProcessed, noteDeliveryAttempt, postponeDelivery, waitingDeliveries } from './deliveries'

export type ProcessOutcome =
  | { status: 'processed'; result: string }
  | { status: 'skipped'; reason: string }
  | { status: 'rescheduled'; retryAfterSeconds: number }

export async function processDelivery(db: Db, deliveryRowId: string): Promise<ProcessOutcome> {
  if (await coalesceDelivery(db, deliveryRowId)) return { status: 'processed', result: 'coalesced' }
  // The row is read once: what is decided below (processed already, postponed, disconnected) is about that one read.
  const delivery = await deliveryAcrossOrganisations(db, deliveryRowId)
  if (!delivery) return { status: 'skipped', reason: 'no_such_delivery' }
  if (delivery.processedAt) return { status: 'skipped', reason: 'already_processed' }
  if (delivery.outcome !== 'enqueued' || !delivery.connectionId) return { status: 'skipped', reason: 'not_enqueued' }
  // While this process knows the connection's budget refuses, a delivery waits without loading anything more.
  const refusal = connectorRuntime.knownRefusal(delivery.connectionId)
  if (refusal > 0) {
    await postponeDelivery(db, { id: delivery.id, connectionId: delivery.connectionId }, budgetExhausted(delivery.providerId, refusal), new Date(Date.now() + refusal * 1000))
    return { status: 'rescheduled', retryAfterSeconds: refusal }
  }
  // An enqueued delivery was matched to its connection, so it carries that connection's organisation.
  const connection = delivery.organizationId ? await forOrganization(db, delivery.organizationId).connection.findUnique({ where: { id: delivery.connectionId } }) : null
  const adapter = connection && adapterFor(connection.providerId)
  if (!connection || !adapter || connection.status !== 'active') {
    // A mark that cannot be written fails the job (graphile-worker retries it): never "processed" with the row unmarked.
    return markTerminalAcrossOrganisations(db, delivery.id, 'connection_disconnected')
  }
  const ctx = connectorRuntime.context(db, connection)
  try {
    const { result } = await adapter.handleWebhook(ctx, delivery)
    return { status: 'processed', result }
  } catch (e) {
    if (e instanceof AlreadyProcessed) return { status: 'skipped', reason: 'already_processed' }
    if (e instanceof VendorNotFound) {
      // Terminal like an entry's 404 (canvas events read the canvas first): recorded, never retried for hours.
      const outcome = await markTerminalAcrossOrganisations(db, delivery.id, 'not_found')
      log.info('connector.delivery_not_found', { deliveryId: delivery.id, connectionId: connection.id, eventType: delivery.eventType })
      return outcome
    }
    if (e instanceof RateLimited) {
      if (isVendorRateLimit(e)) await ctx.budget.backOff(e.retryAfterSeconds)
      // Retried when the budget allows, as a new job, so a long exhaustion never uses up the job's attempts.
      await postponeDelivery(db, { id: delivery.id, connectionId: connection.id }, e.message, new Date(Date.now() + e.retryAfterSeconds * 1000))
      log.info('connector.delivery_rescheduled', { deliveryId: delivery.id, connectionId: connection.id, retryAfterSeconds: e.retryAfterSeconds })
      return { status: 'rescheduled', retryAfterSeconds: e.retryAfterSeconds }
    }
    const message = failureText(e)
    log.warn('connector.delivery_attempt_failed', { deliveryId: delivery.id, connectionId: connection.id, error: message })
    // The attempt fails either way (graphile-worker retries it); a note that cannot be written is said, not hidden.
    await noteDeliveryAttempt(db, delivery.id, message).catch((error) => log.warn('connector.delivery_note_failed', { deliveryId: delivery.id, error }))
    if (e instanceof VendorAuthFailed) {
      await markConnectionFailing(db, connection.organizationId, connection.id, e.message)
        .catch((error) => log.warn('connector.health_note_failed', { connectionId: connection.id, error }))
    }
    throw e
  } finally {
    await ctx.budget.flush()
  }
}

/**
 * Marks a delivery processed with a terminal result that writes nothing else. A second run finding it marked changes
 * nothing; any other failure of the mark propagates, so the job fails and is retried instead of completing unmarked.
 * Across organisations: the delivery is known by its row id, as deliveryAcrossOrganisations read it, and one whose
 * connection is gone may carry no organisation at all.
 */
async function markTerminalAcrossOrganisations(db: Db, deliveryRowId: string, result: string): Promise<ProcessOutcome> {
  try {
    await db.$transaction((tx) => markDeliveryProcessed(tx, deliveryRowId, result))
  } catch (e) {
    if (e instanceof AlreadyProcessed) return { status: 'skipped', reason: 'already_processed' }
    throw e
  }
  return { status: 'processed', result }
}

/**
 * Works through a connection's waiting deliveries, oldest first, until none is left or the budget refuses again (then
 * the postponement has already queued the next drain). A vendor failure fails the drain, which graphile-worker retries.
 */
export async function drainDeliveries(db: Db, connectionId: string): Promise<{ processed: number; stopped: boolean }> {
  let processed = 0
  const tried = new Set<string>()
  for (;;) {
    const batch = (await waitingDeliveries(db, connectionId, 200)).filter((id) => !tried.has(id))
    if (!batch.length) return { processed, stopped: false }
    for (const id of batch) {
      tried.add(id)
      const outcome = await processDelivery(db, id)
      if (outcome.status === 'rescheduled') return { processed, stopped: true }
      if (outcome.status === 'processed') processed += 1
    }
  }
}

/** The delivery a webhook job names: its payload carries the row's id only, so this read learns the organisation. */
function deliveryAcrossOrganisations(db: Db, deliveryRowId: string) {
  return db.webhookDelivery.findUnique({ where: { id: deliveryRowId } })
}
