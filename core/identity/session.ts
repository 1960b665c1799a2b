// Owns who is calling: the session loaded from the database for a user, and the can() permission check.
import type pg from 'pg'
import type { Db } from '../database'
import { forbidden, unauthenticated } from '../errors'
import { hasPermission, type PermissionKey } from '../permissions'
import { currentPersonaVersion } from './release'
import { sessionRowAcrossOrganisations, sessionStampRowAcrossOrganisations } from '../sql'

export interface Session {
  userId: string
  organizationId: string
  email: string
  name: string
  /** program id -> persona keys held there (active memberships only) */
  programPersonas: Map<string, string[]>
  orgPersonas: string[]
  personaVersion: number
  /** session_versions.version when this was loaded (0 before the first change): caches compare it (core/identity/session-cache.ts). */
  version: number
}

/**
 * One statement: the person, the personas held in programs they are still a member of, organisation personas, and the
 * session version, all from one snapshot (a change committed after it has a higher version).
 */
export async function loadSession(db: Db, userId: string): Promise<Session> {
  const user = await sessionRowAcrossOrganisations(db, userId)
  if (!user || user.deactivated_at) throw unauthenticated('Your account is not active in this service.')
  const programPersonas = new Map<string, string[]>()
  for (const { p, k } of user.program_personas) programPersonas.set(p, [...(programPersonas.get(p) ?? []), k])
  return {
    userId: user.id,
    organizationId: user.organization_id,
    email: user.email,
    name: user.name,
    programPersonas,
    orgPersonas: user.org_personas,
    personaVersion: currentPersonaVersion(),
    version: Number(user.version ?? 0),
  }
}

export interface SessionStamp { userId: string; organizationId: string; active: boolean; version: number }

/**
 * What the gateway reads on every request (one primary-key lookup): is the person active, and the version of what
 * their session holds. Null for an unknown id. `pool`: a plain pg pool, cheaper per call than Prisma on this hot path.
 */
export async function readSessionStamp(db: Db, userId: string, pool?: pg.Pool): Promise<SessionStamp | null> {
  const row = await sessionStampRowAcrossOrganisations(db, userId, pool)
  return row ? { userId, organizationId: row.organization_id, active: !row.deactivated_at, version: Number(row.version ?? 0) } : null
}

/** Does the session hold `key` (in `programId` for program keys)? Live: computed from the current assignments. */
export function can(session: Session, key: PermissionKey, programId: string | null = null): boolean {
  return hasPermission(
    { programPersonas: session.programPersonas, orgPersonas: session.orgPersonas },
    key, programId, session.personaVersion,
  )
}

/** Throws FORBIDDEN unless the session holds `key`. Every domain function that reads or writes calls this. */
export function assertCan(session: Session, key: PermissionKey, programId: string | null = null): void {
  if (!can(session, key, programId)) throw forbidden(key)
}

export function isMember(session: Session, programId: string): boolean {
  return session.programPersonas.has(programId)
}
