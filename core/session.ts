// Owns who is calling: the session loaded from the database for a user, and the can() permission check.
import type { Db } from './db'
import { forbidden, unauthenticated } from './errors'
import { hasPermission } from './permissions'
import { currentPersonaVersion } from './release'

export interface Session {
  userId: string
  organizationId: string
  email: string
  name: string
  /** program id -> persona keys held there (active memberships only) */
  programPersonas: Map<string, string[]>
  orgPersonas: string[]
  personaVersion: number
}

export async function loadSession(db: Db, userId: string): Promise<Session> {
  const user = await db.user.findUnique({
    where: { id: userId },
    include: {
      roleAssignments: { include: { program: { select: { id: true } } } },
      memberships: { where: { endedAt: null }, select: { programId: true } },
      orgRoleAssignment: true,
    },
  })
  if (!user || user.deactivatedAt) throw unauthenticated('Your account is not active in this service.')
  const active = new Set(user.memberships.map((m) => m.programId))
  const programPersonas = new Map<string, string[]>()
  for (const a of user.roleAssignments) {
    if (!active.has(a.programId)) continue
    programPersonas.set(a.programId, [...(programPersonas.get(a.programId) ?? []), a.personaKey])
  }
  return {
    userId: user.id,
    organizationId: user.organizationId,
    email: user.email,
    name: user.name,
    programPersonas,
    orgPersonas: user.orgRoleAssignment.map((a) => a.personaKey),
    personaVersion: currentPersonaVersion(),
  }
}

/** Does the session hold `key` (in `programId` for program keys)? Live: computed from the current assignments. */
export function can(session: Session, key: string, programId: string | null = null): boolean {
  return hasPermission(
    { programPersonas: session.programPersonas, orgPersonas: session.orgPersonas },
    key, programId, session.personaVersion,
  )
}

/** Throws FORBIDDEN unless the session holds `key`. Every domain function that reads or writes calls this. */
export function assertCan(session: Session, key: string, programId: string | null = null): void {
  if (!can(session, key, programId)) throw forbidden(key)
}

export function isMember(session: Session, programId: string): boolean {
  return session.programPersonas.has(programId)
}
