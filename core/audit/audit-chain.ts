// Owns the per-organisation audit chain (issue 35): appending an audit entry to its organisation's hash chain in the
// writer's transaction, verifying a chain (naming the first entry that does not verify), and the export an auditor
// verifies offline with scripts/audit-verify-offline.mjs. The canonical form is documented in docs/integrators.md
// ("The audit chain"); that script recomputes it with no project code, so a change here changes both.
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import type { Db, Tx } from '../database'
import {
  chainHead, chainPage, lastVerification, lockHeadAndReadEntries, recordVerification, setChainPositions, unchainedEntries,
} from '../sql'

/** Version of the hashed document's shape; in every hashed document as `v`. */
export const CHAIN_FORMAT = 1
/** The append-only tables whose rows an audit entry may name as subjects (hashed with the entry). */
export const CHAINED_SUBJECT_TABLES = ['signatures', 'approvals', 'program_record_versions'] as const
export type ChainedSubjectTable = (typeof CHAINED_SUBJECT_TABLES)[number]
export interface AuditSubject { table: ChainedSubjectTable; id: string }

/**
 * Chain columns the audit row carried before its position moved to audit_chain_entries (exports made then include
 * them): never part of what the hash covers (the hash cannot cover itself), so hashes are the same either way.
 */
const CHAIN_COLUMNS = ['chain_seq', 'prev_hash', 'entry_hash'] as const

interface SubjectRow { table: string; id: string; row: unknown }

/** RFC 8785 canonical JSON of `value` (the `canonicalize` package). */
function canonicalJson(value: unknown): string {
  const s = canonicalize(value)
  if (s === undefined) throw new Error('audit chain: value cannot be canonicalised')
  return s
}

/**
 * The entry's hash: sha256 (hex) of the canonical JSON of { v, seq, prev_hash, entry, subjects }, where entry is the
 * audit row as to_jsonb renders it (timestamps in UTC, any chain columns left out) and subjects the rows it names.
 */
export function entryHash(seq: number, prevHash: string, entry: Record<string, unknown>, subjects: SubjectRow[]): string {
  const content: Record<string, unknown> = { ...entry }
  for (const c of CHAIN_COLUMNS) delete content[c]
  return createHash('sha256').update(canonicalJson({ v: CHAIN_FORMAT, seq, prev_hash: prevHash, entry: content, subjects }), 'utf8').digest('hex')
}

export interface ChainPosition { chainSeq: bigint; prevHash: string; entryHash: string }

/**
 * Appends the audit rows `eventIds` of one organisation (written in `tx`, in that order of insertion) to its chain:
 * locks the head until the transaction ends, hashes each row with its subjects, and inserts their positions, in two
 * statements however many rows. Same transaction as the change, so the entries and what they record commit or roll
 * back together. Answers each row's position by id.
 */
export async function appendToChain(tx: Tx, organizationId: string, eventIds: string[]): Promise<Map<string, ChainPosition>> {
  const positions = new Map<string, ChainPosition>()
  if (!eventIds.length) return positions
  const rows = await lockHeadAndReadEntries(tx, organizationId, eventIds)
  // A row written inside a savepoint that was rolled back since (a failed audit hook) is gone, and stays unchained.
  if (!rows.length) return positions
  let seq = rows[0]!.seq
  let prev = rows[0]!.head_hash
  const p = { ids: [] as string[], seqs: [] as bigint[], prevs: [] as string[], hashes: [] as string[] }
  for (const r of rows) {
    seq += 1n
    const hash = entryHash(Number(seq), prev, JSON.parse(r.entry), JSON.parse(r.subjects))
    p.ids.push(r.id); p.seqs.push(seq); p.prevs.push(prev); p.hashes.push(hash)
    positions.set(r.id, { chainSeq: seq, prevHash: prev, entryHash: hash })
    prev = hash
  }
  await setChainPositions(tx, organizationId, p)
  return positions
}

/** Why an entry does not verify. */
export type BreakReason =
  /** Its recomputed hash differs from the one stored: the entry or a row it records was changed. */
  | 'content_changed'
  /** Its prev_hash is not the previous entry's hash. */
  | 'link_broken'
  /** Its sequence number is not the previous one plus one: entries are missing before it. */
  | 'entries_missing'
  /** The head says the chain is longer (or ends elsewhere) than the entries hold: entries were removed at the end. */
  | 'head_mismatch'
  /** An audit row written after the chain began holds no chain position: written around the write path. */
  | 'not_chained'

export interface ChainBreak { seq: bigint | null; entryId: string | null; reason: BreakReason }

export interface Verification {
  organizationId: string
  verified: boolean
  /** Entries walked (all of them when verified; up to the first break otherwise). */
  entries: number
  headSeq: bigint
  headHash: string
  /** Audit rows written before the chain began: kept, never hashed. */
  beforeChain: number
  firstBreak: ChainBreak | null
  verifiedAt: Date
}

const PAGE = 5000

/**
 * Walks the organisation's chain from its first entry and names the first that does not verify. Reads in one
 * REPEATABLE READ snapshot, so writers appending meanwhile neither wait nor confuse it. Records the outcome on the
 * head row unless `record` is false.
 */
