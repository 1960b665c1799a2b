// Owns how memory records are stored and read back: namespaces and the organisation check on every read, what each
// tier admits and never stores, tombstones, the erased and announced shapes of Keep questions, and the MemoryRecordOut
// shape. Every memory module reads through here.
import { createHash } from 'node:crypto'
import type { DomainContext } from '../../core/jobs'
import { asTx, TenancyViolation, type AnyTx, type TenantTx } from '../../core/database'
import { InvalidInput } from '../../core/errors'
import { isId } from '../../core/text'
import { publishMany } from '../../core/database'
import { itemStatus } from '../../core/identity'
import type { MemoryKind, MemoryRecord, MemoryTier } from '../../generated/prisma/client'
import { documentsRepeating } from './sql'

/** Kinds each tier admits (memory document, Memory tiers). The migration's CHECK holds the same table. */
export const KINDS_BY_TIER: Record<MemoryTier, readonly MemoryKind[]> = {
  individual: ['episodic', 'preference', 'vocabulary', 'rubric_adjustment', 'lesson'],
  person: ['preference', 'vocabulary', 'rubric_adjustment'],
  role: ['rubric_version', 'vocabulary', 'lesson'],
}
/** Kinds that travel from tier 1 to tier 2 on promote; the rest answer kind_not_promotable. */
export const PROMOTABLE_KINDS: readonly MemoryKind[] = KINDS_BY_TIER.person
/** Episodic records expire after 180 days unless pinned. */
export const EPISODIC_DAYS = 180
/** Tier 1 is soft-forgotten 90 days after membership in the program ends. */
export const MEMBERSHIP_GRACE_DAYS = 90
export const DAY_MS = 86_400_000

/** Statuses a reader sees as remembered (and a twin as memory): everything else is a tombstone or reserved. */
export const LIVE_STATUSES = ['kept', 'promoted'] as const

/** The tiers with their release and status: tiers 1 and 2 are R4 items (designed until the R4 gate passes, then
 * preview); tier 3 is R5 and reads null (reserved: never presented as live). */
export function memoryTiers() {
  return (['individual', 'person', 'role'] as const).map((tier) => {
    const release = tier === 'role' ? 'R5' as const : 'R4' as const
    return { tier, release, status: itemStatus(release), kinds: KINDS_BY_TIER[tier] }
  })
}

// ---- namespaces ---------------------------------------------------------------------------------------------------

export function namespaceFor(r: { organizationId: string; userId: string; tier: MemoryTier; programId?: string | null; workbenchRoleKey?: string | null }): string {
  const org = `org/${r.organizationId}`
  if (r.tier === 'individual') return `${org}/programs/${r.programId}/users/${r.userId}`
  if (r.tier === 'person') return `${org}/users/${r.userId}`
  return `${org}/roles/${r.workbenchRoleKey}`
}

/**
 * The organisation column plus namespace check: every row a memory read returns must carry the caller's organisation
 * in its column (forOrganization filters it) and at the start of its namespace. A row that does not is never shown.
 */
export function assertOwnOrganisation<T extends { organizationId: string; namespace: string }>(ctx: { session: { organizationId: string } }, rows: T[]): T[] {
  const org = ctx.session.organizationId
  for (const r of rows) {
    if (r.organizationId !== org || !r.namespace.startsWith(`org/${org}/`)) {
      throw new TenancyViolation('a memory record outside the caller\'s organisation namespace was read')
    }
  }
  return rows
}

// ---- content ------------------------------------------------------------------------------------------------------

/** The tombstone key of a summary: the same note, however it is spaced or cased, hashes the same. */
export function contentHash(summary: string): string {
  return createHash('sha256').update(summary.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()).digest('hex')
}

