// Owns what a QMS sync writes to connection.health (the adapter's sync hooks; domain/sync.ts runs the sync): one
// entry per gap, replacing the previous entry of the same name. A sync names its entry by the QMS job vocabulary
// (sync.poll for an incremental sync, sync.reconcile for a full one); a failure names the version and the vendor's
// words (never a secret), an exhausted budget its retry delay; the versions under unmapped labels are surfaced.
import type { TenantDb } from '../../core/database'
import { budgetExhausted } from '../../core/text'
import type { ConnectionHealth, HealthCheckItem, SyncRun } from '../adapters'
import { RateLimited, VendorAuthFailed, VendorError } from '../adapters'
import { DomainError } from '../../core/errors'
import { QmsFailure } from './client'
import { PROVIDER_ID, type QmsSyncReport } from './sync'

/** The QMS jobs' words for the sync modes: the delta poll is incremental, the nightly reconciliation full. */
export type QmsSyncKind = 'poll' | 'reconcile'
export const kindOf = (mode: 'full' | 'incremental'): QmsSyncKind => (mode === 'full' ? 'reconcile' : 'poll')
export const modeOf = (kind: QmsSyncKind): 'full' | 'incremental' => (kind === 'reconcile' ? 'full' : 'incremental')

/** A failure as a health entry: the vault's own words for refusals, never a secret. */
export function describeFailure(e: unknown): string {
  if (e instanceof VendorAuthFailed) return 'the vault refused the integration user (wrong credentials, or the session expired and re-authentication failed)'
  if (e instanceof QmsFailure) return e.message
  if (e instanceof VendorError || e instanceof DomainError) return e.message
  return 'unexpected failure'
}

/** The previous checks with this run's entries replacing those of the same name. */
function mergeChecks(previous: HealthCheckItem[] | undefined, entries: HealthCheckItem[]): HealthCheckItem[] {
  const names = new Set(entries.map((e) => e.name))
  return [...(previous ?? []).filter((c) => !names.has(c.name)), ...entries]
}

/** After a sync: its entry, the unmapped versions and the budget; degraded while any entry is not ok. The cursor is the sync's own (page by page). */
export async function syncedHealth(tdb: TenantDb, connectionId: string, report: QmsSyncReport, previous: ConnectionHealth, { mode, at }: SyncRun): Promise<{ health: ConnectionHealth }> {
  const kind = kindOf(mode)
  const unmapped = await tdb.sopVersion.groupBy({ by: ['vendorLabel'], where: { connectionId, lifecycleState: 'unmapped', deletedAt: null }, _count: { _all: true } })
  const unmappedTotal = unmapped.reduce((n, r) => n + r._count._all, 0)
  const entries: HealthCheckItem[] = [
    { name: `sync.${kind}`, ok: true, detail: `${report.seen} seen, ${report.created} created, ${report.updated} updated, ${report.deleted} deleted upstream${report.restated ? `, ${report.restated} re-stated` : ''}; watermark ${report.cursor ?? 'none'}` },
    { name: 'unmapped_versions', ok: unmappedTotal === 0, detail: unmappedTotal ? `${unmappedTotal} version(s) under unmapped labels (ineligible to bind checks): ${unmapped.map((r) => `${r.vendorLabel ?? '(none)'} ×${r._count._all}`).join(', ')}` : 'none' },
    { name: 'budget', ok: true, detail: report.delayedAnswers ? `${report.delayedAnswers} delayed answer(s) honoured` : 'within the burst window' },
  ]
  const checks = mergeChecks(previous.checks as HealthCheckItem[] | undefined, entries)
  return {
    health: { ...previous, status: checks.every((c) => c.ok) ? 'ok' : 'degraded', checked_at: at.toISOString(), checks, last_error: null, last_sync: { ...report, kind, at: at.toISOString() } },
  }
}

/** After a failure: the failing entry (budget, or the sync's own); an exhausted budget keeps the status. */
export function failedSyncHealth(e: unknown, previous: ConnectionHealth, { mode, at }: SyncRun): { health: ConnectionHealth; error: string } {
  const limited = e instanceof RateLimited
  const detail = limited ? budgetExhausted(PROVIDER_ID, e.retryAfterSeconds) : describeFailure(e)
  const checks = mergeChecks(previous.checks as HealthCheckItem[] | undefined, [{ name: limited ? 'budget' : `sync.${kindOf(mode)}`, ok: false, detail }])
  return { health: { ...previous, status: limited ? (previous.status ?? 'unknown') : 'failing', checked_at: at.toISOString(), checks, last_error: detail }, error: detail }
}
