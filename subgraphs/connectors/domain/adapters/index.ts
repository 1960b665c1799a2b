// Owns the adapter registry: one adapter per provider of the registry, the only generic module that names providers.
// The QMS adapter is registered with its spec; its operations raise NotSupported until its own issue completes it.
import type { Db } from '../../../../core/db'
import { notebookAdapter } from '../notebook/adapter'
import { literatureAdapter } from '../literature/adapter'
import { PROVIDERS, providerSpec, type ProviderId } from '../providers'
import { BaseAdapter, type ConnectorAdapter } from './contract'

/** QMS/SOP vault (qms_provider): delta poll and nightly reconciliation arrive with the QMS issue. */
export class QmsAdapter extends BaseAdapter {
  constructor() { super(providerSpec('qms_provider')!) }
}


const ADAPTERS: Record<ProviderId, ConnectorAdapter> = {
  eln_provider: notebookAdapter,
  qms_provider: new QmsAdapter(),
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
