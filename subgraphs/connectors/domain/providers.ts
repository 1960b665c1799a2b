// Owns the provider registry data of the connector specification (Provider registry table).
import { itemStatus } from '../../../core/release'

export interface ProviderSpec {
  id: 'eln_provider' | 'qms_provider' | 'literature_search'
  category: 'eln' | 'documents' | 'literature'
  credentialClass: 'service' | 'platform_keys'
  eventVerification: string
  launchable: boolean
  apiVersionDefault: string
  writePolicy: 'read_only'
  budgetScope: 'connection' | 'platform'
  pollIntervalSeconds: number | null
}

export const PROVIDERS: readonly ProviderSpec[] = [
  { id: 'eln_provider', category: 'eln', credentialClass: 'service', eventVerification: 'ecdsa_jwks', launchable: true, apiVersionDefault: 'v2', writePolicy: 'read_only', budgetScope: 'connection', pollIntervalSeconds: null },
  { id: 'qms_provider', category: 'documents', credentialClass: 'service', eventVerification: 'none', launchable: false, apiVersionDefault: 'v26.2', writePolicy: 'read_only', budgetScope: 'connection', pollIntervalSeconds: 900 },
  { id: 'literature_search', category: 'literature', credentialClass: 'platform_keys', eventVerification: 'none', launchable: false, apiVersionDefault: 'per source', writePolicy: 'read_only', budgetScope: 'platform', pollIntervalSeconds: null },
]

/** Every connector stays designed until the R1 gates pass (connector specification, item 4). */
export const providerStatus = () => itemStatus('R1', { r4GatePassed: false })
