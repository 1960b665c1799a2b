// Owns the raw SQL of the workbench's programs and people (programs.ts, workbench-roles.ts): the hot reads of `me`,
// the row locks that order concurrent membership and settings changes, and the jsonb update of one workbench role
// entry. Every function takes the organisation first and binds it in its statement (tests/platform/sql-road.test.ts).
// Records and memory have their own (records/sql.ts, memory/sql.ts).
import { hotRows } from '../../core/database'
import { asTx, type AnyTx, type Db } from '../../core/database'
import type { Program, User } from '../../generated/prisma/client'

/** The person's row and their programs' rows (ids: the programs they belong to), by name: every console screen reads them. */
export function meRows(organizationId: string, db: Db, userId: string, programIds: string[]): Promise<[User[], Program[]]> {
  return Promise.all([
    hotRows<User>(organizationId, db, 'me.user', 'SELECT * FROM users WHERE organization_id = $1::uuid AND id = $2::uuid', [userId]),
    hotRows<Program>(organizationId, db, 'me.programs', 'SELECT * FROM programs WHERE organization_id = $1::uuid AND id = ANY($2::uuid[]) ORDER BY name ASC', [programIds]),
  ])
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
