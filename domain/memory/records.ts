// Owns the memory routes and writes: the person's own list, forget, pin and export; keep (the person's own, or an
// answered write_approval Keep); promote with scrubbing; oversight reads with their views; removal by an owner or
// lead; and the R5 answers (propose-share, propose_promotion). Nothing here stores a note nobody kept.
import { z } from 'zod'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { InvalidInput, InvalidTransition, KindNotPromotable, MemoryNoteRefused, NotAParty, NotFoundError, NotImplemented, ReasonRequired } from '../../core/errors'
import { IdInput } from '../../core/text'
import { checkMemorySummary, sanitiseOutsideText, type Finding } from '../../core/text'
import { assertCan, can, type Session } from '../../core/identity'
import { transition } from '../../core/states'
import { memoryRecordStatus } from '../../core/states'
import type { MemoryKind, MemoryRecord } from '../../generated/prisma/client'
import { keysetPage, mapPage, type Page, type PageArgs } from '../../core/database'
import { scrub, scrubTermsFor } from './scrubber'
import {
  DAY_MS, EPISODIC_DAYS, KINDS_BY_TIER, LIVE_STATUSES, PROMOTABLE_KINDS, assertNoSourceText, assertOwnDecision,
  announceNotesBeneath, assertOwnOrganisation, contentHash, erasedNoteQuestion, isRef, namespaceFor, toOut, type MemoryRecordOut,
} from './store'

// ---- what a note is ------------------------------------------------------------------------------------------------

const Ref = z.string().refine(isRef, 'use a reference of the form type:id')
const IndividualKind = z.enum(KINDS_BY_TIER.individual as [MemoryKind, ...MemoryKind[]], { error: () => `tier individual admits ${KINDS_BY_TIER.individual.join(', ')}` })

/** A note as proposed (memory.propose_note) or kept by the person: tier individual only. */
export const MemoryNote = z.object({
  programId: IdInput,
  kind: IndividualKind,
  summary: z.string(),
  body: z.string().max(4000, 'at most 4,000 characters').nullish(),
  sourceRef: Ref.nullish(),
  passageRefs: z.array(Ref).max(20, 'at most 20 passage references').default([]),
})
export type MemoryNoteInput = z.input<typeof MemoryNote>

/** The note a write_approval interrupt carries in `question.memory_note` until it is answered. */
export const MemoryNoteProposal = MemoryNote.extend({
  /** The principal when the note was proposed while deciding for someone (delegation). */
  onBehalfOf: IdInput.nullish(),
  /** The proposal (inbox item, decision) the note was proposed beneath. */
  proposalRef: z.string().max(200).nullish(),
})
export type MemoryNoteProposal = z.output<typeof MemoryNoteProposal>

const REFUSING_BODY: ReadonlySet<Finding> = new Set(['instruction_override', 'delimiter', 'encoded_payload'])

async function memberNames(tx: TenantTx, programId: string): Promise<string[]> {
  const rows = await tx.programMembership.findMany({ where: { programId }, select: { user: { select: { name: true } } } })
  return rows.map((r) => r.user.name)
}

/**
 * Every check a note passes before it is stored, the first of the two sanitiser passes (the second is the brief):
 * summary through the sanitiser, pattern list, markup allow-list and tone lint; body refused on instructions; episodic
 * notes reference the person's own decision; no retrieved source text. Answers the note as it will be stored.
 *
 * `origin` decides what a check that would only neutralise does. A note the twin wrote (agent) is stored as the
 * sanitiser leaves it. A note the person wrote (human) is their words: stored exactly as written (`Conc <LLOQ at
 * 24 h; AUC>100 & Cmax ≤ 2 µg/mL` stays that), or refused whole with memory_note_refused and its reasons; never
 * stored with different text. The brief's pass still neutralises it for the agent that reads it.
 */
