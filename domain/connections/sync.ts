// Owns running a connection's sync, whichever way it starts (the connector_sync job, syncConnection, a provider's
// scheduled jobs): the active-connection check, the IntegrationContext, the adapter's sync, connection.health on every
// sync (success or failure), and what a failure does. The provider's rules come from its adapter's sync hooks
// (adapters/contract.ts, ConnectorAdapter "sync hooks"); this module names no provider.
//
// | outcome                                  | what happens                                                          |
// |------------------------------------------|-----------------------------------------------------------------------|
// | connection missing or disconnected       | skipped, connection_disconnected                                      |
// | the adapter's syncSkipReason answers     | skipped with that reason (nothing written)                            |
// | first sync of a provider that checks     | the health check runs first and is written; failing: skipped          |
// | health before its first sync             |                                                                       |
// | synced                                   | health from the adapter's syncedHealth, lastSyncedAt, the cursor      |
// | budget exhausted / vendor 429            | health from failedSyncHealth (status kept); a 429 holds the budget    |
// |                                          | back; the adapter's rescheduleSync queues the retry at the window end |
// | any other failure                        | health from failedSyncHealth; thrown (the job retries with back-off)  |
// |                                          | or returned as failed when the adapter's syncFailures is 'record'     |
import type { Db } from '../../core/database'
import { log } from '../../core/config'
import { adapterFor } from '../adapters'
import type { SyncReport } from '../adapters'
import { RateLimited } from '../adapters'
import { isVendorRateLimit } from '../budgets'
import { connectorRuntime } from './runtime'

export type SyncMode = 'full' | 'incremental'

export type SyncOutcome<R extends SyncReport = SyncReport> =
  | { status: 'synced'; report: R }
  | { status: 'skipped'; reason: string }
  | { status: 'rescheduled'; retryAfterSeconds: number }
  | { status: 'failed'; error: string }

/** Runs a full or incremental sync of one connection and writes connection.health (on every sync, success or failure). */
export async function runSync(db: Db, connectionId: string, mode: SyncMode): Promise<SyncOutcome> {
  const connection = await connectionAcrossOrganisations(db, connectionId)
  const adapter = connection && adapterFor(connection.providerId)
  if (!connection || !adapter || connection.status !== 'active') return { status: 'skipped', reason: 'connection_disconnected' }
  const skip = adapter.syncSkipReason(connection)
  if (skip) return { status: 'skipped', reason: skip }
  const ctx = connectorRuntime.context(db, connection)
  const previous = { ...((connection.health ?? {}) as Record<string, unknown>) }
  try {
    if (adapter.healthCheckBeforeFirstSync && !connection.healthCheckedAt) {
      const report = await adapter.healthCheck(ctx)
      await ctx.tdb.connection.update({
        where: { id: connection.id },
        data: { healthCheckedAt: new Date(report.checkedAt), health: { ...previous, status: report.status, checked_at: report.checkedAt, checks: report.checks, note: null, last_error: null } as object },
      })
      Object.assign(previous, { status: report.status, checks: report.checks })
      if (report.status === 'failing') return { status: 'skipped', reason: `health check failing: ${report.checks.filter((k) => !k.ok).map((k) => k.name).join(', ')}` }
    }
    let report: SyncReport
    try {
      report = await adapter.sync(ctx, { mode })
    } catch (e) {
      return await failed(e)
    }
    const at = new Date()
    const { health, cursor } = await adapter.syncedHealth(ctx, report, previous, { mode, at })
    await ctx.tdb.connection.update({
      where: { id: connection.id },
      data: { lastSyncedAt: at, healthCheckedAt: at, health: health as object, ...(cursor !== undefined ? { syncCursor: cursor } : {}) },
    })
    return { status: 'synced', report }
  } finally {
    await ctx.budget.flush()
  }

  async function failed(e: unknown): Promise<SyncOutcome> {
    const at = new Date()
    const { health, error } = adapter!.failedSyncHealth(e, previous, { mode, at })
    await ctx.tdb.connection.update({ where: { id: connectionId }, data: { healthCheckedAt: at, health: health as object } })
      .catch((err) => log.warn('connector.health_write_failed', { connectionId, error: err }))
    if (e instanceof RateLimited) {
      if (isVendorRateLimit(e)) await ctx.budget.backOff(e.retryAfterSeconds)
      // Retried when the budget allows, as a new job, so a long exhaustion never uses up the job's attempts.
      await adapter!.rescheduleSync(db, connectionId, mode, new Date(Date.now() + e.retryAfterSeconds * 1000))
      return { status: 'rescheduled', retryAfterSeconds: e.retryAfterSeconds }
    }
    if (adapter!.syncFailures === 'throw') throw e
    log.warn('connector.sync_failed', { connectionId, mode, error })
    return { status: 'failed', error }
  }
}

/**
 * A connection by id, whichever organisation holds it: the jobs that sync (connector_sync, poll_qms, reconcile_qms)
 * carry the connection's id only, so this read is the one that learns the organisation; all else goes through it.
 */
export function connectionAcrossOrganisations(db: Db, connectionId: string) {
  return db.connection.findUnique({ where: { id: connectionId } })
}
