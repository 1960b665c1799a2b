// Owns the pure permission decision: which personas a caller holds where, checked against the versioned catalogue.
import { ALL_PERMISSION_KEYS, bundlesHold, isOrgKey } from './catalogue'

export * from './catalogue'

/** What a caller holds: personas per program (through role assignments) and organisation personas. */
export type PersonaGrants = {
  readonly programPersonas: ReadonlyMap<string, readonly string[]>
  readonly orgPersonas: readonly string[]
}

/**
 * Org keys are checked against the organisation personas only; program keys only against the personas held in
 * that program, so holding a persona in program A never opens program B, and organisation personas never open a
 * program. A key that exists in no version is a typo in code and throws rather than silently denying; a key that
 * exists but not yet at `version` is simply not held.
 */
export function hasPermission(grants: PersonaGrants, key: string, programId: string | null, version: number): boolean {
  if (!ALL_PERMISSION_KEYS.has(key)) throw new RangeError(`unknown permission key ${key}`)
  if (isOrgKey(key)) return bundlesHold(grants.orgPersonas, version, key)
  if (programId === null) return false
  const personas = grants.programPersonas.get(programId)
  if (!personas || personas.length === 0) return false
  return bundlesHold(personas, version, key)
}