export async function verifyChain(db: Db, organizationId: string, opts: { record?: boolean; onProgress?: (entries: number) => void } = {}): Promise<Verification> {
  const verifiedAt = new Date()
  const result = await db.$transaction(async (tx) => {
    const head = await chainHead(tx, organizationId)
    const unchained = await unchainedEntries(tx, organizationId)
    let prevHash = ''
    let expected = 1n
    let entries = 0
    let firstBreak: ChainBreak | null = null
    walk: for (;;) {
      const page = await chainPage(tx, organizationId, expected - 1n, PAGE)
      for (const r of page) {
        if (r.chain_seq !== expected) { firstBreak = { seq: r.chain_seq, entryId: r.id, reason: 'entries_missing' }; break walk }
        if (r.prev_hash !== prevHash) { firstBreak = { seq: r.chain_seq, entryId: r.id, reason: 'link_broken' }; break walk }
        if (entryHash(Number(r.chain_seq), r.prev_hash, JSON.parse(r.entry), JSON.parse(r.subjects)) !== r.entry_hash) {
          firstBreak = { seq: r.chain_seq, entryId: r.id, reason: 'content_changed' }; break walk
        }
        prevHash = r.entry_hash
        expected += 1n
        entries += 1
      }
      opts.onProgress?.(entries)
      if (page.length < PAGE) break
    }
    const walkedSeq = expected - 1n
    if (!firstBreak && head && (head.seq !== walkedSeq || head.head_hash !== prevHash)) {
      firstBreak = { seq: head.seq, entryId: null, reason: 'head_mismatch' }
    }
    if (!firstBreak && unchained.first) firstBreak = { seq: null, entryId: unchained.first.id, reason: 'not_chained' }
    return {
      organizationId, verified: firstBreak === null, entries, headSeq: head?.seq ?? 0n, headHash: head?.head_hash ?? '',
      beforeChain: Number(unchained.legacy), firstBreak, verifiedAt,
    } satisfies Verification
  }, { isolationLevel: 'RepeatableRead', timeout: 3_600_000, maxWait: 60_000 })
  if (opts.record !== false) {
    await recordVerification(db, organizationId, {
      at: verifiedAt, seq: result.firstBreak ? (result.firstBreak.seq ?? 0n) - 1n : result.headSeq,
      broken: result.firstBreak ? { seq: result.firstBreak.seq, entryId: result.firstBreak.entryId ?? '', reason: result.firstBreak.reason } : null,
    })
  }
  return result
}

/** The last recorded verification, as the console's trail line shows it. */
export interface TrailStatus {
  verifiedAt: Date | null
  /** Entries up to this sequence number verified at verifiedAt. */
  verifiedSeq: bigint | null
  /** The chain's length now. */
  headSeq: bigint
  broken: boolean
  brokenSeq: bigint | null
  brokenReason: string | null
}

export async function trailStatus(db: Db | Tx, organizationId: string): Promise<TrailStatus> {
  const v = await lastVerification(db, organizationId)
  return {
    verifiedAt: v?.verified_at ?? null, verifiedSeq: v?.verified_seq ?? null, headSeq: v?.seq ?? 0n,
    broken: v?.broken_reason != null, brokenSeq: v?.broken_seq ?? null, brokenReason: v?.broken_reason ?? null,
  }
}

export interface ExportedEntry { seq: number; prev_hash: string; entry_hash: string; entry: Record<string, unknown>; subjects: SubjectRow[] }
export interface ChainExport {
  format: 'audit-chain/1'
  organization_id: string
  exported_at: string
  head: { seq: number; hash: string }
  /** The last entry of each UTC day (by created_at): publish or keep these to check a later export against. */
  daily_heads: { date: string; seq: number; hash: string }[]
  entries: ExportedEntry[]
}

/**
 * The organisation's chain as an auditor verifies it offline: every entry with its hashes, the rows it records, the
 * head and a head hash per day. Entries are streamed to `write` as JSON text pieces, so a long chain never sits in
 * memory whole.
 */
export async function exportChain(db: Db, organizationId: string, write: (text: string) => void | Promise<void>): Promise<{ entries: number; headSeq: number }> {
  return db.$transaction(async (tx) => {
    const head = await chainHead(tx, organizationId)
    await write(`{"format":"audit-chain/1","organization_id":${JSON.stringify(organizationId)},"exported_at":${JSON.stringify(new Date().toISOString())},`)
    await write(`"head":${JSON.stringify({ seq: Number(head?.seq ?? 0n), hash: head?.head_hash ?? '' })},"entries":[`)
    const daily = new Map<string, { seq: number; hash: string }>()
    let after = 0n
    let n = 0
    for (;;) {
      const page = await chainPage(tx, organizationId, after, PAGE)
      for (const r of page) {
        const e: ExportedEntry = { seq: Number(r.chain_seq), prev_hash: r.prev_hash, entry_hash: r.entry_hash, entry: JSON.parse(r.entry), subjects: JSON.parse(r.subjects) }
        await write((n === 0 ? '' : ',') + JSON.stringify(e))
        daily.set(r.created_at.toISOString().slice(0, 10), { seq: e.seq, hash: e.entry_hash })
        after = r.chain_seq
        n += 1
      }
      if (page.length < PAGE) break
    }
    await write(`],"daily_heads":${JSON.stringify([...daily].map(([date, h]) => ({ date, ...h })))}}\n`)
    return { entries: n, headSeq: Number(head?.seq ?? 0n) }
  }, { isolationLevel: 'RepeatableRead', timeout: 3_600_000, maxWait: 60_000 })
}