async function vetNote(tx: TenantTx, ctx: Pick<DomainContext, 'session'>, note: z.output<typeof MemoryNote>, origin: 'human' | 'agent' = 'agent') {
  const checked = checkMemorySummary(note.summary, { people: await memberNames(tx, note.programId) })
  if (!checked.ok) throw new MemoryNoteRefused(checked.reasons, { field: 'summary' })
  const summary = origin === 'human' ? note.summary : checked.summary
  let body: string | null = null
  if (note.body) {
    const cleaned = sanitiseOutsideText(note.body)
    const refusing = cleaned.findings.filter((f) => REFUSING_BODY.has(f))
    if (refusing.length) throw new MemoryNoteRefused(refusing, { field: 'body' })
    body = (origin === 'human' ? note.body : cleaned.text) || null
  }
  if (note.kind === 'episodic') await assertOwnDecision(tx, note.programId, ctx.session.userId, note.sourceRef)
  await assertNoSourceText(tx, ctx.session.organizationId, note.programId, [summary, body ?? ''].join('\n'))
  return { ...note, summary, body, hash: contentHash(summary) }
}

/** The tombstone: a note forgotten in this scope (same source_ref, or the same words) is never derived again. */
async function tombstoned(tx: TenantTx, userId: string, programId: string, hash: string, sourceRef: string | null | undefined) {
  const row = await tx.memoryRecord.findFirst({
    where: { userId, programId, tier: 'individual', status: 'forgotten', OR: [{ contentHash: hash }, ...(sourceRef ? [{ sourceRef }] : [])] },
    select: { id: true },
  })
  return Boolean(row)
}

type Vetted = Awaited<ReturnType<typeof vetNote>>

/** Stores a vetted note in the caller's tier 1, kept (audit memory.keep); the same live note twice is stored once. */
async function storeKept(w: Write<'memory.keep'>, note: Vetted, origin: 'human' | 'agent', onBehalfOf: string | null): Promise<MemoryRecord> {
  const { organizationId, userId } = w.ctx.session
  const existing = await w.tx.memoryRecord.findFirst({
    where: { userId, programId: note.programId, tier: 'individual', contentHash: note.hash, status: { in: [...LIVE_STATUSES] } },
  })
  if (existing) return existing
  const now = new Date()
  const record = await w.tx.memoryRecord.create({
    data: {
      organizationId, userId, programId: note.programId, tier: 'individual', kind: note.kind, summary: note.summary, body: note.body,
      origin, status: 'kept', sourceRef: note.sourceRef ?? null, passageRefs: note.passageRefs, contentHash: note.hash,
      onBehalfOf, namespace: namespaceFor({ organizationId, userId, tier: 'individual', programId: note.programId }),
      createdAt: now, expiresAt: note.kind === 'episodic' ? new Date(now.getTime() + EPISODIC_DAYS * DAY_MS) : null,
    },
  })
  await w.audit('memory.keep', { type: 'memory_record', id: record.id }, { tier: 'individual', kind: note.kind, origin, on_behalf_of: onBehalfOf },
    { programId: note.programId, delegatedFromUserId: onBehalfOf })
  return record
}

// ---- propose and keep -----------------------------------------------------------------------------------------------

export type ProposeNoteAnswer =
  | { proposed: true; note: MemoryNoteProposal; question: { memory_note: MemoryNoteProposal } }
  | { proposed: false; reason: 'forgotten' }

/**
 * memory.propose_note, before the tool server files the write_approval interrupt (Keep / Not now): the note passes
 * the first sanitiser pass and the person's tombstones. Writes nothing; the tool server stores `question` in the
 * interrupt. Refuses (MemoryNoteRefused, InvalidInput) what cannot be kept; a forgotten note is not proposed again.
 */
export async function proposeNote(ctx: DomainContext, raw: z.input<typeof MemoryNoteProposal>): Promise<ProposeNoteAnswer> {
  const input = MemoryNoteProposal.safeParse(raw)
  if (!input.success) throw new InvalidInput(input.error.issues.map((i) => ({ field: i.path.join('.') || null, message: i.message })))
  assertCan(ctx.session, 'program.agent_memory.manage', input.data.programId)
  const vetted = await vetNote(ctx.tdb, ctx, input.data)
  if (await tombstoned(ctx.tdb, ctx.session.userId, vetted.programId, vetted.hash, vetted.sourceRef)) return { proposed: false, reason: 'forgotten' }
  const note: MemoryNoteProposal = {
    programId: vetted.programId, kind: vetted.kind, summary: vetted.summary, body: vetted.body, sourceRef: vetted.sourceRef ?? null,
    passageRefs: vetted.passageRefs, onBehalfOf: input.data.onBehalfOf ?? null, proposalRef: input.data.proposalRef ?? null,
  }
  return { proposed: true, note, question: { memory_note: note } }
}

