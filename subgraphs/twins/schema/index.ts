// Twins subgraph schema: the inbox (Query.myInbox, Query.inboxItem, Subscription.inboxChanged) and skills.
import type { InboxItem } from '../../../generated/prisma/client'
import { createBuilder, entityRef, referenceEntity } from '../../shared/builder'
import { INBOX_KINDS, INBOX_STATUSES, getMyInboxItem, listMyInbox, type Page } from '../domain/inbox'
import type { InboxEvents } from '../domain/inbox-events'
import { addSkills } from './skills'

export function buildTwinsSchema(deps: { inboxEvents: InboxEvents }) {
  const builder = createBuilder()
  const ProgramRef = referenceEntity(builder, 'Program')
  const UserRef = referenceEntity(builder, 'User')

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

  const PageInfo = builder.objectRef<{ endCursor: string | null; hasNextPage: boolean }>('PageInfo').implement({
    fields: (t) => ({
      endCursor: t.string({ nullable: true, shareable: true, resolve: (p) => p.endCursor }),
      hasNextPage: t.boolean({ shareable: true, resolve: (p) => p.hasNextPage }),
    }),
  })
  const InboxConnection = builder.objectRef<Page<InboxItem>>('InboxConnection').implement({
    fields: (t) => ({
      nodes: t.field({ type: [InboxItemRef], resolve: (p) => p.items }),
      pageInfo: t.field({ type: PageInfo, resolve: (p) => p }),
    }),
  })

  builder.queryFields((t) => ({
    myInbox: t.field({
      type: InboxConnection,
      description: "The caller's inbox, newest first (GET /me/inbox).",
      args: {
        first: t.arg.int({ required: false, description: 'Page size, 1 to 200 (default 50)' }),
        after: t.arg.string({ required: false }),
        status: t.arg({ type: [InboxStatus], required: false }),
      },
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
      resolve: (p, _a, ctx) => ctx.tdb.inboxItem.count({ where: { programId: p.id, userId: ctx.session.userId, status: 'open' } }),
    }))

  addSkills(builder)

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

  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
