// Owns decisions on proposals: approve, approve with edits or decline (decideProposal), and batch approval
// (decideBatch). A decision re-computes the basis, applies the change as the deciding person under their live
// permissions, answers the interrupt, resolves the inbox items, writes the signature and approval where the record
// type requires them, and audits, all in one transaction; refused, it leaves everything as it was.
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { personText } from '../../core/text'
import type { RunInterrupt } from '../../generated/prisma/client'
import { command, type DomainContext, type Write } from '../../core/jobs'
import { inAuditBatch, underDelegation, type AuditAction } from '../../core/audit'
import type { TenantTx } from '../../core/database'
import { lockBasisRecords, lockProposal } from './sql'
import {
  BatchItemForbidden, BoundUserOnly, DomainError, FreshSignInRequired, HandoffExists, InvalidInput, InvalidTransition, NotFoundError, ReasonRequired, SelfHandoff,
  StaleProposal, isGraphQLError, parseInput,
} from '../../core/errors'
import { IdInput } from '../../core/text'
import { FIXED_PHRASES, TWINS } from '../../core/text'
import { MAX_BATCH_APPROVAL_ITEMS, type ApprovalTargetType } from '../../core/config'
import { transitionAll } from '../../core/states'
import { inboxItemStatus } from '../../core/states'
import { publish } from '../../core/database'
import { applyRecordChange, type RecordChange } from '../records'
import { signTarget } from '../signatures'
import { sendHandoff } from '../collaboration'
import { assertMayDecide, mayDecide, mayDecideHandoff } from './proposal-deciders'
import { canonicalJson } from '../skills'
import {
  asQuestion, currentBasis, decideKeyOf, isProposal, parseChangeAt, viewProposal, type Outcome, type ProposalAnswer, type ProposalView,
} from './proposals'

export const DECISIONS = ['approve', 'approve_with_edits', 'decline'] as const
export type Decision = (typeof DECISIONS)[number]
const OUTCOME: Record<Decision, Outcome> = { approve: 'approved', approve_with_edits: 'approved_with_edits', decline: 'declined' }

/** Why a proposal was declined (evaluation data for twin_evaluate's "declined by reason"); the text says the rest. */
export const DECLINE_REASONS = ['incorrect', 'incomplete', 'not_needed', 'duplicate', 'out_of_scope', 'other'] as const

/**
 * Record types whose approved proposals are recorded in `approvals` (an APPROVAL_TARGET_TYPE) and, where `signed`,
 * signed in `signatures` with the meaning approval: a plan and a report are approved under signature (21 CFR 11.50:
 * printed name, date and time, meaning); a hypothesis and an open item are approvals without one. Other types need
 * neither. A signature is a deliberate act of one person on one record, so a signed approval is never batched.
 */
export const APPROVAL_RULES: Readonly<Record<string, { target: ApprovalTargetType; signed: boolean }>> = {
  'plans.plans': { target: 'plan', signed: true },
  'plans.reports': { target: 'report', signed: true },
  'evidence.hypotheses': { target: 'hypothesis', signed: false },
  'progress.open_items': { target: 'open_item', signed: false },
}

// What the decider gives, kept exactly as given (a person's words are data: never trimmed, stripped or rewritten).
// `draft` is the draft's text as the decider approves it; `body` the record text laid over the change; `note` what
// they changed and why. A note alone is an edit too: the decision is approved_with_edits and the note is kept.
const Edits = z.object({
  title: z.string().optional(),
  body: personText(100_000).optional(),
  draft: personText(20_000).optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
  citations: z.array(z.unknown()).optional(),
  outcome: z.string().optional(),
  note: personText(2000).optional(),
}).strict()

const DecideInput = z.object({
  id: IdInput,
  decision: z.enum(DECISIONS),
  edits: Edits.nullish(),
  reason: personText(2000).nullish(),
  reasonCode: z.enum(DECLINE_REASONS).nullish(),
  /** Set by decideBatch only: the batch this decision is an item of. */
  batchId: IdInput.nullish(),
})

const DECISION_AUDIT = ['proposal.approve', 'proposal.decline', 'signature.create', 'approval.create', 'handoff.send'] as const satisfies readonly AuditAction[]

