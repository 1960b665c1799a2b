// Owns the raw SQL of program records (program_records): a row lock for the one write path and the role home's
// records in one statement. Every function takes the organisation first and binds it in its statement
// (tests/platform/sql-road.test.ts); the rest of records reads through the tenant client.
import { hotRows, type AnyTx, asTx, type Db } from '../../core/database'
import type { ProgramRecord } from '../../generated/prisma/client'

/** Locks one record of the organisation for the rest of the transaction (changes to one record apply one after another). */
export async function lockRecordRow(organizationId: string, tx: AnyTx, id: string): Promise<void> {
  await asTx(tx).$queryRaw`SELECT id FROM program_records WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/** The role home's records of a program (homeRecordRows). */
export interface HomeRecordRows {
  questions: ProgramRecord[]
  board: ProgramRecord[]
  /** One per type holding records: its latest record and how many of its records are in each status. */
  latest: { record: ProgramRecord; counts: Record<string, number> }[]
}

/**
 * The role home's records of a program in one statement: the person's open questions (owned or asked, when
 * `questions`), the evidence board (`boardTypes`) and, per type of `statusTypes` holding records, the one most
 * recently changed with the type's count per status. Questions and the board are newest first (updated_at, then id,
 * both descending) and limited like their regions; rows are ProgramRecord rows as Prisma reads them.
 */
export async function homeRecordRows(organizationId: string, db: Db, args: {
  programId: string; userId: string; questions: boolean; questionLimit: number; boardTypes: readonly string[]; boardLimit: number; statusTypes: readonly string[]
}): Promise<HomeRecordRows> {
  // One row shape for all three: home_part, home_counts (the latest rows only), then the record's columns. The status
  // lines read the narrow columns of the types' records once (typed), and whole rows only for the latest of each. The
  // outer ORDER BY keeps each part's order whatever order UNION ALL hands its branches back in. $3 is text:
  // owner_user_id is compared as a JSON string (Prisma's path equals), created_by_user_id as a uuid.
  const rows = await hotRows<ProgramRecord & { homePart: string; homeCounts: Record<string, number> | null }>(organizationId, db, 'home.records', `WITH typed AS (
      SELECT id, record_type, status, updated_at FROM program_records WHERE organization_id = $1::uuid AND program_id = $2::uuid AND record_type = ANY($8::text[])
    ), latest AS (
      SELECT DISTINCT ON (record_type) id, record_type FROM typed ORDER BY record_type, updated_at DESC, id DESC
    ), counts AS (
      SELECT record_type, jsonb_object_agg(status, n) AS counts FROM (SELECT record_type, status, count(*)::int AS n FROM typed GROUP BY record_type, status) g GROUP BY record_type
    )
    SELECT * FROM (
      (SELECT 'question' AS home_part, NULL::jsonb AS home_counts, r.* FROM program_records r
        WHERE r.organization_id = $1::uuid AND $4::boolean AND r.program_id = $2::uuid AND r.record_type = 'evidence.questions' AND r.status = 'open'
          AND (r.fields -> 'owner_user_id' = to_jsonb($3::text) OR r.created_by_user_id = $3::text::uuid)
        ORDER BY r.updated_at DESC, r.id DESC LIMIT $5::int)
      UNION ALL
      (SELECT 'board', NULL::jsonb, r.* FROM program_records r
        WHERE r.organization_id = $1::uuid AND r.program_id = $2::uuid AND r.record_type = ANY($6::text[])
        ORDER BY r.updated_at DESC, r.id DESC LIMIT $7::int)
      UNION ALL
      SELECT 'latest', c.counts, r.* FROM latest l JOIN counts c ON c.record_type = l.record_type
        JOIN program_records r ON r.organization_id = $1::uuid AND r.id = l.id
    ) home ORDER BY home_part, updated_at DESC, id DESC`,
  [args.programId, args.userId, args.questions, args.questionLimit, args.boardTypes, args.boardLimit, args.statusTypes])
  const out: HomeRecordRows = { questions: [], board: [], latest: [] }
  for (const { homePart, homeCounts, ...record } of rows) {
    if (homePart === 'question') out.questions.push(record)
    else if (homePart === 'board') out.board.push(record)
    else out.latest.push({ record, counts: homeCounts ?? {} })
  }
  return out
}
