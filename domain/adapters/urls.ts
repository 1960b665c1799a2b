// Owns the public addresses the connector layer hands out: a connection's hook_url and the console's launch link.
import { env } from '../../core/config'
import { providerSpec } from './providers'

/** PUBLIC_URL when set (the address vendors and browsers reach), else the gateway's own address. */
export function publicBaseUrl(): string {
  const e = env()
  return (e.PUBLIC_URL ?? `http://${e.GATEWAY_HOST}:${e.GATEWAY_PORT}`).replace(/\/+$/, '')
}

/** The inbound address to register with the vendor; null for providers that send no events. */
export function hookUrlFor(connection: { id: string; providerId: string }, base = publicBaseUrl()): string | null {
  const spec = providerSpec(connection.providerId)
  if (!spec || spec.eventVerification === 'none') return null
  return `${base}${spec.settings.webhook?.hookPath ?? '/hooks'}/${connection.providerId}/${connection.id}`
}

/** The console route that opens a launch (it calls Mutation.openLaunch with the id). */
export function launchUrlFor(launchId: string, base = publicBaseUrl()): string {
  return `${base}/launch/${launchId}`
}