/** A proposal of a program the person is a member of; any other answers not found, never telling it exists. */
async function loadProposal(q: TenantTx, id: string, ctx: Pick<DomainContext, 'session'>, field = 'id'): Promise<RunInterrupt> {
  const interrupt = await q.runInterrupt.findFirst({ where: { id } })
  if (!isProposal(interrupt) || !ctx.session.programPersonas.has(asQuestion(interrupt).programId)) throw new NotFoundError('Proposal', { field })
  return interrupt
}

/**
 * The proposed change with the decider's edits laid over it, validated as a change (fields named edits.*). An edit
 * the change cannot carry (a title or text on a status decision) is refused naming it, never dropped.
 */
function edited(change: RecordChange, edits: z.output<typeof Edits>, recordType: string): RecordChange {
  const merged: Record<string, unknown> = { ...change }
  if (change.kind === 'decide') {
    for (const key of ['title', 'body', 'fields', 'citations'] as const) {
      if (edits[key] !== undefined) throw InvalidInput.of(`edits.${key}`, 'This proposal decides the record\'s status; edit its title, text or fields in a change of the record, not here.')
    }
  }
  if (edits.title !== undefined) merged.title = edits.title
  if (edits.body !== undefined) merged.body = edits.body
  if (edits.fields !== undefined) merged.fields = { ...((change as { fields?: object }).fields ?? {}), ...edits.fields }
  if (edits.citations !== undefined) merged.citations = edits.citations
  if (edits.outcome !== undefined) merged.outcome = edits.outcome
  if (edits.note !== undefined && change.kind === 'decide') merged.note = edits.note
  return parseChangeAt('edits', merged, recordType)
}

/** What a proposal proposed, or what its decider approved: the title, the draft's text and the record text. */
export interface ProposalContent { title: string; draft: string; body: string | null }

/** What the proposal proposed, as the decision records it beside what was approved. */
async function proposedContent(w: Write<AuditAction> | Write<(typeof DECISION_AUDIT)[number]>, question: ReturnType<typeof asQuestion>): Promise<ProposalContent> {
  const draft = await w.tx.artifact.findFirst({ where: { id: question.draftArtifactId }, select: { content: true } })
  const body = 'body' in question.change && typeof question.change.body === 'string' ? question.change.body : null
  return { title: question.title, draft: (draft?.content as { text?: string } | null)?.text ?? '', body }
}

/** What the decider approved: the proposed content with their title, draft and text edits over it. */
function approvedContent(proposed: ProposalContent, edits: z.output<typeof Edits> | null | undefined): ProposalContent {
  return {
    title: edits?.title ?? proposed.title,
    draft: edits?.draft ?? proposed.draft,
    body: edits?.body ?? proposed.body,
  }
}

/** Resolves every open inbox item of the proposal as done by the decider, and announces each to its owner. */
async function resolveItems(w: Write<AuditAction>, interruptId: string, now: Date) {
  const done = await transitionAll(w.tx, inboxItemStatus, 'resolve', { interruptId }, { doneBy: w.ctx.session.userId, doneAt: now, updatedAt: now })
  for (const item of done) await publish(w.tx, 'inbox_changed', { id: item.id, userId: item.userId, organizationId: item.organizationId })
}

/**
 * POST-like decide on one proposal. Holds the proposal's interrupt row locked for the decision, so of two people
 * deciding at once one decides and the other gets the first outcome; deciding again answers the first outcome.
 */
export const decideProposal = command({
  input: DecideInput,
  load: (q, input, ctx) => loadProposal(q, input.id, ctx),
  permission: (_i, interrupt) => decideKeyOf(asQuestion(interrupt)),
  program: (_i, interrupt) => asQuestion(interrupt).programId,
  errors: [StaleProposal, ReasonRequired, InvalidTransition, BoundUserOnly, HandoffExists, SelfHandoff, FreshSignInRequired],
  audit: DECISION_AUDIT,
  async run(w, input, loaded): Promise<ProposalView> {
    const { session } = w.ctx
    await lockProposal(w.tx, session.organizationId, loaded.id)
    const interrupt = await loadProposal(w.tx, loaded.id, w.ctx)
    const question = asQuestion(interrupt)
    if (interrupt.answer != null) {
      // decided already: the same decision again (a retry, or a second person deciding alike) answers the first
      // outcome; a different one is refused, never answered Success with an outcome it did not ask for
      const conflict = otherDecision(interrupt.answer as unknown as ProposalAnswer, input)
      if (conflict) throw conflict
      return viewProposal(w.tx, interrupt)
    }
    // A hand-off goes out in its author's name: only the person the twin is bound to decides it (bound_user_only).
    if (!mayDecideHandoff(session, question)) {
      throw new BoundUserOnly('Only the person whose twin proposed this hand-off may send or decline it; it is never routed under delegation.', { field: 'id' })
    }
    // Who may decide a twin's proposal (proposal-deciders.ts): its person, their live delegate, or an approver of a type
    // with an approval key; anyone else bound_user_only. Decided by a delegate (one hop), every audit row of the
    // decision carries delegated_from_user_id; the delegate decides under their own live permissions.
    const from = (await assertMayDecide(w.tx, session, question)).delegatedFromUserId
    const fromName = from ? (await w.tx.user.findFirst({ where: { id: from }, select: { name: true } }))?.name ?? null : null
    return underDelegation(from, () => decide(w, input, interrupt, question, from ? { userId: from, name: fromName ?? '' } : null))
  },
})

