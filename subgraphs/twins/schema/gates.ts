// Stage gates in the twins subgraph (twins document, Endpoints "Stage gates (7)", R4): Query.stageGates,
// Query.stageGate, Query.stageGateBrief, Mutation.openStageGate, markStageGateReady, reviewStageGate (signature),
// closeStageGate (signature and approval), and the operations reopen and supersede; Program.currentStage and
// Program.stagePlan; Subscription.stageGateReadinessChanged(programId). Resolvers translate; domain/gates.ts decides.
import type { Artifact, ProgramStage, ReviewAuditReview, Signature, StageGate } from '../../../generated/prisma/client'
import { entityRef, result, successExtra, withSuccessExtras, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import { can } from '../../../core/identity'
import * as gates from '../../../domain/gates'
import * as reviewAudit from '../../../domain/proposals'
import { REQUIRED_RECORD_KINDS, asRequiredRecords, type RequirementState } from '../../../domain/gates'
import { manifestation } from '../../../domain/signatures'
import type { StageGateEvents } from '../../../domain/gates'
import type { TwinsRefs } from './refs'

export function addStageGates(builder: Builder, { ProgramRef, UserRef }: TwinsRefs, deps: { stageGateEvents: StageGateEvents }) {
  const Status = builder.enumType('StageGateStatus', { values: gates.STAGE_GATE_STATUSES })
  const Kind = builder.enumType('RequiredRecordKind', { values: REQUIRED_RECORD_KINDS })
  const Meaning = builder.enumType('StageGateSignatureMeaning', {
    description: 'What a stage gate signature means: review (the quality review) or approval (the close).',
    values: ['review', 'approval'] as const,
  })

  const Stage = builder.objectRef<ProgramStage>('StageGateStage').implement({
    description: "A stage of the program's stage plan (program_stages, in position order).",
    fields: (t) => ({ id: t.exposeID('id'), key: t.exposeString('key'), name: t.exposeString('name'), position: t.exposeInt('position') }),
  })

  const Required = builder.objectRef<RequirementState>('RequiredRecord').implement({
    description: 'One requirement of a gate and whether it is present (docs/console-developers.md, Stage gates: the required_records payload).',
    fields: (t) => ({
      key: t.exposeString('key'),
      kind: t.field({ type: Kind, resolve: (r) => r.kind }),
      label: t.exposeString('label'),
      present: t.exposeBoolean('present'),
      found: t.idList({ description: 'What satisfies it (record, artifact or requirement set ids), or the tagged milestones not done yet.', resolve: (r) => r.found }),
      missing: t.string({ nullable: true, description: 'Why it is missing; null when present.', resolve: (r) => r.missing }),
      recordType: t.string({ nullable: true, resolve: (r) => (r.kind === 'decided_record' ? r.recordType : null) }),
      recordId: t.id({ nullable: true, resolve: (r) => (r.kind === 'decided_record' ? r.recordId ?? null : null) }),
      min: t.int({ nullable: true, resolve: (r) => (r.kind === 'decided_record' ? r.min ?? null : null) }),
      skillKey: t.string({ nullable: true, resolve: (r) => (r.kind === 'skill_result' ? r.skillKey : null) }),
      requirementSetId: t.id({ nullable: true, resolve: (r) => (r.kind === 'requirement_set' ? r.requirementSetId ?? null : null) }),
    }),
  })

  const GateSignature = builder.objectRef<Signature>('StageGateSignature').implement({
    description: 'A signature on a stage gate as 21 CFR 11.50 shows it: printed name, date and time, and meaning.',
    fields: (t) => ({
      id: t.exposeID('id'),
      printedName: t.exposeString('printedName'),
      signedAt: t.field({ type: 'DateTime', resolve: (s) => s.signedAt }),
      meaning: t.exposeString('meaning'),
      signer: t.field({ type: UserRef, resolve: (s) => entityRef(s.signerUserId) }),
      authenticatedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the signer authenticated for this signature (a fresh sign-in at the identity provider, 21 CFR 11.200); null for signatures made without one (seeds) and before it was recorded.', resolve: (s) => s.authenticatedAt }),
      manifestation: t.string({ description: '"<printed name>, <ISO date and time>, <meaning>".', resolve: (s) => manifestation(s) }),
    }),
  })

  const Brief = builder.objectRef<Artifact>('ReadinessBrief').implement({
    description: "A gate's readiness_brief, written by a stage_readiness run: 'Agent-generated draft, unsigned.'",
    fields: (t) => ({
      artifactId: t.exposeID('id'),
      version: t.exposeInt('version'),
      runId: t.id({ nullable: true, resolve: (a) => a.runId }),
      label: t.string({ resolve: (a) => String((a.content as { label?: string }).label ?? '') }),
      heading: t.string({ resolve: (a) => String((a.content as { heading?: string }).heading ?? '') }),
      card: t.string({ resolve: (a) => String((a.content as { card?: string }).card ?? '') }),
      missing: t.stringList({ resolve: (a) => ((a.content as { missing?: string[] }).missing ?? []) }),
      content: t.field({ type: 'JSON', resolve: (a) => a.content }),
      createdAt: t.field({ type: 'DateTime', resolve: (a) => a.createdAt }),
    }),
  })

  const sig = (ctx: { tdb: { signature: { findFirst(a: object): Promise<Signature | null> } } }, id: string | null) =>
    id ? ctx.tdb.signature.findFirst({ where: { id } }) : null

  // The four viewer fields of one gate ask once (closing reads the review's signer).
  const asked = new WeakMap<StageGate, Promise<gates.GateViewerActions>>()
  const viewerActions = (ctx: Parameters<typeof gates.gateViewerActions>[0], g: StageGate) => {
    let p = asked.get(g)
    if (!p) asked.set(g, p = gates.gateViewerActions(ctx, g))
    return p
  }
  const Gate = builder.objectRef<StageGate>('StageGate')
  Gate.implement({
    description: 'A stage gate: the only writer of the program\'s current stage. open -> ready -> reviewed -> closed (reopen, supersede).',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: (g) => entityRef(g.programId) }),
      stage: t.field({ type: Stage, resolve: (g, _a, ctx) => ctx.tdb.programStage.findFirstOrThrow({ where: { id: g.stageId } }) }),
      nextStage: t.field({ type: Stage, resolve: (g, _a, ctx) => ctx.tdb.programStage.findFirstOrThrow({ where: { id: g.nextStageId } }) }),
      version: t.exposeInt('version'),
      status: t.field({ type: Status, resolve: (g) => g.status }),
      requiredRecords: t.field({ type: [Required], resolve: (g) => asRequiredRecords(g.requiredRecords).items }),
      present: t.int({ resolve: (g) => asRequiredRecords(g.requiredRecords).present }),
      total: t.int({ resolve: (g) => asRequiredRecords(g.requiredRecords).total }),
      card: t.string({ description: "'<N> of <M> required records present'", resolve: (g) => gates.gateCard(g) }),
      readinessComputedAt: t.string({ nullable: true, resolve: (g) => asRequiredRecords(g.requiredRecords).computedAt || null }),
      openedAt: t.field({ type: 'DateTime', resolve: (g) => g.openedAt }),
      openedBy: t.field({ type: UserRef, nullable: true, resolve: (g) => (g.openedBy ? entityRef(g.openedBy) : null) }),
      readyBy: t.field({ type: UserRef, nullable: true, resolve: (g) => (g.readyBy ? entityRef(g.readyBy) : null) }),
      readyAt: t.field({ type: 'DateTime', nullable: true, resolve: (g) => g.readyAt }),
      reviewSignature: t.field({ type: GateSignature, nullable: true, resolve: (g, _a, ctx) => sig(ctx, g.reviewSignatureId) }),
      closeSignature: t.field({ type: GateSignature, nullable: true, resolve: (g, _a, ctx) => sig(ctx, g.closeSignatureId) }),
      closeApprovalId: t.id({ nullable: true, resolve: (g) => g.closeApprovalId }),
      signatures: t.field({ type: [GateSignature], description: 'Every signature on this gate, oldest first (a reopened gate keeps its earlier review).', resolve: (g, _a, ctx) => gates.gateSignatures(ctx.tdb, g) }),
      closedAt: t.field({ type: 'DateTime', nullable: true, resolve: (g) => g.closedAt }),
      viewerCanMarkReady: t.boolean({ description: "Whether the caller may mark this open gate ready (markStageGateReady's own check).", resolve: async (g, _a, ctx) => (await viewerActions(ctx, g)).markReady }),
      viewerCanReview: t.boolean({ description: "Whether the caller may sign this ready gate's review (reviewStageGate's own checks).", resolve: async (g, _a, ctx) => (await viewerActions(ctx, g)).review }),
      viewerCanClose: t.boolean({ description: "Whether the caller may close this reviewed gate (closeStageGate's own checks, same_signer included).", resolve: async (g, _a, ctx) => (await viewerActions(ctx, g)).close }),
      viewerCannotReason: t.string({ nullable: true, description: "When the gate's next step is not the caller's to take: why, in words; null otherwise (and for a closed gate).", resolve: async (g, _a, ctx) => (await viewerActions(ctx, g)).reason }),
      footer: t.string({ nullable: true, description: "'Stage gate reviewed by <Name> (reviewed) and closed by <Name> (approved)' once closed by close (null otherwise).", resolve: (g, _a, ctx) => gates.gateFooter(ctx.tdb, g) }),
      supersedesId: t.id({ nullable: true, resolve: (g) => g.supersedesId }),
      supersedes: t.field({ type: Gate, nullable: true, resolve: (g, _a, ctx) => (g.supersedesId ? gates.getStageGate(ctx, g.supersedesId) : null) }),
      briefVersion: t.int({ nullable: true, resolve: (g) => g.briefVersion }),
      brief: t.field({ type: Brief, nullable: true, resolve: (g, _a, ctx) => gates.stageGateBrief(ctx, g.id) }),
    }),
  })

  const GateConnection = connectionType(builder, 'StageGate', Gate, "A page of a program's stage gates, newest first.")

  const RequiredInput = builder.inputType('RequiredRecordInput', {
    description: 'One requirement: decided_record (recordType, and recordId or min), requirement_set (requirementSetId optional), skill_result (skillKey), critical_milestones.',
    fields: (t) => ({
      kind: t.field({ type: Kind, required: true }),
      recordType: t.string(), recordId: t.id(), min: t.int(), skillKey: t.string(), requirementSetId: t.id(), label: t.string(),
    }),
  })
  const OpenInput = builder.inputType('OpenStageGateInput', {
    fields: (t) => ({
      programId: t.id({ required: true }), stageId: t.id({ required: true }), nextStageId: t.id({ required: true }),
      requiredRecords: t.field({ type: [RequiredInput], required: true }),
    }),
  })
  const SignatureInput = builder.inputType('StageGateSignatureInput', {
    description: 'The signature given with review (meaning review) or close (meaning approval); printed name and time are recorded.',
    fields: (t) => ({ meaning: t.field({ type: Meaning, required: true }) }),
  })

  const clean = (reqs: readonly Record<string, unknown>[]) => reqs.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null && v !== undefined)))

  builder.queryFields((t) => ({
    stageGates: t.field({
      type: GateConnection, description: 'GET P/progress/stage-gates (progress.stages.read)',
      args: { programId: t.arg.id({ required: true }), status: t.arg({ type: [Status], required: false }), ...pageArgs(t.arg) },
      resolve: (_r, args, ctx) => gates.listStageGates(ctx, String(args.programId), args),
    }),
    stageGate: t.field({
      type: Gate, nullable: true, description: 'GET P/progress/stage-gates/{gate_id}',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => gates.getStageGate(ctx, String(id)),
    }),
    stageGateBrief: t.field({
      type: Brief, nullable: true, description: 'GET P/progress/stage-gates/{gate_id}/brief: the latest readiness_brief',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => gates.stageGateBrief(ctx, String(id)),
    }),
  }))

  builder.mutationFields((t) => ({
    openStageGate: t.field({
      type: Gate, errors: result(gates.openStageGate, 'gate'), description: 'POST P/progress/stage-gates (progress.stages.manage)',
      args: { input: t.arg({ type: OpenInput, required: true }) },
      resolve: (_r, { input }, ctx) => gates.openStageGate(ctx, { ...input, requiredRecords: clean(input.requiredRecords as Record<string, unknown>[]) }),
    }),
    markStageGateReady: t.field({
      type: Gate, errors: result(gates.markStageGateReady, 'gate'), description: 'POST P/progress/stage-gates/{gate_id}/ready (progress.stages.manage)',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => gates.markStageGateReady(ctx, { id }),
    }),
    reopenStageGate: t.field({
      type: Gate, errors: result(gates.reopenStageGate, 'gate'), description: 'Operation reopen: a ready or reviewed gate back to open (progress.stages.manage)',
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
      resolve: (_r, { id, reason }, ctx) => gates.reopenStageGate(ctx, { id, reason }),
    }),
    reviewStageGate: t.field({
      type: Gate, errors: result(gates.reviewStageGate, 'gate'), description: 'POST P/progress/stage-gates/{gate_id}/review (signature; review.stage_reviews.approve)',
      args: { id: t.arg.id({ required: true }), signature: t.arg({ type: SignatureInput, required: true }), comment: t.arg.string() },
      resolve: (_r, { id, signature, comment }, ctx) => gates.reviewStageGate(ctx, { id, signature, comment }),
    }),
    closeStageGate: t.field({
      type: Gate, errors: result(gates.closeStageGate, 'gate'), description: 'POST P/progress/stage-gates/{gate_id}/close (signature and approval; progress.stages.approve)',
      args: { id: t.arg.id({ required: true }), signature: t.arg({ type: SignatureInput, required: true }), comment: t.arg.string() },
      resolve: (_r, { id, signature, comment }, ctx) => gates.closeStageGate(ctx, { id, signature, comment }),
    }),
    supersedeStageGate: t.field({
      type: Gate,
      errors: {
        ...result(gates.supersedeStageGate, 'gate'),
        result: { fields: (t) => ({
          superseded: t.field({ type: Gate, description: 'The version replaced (the new gate\'s supersedesId names it).', resolve: (g) => successExtra<StageGate>(g, 'superseded') }),
        }) },
      },
      description: 'Operation supersede: a new version replaces a gate that is not closed (progress.stages.manage); `gate` is the new version',
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }), nextStageId: t.arg.id(), requiredRecords: t.arg({ type: [RequiredInput] }) },
      resolve: async (_r, { id, reason, nextStageId, requiredRecords }, ctx) => {
        const r = await gates.supersedeStageGate(ctx, {
          id, reason, nextStageId: nextStageId ?? undefined, requiredRecords: requiredRecords ? clean(requiredRecords as Record<string, unknown>[]) : undefined,
        })
        return withSuccessExtras(r.gate, { superseded: r.superseded })
      },
    }),
  }))

  builder.objectField(ProgramRef, 'currentStage', (t) => t.field({
    type: Stage, nullable: true, description: 'The stage the program is at (changed only by closing its stage gate); null where stage gates may not be read.',
    resolve: async (p, _a, ctx) => {
      if (!can(ctx.session, 'progress.stages.read', p.id)) return null
      const program = await ctx.tdb.program.findFirst({ where: { id: p.id }, select: { currentStageId: true } })
      return program?.currentStageId ? ctx.tdb.programStage.findFirst({ where: { id: program.currentStageId } }) : null
    },
  }))
  builder.objectField(ProgramRef, 'stagePlan', (t) => t.field({
    type: [Stage], description: "The program's stages in order (empty where stage gates may not be read).",
    resolve: (p, _a, ctx) => (can(ctx.session, 'progress.stages.read', p.id) ? ctx.tdb.programStage.findMany({ where: { programId: p.id }, orderBy: { position: 'asc' } }) : []),
  }))

  // ---- review_audit_reviews: the monthly QA oversight summary (counts and ids only) --------------------------------
  const AuditReview = builder.objectRef<ReviewAuditReview>('ReviewAuditReview').implement({
    description: "A program's QA oversight summary for a period: counts and ids only, accepted by a quality reviewer.",
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: (r) => entityRef(r.programId) }),
      periodStart: t.field({ type: 'DateTime', resolve: (r) => r.periodStart }),
      periodEnd: t.field({ type: 'DateTime', resolve: (r) => r.periodEnd }),
      summary: t.field({ type: 'JSON', description: 'actions (count and target ids per audit action), signatures (per meaning), stage_gates (by status, closed in the period).', resolve: (r) => r.summary }),
      artifactId: t.id({ nullable: true, resolve: (r) => r.artifactId }),
      acceptedBy: t.field({ type: UserRef, nullable: true, resolve: (r) => (r.acceptedBy ? entityRef(r.acceptedBy) : null) }),
      acceptedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.acceptedAt }),
    }),
  })
  builder.queryFields((t) => ({
    reviewAuditReviews: t.field({
      type: [AuditReview], description: "The program's QA oversight summaries, latest period first (program.audit.read; at most 24).",
      args: { programId: t.arg.id({ required: true }) }, resolve: (_r, { programId }, ctx) => reviewAudit.listReviewAuditReviews(ctx, String(programId)),
    }),
  }))
  builder.mutationFields((t) => ({
    produceReviewAuditReview: t.field({
      type: AuditReview, errors: result(reviewAudit.produceReviewAuditReview, 'review'),
      description: 'Produces the QA oversight summary of a period (default last calendar month, UTC; program.audit.read).',
      args: { programId: t.arg.id({ required: true }), periodStart: t.arg.string(), periodEnd: t.arg.string() },
      resolve: (_r, { programId, periodStart, periodEnd }, ctx) => reviewAudit.produceReviewAuditReview(ctx, { programId, periodStart: periodStart ?? undefined, periodEnd: periodEnd ?? undefined }),
    }),
    acceptReviewAuditReview: t.field({
      type: AuditReview, errors: result(reviewAudit.acceptReviewAuditReview, 'review'),
      description: 'A quality reviewer accepts the summary (reviewer_role_required for anyone else).',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => reviewAudit.acceptReviewAuditReview(ctx, { id }),
    }),
  }))

  builder.subscriptionFields((t) => ({
    stageGateReadinessChanged: t.field({
      type: Gate,
      description: "A stage gate of the program changed readiness or status ('<N> of <M>' moving as records are decided). Permission (progress.stages.read) is checked when subscribing and for every event; events are not durable.",
      args: { programId: t.arg.id({ required: true }) },
      subscribe: (_r, { programId }, ctx) => deps.stageGateEvents.subscribeProgram(ctx.session, String(programId)),
      resolve: (gate: StageGate) => gate,
    }),
  }))
}
