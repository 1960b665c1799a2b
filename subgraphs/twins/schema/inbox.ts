// The inbox in the twins subgraph: InboxItem, Query.myInbox (cursor pages), Query.inboxItem, Program.myOpenInboxCount
// and Subscription.inboxChanged (GET /me/inbox, GET /me/inbox/{item_id}).
import type { InboxItem } from '../../../generated/prisma/client'
import { entityRef, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import { INBOX_KINDS, INBOX_STATUSES, countMyOpenInboxByProgram, getMyInboxItem, listMyInbox } from '../domain/inbox'
import type { InboxEvents } from '../domain/inbox-events'
import type { TwinsRefs } from '.'

export function addInbox(builder: Builder, { ProgramRef, UserRef }: TwinsRefs, deps: { inboxEvents: InboxEvents }) {
  const InboxKind = builder.enumType('InboxItemKind', { values: INBOX_KINDS })
  const InboxStatus = builder.enumType('InboxItemStatus', { values: INBOX_STATUSES })

  const InboxItemRef = builder.objectRef<InboxItem>('InboxItem').implement({
    description: 'A pointer to something that waits for a person: a decision, signature, question, hand-off, mention or information.',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.field({ type: InboxKind, resolve: (i) => i.kind }),
      status: t.field({ type: InboxStatus, resolve: (i) => i.status }),
      title: t.exposeString('title'),
      sourceType: t.exposeString('sourceType'),
      sourceId: t.exposeString('sourceId'),
      priority: t.exposeString('priority'),
      program: t.field({ type: ProgramRef, nullable: true, resolve: (i) => (i.programId ? entityRef(i.programId) : null) }),
      user: t.field({ type: UserRef, resolve: (i) => entityRef(i.userId) }),
      dueAt: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.dueAt }),
      snoozedUntil: t.field({ type: 'DateTime', nullable: true, resolve: (i) => i.snoozedUntil }),
      createdAt: t.field({ type: 'DateTime', resolve: (i) => i.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (i) => i.updatedAt }),
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
      resolve: (_r, args, ctx) => listMyInbox(ctx, args),
    }),
    inboxItem: t.field({
      type: InboxItemRef, nullable: true, description: 'One of the caller\'s inbox items (GET /me/inbox/{item_id}).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, { id }, ctx) => getMyInboxItem(ctx, String(id)),
    }),
  }))

  builder.objectField(ProgramRef, 'myOpenInboxCount', (t) =>
    t.int({
      description: "How many of the caller's inbox items in this program are open.",
      resolve: (p, _a, ctx) => ctx.loader('Program.myOpenInboxCount', (ids: readonly string[]) => countMyOpenInboxByProgram(ctx, ids)).load(p.id),
    }))

  builder.subscriptionType({
    fields: (t) => ({
      inboxChanged: t.field({
        type: InboxItemRef,
        description: "An item of the caller's inbox was filed or changed. Events are not durable: refetch myInbox on reconnect.",
        subscribe: (_r, _a, ctx) => deps.inboxEvents.subscribeOwn(ctx.session),
        resolve: (item: InboxItem) => item,
      }),
    }),
  })
}
