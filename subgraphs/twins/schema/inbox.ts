// The inbox in the twins subgraph: InboxItem, Query.myInbox (cursor pages), Query.inboxItem, Query.myBrief,
// Program.myOpenInboxCount and Program.myInboxSummary, the operations (resolve, snooze, dismiss, feedback) and
// Subscription.inboxChanged (GET /me/inbox, GET /me/inbox/{item_id}, POST .../resolve, .../snooze, .../feedback, GET /me/brief).
import { INBOX_CHANGES } from '../../../core/database'
import { FIXED_PHRASES } from '../../../core/text'
import { asksProgramsAt, entityRef, programAt, rememberProgramNames, result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import {
  DECIDED_KINDS, INBOX_KINDS, INBOX_STATUSES, changeShownBy, dismissInboxItem, getMyInboxItem, inboxFeedback,
  listMyInbox, resolveInboxItem, snoozeInboxItem,
} from '../../../domain/inbox'
import { countMyOpenInboxByProgram, myBriefs, myInboxSummary, type Brief } from '../../../domain/inbox'
import type { InboxEvents, LiveInboxItem } from '../../../domain/inbox'
import type { TwinsRefs } from './refs'
import { addMyOpenInboxCount } from '../../shared/open-inbox-count'

/** Where a page of myInbox asks for its items' programs. */
const INBOX_PROGRAM_PATHS = [['nodes', 'program'], ['edges', 'node', 'program']] as const

export function addInbox(builder: Builder, { ProgramRef, UserRef }: TwinsRefs, deps: { inboxEvents: InboxEvents }) {
  const InboxKind = builder.enumType('InboxItemKind', { values: INBOX_KINDS })
  const InboxStatus = builder.enumType('InboxItemStatus', { values: INBOX_STATUSES })
  const InboxChange = builder.enumType('InboxChange', {
    description: "What happened to an inbox item: filed, resolved (done), snoozed, reopened (snooze ended), dismissed, expired, reminded, feedback given, a Keep question beneath it (memoryNotes) added, answered or erased, or escalated (open longer than the program's escalation_days).",
    values: INBOX_CHANGES,
  })
  const InboxFeedback = builder.enumType('InboxFeedback', { values: ['none', 'helpful', 'not_useful'] as const })
  const InboxFeedbackValue = builder.enumType('InboxFeedbackValue', { values: ['helpful', 'not_useful'] as const })

  const InboxItemRef = builder.objectRef<LiveInboxItem>('InboxItem').implement({
    description: 'A pointer to something that waits for a person: a decision, signature, question, hand-off, mention or information.',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.field({ type: InboxKind, resolve: (i) => i.kind }),
      status: t.field({ type: InboxStatus, resolve: (i) => i.status }),
      title: t.exposeString('title'),
      sourceType: t.exposeString('sourceType'),
      sourceId: t.exposeString('sourceId'),
      priority: t.exposeString('priority'),
      batchKey: t.string({
        nullable: true, description: "The digest moment a digest-priority item is batched for ('<twin id>@<YYYY-MM-DDTHH:MM>' on the person's clock): items sharing it are presented and approved together; null for items delivered now.",
        resolve: (i) => i.batchKey,
      }),
      program: t.field({ type: ProgramRef, nullable: true, resolve: (i, _a, ctx, info) => (i.programId ? programAt(i.programId, ctx, info) : null) }),
      user: t.field({ type: UserRef, resolve: (i) => entityRef(i.userId) }),
      delegatedFrom: t.field({
        type: UserRef, nullable: true,
        description: 'Routed under delegation: the person this item was routed from (their delegate holds it); null otherwise.',
        resolve: (i) => (i.delegatedFromUserId ? entityRef(i.delegatedFromUserId) : null),
      }),
      dueAt: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.dueAt }),
      snoozedUntil: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.snoozedUntil }),
      createdAt: t.field({ type: 'DateTime', resolve: (i) => i.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (i) => i.updatedAt }),
      change: t.field({
        type: InboxChange,
        description: 'In inboxChanged, the change this event announces; read by a query, the change the item\'s status shows.',
        resolve: (i) => i.change ?? changeShownBy(i),
      }),
      feedback: t.field({ type: InboxFeedback, description: 'Evaluation data only.', resolve: (i) => i.feedback }),
      remindedAt: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.remindedAt }),
      escalatedAt: t.field({
        type: 'DateTime', nullable: true, description: "When inbox_expire escalated it: open longer than the program's escalation_days (priority now; its program's owners and leads were told).",
        resolve: (i) => i.escalatedAt,
      }),
      doneAt: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.doneAt }),
      resolvable: t.boolean({
        description: 'Whether resolve applies. Decision, signature and stage items resolve only by deciding or signing what they point to.',
        resolve: (i) => !DECIDED_KINDS.has(i.kind),
      }),
      expiredNote: t.string({ nullable: true, description: "'Expired, nothing written' on an expired item.", resolve: (i) => (i.status === 'expired' ? FIXED_PHRASES.expiredNothingWritten : null) }),
    }),
  })
  builder.asEntity(InboxItemRef, {
    key: builder.selection<{ id: string }>('id'),
    resolveReference: (ref, ctx) => getMyInboxItem(ctx, ref.id),
  })
  const InboxConnection = connectionType(builder, 'Inbox', InboxItemRef, "A page of the caller's inbox, newest first.")

  builder.queryFields((t) => ({
    myInbox: t.field({
      type: InboxConnection,
      description: "The caller's inbox, newest first (GET /me/inbox).",
      args: { ...pageArgs(t.arg), status: t.arg({ type: [InboxStatus], required: false }) },
      resolve: async (_r, args, ctx, info) => {
        // items that show `program { name slug }` read them in the page's own statement: no second read
        const withPrograms = asksProgramsAt(info, INBOX_PROGRAM_PATHS)
        const page = await listMyInbox(ctx, args, withPrograms)
        if (withPrograms) {
          rememberProgramNames(ctx, page.edges.map((e) => e.node))
          // a program not found with the page (not in the organisation) is read as before: null names
          const missing = page.edges.flatMap((e) => (e.node.programId && !ctx.loaders.programNames.has(e.node.programId) ? [e.node.programId] : []))
          if (missing.length) await ctx.loaders.program.loadMany([...new Set(missing)])
        }
        return page
      },
    }),
    inboxItem: t.field({
      type: InboxItemRef, nullable: true, description: 'One of the caller\'s inbox items (GET /me/inbox/{item_id}).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, { id }, ctx) => getMyInboxItem(ctx, String(id)),
    }),
  }))

  const BriefItem = builder.objectRef<{ id: string; kind: string; due_at: string | null }>('PersonaBriefItem').implement({
    description: 'A pointer in a brief: no title or thread text.',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.exposeString('kind'),
      dueAt: t.field({ type: 'DateTime', nullable: true, resolve: (i) => (i.due_at ? new Date(i.due_at) : null) }),
    }),
  })
  const PersonaBrief = builder.objectRef<Brief>('PersonaBrief').implement({
    description: "What waits for a person in a program (artifact kind persona_brief, server-written, no model call). From twin_digest, or composed now when none was written (artifactId null).",
    fields: (t) => ({
      artifactId: t.id({ nullable: true, resolve: (b) => b.artifactId }),
      program: t.field({ type: ProgramRef, resolve: (b) => entityRef(b.content.program_id) }),
      twinId: t.id({ nullable: true, resolve: (b) => b.content.twin_id }),
      generatedAt: t.field({ type: 'DateTime', resolve: (b) => new Date(b.content.generated_at) }),
      heading: t.string({ description: "'Decisions waiting for you'", resolve: (b) => b.content.heading }),
      decisionsWaiting: t.int({ resolve: (b) => b.content.decisions_waiting }),
      openDecisionsTotal: t.int({ description: 'Decision items waiting (open or snoozed) across programs: the backpressure count.', resolve: (b) => b.content.open_decisions_total }),
      itemsWaiting: t.int({ resolve: (b) => b.content.items_waiting }),
      nextPassAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => (b.content.next_pass_at ? new Date(b.content.next_pass_at) : null) }),
      emptyState: t.string({ nullable: true, description: "'Nothing waiting. Your twin's next pass is at <time>.' when nothing waits.", resolve: (b) => b.content.empty_state }),
      filingPaused: t.string({ nullable: true, description: "'Filing paused: <N> decisions waiting' under backpressure.", resolve: (b) => b.content.filing_paused }),
      footer: t.string({ nullable: true, description: "'Agent-generated draft, unsigned.' when a twin's digest wrote it.", resolve: (b) => b.content.footer }),
      items: t.field({ type: [BriefItem], resolve: (b) => (b.readItems ? b.readItems() : b.content.items) }),
    }),
  })

  builder.queryField('myBrief', (t) => t.field({
    type: [PersonaBrief],
    description: "The caller's persona brief per program (GET /me/brief): the latest written by twin_digest, or composed now.",
    args: { programId: t.arg.id({ required: false }) },
    resolve: (_r, a, ctx) => myBriefs(ctx, a.programId ? String(a.programId) : null),
  }))

  builder.objectField(ProgramRef, 'myInboxSummary', (t) =>
    t.field({
      type: PersonaBrief,
      description: "The inbox header for the caller in this program, now: 'Decisions waiting for you', counts, the empty state.",
      resolve: (p, _a, ctx) => myInboxSummary(ctx, p.id),
    }))

  builder.mutationFields((t) => ({
    resolveInboxItem: t.field({
      type: InboxItemRef, errors: result(resolveInboxItem, 'item'),
      description: 'Marks one of your items done (POST /me/inbox/{item_id}/resolve). Decision, signature and stage items answer DecisionRequired: they resolve by deciding.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => resolveInboxItem(ctx, String(a.id)),
    }),
    snoozeInboxItem: t.field({
      type: InboxItemRef, errors: result(snoozeInboxItem, 'item'),
      description: 'Hides an open item until a time at most 30 days ahead (POST /me/inbox/{item_id}/snooze).',
      args: { id: t.arg.id({ required: true }), until: t.arg({ type: 'DateTime', required: true }) },
      resolve: (_r, a, ctx) => snoozeInboxItem(ctx, { id: String(a.id), until: a.until }),
    }),
    dismissInboxItem: t.field({
      type: InboxItemRef, errors: result(dismissInboxItem, 'item'),
      description: 'Sets an item aside (operation dismiss). Decision, signature and stage items answer DecisionRequired.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => dismissInboxItem(ctx, String(a.id)),
    }),
    inboxFeedback: t.field({
      type: InboxItemRef, errors: result(inboxFeedback, 'item'),
      description: 'Helpful or not useful (POST /me/inbox/{item_id}/feedback): evaluation data only, never used to train or tune any model.',
      args: { id: t.arg.id({ required: true }), feedback: t.arg({ type: InboxFeedbackValue, required: true }) },
      resolve: (_r, a, ctx) => inboxFeedback(ctx, { id: String(a.id), feedback: a.feedback }),
    }),
  }))

  addMyOpenInboxCount(builder, ProgramRef, countMyOpenInboxByProgram) // shareable: workbench answers it too, beside `me { programs }`

  builder.subscriptionType({
    fields: (t) => ({
      inboxChanged: t.field({
        type: InboxItemRef,
        description: "An item of the caller's inbox was filed or changed. Events are not durable: refetch myInbox on reconnect.",
        subscribe: (_r, _a, ctx) => deps.inboxEvents.subscribeOwn(ctx.session),
        resolve: (item: LiveInboxItem) => item,
      }),
    }),
  })
  return { InboxItemRef }
}
