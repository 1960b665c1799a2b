// Owns the raw SQL every subgraph shares: the entity loaders' hot reads of programs and people by id. Each function
// takes the organisation first and binds it (core/database/hot-reads.ts hotRows; tests/platform/sql-road.test.ts).
import type { Db } from '../../core/database'
import { hotRows } from '../../core/database'

/** Rows of `table` with the given ids in the organisation (ids already checked to be UUIDs); unknown ids are absent. */
export function rowsByIds<T>(organizationId: string, db: Db, table: 'programs' | 'users', ids: string[]): Promise<T[]> {
  return hotRows<T>(organizationId, db, `loader.${table}`, `SELECT * FROM ${table} WHERE organization_id = $1::uuid AND id = ANY($2::uuid[])`, [ids])
}
