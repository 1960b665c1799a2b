// Owns the adapter registry: one adapter per provider of the registry, the only generic module that names providers.
import type { Db } from '../../../../core/db'
import { notebookAdapter } from '../notebook/adapter'
import { qmsAdapter } from '../qms/adapter'
import { literatureAdapter } from '../literature/adapter'
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

export function allAdapters(): ConnectorAdapter[] {
  return PROVIDERS.map((p) => ADAPTERS[p.id])
}

/** Asks each provider's coalescing hook whether a stored delivery is already covered (one statement each, none load). */
export async function coalesceDelivery(db: Db, deliveryRowId: string): Promise<boolean> {
  for (const adapter of allAdapters()) if (await adapter.coalesceDelivery(db, deliveryRowId)) return true
  return false
}
