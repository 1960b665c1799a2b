// Owns the raw statements over connections (the model API covers the rest): the per-program, per-provider creation
// lock and the health mark of a connection whose vendor refused its credentials. Tenant functions take the organisation
// first and bind it.
import type { Connection } from '../../generated/prisma/client'
import type { AnyTx, Db } from '../../core/database'
import { asTx } from '../../core/database'
import { hotRows } from '../../core/database'

/** One app or integration user per program and provider: creations of the same program and provider take turns. */
export async function lockProgramProviderConnection(tx: AnyTx, programId: string, providerId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`connection:${programId}:${providerId}`}, 0))`
}

/** The vendor refused the connection's credentials: health says failing, with the refusal's words. */
export async function markConnectionFailing(db: Db, organizationId: string, connectionId: string, error: string) {
  await db.$executeRaw`
    UPDATE connections SET health = jsonb_set(jsonb_set(health::jsonb, '{status}', '"failing"'), '{last_error}', to_jsonb(${error}::text)),
      health_checked_at = now()
    WHERE id = ${connectionId}::uuid AND organization_id = ${organizationId}::uuid`
}

/** A hot read (the console's programs): one program's page of connections, its keyset clause from keysetSql. */
export function connectionPageRows(organizationId: string, db: Db, programId: string, page: { sql: string; values: unknown[] }) {
  return hotRows<Connection>(organizationId, db, `connections.page.${page.values.length}`,
    `SELECT * FROM connections WHERE organization_id = $1::uuid AND program_id = $2::uuid${page.sql}`, [programId, ...page.values])
}

/**
 * The same page for several programs in one statement, each program's page cut by its own row numbers (`position` is
 * the keyset clause without its ORDER BY / LIMIT; the last value is the page size).
 */
export async function connectionPagesRows(organizationId: string, db: Db, programIds: readonly string[], values: unknown[], position: string) {
  const rows = await hotRows<Connection & { pageRow?: unknown }>(organizationId, db, `connections.pages.${values.length}`,
    `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY program_id ORDER BY created_at DESC, id DESC) AS page_row FROM connections
      WHERE organization_id = $1::uuid AND program_id = ANY($2::uuid[])${position}) p
      WHERE page_row <= $${values.length + 2}::int ORDER BY created_at DESC, id DESC`,
    [programIds, ...values])
  return rows.map(({ pageRow: _, ...r }) => r as Connection)
}
