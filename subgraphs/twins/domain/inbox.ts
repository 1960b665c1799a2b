// Owns the inbox: pointers to what waits for a person; listing, filing, and the expiry sweep.
import type { InboxItem, InboxItemKind, InboxItemStatus } from '../../../generated/prisma/client'
import { asTx, type AnyTx, type Db } from '../../../core/db'
import { publish } from '../../../core/pubsub'
import type { DomainContext } from '../../../core/command'
import { transitionAll } from '../../../core/state-machine'
import { inboxItemStatus } from '../../../core/states'
import { keysetPage, type Page, type PageArgs } from '../../shared/pagination'
import { isId } from '../../../core/ids'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

export const INBOX_KINDS = ['decision', 'signature', 'question', 'handoff', 'mention', 'information', 'stage'] as const
export const INBOX_STATUSES = inboxItemStatus.states

/** The caller's own inbox, newest first (GET /me/inbox), in cursor pages. Only ever the caller's rows. */
export function listMyInbox(ctx: Ctx, args: PageArgs & { status?: InboxItemStatus[] | null }): Promise<Page<InboxItem>> {
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.inboxItem.findMany({
    ...q,
    where: { userId: ctx.session.userId, ...(args.status?.length ? { status: { in: args.status } } : {}), ...q.where },
  }))
}

/** How many of the caller's own items in a program are open. */
export function countMyOpenInbox(ctx: Ctx, programId: string) {
  return ctx.tdb.inboxItem.count({ where: { programId, userId: ctx.session.userId, status: 'open' } })
}

/** countMyOpenInbox for several programs in one query (an entity fetch brings every program of `me` at once). */
export async function countMyOpenInboxByProgram(ctx: Ctx, programIds: readonly string[]): Promise<number[]> {
  if (programIds.length === 1) return [await countMyOpenInbox(ctx, programIds[0])]
  const groups = await ctx.tdb.inboxItem.groupBy({
    by: ['programId'], where: { programId: { in: [...programIds] }, userId: ctx.session.userId, status: 'open' }, _count: { _all: true },
  })
  const counts = new Map(groups.map((g) => [g.programId, g._count._all]))
  return programIds.map((id) => counts.get(id) ?? 0)
}

/** One of the caller's items; anything else, an id that is not a UUID included, is null. */
export async function getMyInboxItem(ctx: Ctx, id: string) {
  if (!isId(id)) return null
  return ctx.tdb.inboxItem.findFirst({ where: { id, userId: ctx.session.userId } })
}

export interface FileInboxItem {
  organizationId: string
  userId: string
  programId?: string | null
  kind: InboxItemKind
  sourceType: string
  sourceId: string
  title: string
  dueAt?: Date | null
  priority?: 'now' | 'digest'
  twinId?: string | null
  triggerId?: string | null
}

/** Files an item in `tx` and announces it (key only) when the transaction commits. */
export async function fileInboxItem(anyTx: AnyTx, input: FileInboxItem): Promise<InboxItem> {
  const tx = asTx(anyTx)
  const item = await tx.inboxItem.create({ data: { ...input, priority: input.priority ?? 'digest' } })
  await publish(tx, 'inbox_changed', { id: item.id, userId: item.userId, organizationId: item.organizationId })
  return item
}

/**
 * The inbox_expire sweep: open or snoozed items past their due time expire (the card reads 'Expired, nothing
 * written'); snoozed items whose snooze ended reopen. Each change is announced to its owner's subscriptions.
 */
export async function sweepInbox(db: Db, now = new Date()) {
  return db.$transaction(async (tx) => {
    // Every organisation's items (a system sweep); the from-states come from the declaration.
    const expired = await transitionAll(tx, inboxItemStatus, 'expire', { dueAt: { not: null, lte: now } }, { updatedAt: now })
    const reopened = await transitionAll(tx, inboxItemStatus, 'wake', { snoozedUntil: { not: null, lte: now } }, { snoozedUntil: null, updatedAt: now })
    for (const r of [...expired, ...reopened]) {
      await publish(tx, 'inbox_changed', { id: r.id, userId: r.userId, organizationId: r.organizationId })
    }
    return { expired: expired.length, reopened: reopened.length }
  })
}
