// Proposals and decisions in the twins subgraph: Proposal (a card with live staleness), Query.proposal,
// InboxItem.proposal, Mutation.decideProposal and Mutation.decideBatch (batch_approval).
import type { ObjectRef } from '@pothos/core'
import type { InboxItem } from '../../../generated/prisma/client'
import type { DomainError } from '../../../core/errors'
import { entityRef, result, type Builder, type SchemaTypes } from '../../shared/builder'
import { DECISIONS, DECLINE_REASONS, decideBatch, decideProposal, viewerCanDecide, type BatchItemResult, type BatchResult, type Decision } from '../../../domain/proposals'
import { getDraft, getProposal, getProposals, getRecordDecisions, type ProposalView } from '../../../domain/proposals'
import type { TwinsRefs } from './refs'
import { addProposalLint } from './proposal-lint'

export function addDecisions(builder: Builder, { ProgramRef, UserRef }: TwinsRefs, { InboxItemRef }: { InboxItemRef: ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, InboxItem> }) {
  const DecisionEnum = builder.enumType('ProposalDecision', {
    values: Object.fromEntries(DECISIONS.map((d) => [d.toUpperCase(), { value: d }])) as Record<Uppercase<Decision>, { value: Decision }>,
  })
  const Status = builder.enumType('ProposalStatus', { values: ['open', 'decided', 'expired'] as const })
  const Outcome = builder.enumType('ProposalOutcome', { values: ['approved', 'approved_with_edits', 'declined'] as const })
  const DeclineReason = builder.enumType('DeclineReason', { values: DECLINE_REASONS })

  const BasisEntry = builder.objectRef<{ recordId: string; version: number }>('ProposalBasisEntry').implement({
    fields: (t) => ({ recordId: t.exposeID('recordId'), version: t.exposeInt('version') }),
  })
  const Draft = builder.objectRef<{ id: string; text: string; label: string; agentGenerated: boolean; createdAt: Date }>('ProposalDraft').implement({
    description: "The agent-generated draft artifact of a proposal; its label reads 'Agent-generated draft, unsigned.'",
    fields: (t) => ({
      id: t.exposeID('id'), text: t.exposeString('text'), label: t.exposeString('label'), agentGenerated: t.exposeBoolean('agentGenerated'),
      createdAt: t.field({ type: 'DateTime', resolve: (d) => d.createdAt }),
    }),
  })
  const Signature = builder.objectRef<{ printedName: string; signedAt: Date; meaning: string }>('ProposalSignature').implement({
    description: 'The signature manifestation: printed name, date and time, meaning (21 CFR 11.50).',
    fields: (t) => ({
      printedName: t.exposeString('printedName'), meaning: t.exposeString('meaning'),
      signedAt: t.field({ type: 'DateTime', resolve: (s) => s.signedAt }),
    }),
  })
  const Content = builder.objectRef<{ title: string; draft: string; body: string | null }>('ProposalContent').implement({
    description: 'What a proposal proposed, or what its decider approved: exactly as written.',
    fields: (t) => ({
      title: t.exposeString('title'),
      draft: t.exposeString('draft', { description: "The draft's text (the twin's as proposed; the decider's as approved)." }),
      body: t.exposeString('body', { nullable: true, description: 'The record text the change writes; null when it writes none.' }),
    }),
  })
  const DecisionInfo = builder.objectRef<ProposalView>('ProposalDecisionRecord').implement({
    description: 'How a proposal was decided. A decline reason is evaluation data: it rates the proposal, never a person.',
    fields: (t) => ({
      outcome: t.field({ type: Outcome, resolve: (v) => v.answer!.outcome }),
      decidedBy: t.field({ type: UserRef, resolve: (v) => entityRef(v.answer!.decidedByUserId) }),
      decidedByName: t.string({ resolve: (v) => v.answer!.decidedByName }),
      decidedAt: t.field({ type: 'DateTime', resolve: (v) => new Date(v.answer!.decidedAt) }),
      reasonCode: t.string({ nullable: true, resolve: (v) => v.answer!.reason?.code ?? null }),
      reason: t.string({ nullable: true, resolve: (v) => v.answer!.reason?.text ?? null }),
      edits: t.field({ type: 'JSON', nullable: true, description: 'The edits exactly as the decider gave them (note included).', resolve: (v) => v.answer!.edits ?? null }),
      note: t.string({ nullable: true, description: "The decider's note ('What you changed and why'), exactly as written.", resolve: (v) => v.answer!.note ?? null }),
      proposed: t.field({
        type: Content, nullable: true, description: 'What was proposed, recorded when deciding (null on decisions recorded before it was kept).',
        resolve: (v) => v.answer!.proposed ?? null,
      }),
      approved: t.field({
        type: Content, nullable: true, description: 'What was approved: the proposed content with the edits laid over it; null when declined.',
        resolve: (v) => v.answer!.approved ?? null,
      }),
      recordId: t.id({ nullable: true, resolve: (v) => v.answer!.recordId ?? null }),
      version: t.int({ nullable: true, resolve: (v) => v.answer!.version ?? null }),
      batchId: t.id({ nullable: true, resolve: (v) => v.answer!.batchId ?? null }),
      footer: t.string({ nullable: true, description: "'Proposed by <Name>'s twin (agent, working as <workbench role or persona name>); decided by <Name>' for every decision on a twin's proposal, approved or declined (without the working-as part when its run recorded no harness).", resolve: (v) => v.footer }),
      delegation: t.string({
        nullable: true, description: "'Routed under delegation from <Name>; decided by <Name> in their own right.' when a delegate decided it (also the footer's last line).",
        resolve: (v) => v.delegation,
      }),
      delegatedFrom: t.field({ type: UserRef, nullable: true, resolve: (v) => (v.answer!.delegatedFromUserId ? entityRef(v.answer!.delegatedFromUserId) : null) }),
      handoffId: t.id({ nullable: true, description: 'The hand-off an approved console.propose_handoff proposal sent.', resolve: (v) => v.answer!.handoffId ?? null }),
      signature: t.field({
        type: Signature, nullable: true,
        resolve: async (v, _a, ctx) => (v.answer!.signatureId ? ctx.tdb.signature.findFirst({ where: { id: v.answer!.signatureId } }) : null),
      }),
    }),
  })

  const AssertionLint = addProposalLint(builder)
  const Proposal = builder.objectRef<ProposalView>('Proposal').implement({
    description: 'A proposed change to a program record, waiting for (or decided by) a person. Twins propose; people decide.',
    fields: (t) => ({
      id: t.exposeID('id'),
      status: t.field({ type: Status, resolve: (v) => v.status }),
      program: t.field({ type: ProgramRef, resolve: (v) => entityRef(v.question.programId) }),
      recordType: t.string({ resolve: (v) => v.question.recordType }),
      title: t.string({ resolve: (v) => v.question.title }),
      changeKind: t.string({ description: 'create, update or decide', resolve: (v) => v.question.change.kind }),
      change: t.field({ type: 'JSON', resolve: (v) => v.question.change }),
      basis: t.field({ type: [BasisEntry], resolve: (v) => v.question.basis }),
      basisHash: t.string({ resolve: (v) => v.question.basisHash }),
      stale: t.boolean({ description: 'Computed now: a record of the basis changed since the proposal was filed.', resolve: (v) => v.stale }),
      viewerCanDecide: t.boolean({ description: "Whether the caller may decide this proposal now: open, and decideProposal's own checks (its decide key, a hand-off's author, the twin's person, their delegate or an approver).", resolve: (v, _a, ctx) => viewerCanDecide(ctx, v) }),
      card: t.string({ nullable: true, description: "'Changed since proposed' while stale and open; 'Expired, nothing written' once expired.", resolve: (v) => v.card }),
      proposedBy: t.field({ type: UserRef, resolve: (v) => entityRef(v.question.proposer.userId) }),
      proposedByName: t.string({ resolve: (v) => v.question.proposer.name }),
      twinId: t.id({ nullable: true, resolve: (v) => v.question.proposer.twinId }),
      runId: t.id({ resolve: (v) => v.interrupt.runId }),
      draft: t.field({
        type: Draft, nullable: true,
        resolve: async (v, _a, ctx) => {
          const a = await getDraft(ctx, v)
          if (!a) return null
          const c = a.content as { text?: string; label?: string }
          return { id: a.id, text: c.text ?? '', label: c.label ?? '', agentGenerated: a.agentGenerated, createdAt: a.createdAt }
        },
      }),
      assertionLint: t.field({
        type: AssertionLint, nullable: true,
        description: 'The assertion lint run before filing (every evidence proposal); null for other proposals.',
        resolve: (v) => v.question.lint ?? null,
      }),
      uncitedInterpretations: t.stringList({
        nullable: true,
        description: 'The sentences assertionLint flagged as interpretations without a citation ([] when none; null when the proposal was not linted). What the decision card lists.',
        resolve: (v) => (v.question.lint ? v.question.lint.uncited.map((u) => u.text) : null),
      }),
      decision: t.field({ type: DecisionInfo, nullable: true, resolve: (v) => (v.answer ? v : null) }),
      expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.interrupt.expiresAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (v) => v.interrupt.createdAt }),
    }),
  })

  builder.objectField(InboxItemRef, 'proposal', (t) => t.field({
    type: Proposal, nullable: true, description: 'The proposal a decision item points at.',
    // Batched: a page of decision items (the role home's, an inbox page) reads its proposals and their staleness in two
    // queries, not two per item. Each inboxChanged event runs on fresh loaders (subscribeFreshPerEvent in
    // subgraphs/shared/server.ts), so the next event sees the proposal as it is then, not as the first event read it.
    resolve: (i, _a, ctx) => i.sourceType !== 'proposal' ? null
      : ctx.loader('InboxItem.proposal', (ids: readonly string[]) => getProposals(ctx, ids)).load(i.sourceId),
  }))

  const Edits = builder.inputType('ProposalEditsInput', {
    description: 'What the decider changes before approving: laid over the proposed change.',
    fields: (t) => ({
      title: t.string(), fields: t.field({ type: 'JSON' }), citations: t.field({ type: ['JSON'] }), outcome: t.string(),
      note: t.string({ description: "What you changed and why: kept exactly, on the decision and on the record version it makes. A note alone is an edit." }),
      draft: t.string({ description: "The draft's text as you approve it (kept beside the proposed text)." }),
      body: t.string({ description: 'The record text as you approve it, laid over the change (not for a status decision).' }),
    }),
  })
  const BatchItemInput = builder.inputType('BatchDecisionInput', {
    fields: (t) => ({
      proposalId: t.id({ required: true }),
      decision: t.field({ type: DecisionEnum, required: true }),
      edits: t.field({ type: Edits }),
      reason: t.string(),
      reasonCode: t.field({ type: DeclineReason }),
    }),
  })
  // A plain object, not the Error interface: graphql-js treats an Error instance a resolver returns as a failure.
  const Refusal = builder.objectRef<{ error: DomainError }>('BatchItemRefusal').implement({
    description: 'Why one item of a batch was not decided: its error code (batch_item_forbidden, stale_proposal, not_found, ...).',
    fields: (t) => ({
      code: t.string({ resolve: (r) => r.error.code }),
      message: t.string({ resolve: (r) => r.error.message }),
      field: t.string({ nullable: true, resolve: (r) => r.error.field ?? null }),
    }),
  })
  const BatchItem = builder.objectRef<BatchItemResult>('BatchDecisionItem').implement({
    fields: (t) => ({
      proposalId: t.exposeID('proposalId'),
      proposal: t.field({ type: Proposal, nullable: true, resolve: (r) => r.proposal }),
      error: t.field({ type: Refusal, nullable: true, resolve: (r) => (r.error ? { error: r.error } : null) }),
    }),
  })
  const Batch = builder.objectRef<BatchResult>('BatchDecision').implement({
    description: 'A batch_approval: one batch id on every audit row of its items.',
    fields: (t) => ({ batchId: t.exposeID('batchId'), items: t.field({ type: [BatchItem], resolve: (b) => b.items }) }),
  })

  const clean = (e: { title?: string | null; fields?: unknown; citations?: unknown[] | null; outcome?: string | null; note?: string | null; draft?: string | null; body?: string | null } | null | undefined) =>
    e ? Object.fromEntries(Object.entries(e).filter(([, v]) => v != null)) : e

  builder.queryFields((t) => ({
    proposal: t.field({
      type: Proposal, nullable: true, description: 'One proposal of a program the caller is a member of; its card is computed now.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, { id }, ctx) => getProposal(ctx, String(id)),
    }),
    recordDecisions: t.field({
      type: [Proposal],
      description: 'The decided proposals on one record, newest first (at most 50): those whose change targets it, approved or declined, and the one whose approval created it. What the record page shows as its decisions.',
      args: { recordId: t.arg.id({ required: true }), first: t.arg.int({ defaultValue: 20 }) },
      resolve: (_r, { recordId, first }, ctx) => getRecordDecisions(ctx, String(recordId), first ?? 20),
    }),
  }))
  builder.mutationFields((t) => ({
    decideProposal: t.field({
      type: Proposal,
      description: 'Approve, approve with edits, or decline (a reason is required) a proposal. Deciding again the same way answers the first outcome; another outcome, other edits or another decline reason is InvalidTransition.',
      errors: result(decideProposal, 'proposal'),
      args: {
        id: t.arg.id({ required: true }),
        decision: t.arg({ type: DecisionEnum, required: true }),
        edits: t.arg({ type: Edits }),
        reason: t.arg.string(),
        reasonCode: t.arg({ type: DeclineReason }),
      },
      resolve: (_r, a, ctx) => decideProposal(ctx, { id: a.id, decision: a.decision, edits: clean(a.edits), reason: a.reason, reasonCode: a.reasonCode }),
    }),
    decideBatch: t.field({
      type: Batch,
      description: 'A batch_approval: at most 10 proposals, each selected explicitly, permission-checked and audited on its own.',
      errors: result(decideBatch, 'batch'),
      args: { items: t.arg({ type: [BatchItemInput], required: true }) },
      resolve: (_r, { items }, ctx) => decideBatch(ctx, { items: items.map((i) => ({ ...i, edits: clean(i.edits) })) }),
    }),
  }))
}
