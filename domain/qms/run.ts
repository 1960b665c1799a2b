// Owns the QMS jobs: poll_qms (every 15 minutes, the delta poll) and reconcile_qms (nightly) over every active QMS
// connection with credentials, or one. Each connection syncs through the one sync module (domain/sync.ts), whose
// rules for QMS are the adapter's sync hooks: an incremental sync is the poll, a full sync the reconciliation.
import type { Db } from '../../core/database'
import { connectionAcrossOrganisations, runSync, type SyncOutcome } from '../connections'
import { modeOf, type QmsSyncKind } from './health'
import type { QmsSyncReport } from './sync'
import { PROVIDER_ID } from './sync'

export type QmsRunOutcome = SyncOutcome<QmsSyncReport>

/** One QMS connection's poll or reconciliation, in the QMS jobs' words. */
export async function runQmsSync(db: Db, connectionId: string, kind: QmsSyncKind): Promise<QmsRunOutcome> {
  const connection = await connectionAcrossOrganisations(db, connectionId)
  if (!connection || connection.status !== 'active' || connection.providerId !== PROVIDER_ID) return { status: 'skipped', reason: 'not an active QMS connection' }
  return (await runSync(db, connectionId, modeOf(kind))) as QmsRunOutcome
}

/** Every active QMS connection with credentials (the cron run), or the one named. */
export async function runQmsJob(db: Db, kind: QmsSyncKind, connectionId?: string): Promise<QmsRunOutcome[]> {
  const ids = connectionId
    ? [connectionId]
    : (await qmsConnectionsAcrossOrganisations(db)).map((c) => c.id)
  const out: QmsRunOutcome[] = []
  for (const id of ids) out.push(await runQmsSync(db, id, kind))
  return out
}

/** The cron run's connections: every organisation's active QMS connections with credentials (each then syncs scoped). */
function qmsConnectionsAcrossOrganisations(db: Db) {
  return db.connection.findMany({ where: { providerId: PROVIDER_ID, status: 'active', secretsCiphertext: { not: null } }, select: { id: true } })
}
