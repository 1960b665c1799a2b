// Owns the adapter registry: one adapter per provider of the registry, the only generic module that names providers.
import type { Db } from '../../../../core/db'
import { notebookAdapter } from '../notebook/adapter'
import { qmsAdapter } from '../qms/adapter'
import { literatureAdapter } from '../literature/adapter'
import { runQmsSync } from '../qms/run'
import type { SyncOutcome } from '../webhooks/process'
import { PROVIDERS, type ProviderId } from '../providers'
import type { ConnectorAdapter } from './contract'

const ADAPTERS: Record<ProviderId, ConnectorAdapter> = {
  eln_provider: notebookAdapter,
  qms_provider: qmsAdapter,
  literature_search: literatureAdapter,
}

export function adapterFor(providerId: string): ConnectorAdapter | undefined {
  return (ADAPTERS as Record<string, ConnectorAdapter | undefined>)[providerId]
}

/**
 * A provider whose syncs need more than `adapter.sync` (its own health rules and entries) names its runner here; the
 * generic sync (connector_sync, syncConnection) hands such a connection to it, so the rules hold whichever way a sync
 * starts. QMS: a full sync is the reconciliation, an incremental one the poll (domain/qms/run.ts).
 */
const SYNC_RUNNERS: Partial<Record<ProviderId, (db: Db, connectionId: string, mode: 'full' | 'incremental') => Promise<SyncOutcome>>> = {
  qms_provider: (db, connectionId, mode) => runQmsSync(db, connectionId, mode === 'full' ? 'reconcile' : 'poll'),
}

export function syncRunnerFor(providerId: string) {
  return (SYNC_RUNNERS as Record<string, (typeof SYNC_RUNNERS)[ProviderId]>)[providerId]
}

export function allAdapters(): ConnectorAdapter[] {
  return PROVIDERS.map((p) => ADAPTERS[p.id])
}

/** Asks each provider's coalescing hook whether a stored delivery is already covered (one statement each, none load). */
export async function coalesceDelivery(db: Db, deliveryRowId: string): Promise<boolean> {
  for (const adapter of allAdapters()) if (await adapter.coalesceDelivery(db, deliveryRowId)) return true
  return false
}