/**
 * Keep answered on a memory.propose_note interrupt: the only way an agent-proposed note is stored. The interrupt must
 * be a write_approval carrying `question.memory_note`, answered `{ choice: 'keep' }` by the caller before it expired;
 * Not now or expiry store nothing. The note lands in the caller's own tier 1 (under delegation: the delegate's, tagged
 * on_behalf_of). Returns null when nothing is stored (not answered Keep, or forgotten since it was proposed).
 */
export const keepNote = command({
  permission: 'program.agent_memory.manage',
  input: z.object({ interruptId: IdInput }),
  async load(q, input, ctx) {
    const interrupt = await q.runInterrupt.findFirst({ where: { id: input.interruptId }, include: { run: { select: { programId: true } } } })
    const question = interrupt?.question as { memory_note?: unknown } | undefined
    const note = MemoryNoteProposal.safeParse(question?.memory_note)
    if (!interrupt || interrupt.kind !== 'write_approval' || !note.success || interrupt.answeredByUserId !== ctx.session.userId) {
      throw new NotFoundError('Memory note', { field: 'interruptId' })
    }
    if (interrupt.run.programId && interrupt.run.programId !== note.data.programId) throw new NotFoundError('Memory note', { field: 'interruptId' })
    return { interrupt, note: note.data }
  },
  program: (_i, { note }) => note.programId,
  audit: ['memory.keep'],
  errors: [MemoryNoteRefused],
  async run(w, _input, { interrupt, note }) {
    const answer = interrupt.answer as { choice?: string } | null
    const expired = interrupt.expiresAt && (!interrupt.answeredAt || interrupt.answeredAt > interrupt.expiresAt)
    if (answer?.choice !== 'keep' || expired) return null
    const vetted = await vetNote(w.tx, w.ctx, note)
    if (await tombstoned(w.tx, w.ctx.session.userId, vetted.programId, vetted.hash, vetted.sourceRef)) return null
    // The principal is a person of the caller's organisation (the tenant client finds no one else), never the caller.
    // A delegate answering Keep on the principal's question (routed under delegation) keeps it on their behalf.
    const asker = (interrupt.question as { userId?: string } | null)?.userId
    const onBehalfOf = note.onBehalfOf ?? (asker && asker !== w.ctx.session.userId ? asker : null)
    const principal = onBehalfOf && onBehalfOf !== w.ctx.session.userId
      ? (await w.tx.user.findFirst({ where: { id: onBehalfOf }, select: { id: true } }))?.id ?? null
      : null
    return storeKept(w as Write<'memory.keep'>, vetted, 'agent', principal)
  },
})

/** The person keeps a note of their own in their tier 1 of a program (origin human): saving because they say so. */
export const keepMemoryNote = command({
  permission: 'program.agent_memory.manage',
  input: MemoryNote,
  program: (input) => input.programId,
  audit: ['memory.keep'],
  errors: [MemoryNoteRefused],
  async run(w, input) {
    return storeKept(w, await vetNote(w.tx, w.ctx, input, 'human'), 'human', null)
  },
})

// ---- the person's own records ---------------------------------------------------------------------------------------

/**
 * GET /me/memory?program_id=: the caller's own records, newest first: tier 1 of the program (every program when none
 * is given) and tier 2. Tombstones of the caller's own forgetting are not listed; a record an owner or lead removed is,
 * with the reason and who removed it. No membership needed: what was saved stays visible and deletable.
 */
export async function listMyMemory(ctx: Pick<DomainContext, 'session' | 'tdb'>, args: PageArgs & { programId?: string | null } = {}): Promise<Page<MemoryRecordOut>> {
  if (args.programId && !IdInput.safeParse(args.programId).success) throw InvalidInput.of('programId', 'not an id this service gave out')
  const userId = ctx.session.userId
  const page = await keysetPage(args, 'createdAt', (q) => ctx.tdb.memoryRecord.findMany({
    ...q,
    where: {
      ...q.where, userId,
      AND: [
        { OR: [{ status: { in: [...LIVE_STATUSES] } }, { status: 'forgotten', removedByUserId: { not: null } }] },
        args.programId ? { OR: [{ tier: 'individual', programId: args.programId }, { tier: 'person' }] } : {},
      ],
    },
  }))
  return mapPage(page, (rows) => toOut(ctx, rows))
}

