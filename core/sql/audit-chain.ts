// Owns the raw SQL of the per-organisation audit chain (core/audit/audit-chain.ts): locking and moving an organisation's
// chain head, reading rows as the chain hashes them (audit_chain_row: to_jsonb, timestamps in UTC), and the pages the
// verifier and the export walk. Every function takes the organisation and binds it.
import type { Db, Tx } from '../database'

export interface LockedEntry {
  seq: bigint
  head_hash: string
  id: string
  /** The audit row as the chain hashes it (JSON text of audit_chain_row). */
  entry: string
  /** [{ table, id, row }] for each subject the row names, in its order (JSON text). */
  subjects: string
}

/**
 * Locks the organisation's chain head (created at the first append) until the transaction ends, and reads the new
 * audit rows `eventIds` and their subjects as the chain hashes them, in insertion order, in one statement (a row
 * rolled back since, with a savepoint, is simply not there). Writers of
 * one organisation queue on the head row; other organisations never wait.
 */
export async function lockHeadAndReadEntries(tx: Tx, organizationId: string, eventIds: string[]): Promise<LockedEntry[]> {
  // audit_chain_lock_and_read (prisma/migrations/20261128134634_audit_chain_entries): locks the head row FOR UPDATE
  // (creating it at the first append), then reads each row and its subjects through audit_chain_row, by entry_seq.
  return tx.$queryRaw<LockedEntry[]>`
    SELECT seq, head_hash, id, entry, subjects FROM audit_chain_lock_and_read(${organizationId}::uuid, ${eventIds}::uuid[])`
}

/**
 * Inserts the new entries' chain positions (audit_chain_entries: insert-only, like the audit rows) and moves the head
 * to the last of them (audit_chain_set_positions, same migration).
 */
export async function setChainPositions(tx: Tx, organizationId: string, p: { ids: string[]; seqs: bigint[]; prevs: string[]; hashes: string[] }): Promise<void> {
  await tx.$executeRaw`
    SELECT audit_chain_set_positions(${organizationId}::uuid, ${p.ids}::uuid[], ${p.seqs}::bigint[], ${p.prevs}::text[], ${p.hashes}::text[])`
}

export interface ChainRow {
  id: string
  chain_seq: bigint
  prev_hash: string
  entry_hash: string
  created_at: Date
  /** JSON text: the audit row as the chain hashes it. */
  entry: string
  subjects: string
}

/**
 * One page of the organisation's chain after `afterSeq`, in chain order, each position with its audit row and the
 * row's subjects as the chain hashes them. A position whose audit row is gone is left out, so the verifier meets a gap
 * in the sequence there. Runs `SET LOCAL timezone` in the caller's transaction so to_jsonb renders timestamps as the
 * append did.
 */
export async function chainPage(tx: Tx, organizationId: string, afterSeq: bigint, limit: number): Promise<ChainRow[]> {
  await tx.$executeRaw`SELECT set_config('timezone', 'UTC', true)`
  return tx.$queryRaw<ChainRow[]>`
    SELECT a.id, c.chain_seq, c.prev_hash, c.entry_hash, a.created_at, to_jsonb(a)::text AS entry,
      CASE WHEN a.subjects = '[]'::jsonb THEN '[]' ELSE
        (SELECT COALESCE(jsonb_agg(jsonb_build_object('table', s->>'table', 'id', s->>'id',
            'row', audit_chain_row(s->>'table', (s->>'id')::uuid)) ORDER BY ord), '[]'::jsonb)
          FROM jsonb_array_elements(a.subjects) WITH ORDINALITY AS x(s, ord))::text END AS subjects
    FROM audit_chain_entries c JOIN audit_events a ON a.id = c.event_id
    WHERE c.organization_id = ${organizationId}::uuid AND c.chain_seq > ${afterSeq}
    ORDER BY c.chain_seq LIMIT ${limit}`
}

export interface HeadRow { seq: bigint; head_hash: string }

/** The organisation's chain head, or null before its first chained entry. */
export async function chainHead(db: Db | Tx, organizationId: string): Promise<HeadRow | null> {
  const rows = await db.$queryRaw<HeadRow[]>`SELECT seq, head_hash FROM audit_chain_heads WHERE organization_id = ${organizationId}::uuid`
  return rows[0] ?? null
}