/**
 * Whether the caller may decide this proposal now (Proposal.viewerCanDecide): open, and the same checks decideProposal
 * makes before it writes: its decide key (Command.permits), the hand-off's author rule and who may decide a twin's
 * proposal (proposal-deciders.ts).
 */
export async function viewerCanDecide(ctx: Pick<DomainContext, 'session' | 'tdb'>, view: ProposalView): Promise<boolean> {
  if (view.status !== 'open') return false
  if (!decideProposal.permits(ctx.session, { id: view.id }, view.interrupt)) return false
  return mayDecide(ctx.tdb as unknown as TenantTx, ctx.session, view.question)
}

const OUTCOME_WORDS: Record<Outcome, string> = { approved: 'approved', approved_with_edits: 'approved with edits', declined: 'declined' }

/** invalid_transition when a decided proposal is asked for another outcome, other edits or another decline reason. */
function otherDecision(first: ProposalAnswer, input: z.output<typeof DecideInput>): InvalidTransition | null {
  const asked = OUTCOME[input.decision]
  const by = `by ${first.decidedByName} at ${first.decidedAt}`
  const stands = 'A decision stands once made: reload the proposal to see it.'
  if (first.outcome !== asked) {
    return new InvalidTransition(first.outcome, asked, `This proposal was already ${OUTCOME_WORDS[first.outcome]} ${by}, so it cannot be ${OUTCOME_WORDS[asked]} now. ${stands}`, { field: 'decision' })
  }
  if (asked === 'approved_with_edits' && canonicalJson(first.edits ?? null) !== canonicalJson(input.edits ?? null)) {
    return new InvalidTransition(first.outcome, asked, `This proposal was already approved with other edits ${by}; yours were not applied. ${stands}`, { field: 'edits' })
  }
  if (asked === 'declined' && (first.reason?.text !== input.reason || first.reason?.code !== (input.reasonCode ?? 'other'))) {
    return new InvalidTransition(first.outcome, asked, `This proposal was already declined ${by} with another reason; yours was not recorded. ${stands}`, { field: 'reason' })
  }
  return null
}

