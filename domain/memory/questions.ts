// Owns the Keep question of memory.propose_note: the write_approval interrupt's question shape, the person's list of
// open questions (each shown beneath the proposal it came from, with Keep and Not now), and the answer. Keep stores
// the note through keepNote in the same transaction; Not now (or expiry) stores nothing: "Your twin saves nothing
// unless you say so."
import { z } from 'zod'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { AuditAction } from '../../core/audit'
import { FIXED_PHRASES } from '../../core/text'
import type { TenantTx } from '../../core/database'
import { InvalidInput, InvalidTransition, MemoryNoteRefused, NotFoundError } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import type { MemoryRecord, RunInterrupt } from '../../generated/prisma/client'
import { lockNoteQuestion } from './sql'
import { keepNote, MemoryNoteProposal } from './records'
import { announceNotesBeneath, erasedNoteQuestion } from './store'
import { delegationBetween } from '../collaboration'

export const MEMORY_NOTE_CHOICES = ['keep', 'not_now'] as const
export type MemoryNoteChoice = (typeof MEMORY_NOTE_CHOICES)[number]

/** What the interrupt carries: the vetted note, whose twin proposed it, and its type tag beside proposals'. */
export interface MemoryNoteQuestion { type: 'memory_note'; memory_note: MemoryNoteProposal; userId: string; twinId: string | null }

export const memoryNoteQuestion = (note: MemoryNoteProposal, who: { userId: string; twinId: string | null }): MemoryNoteQuestion =>
  ({ type: 'memory_note', memory_note: note, userId: who.userId, twinId: who.twinId })

export interface MemoryNoteQuestionView {
  id: string
  note: MemoryNoteProposal
  twinId: string | null
  status: 'open' | 'kept' | 'not_now' | 'expired'
  choice: MemoryNoteChoice | null
  answeredByUserId: string | null
  answeredAt: Date | null
  expiresAt: Date | null
  createdAt: Date
}

function parseQuestion(i: RunInterrupt | null): (MemoryNoteQuestion & { note: MemoryNoteProposal }) | null {
  const q = i?.question as Partial<MemoryNoteQuestion> | undefined
  if (!i || i.kind !== 'write_approval' || q?.type !== 'memory_note') return null
  const note = MemoryNoteProposal.safeParse(q.memory_note)
  return note.success ? { ...(q as MemoryNoteQuestion), note: note.data } : null
}

export function viewQuestion(i: RunInterrupt, now = new Date()): MemoryNoteQuestionView {
  const q = parseQuestion(i)!
  const choice = ((i.answer as { choice?: MemoryNoteChoice } | null)?.choice ?? null)
  const status = choice === 'keep' ? 'kept' : choice ?? (i.expiresAt && i.expiresAt <= now ? 'expired' : 'open')
  return {
    id: i.id, note: q.note, twinId: q.twinId ?? null, status, choice, answeredByUserId: i.answeredByUserId,
    answeredAt: i.answeredAt, expiresAt: i.expiresAt, createdAt: i.createdAt,
  }
}

