// Owns what the worker does with a stored delivery and with a sync request: builds the IntegrationContext, calls the
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
import type { Db } from '../../../../core/db'
import { log } from '../../../../core/log'
import { enqueue } from '../../../../core/jobs'
import { adapterFor, coalesceDelivery, syncRunnerFor } from '../adapters'
import type { SyncReport } from '../adapters/contract'
import { isVendorRateLimit } from '../budgets'
import { budgetExhausted } from '../../../../core/copy'
import { RateLimited, VendorAuthFailed, VendorNotFound } from '../adapters/errors'
import { connectorRuntime } from '../runtime'
import { AlreadyProcessed, markDeliveryProcessed, noteDeliveryAttempt, postponeDelivery, waitingDeliveries } from './deliveries'

export type ProcessOutcome =
  | { status: 'processed'; result: string }
  | { status: 'skipped'; reason: string }
  | { status: 'rescheduled'; retryAfterSeconds: number }

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`.slice(0, 500)
  return 'unexpected failure'
}

async function markFailing(db: Db, connectionId: string, error: string) {
  await db.$executeRaw`
    UPDATE connections SET health = jsonb_set(jsonb_set(health::jsonb, '{status}', '"failing"'), '{last_error}', to_jsonb(${error}::text)),
      health_checked_at = now()
    WHERE id = ${connectionId}::uuid`
}

export async function processDelivery(db: Db, deliveryRowId: string): Promise<ProcessOutcome> {
  if (await coalesceDelivery(db, deliveryRowId)) return { status: 'processed', result: 'coalesced' }
  // While this process knows the connection's budget refuses, a delivery waits without loading anything more.
  const [head] = await db.$queryRaw<{ connection_id: string | null; provider_id: string; processed: boolean; outcome: string }[]>`
    SELECT connection_id, provider_id, processed_at IS NOT NULL AS processed, outcome::text AS outcome FROM webhook_deliveries WHERE id = ${deliveryRowId}::uuid`
  if (!head) return { status: 'skipped', reason: 'no_such_delivery' }
  if (head.processed) return { status: 'skipped', reason: 'already_processed' }
  const refusal = head.connection_id && head.outcome === 'enqueued' ? connectorRuntime.knownRefusal(head.connection_id) : 0
  if (refusal > 0) {
    await postponeDelivery(db, { id: deliveryRowId, connectionId: head.connection_id! }, budgetExhausted(head.provider_id, refusal), new Date(Date.now() + refusal * 1000))
    return { status: 'rescheduled', retryAfterSeconds: refusal }
  }
  const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryRowId } })
  if (!delivery) return { status: 'skipped', reason: 'no_such_delivery' }
  if (delivery.processedAt) return { status: 'skipped', reason: 'already_processed' }
  if (delivery.outcome !== 'enqueued' || !delivery.connectionId) return { status: 'skipped', reason: 'not_enqueued' }
  const connection = await db.connection.findUnique({ where: { id: delivery.connectionId } })
  const adapter = connection && adapterFor(connection.providerId)
  if (!connection || !adapter || connection.status !== 'active') {
    await db.$transaction((tx) => markDeliveryProcessed(tx, delivery.id, 'connection_disconnected')).catch(() => {})
    return { status: 'processed', result: 'connection_disconnected' }
  }
  const ctx = connectorRuntime.context(db, connection)
  try {
    const { result } = await adapter.handleWebhook(ctx, delivery)
    return { status: 'processed', result }
  } catch (e) {
    if (e instanceof AlreadyProcessed) return { status: 'skipped', reason: 'already_processed' }
    if (e instanceof VendorNotFound) {
      // Terminal like an entry's 404 (canvas events read the canvas first): recorded, never retried for hours.
      await db.$transaction((tx) => markDeliveryProcessed(tx, delivery.id, 'not_found')).catch((err) => {
        if (!(err instanceof AlreadyProcessed)) throw err
      })
      log.info('connector.delivery_not_found', { deliveryId: delivery.id, connectionId: connection.id, eventType: delivery.eventType })
      return { status: 'processed', result: 'not_found' }
    }
    if (e instanceof RateLimited) {
      if (isVendorRateLimit(e)) await ctx.budget.backOff(e.retryAfterSeconds)
      // Retried when the budget allows, as a new job, so a long exhaustion never uses up the job's attempts.
      await postponeDelivery(db, { id: delivery.id, connectionId: connection.id }, e.message, new Date(Date.now() + e.retryAfterSeconds * 1000))
      log.info('connector.delivery_rescheduled', { deliveryId: delivery.id, connectionId: connection.id, retryAfterSeconds: e.retryAfterSeconds })
      return { status: 'rescheduled', retryAfterSeconds: e.retryAfterSeconds }
    }
    const message = describe(e)
    log.warn('connector.delivery_attempt_failed', { deliveryId: delivery.id, connectionId: connection.id, error: message })
    await noteDeliveryAttempt(db, delivery.id, message).catch(() => {})
    if (e instanceof VendorAuthFailed) await markFailing(db, connection.id, e.message).catch(() => {})
    throw e
  } finally {
    await ctx.budget.flush()
  }
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

export type SyncOutcome = { status: 'synced'; report: SyncReport } | { status: 'skipped'; reason: string } | { status: 'rescheduled'; retryAfterSeconds: number }
  | { status: 'failed'; error: string }

/** Runs a full or incremental sync and writes connection.health (on every sync, success or failure). */
export async function runSync(db: Db, connectionId: string, mode: 'full' | 'incremental'): Promise<SyncOutcome> {
  const connection = await db.connection.findUnique({ where: { id: connectionId } })
  if (!connection || connection.status !== 'active') return { status: 'skipped', reason: 'connection_disconnected' }
  // A provider with its own sync runner (QMS: the health check before the first sync, its sync.poll / sync.reconcile
  // health entries) syncs through it whichever way the sync starts, as its cron jobs do. Its failures are recorded in
  // health and not thrown, as in those jobs: the next scheduled run retries.
  const runner = syncRunnerFor(connection.providerId)
  if (runner) return runner(db, connectionId, mode)
  const adapter = adapterFor(connection.providerId)!
  const ctx = connectorRuntime.context(db, connection)
  const previous = (connection.health ?? {}) as Record<string, unknown>
  try {
    const report = await adapter.sync(ctx, { mode })
    const now = new Date()
    await db.connection.update({
      where: { id: connection.id },
      data: {
        syncCursor: report.cursor, lastSyncedAt: now, healthCheckedAt: now,
        health: { ...previous, status: previous.status === 'degraded' ? 'degraded' : 'ok', checked_at: now.toISOString(), last_error: null, last_sync: { ...report, at: now.toISOString() } },
      },
    })
    return { status: 'synced', report }
  } catch (e) {
    const message = describe(e)
    const now = new Date()
    await db.connection.update({
      where: { id: connection.id },
      data: { healthCheckedAt: now, health: { ...previous, status: e instanceof RateLimited ? (previous.status ?? 'unknown') : 'failing', checked_at: now.toISOString(), last_error: message } },
    }).catch((err) => log.warn('connector.health_write_failed', { connectionId, error: err }))
    if (e instanceof RateLimited) {
      if (isVendorRateLimit(e)) await ctx.budget.backOff(e.retryAfterSeconds)
      await enqueue(db, 'connector_sync', { connectionId, mode }, { runAt: new Date(Date.now() + e.retryAfterSeconds * 1000), jobKey: `connector_sync:${connectionId}` })
      return { status: 'rescheduled', retryAfterSeconds: e.retryAfterSeconds }
    }
    throw e
  } finally {
    await ctx.budget.flush()
  }
}
