// Owns the adapter registry: one adapter per provider of the registry. The adapters live above this folder (each
// provider's folder imports the contract here), so the registry is handed in by installDomain (subgraphs/install.ts),
// as the audit hooks are; nothing here names a provider's module.
import type { Db } from '../../core/database'
import { PROVIDERS, type ProviderId } from './providers'
import type { ConnectorAdapter } from './contract'

let installed: Record<ProviderId, ConnectorAdapter> | null = null

/** Installs the adapter of every provider (idempotent: the last call wins). */
export function installAdapters(adapters: Record<ProviderId, ConnectorAdapter>): void {
  installed = adapters
}

function adapters(): Record<ProviderId, ConnectorAdapter> {
  if (!installed) throw new Error('No connector adapters are installed: the entry point installs the domain first (installDomain in subgraphs/install.ts)')
  return installed
}

export function adapterFor(providerId: string): ConnectorAdapter | undefined {
  return (adapters() as Record<string, ConnectorAdapter | undefined>)[providerId]
}

export function allAdapters(): ConnectorAdapter[] {
  const all = adapters()
  return PROVIDERS.map((p) => all[p.id])
}

/** Asks each provider's coalescing hook whether a stored delivery is already covered (one statement each, none load). */
export async function coalesceDelivery(db: Db, deliveryRowId: string): Promise<boolean> {
  for (const adapter of allAdapters()) if (await adapter.coalesceDelivery(db, deliveryRowId)) return true
  return false
}
export * from './contract'
export * from './errors'
export * from './http'
export * from './lifecycle'
export * from './providers'
export * from './secrets'
export * from './urls'
