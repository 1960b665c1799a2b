// Owns running the QMS jobs: poll_qms (every 15 minutes, the delta poll) and reconcile_qms (nightly) over every
// active QMS connection, or one. connection.health is written on every sync, success or failure, with one entry per
// gap: a failure names the version and the vendor's words (never a secret), an exhausted budget its retry delay, and
// the versions under unmapped labels are surfaced. A budget refusal reschedules the connection's job.
import type { Db } from '../../../../core/db'
import { budgetExhausted } from '../../../../core/copy'
import { log } from '../../../../core/log'
import { enqueue } from '../../../../core/jobs'
import type { HealthCheckItem } from '../adapters/contract'
import { RateLimited } from '../adapters/errors'
import { isVendorRateLimit } from '../budgets'
import { connectorRuntime } from '../runtime'
import { describeFailure, qmsAdapter } from './adapter'
import type { QmsSyncReport } from './sync'
import { PROVIDER_ID } from './sync'

export type QmsRunOutcome =
  | { status: 'synced'; report: QmsSyncReport }
  | { status: 'skipped'; reason: string }
  | { status: 'rescheduled'; retryAfterSeconds: number }
  | { status: 'failed'; error: string }

type Health = { status?: string; checks?: HealthCheckItem[]; [k: string]: unknown }

/** The previous checks with this run's entries replacing those of the same name. */
function mergeChecks(previous: HealthCheckItem[] | undefined, entries: HealthCheckItem[]): HealthCheckItem[] {
  const names = new Set(entries.map((e) => e.name))
  return [...(previous ?? []).filter((c) => !names.has(c.name)), ...entries]
}

export async function runQmsSync(db: Db, connectionId: string, kind: 'poll' | 'reconcile'): Promise<QmsRunOutcome> {
  const connection = await db.connection.findUnique({ where: { id: connectionId } })
  if (!connection || connection.status !== 'active' || connection.providerId !== PROVIDER_ID) return { status: 'skipped', reason: 'not an active QMS connection' }
  if (!connection.secretsCiphertext) return { status: 'skipped', reason: 'credentials_missing' }
  const ctx = connectorRuntime.context(db, connection)
  const previous = (connection.health ?? {}) as Health
  const entry = `sync.${kind}`
  const now = () => new Date()
  // The health check runs before the first sync (the R1c exit gate): a connection whose check fails is not synced.
  if (!connection.healthCheckedAt) {
    const report = await qmsAdapter.healthCheck(ctx)
    const at = new Date(report.checkedAt)
    await db.connection.update({ where: { id: connectionId }, data: { healthCheckedAt: at, health: { ...previous, status: report.status, checked_at: report.checkedAt, checks: report.checks, note: null, last_error: null } as object } })
    previous.status = report.status
    previous.checks = report.checks
    if (report.status === 'failing') {
      await ctx.budget.flush()
      return { status: 'skipped', reason: `health check failing: ${report.checks.filter((k) => !k.ok).map((k) => k.name).join(', ')}` }
    }
  }
  try {
    const report = await qmsAdapter.sync(ctx, { mode: kind === 'reconcile' ? 'full' : 'incremental' }) as QmsSyncReport
    const unmapped = await db.sopVersion.groupBy({ by: ['vendorLabel'], where: { connectionId, lifecycleState: 'unmapped', deletedAt: null }, _count: { _all: true } })
    const unmappedTotal = unmapped.reduce((n, r) => n + r._count._all, 0)
    const entries: HealthCheckItem[] = [
      { name: entry, ok: true, detail: `${report.seen} seen, ${report.created} created, ${report.updated} updated, ${report.deleted} deleted upstream${report.restated ? `, ${report.restated} re-stated` : ''}; watermark ${report.cursor ?? 'none'}` },
      { name: 'unmapped_versions', ok: unmappedTotal === 0, detail: unmappedTotal ? `${unmappedTotal} version(s) under unmapped labels (ineligible to bind checks): ${unmapped.map((r) => `${r.vendorLabel ?? '(none)'} ×${r._count._all}`).join(', ')}` : 'none' },
      { name: 'budget', ok: true, detail: report.delayedAnswers ? `${report.delayedAnswers} delayed answer(s) honoured` : 'within the burst window' },
    ]
    const checks = mergeChecks(previous.checks, entries)
    const at = now()
    const failingBefore = previous.status === 'failing' || previous.status === 'unknown' || !previous.status
    await db.connection.update({
      where: { id: connectionId },
      data: {
        lastSyncedAt: at, healthCheckedAt: at,
        health: { ...previous, status: checks.every((c) => c.ok) ? (failingBefore && !previous.checks?.length ? 'ok' : 'ok') : 'degraded', checked_at: at.toISOString(), checks, last_error: null, last_sync: { ...report, kind, at: at.toISOString() } } as object,
      },
    })
    return { status: 'synced', report }
  } catch (e) {
    const at = now()
    const limited = e instanceof RateLimited
    const detail = limited ? budgetExhausted(PROVIDER_ID, (e as RateLimited).retryAfterSeconds) : describeFailure(e)
    const checks = mergeChecks(previous.checks, [{ name: limited ? 'budget' : entry, ok: false, detail }])
    await db.connection.update({
      where: { id: connectionId },
      data: { healthCheckedAt: at, health: { ...previous, status: limited ? (previous.status ?? 'unknown') : 'failing', checked_at: at.toISOString(), checks, last_error: detail } as object },
    }).catch((err) => log.warn('qms.health_write_failed', { connectionId, error: err }))
    if (limited) {
      const retry = (e as RateLimited).retryAfterSeconds
      if (isVendorRateLimit(e)) await ctx.budget.backOff(retry)
      await enqueue(db, kind === 'poll' ? 'poll_qms' : 'reconcile_qms', { connectionId }, { runAt: new Date(Date.now() + retry * 1000), jobKey: `${kind}_qms:${connectionId}` })
      return { status: 'rescheduled', retryAfterSeconds: retry }
    }
    log.warn('qms.sync_failed', { connectionId, kind, error: detail })
    return { status: 'failed', error: detail }
  } finally {
    await ctx.budget.flush()
  }
}

/** Every active QMS connection with credentials (the cron run), or the one named. */
export async function runQmsJob(db: Db, kind: 'poll' | 'reconcile', connectionId?: string): Promise<QmsRunOutcome[]> {
  const ids = connectionId
    ? [connectionId]
    : (await db.connection.findMany({ where: { providerId: PROVIDER_ID, status: 'active', secretsCiphertext: { not: null } }, select: { id: true } })).map((c) => c.id)
  const out: QmsRunOutcome[] = []
  for (const id of ids) out.push(await runQmsSync(db, id, kind))
  return out
}