/**
 * The first audit row of the organisation written after the chain began (issue 35's migration) that holds no chain
 * position: a row inserted around the write path. Rows written before the chain began are counted, not blamed.
 */
export async function unchainedEntries(db: Db | Tx, organizationId: string): Promise<{ first: { id: string; entry_seq: bigint } | null; legacy: bigint }> {
  const rows = await db.$queryRaw<{ id: string | null; entry_seq: bigint | null; legacy: bigint }[]>`
    WITH unchained AS (
      SELECT a.id, a.entry_seq FROM audit_events a
      WHERE a.organization_id = ${organizationId}::uuid
        AND NOT EXISTS (SELECT 1 FROM audit_chain_entries c WHERE c.event_id = a.id))
    SELECT first.id, first.entry_seq,
           (SELECT count(*) FROM unchained WHERE entry_seq <= audit_chain_legacy_last_entry_seq()) AS legacy
    FROM (SELECT 1) one LEFT JOIN LATERAL (
      SELECT id, entry_seq FROM unchained WHERE entry_seq > audit_chain_legacy_last_entry_seq() ORDER BY entry_seq LIMIT 1) first ON true`
  const r = rows[0]!
  return { first: r.id ? { id: r.id, entry_seq: r.entry_seq! } : null, legacy: r.legacy }
}

/**
 * The chain position of the latest chained audit entry about `targetId` in `programId`, or null when none is chained
 * (what the console's "Trail verified" line measures against the last verification).
 */
export async function latestChainSeqAbout(db: Pick<Tx, '$queryRaw'>, organizationId: string, programId: string, targetId: string): Promise<bigint | null> {
  const rows = await db.$queryRaw<{ seq: bigint | null }[]>`
    SELECT max(c.chain_seq) AS seq FROM audit_events a JOIN audit_chain_entries c ON c.event_id = a.id
    WHERE a.organization_id = ${organizationId}::uuid AND c.organization_id = ${organizationId}::uuid
      AND a.program_id = ${programId}::uuid AND a.target_id = ${targetId}`
  return rows[0]?.seq ?? null
}

/** Records the outcome of a verification on the organisation's head row (what the console's trail line reads). */
export async function recordVerification(db: Db | Tx, organizationId: string, v: { at: Date; seq: bigint; broken: { seq: bigint | null; entryId: string; reason: string } | null }): Promise<void> {
  await db.$executeRaw`
    INSERT INTO audit_chain_heads (organization_id, verified_at, verified_seq, broken_seq, broken_entry_id, broken_reason)
    VALUES (${organizationId}::uuid, ${v.at}, ${v.seq}, ${v.broken?.seq ?? null}, ${v.broken?.entryId ?? null}, ${v.broken?.reason ?? null})
    ON CONFLICT (organization_id) DO UPDATE SET verified_at = EXCLUDED.verified_at, verified_seq = EXCLUDED.verified_seq,
      broken_seq = EXCLUDED.broken_seq, broken_entry_id = EXCLUDED.broken_entry_id, broken_reason = EXCLUDED.broken_reason`
}

export interface VerificationRow { verified_at: Date | null; verified_seq: bigint | null; broken_seq: bigint | null; broken_reason: string | null; seq: bigint }

/** The last recorded verification of the organisation's chain. */
export async function lastVerification(db: Db | Tx, organizationId: string): Promise<VerificationRow | null> {
  const rows = await db.$queryRaw<VerificationRow[]>`
    SELECT verified_at, verified_seq, broken_seq, broken_reason, seq FROM audit_chain_heads WHERE organization_id = ${organizationId}::uuid`
  return rows[0] ?? null
}

/** Organisations that have a chain (the daily verification's list). */
export async function chainedOrganisationsAcrossOrganisations(db: Db): Promise<string[]> {
  const rows = await db.$queryRaw<{ organization_id: string }[]>`SELECT organization_id FROM audit_chain_heads ORDER BY organization_id`
  return rows.map((r) => r.organization_id)
}