/** The caller's own Keep questions still open (not answered, not expired), newest first; optionally one program. */
export async function listMemoryNoteQuestions(ctx: Pick<DomainContext, 'session' | 'tdb'>, args: { programId?: string | null } = {}) {
  if (args.programId && !isId(args.programId)) throw InvalidInput.of('programId', 'not an id this service gave out')
  const now = new Date()
  // Principals whose approvals are routed to the caller now (one hop): their Keep questions are the caller's to answer.
  const principals = await ctx.tdb.delegation.findMany({
    where: { delegateUserId: ctx.session.userId, status: 'active', startsAt: { lte: now }, endsAt: { gt: now } }, select: { userId: true },
  })
  const askers = [ctx.session.userId, ...new Set(principals.map((p) => p.userId))]
  const rows = await ctx.tdb.runInterrupt.findMany({
    where: {
      kind: 'write_approval', answeredAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      AND: [
        { question: { path: ['type'], equals: 'memory_note' } },
        { OR: askers.map((u) => ({ question: { path: ['userId'], equals: u } })) },
        ...(args.programId ? [{ question: { path: ['memory_note', 'programId'], equals: args.programId } }] : []),
      ],
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 100,
  })
  const mine = []
  for (const r of rows) {
    const q = parseQuestion(r)
    if (!q) continue
    // A principal's question counts only while a delegation in force covers its program and routes it to the caller.
    if (q.userId !== ctx.session.userId && !(await delegationBetween(ctx.tdb, ctx.session.organizationId, q.userId, ctx.session.userId, q.note.programId, now))) continue
    mine.push(viewQuestion(r, now))
  }
  return mine
}

/** How a Keep question names the proposal it is shown beneath (the proposal's write_approval interrupt id). */
export const proposalRefOf = (proposalId: string) => `proposal:${proposalId}`

/**
 * The Keep questions shown beneath each of the caller's own inbox items (one list per id, in order): questions whose
 * note names the item's proposal, oldest first: open ones (Keep and Not now), kept and expired ones with their status.
 * A question answered Not now or erased is gone. Another person's item, or an item that is not a proposal, has none.
 */
export async function memoryNotesBeneathInboxItems(ctx: Pick<DomainContext, 'session' | 'tdb'>, itemIds: readonly string[]): Promise<MemoryNoteQuestionView[][]> {
  const ids = itemIds.filter(isId)
  const items = ids.length
    ? await ctx.tdb.inboxItem.findMany({ where: { id: { in: ids }, userId: ctx.session.userId, sourceType: 'proposal' }, select: { id: true, sourceId: true } })
    : []
  const refs = [...new Set(items.map((i) => proposalRefOf(i.sourceId)))]
  const rows = refs.length
    ? await ctx.tdb.runInterrupt.findMany({
      where: {
        kind: 'write_approval',
        AND: [
          { question: { path: ['type'], equals: 'memory_note' } },
          { question: { path: ['userId'], equals: ctx.session.userId } },
          { OR: refs.map((ref) => ({ question: { path: ['memory_note', 'proposalRef'], equals: ref } })) },
        ],
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })
    : []
  const now = new Date()
  const byRef = new Map<string, MemoryNoteQuestionView[]>()
  for (const r of rows) {
    const q = parseQuestion(r)
    if (!q?.note.proposalRef) continue
    byRef.set(q.note.proposalRef, [...(byRef.get(q.note.proposalRef) ?? []), viewQuestion(r, now)])
  }
  const refOfItem = new Map(items.map((i) => [i.id, proposalRefOf(i.sourceId)]))
  return itemIds.map((id) => byRef.get(refOfItem.get(id) ?? '') ?? [])
}

async function ownQuestion(q: TenantTx, id: string, userId: string, organizationId: string) {
  const interrupt = await q.runInterrupt.findFirst({ where: { id } })
  const question = parseQuestion(interrupt)
  // Only the person whose twin proposed the note answers it, or their delegate while a delegation in force covers the
  // note's program (the question is routed one hop like a decision); anyone else finds nothing.
  const delegated = !!question && question.userId !== userId && !!(await delegationBetween(q, organizationId, question.userId, userId, question.note.programId))
  if (!interrupt || !question || (question.userId !== userId && !delegated)) throw new NotFoundError('Memory note', { field: 'interruptId' })
  return { interrupt, question, delegatedFrom: delegated ? question.userId : null }
}

/**
 * Keep or Not now on a memory.propose_note question. The answer goes on the interrupt ({ choice }, answered_by,
 * answered_at); Keep then stores the note (keepNote, audit memory.keep) in the same transaction, so a refused note
 * leaves the question open. The first answer stands; an expired question is refused and stores nothing.
 */
export const answerMemoryNote = command({
  permission: 'program.agent_memory.manage',
  input: z.object({ interruptId: IdInput, choice: z.enum(MEMORY_NOTE_CHOICES) }),
  load: (q, input, ctx) => ownQuestion(q, input.interruptId, ctx.session.userId, ctx.session.organizationId),
  program: (_i, { question }) => question.note.programId,
  audit: ['memory.keep'],
  errors: [InvalidTransition, MemoryNoteRefused],
  async run(w, input): Promise<{ question: MemoryNoteQuestionView; record: MemoryRecord | null }> {
    const { session } = w.ctx
    await lockNoteQuestion(session.organizationId, w.tx, input.interruptId)
    const { interrupt, question } = await ownQuestion(w.tx, input.interruptId, session.userId, session.organizationId)
    if (interrupt.answeredAt) {
      // answered already: the same choice again answers the first answer; the other choice is refused, not ignored
      const first = (interrupt.answer as { choice?: MemoryNoteChoice } | null)?.choice
      if (first && first !== input.choice) {
        const words = { keep: 'kept', not_now: 'set aside (Not now)' } as const
        throw new InvalidTransition(first, input.choice, `This note was already ${words[first]}; the first answer stands, so it cannot be ${words[input.choice]} instead.`, { field: 'choice' })
      }
      return { question: viewQuestion(interrupt), record: null }
    }
    const now = new Date()
    if (interrupt.expiresAt && interrupt.expiresAt <= now) throw new InvalidTransition('expired', input.choice, FIXED_PHRASES.expiredNothingWritten)
    const answer = { answer: { choice: input.choice }, answeredByUserId: session.userId, answeredAt: now }
    if (input.choice === 'not_now') {
      // Not now stores nothing: the note's words leave the question too (it is no longer listed beneath the proposal).
      await w.tx.runInterrupt.update({ where: { id: interrupt.id }, data: { ...answer, question: erasedNoteQuestion(question) } })
      await announceNotesBeneath(w.tx, [{ organizationId: session.organizationId, userId: question.userId, proposalRef: question.note.proposalRef }])
      return { question: viewQuestion({ ...interrupt, ...answer }, now), record: null }
    }
    const answered = await w.tx.runInterrupt.update({ where: { id: interrupt.id }, data: answer })
    const record = await keepNote(w.ctx, { interruptId: interrupt.id }, { within: w as Write<AuditAction> })
    await announceNotesBeneath(w.tx, [{ organizationId: session.organizationId, userId: question.userId, proposalRef: question.note.proposalRef }])
    return { question: viewQuestion(answered, now), record }
  },
})