/** `<type>:<uuid>` references: a decided record (episodic source_ref) or a passage. */
const REF = /^[a-z][a-z0-9_.]{1,40}:[0-9a-fA-F-]{36}(?:#[\w.:-]{1,80})?$/
export const isRef = (s: string) => REF.test(s)

/**
 * Tier 1 never stores other people's decisions: an episodic record references a record the person decided, i.e. an
 * audited `<resource>.decision` by that person (acting as a user, not a twin) on that target in the program.
 */
export async function assertOwnDecision(tx: TenantTx, programId: string, userId: string, sourceRef: string | null | undefined) {
  if (!sourceRef || !isRef(sourceRef)) throw InvalidInput.of('sourceRef', 'An episodic note references a record you decided (type:id).')
  const [type, idPart] = sourceRef.split(':')
  const id = idPart!.split('#')[0]!
  const decided = await tx.auditEvent.findFirst({
    where: { programId, targetType: type, targetId: id, action: { endsWith: '.decision' }, actorType: 'user', actorUserId: userId },
    select: { id: true },
  })
  if (!decided) throw InvalidInput.of('sourceRef', 'Episodic notes remember only records you decided yourself.')
}

/**
 * Tier 1 never stores retrieved source text: a summary or body that repeats ten consecutive words of a document of the
 * program is refused (the note should say what the person concluded, and point at the passage instead).
 */
export async function assertNoSourceText(tx: TenantTx, organizationId: string, programId: string, text: string) {
  const words = text.normalize('NFKC').split(/\s+/).filter(Boolean)
  const windows: string[] = []
  for (let i = 0; i + 10 <= words.length && windows.length < 120; i++) windows.push(words.slice(i, i + 10).join(' ').toLowerCase())
  if (!windows.length) return
  const found = await documentsRepeating(organizationId, tx, programId, windows)
  if (found.length) throw InvalidInput.of('summary', 'Memory keeps what you concluded, not text retrieved from a source; reference the passage instead.')
}

// ---- Keep questions ------------------------------------------------------------------------------------------------

/**
 * A Keep question whose note must not stay anywhere (Not now, expired unanswered, or its record forgotten or removed):
 * the write_approval interrupt keeps whose it was and that it was erased, never the note's words. A question in this
 * shape is no longer listed or answerable. (retention.ts writes the same shape in SQL.)
 */
export const erasedNoteQuestion = (q: { userId: string; twinId: string | null }) => ({ type: 'memory_note', userId: q.userId, twinId: q.twinId, erased: true })

/** A note's place beneath a proposal: whose question it is and the proposal (`proposal:<id>`) it is shown beneath. */
export interface NoteBeneath { organizationId: string; userId: string; proposalRef: string | null | undefined }

/**
 * Announces inbox_changed (change memory_note) for the inbox items the notes are shown beneath, in the caller's
 * transaction: a console that lists InboxItem.memoryNotes sees a question added, answered or erased without a refetch.
 * Only the note owner's own items of those proposals; notes beneath no proposal announce nothing.
 */
export async function announceNotesBeneath(tx: AnyTx, notes: readonly NoteBeneath[]): Promise<void> {
  const wanted = notes.filter((n) => n.proposalRef?.startsWith('proposal:') && isId(n.proposalRef.slice('proposal:'.length)))
  if (!wanted.length) return
  const items = await asTx(tx).inboxItem.findMany({
    where: {
      sourceType: 'proposal',
      OR: wanted.map((n) => ({ organizationId: n.organizationId, userId: n.userId, sourceId: n.proposalRef!.slice('proposal:'.length) })),
    },
    select: { id: true, userId: true, organizationId: true },
  })
  await publishMany(tx, 'inbox_changed', items.map((i) => ({ ...i, change: 'memory_note' as const })))
}

// ---- the out shape ------------------------------------------------------------------------------------------------

export interface ViewedBy { userId: string; name: string; at: Date }
export interface MemoryRecordOut extends MemoryRecord {
  viewedBy: ViewedBy[]
  removedByName: string | null
}

/** MemoryRecordOut of rows the caller may see: views (who read them in oversight) and the remover's name attached. */
export async function toOut(ctx: Pick<DomainContext, 'session' | 'tdb'>, rows: MemoryRecord[], opts: { withViews?: boolean } = {}): Promise<MemoryRecordOut[]> {
  assertOwnOrganisation(ctx, rows)
  if (!rows.length) return []
  const ids = rows.map((r) => r.id)
  const views = opts.withViews === false ? [] : await ctx.tdb.memoryView.findMany({ where: { recordId: { in: ids } }, orderBy: { viewedAt: 'asc' } })
  const peopleIds = [...new Set([...views.map((v) => v.viewerUserId), ...rows.flatMap((r) => (r.removedByUserId ? [r.removedByUserId] : []))])]
  const people = peopleIds.length ? await ctx.tdb.user.findMany({ where: { id: { in: peopleIds } }, select: { id: true, name: true } }) : []
  const name = new Map(people.map((p) => [p.id, p.name]))
  return rows.map((r) => ({
    ...r,
    viewedBy: views.filter((v) => v.recordId === r.id).map((v) => ({ userId: v.viewerUserId, name: name.get(v.viewerUserId) ?? '', at: v.viewedAt })),
    removedByName: r.removedByUserId ? name.get(r.removedByUserId) ?? null : null,
  }))
}