async function decide(
  w: Write<(typeof DECISION_AUDIT)[number]>, input: z.output<typeof DecideInput>, interrupt: RunInterrupt, question: ReturnType<typeof asQuestion>,
  delegation: { userId: string; name: string } | null,
): Promise<ProposalView> {
    const { session } = w.ctx
    const now = new Date()
    if (interrupt.expiresAt && interrupt.expiresAt <= now) throw new InvalidTransition('expired', OUTCOME[input.decision], FIXED_PHRASES.expiredNothingWritten)
    if (input.decision === 'decline' && !input.reason?.trim()) throw new ReasonRequired(TWINS.declineNeedsReason, { field: 'reason' })
    if (input.decision === 'approve_with_edits' && (!input.edits || Object.keys(input.edits).length === 0)) throw InvalidInput.of('edits', 'Approving with edits needs the edits: a changed title or text, or a note saying what you changed and why.')
    if (input.decision !== 'approve_with_edits' && input.edits && Object.keys(input.edits).length) throw InvalidInput.of('edits', 'Edits are given with approve with edits; approve or decline takes none.')
    if (question.handoff && input.decision === 'approve_with_edits') throw InvalidInput.of('decision', 'A hand-off is sent as proposed or declined; send your own hand-off to change it.')
    const rule = APPROVAL_RULES[question.recordType]
    if (input.batchId && input.decision !== 'decline' && rule?.signed) {
      throw new BatchItemForbidden('This approval needs your signature; decide it on its own.', { field: 'id' })
    }

    // The basis records stay locked until commit, so nothing changes them between this check and the write.
    const ids = question.basis.map((b) => b.recordId)
    if (ids.length) await lockBasisRecords(w.tx, session.organizationId, ids)
    const basis = await currentBasis(w.tx, question)
    if (basis.hash !== question.basisHash) throw new StaleProposal(basis.hash, TWINS.changedSinceProposed)

    // Written once, in the same write as the outcome: what was proposed, what was approved, the note and the reason,
    // each exactly as given, so the difference can be read later without re-reading anything that may change.
    const proposed = await proposedContent(w, question)
    const answer: ProposalAnswer = {
      outcome: OUTCOME[input.decision], decidedByUserId: session.userId, decidedByName: session.name, decidedAt: now.toISOString(),
      edits: input.edits ?? null, batchId: input.batchId ?? null,
      reason: input.decision === 'decline' ? { code: input.reasonCode ?? 'other', text: input.reason! } : null,
      note: input.edits?.note ?? null,
      proposed,
      approved: input.decision === 'decline' ? null : approvedContent(proposed, input.edits),
      ...(delegation ? { delegatedFromUserId: delegation.userId, delegatedFromName: delegation.name } : {}),
    }
    if (question.handoff && input.decision === 'approve') {
      // The author's approval sends it: created in sent (audit handoff.send), under the author's name.
      const sent = await sendHandoff(w as unknown as Write<AuditAction>, question.handoff, { fromTwinId: question.proposer.twinId, proposalId: interrupt.id })
      answer.handoffId = sent.id
    } else if (input.decision !== 'decline') {
      const change = input.decision === 'approve_with_edits' ? edited(question.change, input.edits!, question.recordType) : question.change
      // Applied as the deciding person: applyRecordChange checks their live permission for the record write.
      const applied = await applyRecordChange(w.ctx, change, {
        within: w,
        provenance: {
          proposalId: interrupt.id, proposedByUserId: question.proposer.userId, proposedByTwinId: question.proposer.twinId, runId: interrupt.runId,
          workingAs: question.proposer.workingAs ?? null,
          // the decider's note is the version's note (a status decision carries it in the change already)
          ...(input.edits?.note !== undefined && change.kind !== 'decide' ? { note: input.edits.note } : {}),
        },
      })
      Object.assign(answer, { recordId: applied.recordId, version: applied.version })
      if (rule) {
        // The one signatures implementation (workbench domain/signatures.ts): signature with meaning approval where
        // the type is signed, and the approval pointing at it.
        const { signature, approval } = await signTarget(w, {
          programId: question.programId, meaning: 'approval', targetType: rule.target, targetId: applied.recordId, unsigned: !rule.signed, at: now,
          approval: { decision: 'approved', comment: input.edits?.note ?? null, details: { proposal_id: interrupt.id } },
        })
        Object.assign(answer, { signatureId: signature?.id ?? null, approvalId: approval!.id })
      }
    }
    const answered = await w.tx.runInterrupt.updateManyAndReturn({
      where: { id: interrupt.id, answeredAt: null },
      data: { answer: answer as object, answeredByUserId: session.userId, answeredAt: now },
    })
    if (answered.length !== 1) throw new Error(`proposal ${interrupt.id} was answered while locked`)
    await resolveItems(w, interrupt.id, now)
    await w.audit(input.decision === 'decline' ? 'proposal.decline' : 'proposal.approve', { type: 'proposal', id: interrupt.id }, {
      outcome: answer.outcome, record_type: question.recordType, record_id: answer.recordId ?? null, version: answer.version ?? null,
      basis_hash: question.basisHash, proposed_by_twin_id: question.proposer.twinId,
      // evaluation data: what twin_evaluate reports as "declined by reason"
      ...(answer.reason ? { reason_code: answer.reason.code, reason: answer.reason.text } : {}),
      ...(input.decision === 'approve_with_edits' ? { edited: true } : {}),
      ...(answer.handoffId ? { handoff_id: answer.handoffId } : {}),
      // The decision as answered (outcome, edits, reason, who and when), kept whole on the append-only, chained entry:
      // run_interrupts.answer is a working copy; this is the record (issue 35).
      decision: answer,
    })
    return viewProposal(w.tx, answered[0])
}

