// Owns the provider registry data of the connector specification (Provider registry table, ProviderSpec fields).
import { itemStatus } from '../../core/identity'
import type { Env } from '../../core/config'

export type ProviderId = 'eln_provider' | 'qms_provider' | 'literature_search'

export interface BudgetSpec {
  /** Per connection, drawn from the organisation's budget (notebook: 250 per 30 s from 900 per 30 s). */
  connectionLimit: number
  /** null: the connection row alone (QMS: a connection-scoped row following the vendor's burst window). */
  organizationLimit: number | null
  windowSeconds: number
  /** A separate window for the provider's auth endpoint (QMS: its own one-minute window), drawn before each auth call. */
  auth?: { limit: number; windowSeconds: number }
  /** Vendor rate header names (lower case) and the window the vendor's remainder applies to when it sends no reset. */
  headers?: { limit: string; remaining: string; reset: string; windowSeconds: number }
}

/** The environment settings (core/config/env.ts) that are per-attempt timeouts in milliseconds. */
export type HttpTimeoutSetting = Extract<keyof Env, `${string}_HTTP_TIMEOUT_MS`>
/** The environment settings that point a provider's sources at another address (a fake, a proxy). */
export type BaseUrlSetting = Extract<keyof Env, `${string}_BASE_URL`>

/**
 * What the generic modules (runtime, webhook ingress, hook URLs) need to know of a provider, so that none of them names
 * one: read from here, never from a provider id.
 */
export interface ProviderSettings {
  /** The setting holding the per-attempt timeout of calls to the vendor. */
  httpTimeout: HttpTimeoutSetting
  /** The setting naming one address for all the provider's sources, or null when each connection names its vendor's base URL. */
  baseUrl: BaseUrlSetting | null
  /** Providers that send webhooks: the hook path's prefix, and where an envelope names its event type (verified body, JSON). */
  webhook?: { hookPath: string; eventTypePath: readonly string[] }
}

export interface ProviderSpec {
  id: ProviderId
  /** Neutral name shown to people; records name their source system by the provider id. */
  displayName: string
  category: 'eln' | 'documents' | 'literature'
  credentialClass: 'service' | 'platform_keys'
  /** How inbound events are authenticated: ecdsa_jwks (signed webhooks) or none (no webhooks). */
  eventVerification: 'ecdsa_jwks' | 'none'
  /** The registry's Events column. */
  events: string
  launchable: boolean
  apiVersionDefault: string
  writePolicy: 'read_only'
  budgetScope: 'connection' | 'platform'
  pollIntervalSeconds: number | null
  budget: BudgetSpec | null
  /** What scope_rules must name for this provider. */
  scopeRuleKeys: ReadonlyArray<'project_ids' | 'document_types'>
  settings: ProviderSettings
  /** Literature: source kinds left out, each with its stated reason (describe lists them). */
  excludedSources?: readonly { kind: string; reason: string }[]
}

/** literature_search: licence-gated sources are excluded in phase 2, each with its stated reason (spec item 6). */
export const EXCLUDED_LITERATURE_SOURCES: readonly { kind: string; reason: string }[] = Object.freeze([
  { kind: 'a citation search engine', reason: 'licence-gated: excluded in phase 2; when added it takes tenant-supplied keys through connection secrets, never a shared platform key' },
  { kind: 'a commercial drug database', reason: 'licence-gated: excluded in phase 2; when added it takes tenant-supplied keys through connection secrets, never a shared platform key' },
  { kind: 'a patent and scholarly index', reason: 'licence-gated: excluded in phase 2; when added it takes tenant-supplied keys through connection secrets, never a shared platform key' },
  { kind: 'a preprint server', reason: 'preprint successors are resolved from the PPR records of the European literature index instead' },
])

export const PROVIDERS: readonly ProviderSpec[] = [
  {
    id: 'eln_provider', displayName: 'Notebook (ELN)', category: 'eln', credentialClass: 'service',
    eventVerification: 'ecdsa_jwks', events: 'ecdsa_jwks signed webhooks', launchable: true, apiVersionDefault: 'v2',
    writePolicy: 'read_only', budgetScope: 'connection', pollIntervalSeconds: null,
    budget: { connectionLimit: 250, organizationLimit: 900, windowSeconds: 30 },
    scopeRuleKeys: ['project_ids'],
    // The vendor app registers /api/v1/hooks/...; the envelope is { message: { type, ... } }.
    settings: { httpTimeout: 'NOTEBOOK_HTTP_TIMEOUT_MS', baseUrl: null, webhook: { hookPath: '/api/v1/hooks', eventTypePath: ['message', 'type'] } },
  },
  {
    id: 'qms_provider', displayName: 'QMS / SOP vault', category: 'documents', credentialClass: 'service',
    eventVerification: 'none', events: 'none; 15-minute delta poll plus nightly reconciliation', launchable: false,
    apiVersionDefault: 'v26.2', writePolicy: 'read_only', budgetScope: 'connection', pollIntervalSeconds: 900,
    // The vault's burst window: 2,000 requests per 5 minutes by default; the remote headers narrow it. The auth window's
    // request limit is not shown in the specification: 20 a minute is ours.
    budget: {
      connectionLimit: 2000, organizationLimit: null, windowSeconds: 300, auth: { limit: 20, windowSeconds: 60 },
      headers: { limit: 'x-vaultapi-burstlimit', remaining: 'x-vaultapi-burstlimitremaining', reset: 'x-vaultapi-burstlimitreset', windowSeconds: 300 },
    },
    scopeRuleKeys: ['document_types'],
    // The vault has no timeout setting of its own: its calls share the notebook's.
    settings: { httpTimeout: 'NOTEBOOK_HTTP_TIMEOUT_MS', baseUrl: null },
  },
  {
    id: 'literature_search', displayName: 'Open literature and knowledge', category: 'literature', credentialClass: 'platform_keys',
    eventVerification: 'none', events: 'none', launchable: false, apiVersionDefault: 'per source', writePolicy: 'read_only',
    budgetScope: 'platform', pollIntervalSeconds: null, budget: null, scopeRuleKeys: [],
    excludedSources: EXCLUDED_LITERATURE_SOURCES,
    settings: { httpTimeout: 'LITERATURE_HTTP_TIMEOUT_MS', baseUrl: 'LITERATURE_BASE_URL' },
  },
]

export function providerSpec(id: string): ProviderSpec | undefined {
  return PROVIDERS.find((p) => p.id === id)
}

/** Every connector stays designed until the R1 gates pass (R1_GATE_PASSED), then reads preview. */
export const providerStatus = () => itemStatus('R1')
