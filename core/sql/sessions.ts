// Owns the raw SQL of sessions: who is calling, read by user id before any organisation is known. These reads cross
// organisations by nature (the session is how a request learns its organisation), so each says so in its name.
import type pg from 'pg'
import type { Db } from '../database'

export interface SessionRow {
  id: string; organization_id: string; email: string; name: string; deactivated_at: Date | null
  program_personas: { p: string; k: string }[]; org_personas: string[]; version: bigint | null
}

/**
 * One statement: the person, the personas held in programs they are still a member of, organisation personas, and the
 * session version, all from one snapshot (a change committed after it has a higher version).
 */
export async function sessionRowAcrossOrganisations(db: Db, userId: string): Promise<SessionRow | undefined> {
  const rows = await db.$queryRaw<SessionRow[]>`
    SELECT u.id, u.organization_id, u.email, u.name, u.deactivated_at,
      COALESCE((SELECT json_agg(json_build_object('p', ra.program_id, 'k', ra.persona_key) ORDER BY ra.created_at)
        FROM role_assignments ra
        JOIN program_memberships pm ON pm.program_id = ra.program_id AND pm.user_id = ra.user_id AND pm.ended_at IS NULL
        -- programs of the person's own organisation only, whatever a stray row says: a program of the session is
        -- trusted without reading its row (defineCoreEntitiesKeyedByMembership)
        JOIN programs p ON p.id = ra.program_id AND p.organization_id = u.organization_id
        WHERE ra.user_id = u.id), '[]'::json) AS program_personas,
      COALESCE((SELECT json_agg(o.persona_key) FROM org_role_assignments o WHERE o.user_id = u.id AND o.organization_id = u.organization_id), '[]'::json) AS org_personas,
      (SELECT sv.version FROM session_versions sv WHERE sv.user_id = u.id) AS version
    FROM users u WHERE u.id = ${userId}::uuid`
  return rows[0]
}

export interface SessionStampRow { organization_id: string; deactivated_at: Date | null; version: string | bigint | null }

const STAMP_SQL = `SELECT u.organization_id, u.deactivated_at, sv.version
  FROM users u LEFT JOIN session_versions sv ON sv.user_id = u.id WHERE u.id = $1::uuid`

/** The gateway's per-request primary-key lookup; `pool`: a plain pg pool, cheaper per call than Prisma on this path. */
export async function sessionStampRowAcrossOrganisations(db: Db, userId: string, pool?: pg.Pool): Promise<SessionStampRow | undefined> {
  const rows = pool ? (await pool.query<SessionStampRow>(STAMP_SQL, [userId])).rows : await db.$queryRawUnsafe<SessionStampRow[]>(STAMP_SQL, userId)
  return rows[0]
}
