// Owns the raw SQL of the workbench's programs and people (programs.ts, workbench-roles.ts): the hot reads of `me`,
// the row locks that order concurrent membership and settings changes, and the jsonb update of one workbench role
// entry. Every function takes the organisation first and binds it in its statement (tests/platform/sql-road.test.ts).
// Records and memory have their own (records/sql.ts, memory/sql.ts).
import { hotRows } from '../../core/database'
import { asTx, type AnyTx, type Db } from '../../core/database'
import type { Program, User } from '../../generated/prisma/client'

/** A program of `me`, with the caller's open inbox count in it when that was asked (myProgramRows). */
export type MyProgramRow = Program & { myOpenInboxCount?: number }

/**
 * `me`'s programs (ids: the programs they belong to), by name, in one statement that also proves the person is in the
 * organisation (null when not: no rows at all, where a person without programs has one row of nulls), and, with
 * `openCounts`, the caller's open inbox items in each (the console's first screen asks them beside the names).
 */
export async function myProgramRows(organizationId: string, db: Db, userId: string, programIds: string[], openCounts: boolean): Promise<MyProgramRow[] | null> {
  const count = openCounts
    ? ", (SELECT count(*)::int FROM inbox_items i WHERE i.organization_id = $1::uuid AND i.program_id = p.id AND i.user_id = u.id AND i.status = 'open') AS my_open_inbox_count"
    : ''
  const rows = await hotRows<MyProgramRow>(organizationId, db, openCounts ? 'me.programs.counted' : 'me.programs.only',
    `SELECT p.*${count} FROM users u LEFT JOIN programs p ON p.organization_id = $1::uuid AND p.id = ANY($2::uuid[])`
    + ' WHERE u.organization_id = $1::uuid AND u.id = $3::uuid ORDER BY p.name ASC', [programIds, userId])
  if (!rows.length) return null
  return rows[0].id === null ? [] : rows
}

/** The person's row (undefined when not in the organisation): `me` reads it when asked for the person's fields. */
export async function meUserRow(organizationId: string, db: Db, userId: string): Promise<User | undefined> {
  const [user] = await hotRows<User>(organizationId, db, 'me.user', 'SELECT * FROM users WHERE organization_id = $1::uuid AND id = $2::uuid', [userId])
  return user
}

/** Locks the program's owner assignments: two removals of two owners at once cannot both count the other. */
export async function lockProgramOwners(organizationId: string, tx: AnyTx, programId: string): Promise<void> {
  await asTx(tx).$executeRaw`SELECT 1 FROM role_assignments WHERE organization_id = ${organizationId}::uuid AND program_id = ${programId}::uuid AND persona_key = 'program_owner' FOR UPDATE`
}

/** A transaction-scoped advisory lock on (organisation, program, person) for the first default-applied audit. */
export async function lockDefaultApplied(organizationId: string, tx: AnyTx, programId: string, userId: string): Promise<void> {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtext('workbench_role.default_applied'), hashtext(${`${organizationId}:${programId}:${userId}`}))`
}

/** Locks the person's row for the rest of the transaction and answers their settings (undefined: no such person here). */
export async function lockUserSettings(organizationId: string, tx: AnyTx, userId: string): Promise<{ settings: unknown } | undefined> {
  const [row] = await asTx(tx).$queryRaw<{ settings: unknown }[]>`SELECT settings FROM users WHERE id = ${userId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
  return row
}

/** One jsonb statement per entry, so a concurrent change to another program's entry or another setting is kept. */
export async function writeWorkbenchRoleEntry(organizationId: string, tx: AnyTx, userId: string, programId: string, key: string | null): Promise<void> {
  const t = asTx(tx)
  if (key === null) {
    await t.$executeRaw`UPDATE users SET settings = COALESCE(settings, '{}'::jsonb) #- ARRAY['workbench_role', ${programId}]::text[]
      WHERE id = ${userId}::uuid AND organization_id = ${organizationId}::uuid`
  } else {
    await t.$executeRaw`UPDATE users SET settings = jsonb_set(COALESCE(settings, '{}'::jsonb), '{workbench_role}',
        COALESCE(settings -> 'workbench_role', '{}'::jsonb) || jsonb_build_object(${programId}::text, ${key}::text))
      WHERE id = ${userId}::uuid AND organization_id = ${organizationId}::uuid`
  }
}

/** A program of the organisation by id (already checked to be a UUID) or slug, read without Prisma (Query.program). */
export async function programRowBy(organizationId: string, db: Db, by: { id: string } | { slug: string }): Promise<Program | undefined> {
  const [program] = 'id' in by
    ? await hotRows<Program>(organizationId, db, 'programs.by_id', 'SELECT * FROM programs WHERE organization_id = $1::uuid AND id = $2::uuid', [by.id])
    : await hotRows<Program>(organizationId, db, 'programs.by_slug', 'SELECT * FROM programs WHERE organization_id = $1::uuid AND slug = $2::text', [by.slug])
  return program
}

/** The role home's row of the person in a program (homePersonRow): set_* columns null when no set or assign row. */
export interface HomePersonRow {
  settings: unknown
  defaultApplied: boolean
  setAction: string | null
  setActorUserId: string | null
  setDetails: unknown
  setAt: Date | null
  setByName: string | null
}

/**
 * What the role home reads of the person in one statement (it was four): their settings, whether their fallback to
 * the neutral harness was audited in the program (workbench_role.default_applied), and the latest workbench_role.set
 * or .assign row of them in the program with its actor's name (null columns when there is none). Undefined when the
 * person is not in the organisation.
 */
export async function homePersonRow(organizationId: string, db: Db, programId: string, userId: string): Promise<HomePersonRow | undefined> {
  // target_id is text and users.id a uuid: $3 is text throughout, cast where a uuid is compared (one type per parameter).
  // Both audit reads are answered by partial indexes (audit_events_default_applied_once, audit_events_workbench_role_latest).
  const [row] = await hotRows<HomePersonRow>(organizationId, db, 'home.person', `SELECT u.settings,
      EXISTS (SELECT 1 FROM audit_events d WHERE d.organization_id = $1::uuid AND d.program_id = $2::uuid AND d.target_id = $3::text
        AND d.action = 'workbench_role.default_applied') AS default_applied,
      s.action AS set_action, s.actor_user_id AS set_actor_user_id, s.details AS set_details, s.created_at AS set_at, setter.name AS set_by_name
    FROM users u
    LEFT JOIN LATERAL (SELECT a.action, a.actor_user_id, a.details, a.created_at FROM audit_events a
      WHERE a.organization_id = $1::uuid AND a.program_id = $2::uuid AND a.target_id = $3::text AND a.action IN ('workbench_role.set', 'workbench_role.assign')
      ORDER BY a.entry_seq DESC LIMIT 1) s ON true
    LEFT JOIN users setter ON setter.organization_id = $1::uuid AND setter.id = s.actor_user_id
    WHERE u.organization_id = $1::uuid AND u.id = $3::text::uuid`, [programId, userId])
  return row
}
