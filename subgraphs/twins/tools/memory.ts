// Owns the memory tools of the tool server, the always-allowed set of the memory document: memory.recall (the run's
// memory brief, as data), memory.propose_note (tier individual only; files a write_approval interrupt with Keep and
// Not now; nothing is stored until the person answers Keep) and lens.list_rubrics. memory.propose_promotion is a
// specification only (proposePromotion answers not_implemented) and is deliberately in no toolset.
import { z } from 'zod'
import { KINDS_BY_TIER, announceNotesBeneath, contentHash, isRef } from '../../../domain/memory'
import { buildMemoryBrief, HARNESS_MEMORY_STATEMENT } from '../../../domain/memory'
import { proposeNote } from '../../../domain/memory'
import { memoryNoteQuestion, proposalRefOf } from '../../../domain/memory'
import { asQuestion, isProposal } from '../../../domain/proposals'
import { expiresAtFor } from '../../../domain/twins'
import { InvalidInput, MemoryNoteRefused } from '../../../core/errors'
import { isId } from '../../../core/text'
import type { TenantTx } from '../../../core/database'
import type { MemoryKind, RunInterrupt } from '../../../generated/prisma/client'
import { defineTool, type ToolDefinition } from './tool'

const Ref = z.string().max(200).refine(isRef, 'use a reference of the form type:id')

/**
 * The proposal a note is shown beneath. `proposalRef` may name the proposal (`proposal:<id>` or its id) or its inbox
 * item (`inbox_item:<id>`); it must be a proposal of the run's program filed for the run's person. Without one, the
 * note goes beneath the latest proposal this run filed; a run that filed none leaves the note on its own (listed by
 * memoryNoteQuestions).
 */
async function proposalBeneath(tx: TenantTx, run: { id: string; programId: string }, userId: string, ref: string | undefined): Promise<RunInterrupt | null> {
  if (!ref) {
    const filed = await tx.runInterrupt.findMany({
      where: { runId: run.id, kind: 'write_approval', question: { path: ['type'], equals: 'proposal' } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 1,
    })
    return filed[0] ?? null
  }
  const [type, id] = ref.includes(':') ? ref.split(':', 2) as [string, string] : ['proposal', ref]
  const refused = () => InvalidInput.of('proposalRef', 'Name a proposal of this program filed for you: proposal:<id> or inbox_item:<id>.')
  if (!isId(id) || (type !== 'proposal' && type !== 'inbox_item')) throw refused()
  const proposalId = type === 'proposal' ? id : (await tx.inboxItem.findFirst({ where: { id, userId, sourceType: 'proposal' }, select: { sourceId: true } }))?.sourceId
  const interrupt = proposalId ? await tx.runInterrupt.findFirst({ where: { id: proposalId } }) : null
  if (!isProposal(interrupt)) throw refused()
  const q = asQuestion(interrupt)
  if (q.programId !== run.programId || q.proposer.userId !== userId) throw refused()
  return interrupt
}

export const MEMORY_TOOLS: ToolDefinition[] = [
  defineTool({
    name: 'memory.recall',
    description: `Your own memory for this run (tier 1 of this program, tier 2 across programs), as data behind <<<memory:...>>> markers. ${HARNESS_MEMORY_STATEMENT}`,
    kind: 'read',
    runRole: 'always',
    // Every program persona: tier 1 is only read where the person holds program.agent_memory.read (recallForRun).
    permission: 'program.twins.read_own',
    input: z.object({ query: z.string().max(500).optional() }).strict(),
    handler: async (scope, args) => {
      const brief = await buildMemoryBrief(scope.ctx, { programId: scope.run.programId, query: args.query ?? null })
      return {
        result: {
          statement: HARNESS_MEMORY_STATEMENT,
          brief: brief.text,
          records: brief.records.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
          dropped: brief.dropped.length,
        },
      }
    },
  }),
  defineTool({
    name: 'memory.propose_note',
    description: 'Propose a note for your tier-1 memory in this program (preference, vocabulary, rubric_adjustment, lesson, or episodic about a decision you made). Nothing is saved unless the person answers Keep.',
    kind: 'write',
    runRole: 'always',
    permission: 'program.agent_memory.manage',
    // A note that reads as an instruction is refused as any note is (memory_note_refused), before it is a question.
    refuseText: (reasons, field) => new MemoryNoteRefused(reasons, { field }),
    input: z.object({
      kind: z.enum(KINDS_BY_TIER.individual as unknown as [MemoryKind, ...MemoryKind[]]),
      summary: z.string().max(2000),
      body: z.string().max(4000).optional(),
      sourceRef: Ref.optional(),
      passageRefs: z.array(Ref).max(20).optional(),
      /** The proposal the note is shown beneath: proposal:<id> or inbox_item:<id>; default the run's latest proposal. */
      proposalRef: z.string().max(200).optional(),
    }).strict(),
    target: (args) => `note:${contentHash(args.summary)}`,
    handler: async (scope, args, w) => {
      const beneath = await proposalBeneath(w.tx, scope.run, scope.ctx.session.userId, args.proposalRef)
      const proposalRef = beneath ? proposalRefOf(beneath.id) : undefined
      const answer = await proposeNote(scope.ctx, { ...args, proposalRef, programId: scope.run.programId })
      if (!answer.proposed) {
        return { result: { proposed: false, reason: answer.reason, message: 'You asked to forget this; it is not proposed again.' } }
      }
      // The question lives as long as a proposal, and never longer than the proposal it is shown beneath.
      const own = await expiresAtFor(w.tx, scope.run.twinId)
      const expiresAt = beneath?.expiresAt && beneath.expiresAt < own ? beneath.expiresAt : own
      // Detached like a proposal: the run goes on while the Keep question waits for the person.
      const interrupt = await w.tx.runInterrupt.create({
        data: {
          organizationId: scope.ctx.session.organizationId, runId: scope.run.id, kind: 'write_approval', detached: true, expiresAt,
          question: memoryNoteQuestion(answer.note, { userId: scope.ctx.session.userId, twinId: scope.run.twinId }) as object,
        },
      })
      await announceNotesBeneath(w.tx, [{ organizationId: scope.ctx.session.organizationId, userId: scope.ctx.session.userId, proposalRef }])
      return { result: { proposed: true, interruptId: interrupt.id, proposalRef: proposalRef ?? null, choices: ['keep', 'not_now'], expiresAt: expiresAt.toISOString() } }
    },
  }),
  defineTool({
    name: 'lens.list_rubrics',
    description: "The rubric adjustments the person kept (tier 1 of this program and tier 2), which a review applies as the person's own preferences. Role rubrics (tier 3) and lens reviews arrive in a later release.",
    kind: 'read',
    runRole: 'always',
    permission: 'program.twins.read_own',
    input: z.object({}).strict(),
    handler: async (scope) => {
      const brief = await buildMemoryBrief(scope.ctx, { programId: scope.run.programId })
      return {
        result: {
          rubrics: brief.records.filter((r) => r.kind === 'rubric_adjustment').map((r) => ({ id: r.id, tier: r.tier, summary: r.summary })),
          roleRubrics: { available: false, note: 'Shared role rubrics arrive with shared memory in a later release.' },
        },
      }
    },
  }),
]

/** Ids the harness never lists (a specification only). */
export const NOT_IN_ANY_TOOLSET = ['memory.propose_promotion'] as const
