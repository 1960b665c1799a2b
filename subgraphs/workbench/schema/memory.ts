// Twin memory in the workbench subgraph: MemoryRecord (MemoryRecordOut), Query.myMemory, Query.myMemoryExport,
// Query.agentMemory (oversight), and the mutations forgetMemory, deleteAgentMemory, promoteMemory (MemoryPromoteOut),
// keepMemoryNote, setMemoryPinned and proposeMemoryShare (R5: not_implemented); the Keep question of
// memory.propose_note: Query.memoryNoteQuestions, InboxItem.memoryNotes (beneath the proposal) and Mutation.answerMemoryNote.
// Resolvers translate only.
import type { MemoryRecord } from '../../../generated/prisma/client'
import { viewedBy } from '../../../core/text'
import { NotImplemented } from '../../../core/errors'
import { result, successExtra, withSuccessExtras, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import { KINDS_BY_TIER, memoryTiers, toOut, type MemoryRecordOut, type ViewedBy } from '../../../domain/memory'
import * as memory from '../../../domain/memory'
import { answerMemoryNote, listMemoryNoteQuestions, memoryNotesBeneathInboxItems, type MemoryNoteQuestionView } from '../../../domain/memory'
import type { WorkbenchRefs } from './refs'

const dateOf = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

export function addMemory(builder: Builder, { ProgramRef }: WorkbenchRefs) {
  builder.objectField(ProgramRef, 'viewerHasTwinMemory', (t) => t.boolean({
    description: "Whether the caller has a twin whose memory they may open here (agentMemory's own check, program.agent_memory.read: every persona but viewer).",
    resolve: (p, _a, ctx) => memory.viewerHasTwinMemory(ctx.session, p.id),
  }))
  const Tier = builder.enumType('MemoryTier', { values: ['individual', 'person', 'role'] as const, description: 'individual: one person in one program; person: one person across programs; role: R5, reserved.' })
  const Kind = builder.enumType('MemoryKind', { values: [...new Set(Object.values(KINDS_BY_TIER).flat())] as readonly string[] })
  const Origin = builder.enumType('MemoryOrigin', { values: ['human', 'agent'] as const })
  const Status = builder.enumType('MemoryStatus', { values: ['proposed', 'kept', 'promotion_requested', 'promoted', 'forgotten'] as const })

  const Viewed = builder.objectRef<ViewedBy>('MemoryViewedBy').implement({
    description: 'An oversight read of the record by another person.',
    fields: (t) => ({
      userId: t.exposeID('userId'),
      name: t.exposeString('name'),
      at: t.field({ type: 'DateTime', resolve: (v) => v.at }),
      text: t.string({ description: "'Viewed by <Name> on <date>.'", resolve: (v) => viewedBy(v.name, dateOf(v.at)) }),
    }),
  })
  const Removal = builder.objectRef<{ reason: string; byName: string | null; at: Date }>('MemoryRemoval').implement({
    description: 'Why an owner or lead removed the record: what the person sees.',
    fields: (t) => ({
      reason: t.exposeString('reason'),
      byName: t.exposeString('byName', { nullable: true }),
      at: t.field({ type: 'DateTime', resolve: (r) => r.at }),
    }),
  })

  const Record = builder.objectRef<MemoryRecordOut>('MemoryRecord').implement({
    description: 'MemoryRecordOut: one record of any tier. Namespaces begin with org/{org}/.',
    fields: (t) => ({
      id: t.exposeID('id'),
      namespace: t.exposeString('namespace'),
      summary: t.exposeString('summary', { description: 'At most 600 characters; passed the sanitiser and the tone lint. Empty once forgotten.' }),
      body: t.exposeString('body', { nullable: true }),
      tier: t.field({ type: Tier, resolve: (r) => r.tier }),
      kind: t.field({ type: Kind, resolve: (r) => r.kind }),
      origin: t.field({ type: Origin, resolve: (r) => r.origin }),
      status: t.field({ type: Status, resolve: (r) => r.status }),
      programId: t.exposeID('programId', { nullable: true }),
      program: t.field({ type: ProgramRef, nullable: true, resolve: async (r, _a, ctx) => (r.programId ? await ctx.loaders.program.load(r.programId) : null) }),
      workbenchRoleKey: t.exposeString('workbenchRoleKey', { nullable: true }),
      sourceRef: t.exposeString('sourceRef', { nullable: true }),
      passageRefs: t.exposeStringList('passageRefs', { description: 'The passages the record carries: these, never the record, are citable.' }),
      citableAsEvidence: t.boolean({ description: 'Always false: memory records are never citable as evidence.', resolve: () => false }),
      promotedFromId: t.exposeID('promotedFromId', { nullable: true }),
      onBehalfOf: t.exposeID('onBehalfOf', { nullable: true, description: 'The principal, when a delegate kept the note while deciding for them.' }),
      version: t.exposeInt('version'),
      pinned: t.exposeBoolean('pinned'),
      expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.expiresAt }),
      viewedBy: t.field({ type: [Viewed], resolve: (r) => r.viewedBy }),
      viewerCanKeepAcrossPrograms: t.boolean({
        description: "Whether the caller may keep this note across programs (promoteMemory's permission check, program.agent_memory.manage, on their own note of a program). The kind rule is separate: only preferences, vocabulary and rubric adjustments travel (else KindNotPromotable).",
        resolve: (r, _a, ctx) => memory.viewerCanKeepAcrossPrograms(ctx.session, r),
      }),
      removal: t.field({
        type: Removal, nullable: true,
        resolve: (r) => (r.removalReason ? { reason: r.removalReason, byName: r.removedByName, at: r.forgottenAt ?? r.updatedAt } : null),
      }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.updatedAt }),
    }),
  })
  const Records = connectionType(builder, 'MemoryRecord', Record, 'A page of memory records, newest first.')

  const Export = builder.objectRef<Awaited<ReturnType<typeof memory.exportMyMemory>>>('MemoryExport').implement({
    description: "The memory part of the person's data export: every record they hold, tier 2 included.",
    fields: (t) => ({
      userId: t.exposeID('userId'),
      exportedAt: t.field({ type: 'DateTime', resolve: (e) => e.exportedAt }),
      records: t.field({ type: [Record], resolve: (e) => e.records }),
    }),
  })

  const TierInfo = builder.objectRef<ReturnType<typeof memoryTiers>[number]>('MemoryTierInfo').implement({
    description: 'A memory tier, the kinds it admits, and its release status.',
    fields: (t) => ({
      tier: t.field({ type: Tier, resolve: (i) => i.tier }),
      release: t.exposeString('release'),
      status: t.string({ nullable: true, description: 'designed until the R4 gate passes, then preview; null for a tier reserved for a later release (tier 3, R5).', resolve: (i) => i.status }),
      kinds: t.field({ type: [Kind], resolve: (i) => [...i.kinds] }),
    }),
  })

  builder.queryFields((t) => ({
    memoryTiers: t.field({ type: [TierInfo], description: 'The three memory tiers and their status.', resolve: () => memoryTiers() }),
    myMemory: t.field({
      type: Records,
      description: "The caller's own memory (GET /me/memory?program_id=): tier 1 of the program (every program without one) and tier 2.",
      args: { ...pageArgs(t.arg), programId: t.arg.id() },
      resolve: (_r, a, ctx) => memory.listMyMemory(ctx, { ...a, programId: a.programId ? String(a.programId) : null }),
    }),
    myMemoryExport: t.field({
      type: Export,
      description: "Every memory record of the caller, for the person's data export (self only).",
      resolve: (_r, _a, ctx) => memory.exportMyMemory(ctx),
    }),
    agentMemory: t.field({
      type: Records,
      description: "A program's agent memory (GET /programs/{program_id}/agent-memory?user_id=&tier=): the caller's own, or under program.twins.read another person's tier 1 only, audited memory.oversight_read. For incident and audit review, never for evaluating people.",
      args: { ...pageArgs(t.arg), programId: t.arg.id({ required: true }), userId: t.arg.id(), tier: t.arg({ type: Tier }) },
      resolve: (_r, a, ctx) => memory.readProgramMemory(ctx, {
        programId: a.programId, userId: a.userId ?? null, tier: a.tier ?? undefined, first: a.first ?? null, after: a.after ?? null,
      }),
    }),
  }))

  const out = async (row: MemoryRecord, ctx: Parameters<typeof toOut>[0]) => (await toOut(ctx, [row]))[0]!
  const NoteInput = builder.inputType('MemoryNoteInput', {
    fields: (t) => ({
      programId: t.id({ required: true }),
      kind: t.field({ type: Kind, required: true }),
      summary: t.string({ required: true }),
      body: t.string(),
      sourceRef: t.string(),
      passageRefs: t.stringList(),
    }),
  })

  builder.mutationFields((t) => ({
    keepMemoryNote: t.field({
      type: Record,
      description: 'The person keeps a note in their tier 1 of a program themselves (origin human; audit memory.keep).',
      errors: result(memory.keepMemoryNote, 'record'),
      args: { input: t.arg({ type: NoteInput, required: true }) },
      resolve: async (_r, { input }, ctx) => out(await memory.keepMemoryNote(ctx, { ...input, passageRefs: input.passageRefs ?? undefined }), ctx),
    }),
    forgetMemory: t.field({
      type: Record,
      description: 'DELETE /me/memory/{record_id}: the own record is forgotten (audit memory.forget).',
      errors: result(memory.forgetMemory, 'record'),
      args: { recordId: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => out(await memory.forgetMemory(ctx, a), ctx),
    }),
    deleteAgentMemory: t.field({
      type: Record,
      description: 'DELETE /programs/{program_id}/agent-memory/{record_id}: a tier-1 record removed by its owner or a program owner or lead, with a reason the person sees.',
      errors: result(memory.removeMemory, 'record'),
      args: { programId: t.arg.id({ required: true }), recordId: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
      resolve: async (_r, a, ctx) => out(await memory.removeMemory(ctx, a), ctx),
    }),
    promoteMemory: t.field({
      type: Record,
      description: 'POST /programs/{program_id}/agent-memory/{record_id}/promote: keep across programs (MemoryPromoteOut: the record, and scrubbedTermsCount beside it).',
      errors: {
        ...result(memory.promoteMemory, 'record'),
        result: { fields: (t) => ({
          scrubbedTermsCount: t.int({ description: 'How many terms were scrubbed from the record on promotion.', resolve: (r) => successExtra<number>(r, 'scrubbedTermsCount') }),
        }) },
      },
      args: { programId: t.arg.id({ required: true }), recordId: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => {
        const p = await memory.promoteMemory(ctx, a)
        return withSuccessExtras(await out(p.record, ctx), { scrubbedTermsCount: p.scrubbedTermsCount })
      },
    }),
    setMemoryPinned: t.field({
      type: Record,
      description: 'Pins an own episodic record so it does not expire after 180 days (or unpins it).',
      errors: result(memory.setMemoryPinned, 'record'),
      args: { recordId: t.arg.id({ required: true }), pinned: t.arg.boolean({ required: true }) },
      resolve: async (_r, a, ctx) => out(await memory.setMemoryPinned(ctx, a), ctx),
    }),
    proposeMemoryShare: t.field({
      type: Record,
      description: 'POST /me/memory/{id}/propose-share: R5, designed; answers NotImplemented.',
      errors: result({ errors: [NotImplemented] }, 'record'),
      args: { recordId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => memory.proposeMemoryShare(ctx, String(a.recordId)),
    }),
  }))

  const Choice = builder.enumType('MemoryNoteChoice', {
    description: 'The two answers to a note the twin proposed: Keep and Not now.',
    values: { KEEP: { value: 'keep' }, NOT_NOW: { value: 'not_now' } } as const,
  })
  const QuestionStatus = builder.enumType('MemoryNoteQuestionStatus', { values: ['open', 'kept', 'not_now', 'expired'] as const })
  const Question = builder.objectRef<MemoryNoteQuestionView>('MemoryNoteQuestion').implement({
    description: "A note the person's twin proposed (memory.propose_note), shown beneath the proposal it came from with Keep and Not now. Nothing is saved unless the person answers Keep.",
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The write_approval interrupt carrying the question.' }),
      programId: t.id({ resolve: (q) => q.note.programId }),
      kind: t.field({ type: Kind, resolve: (q) => q.note.kind }),
      summary: t.string({ resolve: (q) => q.note.summary }),
      body: t.string({ nullable: true, resolve: (q) => q.note.body ?? null }),
      sourceRef: t.string({ nullable: true, resolve: (q) => q.note.sourceRef ?? null }),
      passageRefs: t.stringList({ resolve: (q) => q.note.passageRefs }),
      proposalRef: t.string({ nullable: true, description: 'The proposal (inbox item, decision) the question is shown beneath.', resolve: (q) => q.note.proposalRef ?? null }),
      twinId: t.exposeID('twinId', { nullable: true }),
      status: t.field({ type: QuestionStatus, resolve: (q) => q.status }),
      choice: t.field({ type: Choice, nullable: true, resolve: (q) => q.choice }),
      answeredByUserId: t.exposeID('answeredByUserId', { nullable: true }),
      answeredAt: t.field({ type: 'DateTime', nullable: true, resolve: (q) => q.answeredAt }),
      expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (q) => q.expiresAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (q) => q.createdAt }),
    }),
  })
  const Answered = builder.objectRef<{ question: MemoryNoteQuestionView; record: MemoryRecordOut | null }>('MemoryNoteAnswer').implement({
    fields: (t) => ({
      question: t.field({ type: Question, resolve: (a) => a.question }),
      record: t.field({ type: Record, nullable: true, description: 'The kept record; null for Not now.', resolve: (a) => a.record }),
    }),
  })
  builder.queryFields((t) => ({
    memoryNoteQuestions: t.field({
      type: [Question],
      description: "The caller's open Keep questions (notes their twin proposed), newest first; optionally of one program.",
      args: { programId: t.arg.id() },
      resolve: (_r, a, ctx) => listMemoryNoteQuestions(ctx, { programId: a.programId ? String(a.programId) : null }),
    }),
  }))
  // The Keep question beneath the proposal it came from: the inbox item (owned by the twins subgraph) gains the notes
  // the person's twin proposed with it, each answered by answerMemoryNote (Keep, Not now).
  const InboxItemRef = builder.objectRef<{ id: string }>('InboxItem').implement({ fields: (t) => ({ id: t.exposeID('id') }) })
  builder.asEntity(InboxItemRef, { key: builder.selection<{ id: string }>('id'), resolveReference: (r) => ({ id: r.id }) })
  builder.objectField(InboxItemRef, 'memoryNotes', (t) => t.field({
    type: [Question],
    description: "Notes the person's twin proposed with this proposal (memory.propose_note), shown beneath it with Keep and Not now (answerMemoryNote). Empty on items that are not proposals.",
    resolve: (i, _a, ctx) => ctx.loader('InboxItem.memoryNotes', (ids: readonly string[]) => memoryNotesBeneathInboxItems(ctx, ids)).load(i.id),
  }))
  builder.mutationFields((t) => ({
    answerMemoryNote: t.field({
      type: Answered,
      description: 'Keep or Not now on a note the twin proposed. Keep stores it in tier 1 (audit memory.keep); Not now stores nothing.',
      errors: result(answerMemoryNote, 'answer'),
      args: { interruptId: t.arg.id({ required: true }), choice: t.arg({ type: Choice, required: true }) },
      resolve: async (_r, a, ctx) => {
        const answered = await answerMemoryNote(ctx, { interruptId: a.interruptId, choice: a.choice })
        return { question: answered.question, record: answered.record ? await out(answered.record, ctx) : null }
      },
    }),
  }))
  return { MemoryRecordRef: Record }
}
