// Hand-offs, delegations, mentions and oversight in the twins subgraph (issue 17): the seven hand-off routes
// (Query.handoffs / handoff, Mutation.createHandoff / acceptHandoff / declineHandoff / completeHandoff / withdrawHandoff),
// the three delegation routes (Query.myDelegations, Mutation.createDelegation / revokeDelegation), threads with mentions
// (Query.thread, Mutation.createThread / shareThread / postMessage / letMyTwinLook), Query.board, Query.decisionMetrics
// and Query.twinsExport. Resolvers translate; the domain modules decide and check permissions.
import type { Delegation, HandoffRequest, Message, Thread } from '../../../generated/prisma/client'
import { entityRef, result, successExtra, withSuccessExtras, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import {
  HANDOFF_KINDS, HANDOFF_PERSONAS, HANDOFF_STATUSES, LINKED_TYPES, acceptHandoff, completeHandoff, createHandoff, declineHandoff, getHandoff,
  listHandoffs, withdrawHandoff, type Redaction,
} from '../../../domain/collaboration'
import { createDelegation, getMyDelegation, listMyDelegations, revokeDelegation } from '../../../domain/collaboration'
import { composerHint, createThread, getThread, letMyTwinLook, listMessages, postMessage, shareThread } from '../../../domain/collaboration'
import { decisionMetrics, programBoard, twinsExport, type BoardItem, type DecisionMetrics, type ExportRow, type PersonaMetrics, type UserMetrics } from '../../../domain/collaboration'
import type { TwinsRefs } from './refs'

export function addHandoffs(builder: Builder, { ProgramRef, UserRef }: TwinsRefs) {
  const Kind = builder.enumType('HandoffKind', { values: HANDOFF_KINDS })
  const Status = builder.enumType('HandoffStatus', { values: HANDOFF_STATUSES })
  const Persona = builder.enumType('HandoffPersona', { description: 'Personas a hand-off may be addressed to (every program persona but viewer).', values: HANDOFF_PERSONAS })
  const LinkedType = builder.enumType('HandoffLinkedType', { values: LINKED_TYPES })
  const DelegationStatus = builder.enumType('DelegationStatus', { values: ['active', 'expired', 'revoked'] as const })

  const RedactionRef = builder.objectRef<Redaction>('HandoffRedaction').implement({
    description: 'What was taken out of a hand-off message, by kind (secret, unreadable_record, or a sanitiser finding) and count; never the text.',
    fields: (t) => ({ kind: t.exposeString('kind'), count: t.exposeInt('count') }),
  })

  const Handoff = builder.objectRef<HandoffRequest>('Handoff').implement({
    description: 'A hand-off request: the only channel between twins. Created in sent when a person sends it (or approves their twin\'s proposal).',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: (h) => entityRef(h.programId) }),
      kind: t.field({ type: Kind, resolve: (h) => h.kind }),
      status: t.field({ type: Status, resolve: (h) => h.status }),
      from: t.field({ type: UserRef, resolve: (h) => entityRef(h.fromUserId) }),
      fromTwinId: t.id({ nullable: true, resolve: (h) => h.fromTwinId }),
      toPersonaKey: t.exposeString('toPersonaKey'),
      to: t.field({ type: UserRef, nullable: true, resolve: (h) => (h.toUserId ? entityRef(h.toUserId) : null) }),
      linkedType: t.exposeString('linkedType'),
      linkedId: t.exposeString('linkedId'),
      messageMd: t.string({ description: 'Exactly as the sender wrote it, but for secrets and references to records the recipients may not read (each replaced by a bracketed label, counted in redactions).', resolve: (h) => h.messageMd }),
      redactions: t.field({ type: [RedactionRef], resolve: (h) => (h.redactions as unknown as Redaction[]) ?? [] }),
      threadId: t.id({ nullable: true, resolve: (h) => h.threadId }),
      proposalId: t.id({ nullable: true, description: 'The console.propose_handoff proposal its author approved.', resolve: (h) => h.proposalId }),
      decidedBy: t.field({ type: UserRef, nullable: true, resolve: (h) => (h.decidedBy ? entityRef(h.decidedBy) : null) }),
      decidedAt: t.field({ type: 'DateTime', nullable: true, resolve: (h) => h.decidedAt }),
      reason: t.string({ nullable: true, description: 'The decline reason: evaluation data.', resolve: (h) => h.reason }),
      createdAt: t.field({ type: 'DateTime', resolve: (h) => h.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (h) => h.updatedAt }),
    }),
  })
  const HandoffConnection = connectionType(builder, 'Handoff', Handoff)

  const DelegationRef = builder.objectRef<Delegation>('Delegation').implement({
    description: "One-hop routing of a person's write approvals to a delegate, for at most 30 days.",
    fields: (t) => ({
      id: t.exposeID('id'),
      user: t.field({ type: UserRef, resolve: (d) => entityRef(d.userId) }),
      delegate: t.field({ type: UserRef, resolve: (d) => entityRef(d.delegateUserId) }),
      program: t.field({ type: ProgramRef, nullable: true, resolve: (d) => (d.programId ? entityRef(d.programId) : null) }),
      startsAt: t.field({ type: 'DateTime', resolve: (d) => d.startsAt }),
      endsAt: t.field({ type: 'DateTime', resolve: (d) => d.endsAt }),
      reason: t.exposeString('reason'),
      renewalCount: t.exposeInt('renewalCount'),
      revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.revokedAt }),
      status: t.field({ type: DelegationStatus, resolve: (d) => d.status }),
      createdAt: t.field({ type: 'DateTime', resolve: (d) => d.createdAt }),
    }),
  })

  const MessageRef = builder.objectRef<Message>('ThreadMessage').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      author: t.field({ type: UserRef, resolve: (m) => entityRef(m.authorUserId) }),
      bodyMd: t.exposeString('bodyMd'),
      mentions: t.field({ type: [UserRef], resolve: (m) => m.mentions.map((id) => entityRef(id)) }),
      createdAt: t.field({ type: 'DateTime', resolve: (m) => m.createdAt }),
    }),
  })
  const ThreadRef = builder.objectRef<Thread>('Thread').implement({
    description: 'A program conversation, only as far as mentions need one: private to its author until shared.',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: (x) => entityRef(x.programId) }),
      title: t.exposeString('title'),
      private: t.exposeBoolean('private'),
      composerHint: t.string({ nullable: true, description: "'Share this thread to mention colleagues.' while private.", resolve: (x) => composerHint(x) }),
      messages: t.field({ type: [MessageRef], resolve: (x, _a, ctx) => listMessages(ctx, x.id) }),
      createdAt: t.field({ type: 'DateTime', resolve: (x) => x.createdAt }),
    }),
  })

  const BoardKind = builder.enumType('BoardItemKind', { values: ['decision', 'handoff', 'twin'] as const })
  const BoardItemRef = builder.objectRef<BoardItem>('BoardItem').implement({
    description: 'One line of the program board: an open decision, a sent or accepted hand-off, or a twin and its state.',
    fields: (t) => ({
      kind: t.field({ type: BoardKind, resolve: (b) => b.kind }),
      id: t.exposeID('id'),
      title: t.exposeString('title'),
      status: t.exposeString('status'),
      user: t.field({ type: UserRef, resolve: (b) => entityRef(b.userId) }),
      personaKey: t.string({ nullable: true, resolve: (b) => b.personaKey }),
      dueAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => b.dueAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (b) => b.createdAt }),
    }),
  })
  const BoardConnection = connectionType(builder, 'BoardItem', BoardItemRef, 'A page of the program board, newest first.')

  const ReasonCount = builder.objectRef<{ reason: string; count: number }>('DeclineReasonCount').implement({
    fields: (t) => ({ reason: t.exposeString('reason'), count: t.exposeInt('count') }),
  })
  const countFields = (t: any) => ({
    filed: t.exposeInt('filed'),
    approvedUnchanged: t.exposeInt('approvedUnchanged'),
    edited: t.exposeInt('edited'),
    declined: t.exposeInt('declined'),
    declinedByReason: t.field({ type: [ReasonCount], resolve: (m: PersonaMetrics) => m.declinedByReason }),
    refused: t.exposeInt('refused'),
    expired: t.exposeInt('expired'),
  })
  const PersonaMetricsRef = builder.objectRef<PersonaMetrics>('PersonaDecisionMetrics').implement({
    fields: (t) => ({ personaKey: t.exposeString('personaKey'), ...countFields(t) }),
  })
  const UserMetricsRef = builder.objectRef<UserMetrics>('UserDecisionMetrics').implement({
    fields: (t) => ({ user: t.field({ type: UserRef, resolve: (m) => entityRef(m.userId) }), personaKey: t.exposeString('personaKey'), ...countFields(t) }),
  })
  const Baseline = builder.objectRef<NonNullable<DecisionMetrics['baseline']>>('DecisionMetricsBaseline').implement({
    fields: (t) => ({
      since: t.field({ type: 'DateTime', resolve: (b) => b.since }),
      until: t.field({ type: 'DateTime', resolve: (b) => b.until }),
      perPersona: t.field({ type: [PersonaMetricsRef], resolve: (b) => b.perPersona }),
    }),
  })
  const Metrics = builder.objectRef<DecisionMetrics>('DecisionMetrics').implement({
    description: 'What twin proposals became, per persona. Counts of proposals, decisions and tool calls only: no inbox feedback, no memory.',
    fields: (t) => ({
      program: t.field({ type: ProgramRef, resolve: (m) => entityRef(m.programId) }),
      since: t.field({ type: 'DateTime', resolve: (m) => m.since }),
      until: t.field({ type: 'DateTime', resolve: (m) => m.until }),
      perPersona: t.field({ type: [PersonaMetricsRef], resolve: (m) => m.perPersona }),
      byUser: t.field({ type: [UserMetricsRef], nullable: true, description: 'Only under program.twins.read; null otherwise.', resolve: (m) => m.byUser }),
      baseline: t.field({ type: Baseline, nullable: true, resolve: (m) => m.baseline }),
    }),
  })

  const ExportKind = builder.enumType('TwinsExportKind', { values: ['twin', 'trigger', 'run', 'tool_call', 'handoff', 'delegation'] as const })
  const ExportRowRef = builder.objectRef<ExportRow>('TwinsExportRow').implement({
    description: 'One row of the twins export: metadata only (never tool_calls.arguments, message text or memory).',
    fields: (t) => ({
      kind: t.field({ type: ExportKind, resolve: (r) => r.kind }),
      id: t.exposeID('id'),
      programId: t.id({ nullable: true, resolve: (r) => r.programId }),
      status: t.string({ nullable: true, resolve: (r) => r.status }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
      metadata: t.field({ type: 'JSON', resolve: (r) => r.metadata }),
    }),
  })
  const ExportConnection = connectionType(builder, 'TwinsExportRow', ExportRowRef, 'A page of the twins export (up to 300 rows), newest first; follow endCursor to stream the rest.')

  builder.queryFields((t) => ({
    handoffs: t.field({
      type: HandoffConnection, description: "GET P/handoffs: the program's hand-offs, newest first (program.handoffs.read).",
      args: { programId: t.arg.id({ required: true }), status: t.arg({ type: [Status] }), ...pageArgs(t.arg) },
      resolve: (_r, a, ctx) => listHandoffs(ctx, String(a.programId), { first: a.first, after: a.after, status: a.status ?? null }),
    }),
    handoff: t.field({
      type: Handoff, nullable: true, description: 'GET P/handoffs/{handoff_id}: one hand-off of a program where the caller holds program.handoffs.read.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => getHandoff(ctx, String(a.id)),
    }),
    myDelegations: t.field({
      type: [DelegationRef], description: 'GET /me/delegations: delegations the caller gave or received, newest first.',
      args: { status: t.arg({ type: [DelegationStatus] }) },
      resolve: (_r, a, ctx) => listMyDelegations(ctx, { status: a.status ?? null }),
    }),
    delegation: t.field({
      type: DelegationRef, nullable: true, args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => getMyDelegation(ctx, String(a.id)),
    }),
    thread: t.field({
      type: ThreadRef, nullable: true, description: 'A thread the caller may read (shared in their program, or private and theirs).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => getThread(ctx, String(a.id)),
    }),
    board: t.field({
      type: BoardConnection, description: "GET P/board: the program's open decisions, hand-offs and twins (program.twins.read), newest first.",
      args: { programId: t.arg.id({ required: true }), ...pageArgs(t.arg) },
      resolve: (_r, a, ctx) => programBoard(ctx, String(a.programId), { first: a.first, after: a.after }),
    }),
    decisionMetrics: t.field({
      type: Metrics,
      description: 'GET P/metrics/decisions: per-persona aggregates under program.audit.read; byUser only under program.twins.read. A baseline window with no proposal answers baseline_missing.',
      args: {
        programId: t.arg.id({ required: true }), since: t.arg({ type: 'DateTime' }), until: t.arg({ type: 'DateTime' }),
        baselineSince: t.arg({ type: 'DateTime' }), baselineUntil: t.arg({ type: 'DateTime' }),
      },
      resolve: (_r, a, ctx) => decisionMetrics(ctx, String(a.programId), { since: a.since, until: a.until, baselineSince: a.baselineSince, baselineUntil: a.baselineUntil }),
    }),
    twinsExport: t.field({
      type: ExportConnection,
      description: 'GET /orgs/current/twins/export (org.audit.read): metadata rows in keyset pages of up to 300 (REST download: GET /orgs/current/twins/export, NDJSON); never tool_calls.arguments.',
      args: { first: t.arg.int(), after: t.arg.string() },
      resolve: (_r, a, ctx) => twinsExport(ctx, { first: a.first, after: a.after }),
    }),
  }))

  const HandoffInput = builder.inputType('HandoffInput', {
    fields: (t) => ({
      toPersonaKey: t.field({ type: Persona, required: true }),
      toUserId: t.id(),
      kind: t.field({ type: Kind, required: true }),
      linkedType: t.field({ type: LinkedType, required: true }),
      linkedId: t.id({ required: true }),
      messageMd: t.string({ required: true }),
      threadId: t.id(),
    }),
  })

  builder.mutationFields((t) => ({
    createHandoff: t.field({
      type: Handoff, description: 'POST P/handoffs: send a hand-off (audit handoff.send).', errors: result(createHandoff, 'handoff'),
      args: { programId: t.arg.id({ required: true }), input: t.arg({ type: HandoffInput, required: true }) },
      resolve: (_r, a, ctx) => createHandoff(ctx, { ...a.input, programId: a.programId }),
    }),
    acceptHandoff: t.field({
      type: Handoff, description: 'Accept (a recipient only). Accepting again answers the first outcome.',
      errors: {
        ...result(acceptHandoff, 'handoff'),
        result: { fields: (t) => ({
          runId: t.id({ nullable: true, description: "The twin_handoff run started for the recipient's twin (when it has a hand-off trigger).", resolve: (h) => successExtra<string | null>(h, 'runId') }),
        }) },
      },
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => {
        const accepted = await acceptHandoff(ctx, { id: a.id })
        return withSuccessExtras(accepted.handoff, { runId: accepted.run?.id ?? null })
      },
    }),
    declineHandoff: t.field({
      type: Handoff, description: "Decline (a recipient only): 'Declining needs a reason; it is stored as evaluation data.'", errors: result(declineHandoff, 'handoff'),
      args: { id: t.arg.id({ required: true }), reason: t.arg.string() },
      resolve: (_r, a, ctx) => declineHandoff(ctx, { id: a.id, reason: a.reason }),
    }),
    completeHandoff: t.field({
      type: Handoff, description: 'Complete (the recipient who accepted it).', errors: result(completeHandoff, 'handoff'),
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => completeHandoff(ctx, { id: a.id }),
    }),
    withdrawHandoff: t.field({
      type: Handoff, description: 'Withdraw (the sender only).', errors: result(withdrawHandoff, 'handoff'),
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => withdrawHandoff(ctx, { id: a.id }),
    }),
    createDelegation: t.field({
      type: DelegationRef, description: 'POST /me/delegations: route your write approvals to a delegate for at most 30 days; again for the same delegate renews.',
      errors: result(createDelegation, 'delegation'),
      args: { delegateUserId: t.arg.id({ required: true }), programId: t.arg.id(), startsAt: t.arg({ type: 'DateTime' }), endsAt: t.arg({ type: 'DateTime', required: true }), reason: t.arg.string() },
      resolve: (_r, a, ctx) => createDelegation(ctx, { delegateUserId: a.delegateUserId, programId: a.programId, startsAt: a.startsAt, endsAt: a.endsAt, reason: a.reason ?? undefined }),
    }),
    revokeDelegation: t.field({
      type: DelegationRef, description: 'DELETE /me/delegations/{delegation_id}: routing stops at once.', errors: result(revokeDelegation, 'delegation'),
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => revokeDelegation(ctx, String(a.id)),
    }),
    createThread: t.field({
      type: ThreadRef, errors: result(createThread, 'thread'),
      args: { programId: t.arg.id({ required: true }), title: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => createThread(ctx, { programId: a.programId, title: a.title }),
    }),
    shareThread: t.field({
      type: ThreadRef, errors: result(shareThread, 'thread'), args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => shareThread(ctx, { threadId: a.id }),
    }),
    postMessage: t.field({
      type: MessageRef, description: "Post to a thread; mentions notify (audit mention.create). In a private thread: 'Share this thread to mention colleagues.'",
      errors: result(postMessage, 'threadMessage'),
      args: { threadId: t.arg.id({ required: true }), bodyMd: t.arg.string({ required: true }), mentions: t.arg.idList() },
      resolve: (_r, a, ctx) => postMessage(ctx, { threadId: a.threadId, bodyMd: a.bodyMd, mentions: a.mentions ?? [] }),
    }),
    letMyTwinLook: t.field({
      type: 'ID', description: "'Let my twin look at this' on a mention item: starts your twin's run through its mention trigger (the run id).",
      errors: result(letMyTwinLook, 'runId'), args: { inboxItemId: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => (await letMyTwinLook(ctx, { inboxItemId: a.inboxItemId })).id,
    }),
  }))
}
