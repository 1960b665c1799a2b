// Owns the raw SQL of memory (memory_records, and the Keep questions kept in run_interrupts): recall's one statement,
// the source-text check, the Keep question's row lock, and the retention sweep. Tenant functions take the organisation
// first and bind it in every statement; the retention sweep crosses organisations and says so in its names
// (tests/platform/sql-road.test.ts). Everything else of memory reads and writes through the tenant client.
import { asTx, type AnyTx, type Tx } from '../../core/database'
import type { MemoryRecord } from '../../generated/prisma/client'

const COLUMNS = `id, organization_id AS "organizationId", namespace, tier, kind, origin, summary, source_ref AS "sourceRef",
  passage_refs AS "passageRefs", created_at AS "createdAt"`
export type RecallRow = Pick<MemoryRecord, 'id' | 'organizationId' | 'namespace' | 'tier' | 'kind' | 'origin' | 'summary' | 'sourceRef' | 'passageRefs' | 'createdAt'>
  & { part: 'individual' | 'person'; pass: number }

/**
 * The one statement recall sends (exported so the memory bench can EXPLAIN exactly it); null when nothing to read.
 * The organisation is $1 and the owner $2 of every part.
 */
export function recallStatement(organizationId: string, userId: string, programId: string | null, query: string, limits: { individual: number; person: number }): { sql: string; params: unknown[] } | null {
  const params: unknown[] = [organizationId, userId]
  const param = (value: unknown) => `$${params.push(value)}`
  const program = programId ? param(programId) : null
  const q = query ? param(query) : null
  const scope = (tier: 'individual' | 'person') => `organization_id = $1::uuid AND user_id = $2::uuid AND tier = '${tier}'::memory_tier
    AND status IN ('kept', 'promoted') AND ${tier === 'individual' ? `program_id = ${program}::uuid` : 'program_id IS NULL'}`
  const match = `search @@ websearch_to_tsquery('english', ${q})`
  const rank = `ts_rank(search, websearch_to_tsquery('english', ${q}))`
  const parts: string[] = []
  for (const tier of ['individual', 'person'] as const) {
    const limit = Math.max(0, Math.floor(limits[tier]))
    if (!limit || (tier === 'individual' && !programId)) continue
    if (query) parts.push(`(SELECT ${COLUMNS}, '${tier}' AS part, 0 AS pass FROM memory_records WHERE ${scope(tier)} AND ${match} ORDER BY ${rank} DESC, created_at DESC, id DESC LIMIT ${limit})`)
    // program_id leads the order (one value per part) so the IS NULL of tier 2 still reads the recency index in order
    // and stops at the limit: PostgreSQL treats only `=` as fixing a column's order, not IS NULL.
    parts.push(`(SELECT ${COLUMNS}, '${tier}' AS part, 1 AS pass FROM memory_records WHERE ${scope(tier)} ORDER BY program_id, created_at DESC, id DESC LIMIT ${limit})`)
  }
  return parts.length ? { sql: parts.join(' UNION ALL '), params } : null
}

/** The rows of recallStatement for the owner `userId` of the organisation (empty when there is nothing to read). */
export async function recallRows(organizationId: string, q: AnyTx, userId: string, programId: string | null, query: string, limits: { individual: number; person: number }): Promise<RecallRow[]> {
  const read = recallStatement(organizationId, userId, programId, query, limits)
  if (!read) return []
  return asTx(q).$queryRawUnsafe<RecallRow[]>(read.sql, ...read.params)
}

/** Some document of the program whose text (spaces folded, lower case) holds one of `windows`; empty when none does. */
export function documentsRepeating(organizationId: string, tx: AnyTx, programId: string, windows: string[]) {
  return asTx(tx).$queryRaw<{ id: string }[]>`
    SELECT d.id FROM documents d
    WHERE d.organization_id = ${organizationId}::uuid AND d.program_id = ${programId}::uuid
      AND EXISTS (SELECT 1 FROM unnest(${windows}::text[]) w WHERE strpos(lower(regexp_replace(d.text, '[[:space:]]+', ' ', 'g')), w) > 0)
    LIMIT 1`
}

/** Locks a Keep question (its run_interrupts row) of the organisation for the rest of the transaction. */
export async function lockNoteQuestion(organizationId: string, tx: AnyTx, interruptId: string): Promise<void> {
  await asTx(tx).$executeRaw`SELECT 1 FROM run_interrupts WHERE id = ${interruptId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

// ---- memory_expire: one sweep across organisations ------------------------------------------------------------------

/** Tier-1 records still kept whose owner's membership of their program ended at or before `cutoff`, in every organisation. */
export function recordsOfEndedMembershipsAcrossOrganisations(tx: Tx, cutoff: Date) {
  return tx.$queryRaw<{ id: string }[]>`
    SELECT m.id FROM memory_records m
    JOIN program_memberships pm ON pm.program_id = m.program_id AND pm.user_id = m.user_id
    WHERE m.tier = 'individual' AND m.status IN ('kept', 'promoted') AND pm.ended_at IS NOT NULL AND pm.ended_at <= ${cutoff}`
}

/**
 * Erases the note of every Keep question that expired unanswered by `now`, in every organisation (the shape of
 * store.ts erasedNoteQuestion), answering whose each was and the proposal it was shown beneath (read before the erasure).
 */
export function eraseExpiredNoteQuestionsAcrossOrganisations(tx: Tx, now: Date) {
  return tx.$queryRaw<{ organizationId: string; userId: string; proposalRef: string | null }[]>`
    WITH expired AS (
      SELECT id, question->'memory_note'->>'proposalRef' AS proposal_ref FROM run_interrupts
      WHERE kind = 'write_approval' AND question->>'type' = 'memory_note' AND question ? 'memory_note'
        AND answered_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ${now}
      FOR UPDATE)
    UPDATE run_interrupts r SET question = jsonb_build_object('type', 'memory_note', 'userId', r.question->'userId', 'twinId', r.question->'twinId', 'erased', true)
    FROM expired WHERE r.id = expired.id
    RETURNING r.organization_id::text AS "organizationId", r.question->>'userId' AS "userId", expired.proposal_ref AS "proposalRef"`
}