/** The person's data export: every record they hold in every tier and program (tier 2 included), with its views. */
export async function exportMyMemory(ctx: Pick<DomainContext, 'session' | 'tdb'>) {
  const rows = await ctx.tdb.memoryRecord.findMany({ where: { userId: ctx.session.userId, status: { not: 'forgotten' } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
  return { userId: ctx.session.userId, exportedAt: new Date(), records: await toOut(ctx, rows) }
}

const ownRecord = (q: TenantTx, id: string, userId: string) =>
  q.memoryRecord.findFirst({ where: { id, userId } }).then((r) => r ?? Promise.reject(new NotFoundError('Memory record', { field: 'recordId' })))

const erased = (now: Date) => ({ summary: '', body: null, forgottenAt: now, updatedAt: now })

/**
 * A forgotten or removed tier-1 record leaves no copy of its words in the Keep questions that proposed it (same
 * words or same source_ref, in its program, for its person): their note is erased, so the question no longer shows
 * beneath its proposal and cannot be kept again. 'Forgotten. Nothing from this record is used again.'
 */
async function eraseQuestionsOf(tx: TenantTx, record: MemoryRecord) {
  if (record.tier !== 'individual' || !record.programId) return
  const questions = await tx.runInterrupt.findMany({
    where: {
      kind: 'write_approval',
      AND: [
        { question: { path: ['type'], equals: 'memory_note' } },
        { question: { path: ['userId'], equals: record.userId } },
        { question: { path: ['memory_note', 'programId'], equals: record.programId } },
      ],
    },
    select: { id: true, question: true },
  })
  for (const q of questions) {
    const question = q.question as { memory_note?: { summary?: string; sourceRef?: string | null; proposalRef?: string | null }; userId: string; twinId: string | null }
    const note = question.memory_note
    if (!note) continue
    const same = (note.summary && contentHash(note.summary) === record.contentHash) || (record.sourceRef && note.sourceRef === record.sourceRef)
    if (!same) continue
    await tx.runInterrupt.update({ where: { id: q.id }, data: { question: erasedNoteQuestion(question) } })
    await announceNotesBeneath(tx, [{ organizationId: record.organizationId, userId: question.userId, proposalRef: note.proposalRef }])
  }
}

/** DELETE /me/memory/{record_id}: the own record is forgotten (erased; its tombstone stops re-derivation). */
export const forgetMemory = command({
  permission: 'self',
  input: z.object({ recordId: IdInput }),
  load: (q, input, ctx) => ownRecord(q, input.recordId, ctx.session.userId),
  program: (_i, record) => record.programId,
  audit: ['memory.forget'],
  errors: [InvalidTransition],
  async run(w, _input, record) {
    const row = await transition(w.tx, memoryRecordStatus, 'forget', record, erased(new Date()))
    await eraseQuestionsOf(w.tx, record)
    await w.audit('memory.forget', { type: 'memory_record', id: record.id }, { tier: record.tier, kind: record.kind, content_hash: record.contentHash })
    return row
  },
})

/** Pins (or unpins) an own episodic record: pinned records do not expire after 180 days. */
export const setMemoryPinned = command({
  permission: 'self',
  input: z.object({ recordId: IdInput, pinned: z.boolean() }),
  load: (q, input, ctx) => ownRecord(q, input.recordId, ctx.session.userId),
  program: (_i, record) => record.programId,
  audit: [],
  async run(w, input, record) {
    if (record.status === 'forgotten') throw new NotFoundError('Memory record', { field: 'recordId' })
    const expiresAt = record.kind !== 'episodic' || input.pinned ? null : new Date(record.createdAt.getTime() + EPISODIC_DAYS * DAY_MS)
    return w.tx.memoryRecord.update({ where: { id: record.id }, data: { pinned: input.pinned, expiresAt } })
  },
})

/** POST /me/memory/{id}/propose-share: R5 (designed); answers not_implemented. */
export async function proposeMemoryShare(_ctx: DomainContext, _recordId: string): Promise<never> {
  throw new NotImplemented('Suggesting a note for a workbench role arrives with shared memory in a later release.')
}

/** memory.propose_promotion: a specification only, in no toolset; not_implemented for every target tier. */
export async function proposePromotion(_ctx: DomainContext, _input: { recordId?: string; targetTier?: string }): Promise<never> {
  throw new NotImplemented('memory.propose_promotion is not implemented for any tier.')
}

// ---- promote ------------------------------------------------------------------------------------------------------

/**
 * POST /programs/{program_id}/agent-memory/{record_id}/promote: an own tier-1 preference, vocabulary or rubric
 * adjustment travels to tier 2 as a scrubbed copy without references; the source becomes promoted.
 */
export const promoteMemory = command({
  permission: 'program.agent_memory.manage',
  input: z.object({ programId: IdInput, recordId: IdInput }),
  async load(q, input, ctx) {
    const record = await ownRecord(q, input.recordId, ctx.session.userId)
    if (record.tier !== 'individual' || record.programId !== input.programId) throw new NotFoundError('Memory record', { field: 'recordId' })
    return record
  },
  program: (input) => input.programId,
  audit: ['memory.promote'],
  errors: [KindNotPromotable, MemoryNoteRefused, InvalidTransition],
  async run(w, input, record) {
    if (!PROMOTABLE_KINDS.includes(record.kind)) {
      throw new KindNotPromotable('Only preferences, vocabulary and rubric adjustments can be kept across programs.', { field: 'recordId' })
    }
    const source = await transition(w.tx, memoryRecordStatus, 'promote', record, { updatedAt: new Date() })
    const scrubbed = scrub(record.summary, await scrubTermsFor(w.tx, input.programId))
    const checked = checkMemorySummary(scrubbed.text)
    if (!checked.ok) throw new MemoryNoteRefused(checked.reasons, { field: 'summary' })
    const { organizationId, userId } = w.ctx.session
    // A person's own note keeps their words (only the program's terms are scrubbed, counted in scrubbedTermsCount);
    // a twin's note is kept as the sanitiser leaves it.
    const summary = record.origin === 'human' ? scrubbed.text : checked.summary
    const copy = await w.tx.memoryRecord.create({
      data: {
        organizationId, userId, programId: null, tier: 'person', kind: record.kind, summary, body: null,
        origin: record.origin, status: 'kept', sourceRef: null, passageRefs: [], contentHash: contentHash(summary),
        promotedFromId: record.id, namespace: namespaceFor({ organizationId, userId, tier: 'person' }),
      },
    })
    await w.audit('memory.promote', { type: 'memory_record', id: copy.id }, { promoted_from_id: record.id, kind: record.kind, scrubbed_terms_count: scrubbed.count })
    return { record: copy, source, scrubbedTermsCount: scrubbed.count }
  },
})

// ---- oversight and removal ----------------------------------------------------------------------------------------

export const OversightInput = z.object({
  programId: IdInput,
  userId: IdInput.nullish(),
  tier: z.enum(['individual', 'person', 'role']).default('individual'),
  first: z.number().nullish(),
  after: z.string().nullish(),
})

/**
 * GET /programs/{program_id}/agent-memory?user_id=&tier=: program.agent_memory.read; another person's records also need
 * program.twins.read, and only their tier 1 in that program (tier 2 never appears in oversight). Each such read is
 * audited memory.oversight_read and recorded per record, so the person sees 'Viewed by <Name> on <date>.'.
 * For incident and audit review only: it answers records, never counts or scores of a person.
 */
export const readProgramMemory = command({
  permission: (_input, { other }: { target: string; other: boolean }) => (other ? 'program.twins.read' : 'program.agent_memory.read'),
  input: OversightInput,
  load: async (_q, input, ctx): Promise<{ target: string; other: boolean }> => {
    const target = input.userId ?? ctx.session.userId
    return { target, other: target !== ctx.session.userId }
  },
  program: (input) => input.programId,
  audit: ['memory.oversight_read'],
  async run(w, input, { target, other }): Promise<Page<MemoryRecordOut>> {
    const { session } = w.ctx
    assertCan(session, 'program.agent_memory.read', input.programId)
    if (input.tier === 'role') throw new NotImplemented('Shared memory for workbench roles arrives in a later release.', { field: 'tier' })
    if (other && input.tier === 'person') throw InvalidInput.of('tier', 'Memory kept across programs (tier 2) is excluded from oversight.')
    const page = await keysetPage(input, 'createdAt', (q) => w.tx.memoryRecord.findMany({
      ...q,
      where: {
        ...q.where, userId: target, status: { in: [...LIVE_STATUSES] },
        ...(input.tier === 'individual' ? { tier: 'individual', programId: input.programId } : { tier: 'person' }),
      },
    }))
    const rows = assertOwnOrganisation(w.ctx, page.edges.map((e) => e.node))
    if (other) {
      if (rows.length) await w.tx.memoryView.createMany({ data: rows.map((r) => ({ organizationId: session.organizationId, recordId: r.id, viewerUserId: session.userId })) })
      await w.audit('memory.oversight_read', { type: 'user', id: target }, { tier: 'individual', record_ids: rows.map((r) => r.id) })
    }
    return mapPage(page, (nodes) => toOut({ session, tdb: w.tx as DomainContext['tdb'] }, nodes))
  },
})

/**
 * Whether the caller has a twin memory in a program to open: readProgramMemory's own check for the caller's own
 * records (program.agent_memory.read: every persona but viewer, who has no twin).
 */
/**
 * Whether the caller may keep this note across programs (promoteMemory's own permission check, on their own note of a
 * program): the panel shows 'Your persona cannot keep notes across programs in this release.' before anyone tries.
 * The kind rule (only preferences, vocabulary and rubric adjustments travel) is the panel's other line, not this one.
 */
export const viewerCanKeepAcrossPrograms = (session: Session, record: Pick<MemoryRecord, 'userId' | 'tier' | 'programId'>) =>
  record.userId === session.userId && record.tier === 'individual' && record.programId !== null &&
  promoteMemory.permits(session, { programId: record.programId }, record as never)

export const viewerHasTwinMemory = (session: Session, programId: string) =>
  readProgramMemory.permits(session, { programId }, { target: session.userId, other: false })

/**
 * DELETE /programs/{program_id}/agent-memory/{record_id}: a tier-1 record of the program, by its owner, or by a
 * program owner or lead, with a reason the person sees. Erased like a forgotten record; audited memory.remove.
 */
export const removeMemory = command({
  permission: 'program.agent_memory.manage',
  input: z.object({ programId: IdInput, recordId: IdInput, reason: z.string().max(500, 'at most 500 characters').nullish() }),
  async load(q, input) {
    const record = await q.memoryRecord.findFirst({ where: { id: input.recordId, programId: input.programId, tier: 'individual' } })
    if (!record) throw new NotFoundError('Memory record', { field: 'recordId' })
    return record
  },
  program: (input) => input.programId,
  audit: ['memory.remove'],
  errors: [ReasonRequired, InvalidTransition, NotAParty],
  async run(w, input, record) {
    const { session } = w.ctx
    const personas = session.programPersonas.get(input.programId) ?? []
    if (record.userId !== session.userId && !personas.some((p) => p === 'program_owner' || p === 'program_lead')) {
      // the caller holds program.agent_memory.manage: what they lack is being the note's person, or owner or lead
      throw new NotAParty('This note is another person\'s: only they, a program owner or a program lead can remove it.', { field: 'recordId' })
    }
    const reason = input.reason
    if (!reason?.trim()) throw new ReasonRequired('Give the person a reason for removing their note.', { field: 'reason' })
    const now = new Date()
    const row = await transition(w.tx, memoryRecordStatus, 'remove', record, { ...erased(now), removedByUserId: session.userId, removalReason: reason })
    await eraseQuestionsOf(w.tx, record)
    await w.audit('memory.remove', { type: 'memory_record', id: record.id }, { user_id: record.userId, reason })
    return row
  },
})

/** Whether the caller could promote at all here (the panel's disabled line when the key is missing). */
export const canKeepAcrossPrograms = (ctx: Pick<DomainContext, 'session'>, programId: string) => can(ctx.session, 'program.agent_memory.manage', programId)
