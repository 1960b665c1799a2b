// Owns the raw SQL of program records (program_records): a row lock for the one write path and the counts of the
// workbench home. Every function takes the organisation first and binds it in its statement
// (tests/platform/sql-road.test.ts); the rest of records reads through the tenant client.
import { Prisma, type AnyTx, asTx } from '../../core/database'

/** Locks one record of the organisation for the rest of the transaction (changes to one record apply one after another). */
export async function lockRecordRow(organizationId: string, tx: AnyTx, id: string): Promise<void> {
  await asTx(tx).$queryRaw`SELECT id FROM program_records WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/** How many records of each type and status the program holds, for the given types. */
export function recordCountsByStatus(organizationId: string, q: AnyTx, programId: string, types: readonly string[]) {
  return asTx(q).$queryRaw<{ record_type: string; status: string; n: bigint }[]>`
    SELECT record_type, status, count(*) AS n FROM program_records
    WHERE organization_id = ${organizationId}::uuid AND program_id = ${programId}::uuid AND record_type IN (${Prisma.join(types)})
    GROUP BY record_type, status ORDER BY record_type, status`
}

/** The record most recently changed of each of the given types in the program. */
export function latestRecordPerType(organizationId: string, q: AnyTx, programId: string, types: readonly string[]) {
  return asTx(q).$queryRaw<{ id: string; record_type: string; updated_at: Date }[]>`
    SELECT DISTINCT ON (record_type) id, record_type, updated_at FROM program_records
    WHERE organization_id = ${organizationId}::uuid AND program_id = ${programId}::uuid AND record_type IN (${Prisma.join(types)})
    ORDER BY record_type, updated_at DESC, id DESC`
}