const BatchInput = z.object({
  items: z.array(z.object({
    proposalId: IdInput,
    decision: z.enum(DECISIONS),
    edits: Edits.nullish(),
    reason: personText(2000).nullish(),
    reasonCode: z.enum(DECLINE_REASONS).nullish(),
  })).min(1, 'Select at least one proposal.').max(MAX_BATCH_APPROVAL_ITEMS, `A batch holds at most ${MAX_BATCH_APPROVAL_ITEMS} proposals, each selected explicitly.`)
    .refine((items) => new Set(items.map((i) => i.proposalId)).size === items.length, 'A proposal is selected twice.'),
})

export interface BatchItemResult { proposalId: string; proposal: ProposalView | null; error: DomainError | null }
export interface BatchResult { batchId: string; items: BatchItemResult[] }

/** Writes the batch_approval interrupt (the explicit selection) on the run of the first proposal selected. */
const openBatch = command({
  input: z.object({ batchId: IdInput, proposalIds: z.array(IdInput) }),
  async load(q, input, ctx) {
    const found = await q.runInterrupt.findMany({ where: { id: { in: input.proposalIds }, kind: 'write_approval' }, orderBy: { createdAt: 'asc' } })
    const first = found.find((i) => isProposal(i) && ctx.session.programPersonas.has(asQuestion(i).programId))
    if (!first) throw new NotFoundError('Proposal', { field: 'items' })
    return first
  },
  // Any person of the program may ask for a batch; each item is then checked on its own.
  permission: 'program.twins.read_own',
  program: (_i, first) => asQuestion(first).programId,
  audit: ['batch_approval.create'],
  async run(w, input, first) {
    await w.tx.runInterrupt.create({
      data: {
        id: input.batchId, organizationId: w.ctx.session.organizationId, runId: first.runId, kind: 'batch_approval', detached: true,
        question: { items: input.proposalIds, selectedByUserId: w.ctx.session.userId } as object,
      },
    })
    await w.audit('batch_approval.create', { type: 'batch_approval', id: input.batchId }, { items: input.proposalIds.length }, { batchId: input.batchId })
  },
})

/** An item's refusal as its typed error: a permission refusal becomes batch_item_forbidden. */
function itemError(e: unknown): DomainError {
  if (e instanceof DomainError) return e
  if (isGraphQLError(e) && e.extensions?.code === 'FORBIDDEN') return new BatchItemForbidden(`You may not decide this proposal (${String(e.extensions.permission)}).`, { field: 'proposalId' })
  throw e
}

/**
 * Batch approval: at most ten proposals, each selected explicitly, decided one by one in its own transaction
 * (permission-checked and audited on its own, every audit row carrying the batch id); a refused item is answered
 * with its error and the others are still decided. The batch_approval interrupt records the selection and results.
 */
export const decideBatch = Object.assign(async (ctx: DomainContext, raw: { items?: unknown }): Promise<BatchResult> => {
  const { items } = parseInput(BatchInput, raw)
  const batchId = randomUUID()
  const opened = await openBatch(ctx, { batchId, proposalIds: items.map((i) => i.proposalId) }).then(() => true, (e) => {
    if (e instanceof NotFoundError || (isGraphQLError(e) && e.extensions?.code === 'FORBIDDEN')) return false
    throw e
  })
  const results: BatchItemResult[] = []
  for (const item of items) {
    const { proposalId, ...rest } = item
    try {
      const proposal = await inAuditBatch(batchId, () => decideProposal(ctx, { ...rest, id: proposalId, batchId }))
      results.push({ proposalId, proposal, error: null })
    } catch (e) {
      results.push({ proposalId, proposal: null, error: itemError(e) })
    }
  }
  if (opened) {
    await ctx.tdb.runInterrupt.updateMany({
      where: { id: batchId },
      data: {
        answeredByUserId: ctx.session.userId, answeredAt: new Date(),
        answer: { results: results.map((r) => ({ proposalId: r.proposalId, outcome: r.proposal?.answer?.outcome ?? null, error: r.error?.code ?? null })) },
      },
    })
  }
  return { batchId, items: results }
}, { errors: [InvalidInput] as const })
