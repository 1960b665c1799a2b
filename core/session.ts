// Owns who is calling: the session loaded from the database for a user, and the can() permission check.
import type { Db } from './db'
import { forbidden, unauthenticated } from './errors'
import { hasPermission, type PermissionKey } from './permissions'
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

/** One statement: the person, the personas held in programs they are still a member of, organisation personas. */
export async function loadSession(db: Db, userId: string): Promise<Session> {
  const rows = await db.$queryRaw<{
    id: string; organization_id: string; email: string; name: string; deactivated_at: Date | null
    program_personas: { p: string; k: string }[]; org_personas: string[]
  }[]>`
    SELECT u.id, u.organization_id, u.email, u.name, u.deactivated_at,
      COALESCE((SELECT json_agg(json_build_object('p', ra.program_id, 'k', ra.persona_key) ORDER BY ra.created_at)
        FROM role_assignments ra
        JOIN program_memberships pm ON pm.program_id = ra.program_id AND pm.user_id = ra.user_id AND pm.ended_at IS NULL
        WHERE ra.user_id = u.id), '[]'::json) AS program_personas,
      COALESCE((SELECT json_agg(o.persona_key) FROM org_role_assignments o WHERE o.user_id = u.id AND o.organization_id = u.organization_id), '[]'::json) AS org_personas
    FROM users u WHERE u.id = ${userId}::uuid`
  const user = rows[0]
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
  }
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
