// Owns the raw SQL of proposals and decisions (everything else goes through the tenant client of core/database/db.ts): each
// function takes the organisation first and binds it in its filter.
import type { InboxItem } from '../../generated/prisma/client'
import { hotRows, type Db, type Tx } from '../../core/database'

/** Any client or transaction, tenant-scoped or not: what raw SQL needs of it. */
type Sql = Pick<Tx, '$queryRaw' | '$executeRaw'>

/** Locks a proposal's interrupt (FOR UPDATE): two deciders of one proposal decide one after the other. */
export async function lockProposal(tx: Sql, organizationId: string, interruptId: string) {
  await tx.$executeRaw`SELECT 1 FROM run_interrupts WHERE id = ${interruptId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/** Locks a proposal's basis records (FOR UPDATE, in id order) until commit. */
export async function lockBasisRecords(tx: Sql, organizationId: string, recordIds: string[]) {
  await tx.$executeRaw`SELECT 1 FROM program_records WHERE id = ANY(${recordIds}::uuid[]) AND organization_id = ${organizationId}::uuid ORDER BY id FOR UPDATE`
}

/** The program's audit actions in [start, end): count and the first `idLimit` target ids of each. */
export function auditActionsInPeriod(q: Sql, organizationId: string, programId: string, start: Date, end: Date, idLimit: number) {
  return q.$queryRaw<{ action: string; n: bigint; ids: string[] }[]>`
    SELECT action, count(*) AS n, (array_agg(target_id ORDER BY entry_seq))[1:${idLimit}] AS ids
    FROM audit_events WHERE organization_id = ${organizationId}::uuid AND program_id = ${programId}::uuid AND created_at >= ${start} AND created_at < ${end}
    GROUP BY action ORDER BY action`
}

/** inbox_items' columns in the InboxItem model's field order: a row reads as Prisma's findMany row of the item. */
const INBOX_ITEM_COLUMNS = ['id', 'user_id', 'organization_id', 'program_id', 'kind', 'source_type', 'source_id', 'title', 'interrupt_id',
  'twin_id', 'trigger_id', 'priority', 'batch_key', 'due_at', 'reminded_at', 'status', 'snoozed_until', 'delegated_from_user_id',
  'feedback', 'done_by', 'done_at', 'escalated_at', 'created_at', 'updated_at'].map((c) => `r.${c}`).join(', ')

/**
 * A person's open decisions in a program for the role home, set-based and in one statement (a hot read: every role
 * home asks it): the first `limit` that belong to the role (`recordTypes` null: every type; an item naming no record
 * type belongs to everyone), oldest due first, as InboxItem rows, and the count of all of them. Always one row at
 * least: without a decision of the role, a row of nulls carrying the count.
 */
export async function openRoleDecisions(db: Db, organizationId: string, userId: string, programId: string, recordTypes: readonly string[] | null, limit: number) {
  const rows = await hotRows<InboxItem & { roleHomeDecisionsTotal: number }>(organizationId, db, 'proposals.role_home_decisions', `
    WITH items AS (
      SELECT i.id, i.due_at, i.created_at,
             ($4::text[] IS NULL
              OR jsonb_typeof(ri.question->'recordType') IS DISTINCT FROM 'string'
              OR ri.question->>'recordType' = ANY($4::text[])) AS in_role
      FROM inbox_items i
      LEFT JOIN run_interrupts ri ON ri.id = i.interrupt_id AND ri.organization_id = i.organization_id
      WHERE i.organization_id = $1::uuid AND i.user_id = $2::uuid AND i.program_id = $3::uuid
        AND i.kind = 'decision' AND i.status = 'open'
    ), picked AS (
      SELECT id, due_at, created_at FROM items WHERE in_role ORDER BY due_at ASC NULLS LAST, created_at ASC, id ASC LIMIT $5::int
    )
    SELECT ${INBOX_ITEM_COLUMNS}, total.n AS role_home_decisions_total
    FROM (SELECT count(*)::int AS n FROM items) total
    LEFT JOIN (picked p JOIN inbox_items r ON r.organization_id = $1::uuid AND r.id = p.id) ON true
    ORDER BY p.due_at ASC NULLS LAST, p.created_at ASC, p.id ASC`,
  [userId, programId, recordTypes, limit])
  const decisions: InboxItem[] = []
  for (const { roleHomeDecisionsTotal: _total, ...item } of rows) if (item.id !== null) decisions.push(item)
  return { decisions, total: rows[0]?.roleHomeDecisionsTotal ?? 0 }
}

/**
 * A person's open proposal of the same kind on the same basis: unanswered, not expired, proposed for `userId`, of the
 * same record type and change (a create of the same title, or an update of the same record: what a propose tool
 * calls the same proposal within a run), pinned to exactly the same record versions
 * (basis hash). Called under the person's filing lock (admitFiling), so two runs filing at once see each other.
 */
export async function openProposalLike(tx: Sql, organizationId: string, like: { userId: string; programId: string; recordType: string; changeKind: string; recordId: string | null; title: string; basisHash: string }) {
  const [row] = await tx.$queryRaw<{ id: string; title: string; draftArtifactId: string; inboxItemId: string | null }[]>`
    SELECT ri.id::text AS id, ri.question->>'title' AS title, ri.question->>'draftArtifactId' AS "draftArtifactId",
           (SELECT i.id::text FROM inbox_items i WHERE i.organization_id = ri.organization_id AND i.interrupt_id = ri.id LIMIT 1) AS "inboxItemId"
    FROM run_interrupts ri
    WHERE ri.organization_id = ${organizationId}::uuid AND ri.kind = 'write_approval' AND ri.answer IS NULL
      AND (ri.expires_at IS NULL OR ri.expires_at > now())
      AND ri.question->>'type' = 'proposal' AND ri.question->>'programId' = ${like.programId}
      AND ri.question->'proposer'->>'userId' = ${like.userId} AND ri.question->>'recordType' = ${like.recordType}
      AND ri.question->'change'->>'kind' = ${like.changeKind}
      AND (ri.question->'change'->>'recordId') IS NOT DISTINCT FROM ${like.recordId}
      AND (${like.recordId}::text IS NOT NULL OR lower(btrim(ri.question->>'title')) = lower(btrim(${like.title})))
      AND ri.question->>'basisHash' = ${like.basisHash}
    ORDER BY ri.created_at ASC LIMIT 1`
  return row ?? null
}
