// Owns the literature connector's platform configuration: the platform keys read from the secret path
// <product>/<env>/providers/literature_search (a secrets file or an environment mapping), where each source is reached,
// and the per-attempt timeout. Keys never leave this module except as the one request parameter their source takes;
// nothing here logs them. Licence-gated sources, when added, take tenant keys from connection secrets instead.
import fs from 'node:fs'
import { env } from '../../core/config'
import { providerSpec } from '../adapters'
import { SOURCES, type SourceId } from './sources'

/** The environment settings this provider reads, named in its registry entry (LITERATURE_BASE_URL, LITERATURE_HTTP_TIMEOUT_MS). */
const settings = () => providerSpec('literature_search')!.settings

export const PRODUCT = 'evidence-workspace'

export interface PlatformKeys {
  /** The contact address the DOI registry always receives (mailto, its polite pool). */
  contact_email?: string
  citation_graph_api_key?: string
  fulltext_archive_api_key?: string
  drug_safety_api_key?: string
}

/** <product>/<env>/providers/literature_search */
export function secretPath(nodeEnv = env().NODE_ENV): string {
  return `${PRODUCT}/${nodeEnv}/providers/literature_search`
}

/** The environment variable an operator may set instead of the file: SECRET_ + the path upper-cased, `/` and `-` as `_`. */
export function secretEnvName(path = secretPath()): string {
  return `SECRET_${path.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`
}

const DEVELOPMENT_CONTACT = 'literature-demo@illustrative.example'

interface Overrides { baseUrl?: string | null; keys?: PlatformKeys; timeoutMs?: number }
let overrides: Overrides = {}

/** npm start and tests: point the sources at the fake (and set keys) without touching the process environment. */
export function configureLiterature(next: Overrides): void {
  overrides = { ...overrides, ...next }
  keysCache = undefined
}

let keysCache: { keys: PlatformKeys; from: string } | undefined

/**
 * The platform keys: PLATFORM_SECRETS_FILE (a JSON object keyed by secret path) when it holds the path, else the
 * environment mapping (SECRET_EVIDENCE_WORKSPACE_<ENV>_PROVIDERS_LITERATURE_SEARCH holding the same JSON object).
 * Outside production the contact address defaults to an illustrative one; in production the DOI registry step is
 * skipped (status not_configured) until an operator provides it.
 */
export function platformKeys(): PlatformKeys {
  if (overrides.keys) return withDefaults(overrides.keys)
  if (keysCache) return keysCache.keys
  const path = secretPath()
  let keys: PlatformKeys = {}
  const file = env().PLATFORM_SECRETS_FILE
  if (file) {
    const all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
    if (all[path] && typeof all[path] === 'object') keys = all[path] as PlatformKeys
  }
  const fromEnv = process.env[secretEnvName(path)]
  if (!Object.keys(keys).length && fromEnv) keys = JSON.parse(fromEnv) as PlatformKeys
  keysCache = { keys: withDefaults(keys), from: path }
  return keysCache.keys
}

function withDefaults(keys: PlatformKeys): PlatformKeys {
  return env().NODE_ENV === 'production' ? keys : { contact_email: DEVELOPMENT_CONTACT, ...keys }
}

/** Where a source is reached: under LITERATURE_BASE_URL (the fake serves every source by path), else its public address. */
export function sourceBaseUrl(id: SourceId): string {
  const base = overrides.baseUrl !== undefined ? overrides.baseUrl : env()[settings().baseUrl!]
  return base ? `${base.replace(/\/$/, '')}/${SOURCES[id].path}/` : `${SOURCES[id].publicBaseUrl}/`
}

export function literatureTimeoutMs(): number {
  return overrides.timeoutMs ?? env()[settings().httpTimeout]
}
