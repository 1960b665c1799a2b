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
