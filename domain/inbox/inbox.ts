// Owns the inbox: pointers to what waits for a person; listing, filing, the person's operations (resolve, snooze,
// dismiss, feedback) and the inbox_expire sweep (expiry, un-snoozing, decision reminders). Every change is announced
// on inbox_changed with what happened, so Subscription.inboxChanged says created, resolved, snoozed, expired, ...
import { z } from 'zod'
import type { InboxItem, InboxItemKind, InboxItemStatus } from '../../generated/prisma/client'
import { asTx, type AnyTx, type Db } from '../../core/database'
import type { InboxChange } from '../../core/database'
import { command, onId, type DomainContext, type Write } from '../../core/jobs'
import { transition, transitionAll } from '../../core/states'
import { inboxItemStatus } from '../../core/states'
import { keysetPage, type Page, type PageArgs } from '../../core/database'
import { IdInput, isId } from '../../core/text'
import { DecisionRequired, InvalidInput, InvalidTransition, NotFoundError } from '../../core/errors'
import { notifyPerson } from '../../core/jobs'
import { announce, announceAll } from './filing'
import { escalateOverdue, resolveNoticesAbout, resolveStaleNotices } from './inbox-escalation'
import { inboxPage, openInboxCount, openInboxCounts, type InboxRowWithProgram } from './sql'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db'>

export const INBOX_KINDS = ['decision', 'signature', 'question', 'handoff', 'mention', 'information', 'stage'] as const
export const INBOX_STATUSES = inboxItemStatus.states

/** The caller's own inbox, newest first (GET /me/inbox), in cursor pages. Only ever the caller's rows. */
export function listMyInbox(ctx: Ctx, args: PageArgs & { status?: InboxItemStatus[] | null }): Promise<Page<InboxItem>>
/** `withPrograms`: each item also carries its program's name and slug (`programName`, `programSlug`; null where none). */
export function listMyInbox(ctx: Ctx, args: PageArgs & { status?: InboxItemStatus[] | null }, withPrograms: boolean): Promise<Page<InboxItem & Partial<InboxRowWithProgram>>>
export function listMyInbox(ctx: Ctx, args: PageArgs & { status?: InboxItemStatus[] | null }, withPrograms = false): Promise<Page<InboxItem & Partial<InboxRowWithProgram>>> {
  // a hot read (every console screen): plain SQL, the organisation and the caller in the filter
  return keysetPage(args, 'createdAt', (_q, keyset) => inboxPage(ctx.db, ctx.session.organizationId, ctx.session.userId, args.status, keyset, withPrograms))
}

/** How many of the caller's own items in a program are open. */
export async function countMyOpenInbox(ctx: Ctx, programId: string): Promise<number> {
  if (!isId(programId)) return 0
  return openInboxCount(ctx.db, ctx.session.organizationId, ctx.session.userId, programId)
}

/** countMyOpenInbox for several programs in one query (an entity fetch brings every program of `me` at once). */
export async function countMyOpenInboxByProgram(ctx: Ctx, programIds: readonly string[]): Promise<number[]> {
  if (programIds.length === 1) return [await countMyOpenInbox(ctx, programIds[0])]
  const groups = await openInboxCounts(ctx.db, ctx.session.organizationId, ctx.session.userId, programIds.filter(isId))
  const counts = new Map(groups.map((g) => [g.programId, g.n]))
  return programIds.map((id) => counts.get(id) ?? 0)
}

/** One of the caller's items; anything else, an id that is not a UUID included, is null. */
export async function getMyInboxItem(ctx: Ctx, id: string) {
  if (!isId(id)) return null
  return ctx.tdb.inboxItem.findFirst({ where: { id, userId: ctx.session.userId } })
}

/** The change an item's status shows, for a notification that did not name one (and for reads). */
export function changeShownBy(item: Pick<InboxItem, 'status' | 'createdAt' | 'updatedAt' | 'remindedAt'> & { escalatedAt?: Date | null }): InboxChange {
  switch (item.status) {
    case 'done': return 'resolved'
    case 'dismissed': return 'dismissed'
    case 'expired': return 'expired'
    case 'snoozed': return 'snoozed'
    default:
      if (item.escalatedAt?.getTime() === item.updatedAt.getTime()) return 'escalated'
      if (item.remindedAt?.getTime() === item.updatedAt.getTime()) return 'reminded'
      return item.createdAt.getTime() === item.updatedAt.getTime() ? 'created' : 'reopened'
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The person's operations on their own items (POST /me/inbox/{item_id}/resolve, /snooze, /feedback; dismiss).
//
// What resolve means per kind: question, mention, information and handoff items are pointers the person marks done
// (for a hand-off this neither accepts nor declines it: those are the hand-off's own operations). decision, signature
// and stage items resolve only by deciding or signing what they point to (the proposal's decision closes the item:
// closeItemsForSource); resolve and dismiss answer decision_required for them, so no path marks a proposal handled
// without a human decision. Snooze and feedback work on every kind.

/** Kinds that close only through the decision or signature they point to. */
export const DECIDED_KINDS: ReadonlySet<InboxItemKind> = new Set(['decision', 'signature', 'stage'])
/** A snooze lasts at most this long (ours: the specification names no limit). */
export const MAX_SNOOZE_DAYS = 30

const ItemId = z.object({ id: IdInput })

/**
 * Shared by every inbox write: the item is the caller's own (anyone else's reads as not found, never forbidden, so
 * ids cannot be probed), and the permission is program.twins.read_own in the item's program, so a person removed from
 * the program can no longer act on what was filed there.
 */
export const ownItemWrite = {
  permission: 'program.twins.read_own' as const,
  load: async (q: AnyTx, input: { id: string }, ctx: DomainContext) => {
    const item = await asTx(q).inboxItem.findFirst({ where: { id: input.id, userId: ctx.session.userId, organizationId: ctx.session.organizationId } })
    if (!item) throw new NotFoundError('InboxItem', { field: 'id' })
    return item
  },
  program: (_input: unknown, item: InboxItem) => item.programId,
}

/** How a write reached us: the inbox itself, or a signed e-mail / phone link. */
export type InboxVia = 'inbox' | 'link'

/** The resolve itself, inside a write that declared inbox.resolve (the inbox mutation, or a signed link). */
export async function resolveOwnItem(w: Write<'inbox.resolve'>, item: InboxItem, via: InboxVia) {
  if (DECIDED_KINDS.has(item.kind)) throw new DecisionRequired(undefined, { field: 'id' })
  const now = new Date()
  const row = await transition(w.tx, inboxItemStatus, 'resolve', item, { doneBy: w.ctx.session.userId, doneAt: now, snoozedUntil: null, updatedAt: now })
  await w.audit('inbox.resolve', { type: 'inbox_item', id: item.id }, { kind: item.kind, via }, { programId: item.programId })
  await announce(w.tx, row, 'resolved')
  await resolveEscalationNotices(w.tx, [row], w.ctx.session.userId)
  return withChange(row, 'resolved')
}

/** A written row as the caller receives it: with the change the write made (InboxItem.change). */
const withChange = (row: InboxItem, change: InboxChange) => Object.assign(row, { change })

/** Marks one of the caller's items done (question, mention, information, handoff; see above for the others). */
export const resolveInboxItem = onId(command({
  ...ownItemWrite,
  input: ItemId,
  errors: [DecisionRequired, InvalidTransition],
  audit: ['inbox.resolve'],
  run: (w, _input, item) => resolveOwnItem(w, item, 'inbox'),
}))

/** Hides an open item until `until` (future, at most MAX_SNOOZE_DAYS ahead); inbox_expire reopens it then. */
export const snoozeInboxItem = command({
  ...ownItemWrite,
  input: z.object({ id: IdInput, until: z.coerce.date() }),
  errors: [InvalidTransition],
  audit: ['inbox.snooze'],
  async run(w, input, item) {
    const now = new Date()
    if (input.until.getTime() <= now.getTime()) throw InvalidInput.of('until', 'must be in the future')
    if (input.until.getTime() > now.getTime() + MAX_SNOOZE_DAYS * 86_400_000) throw InvalidInput.of('until', `must be at most ${MAX_SNOOZE_DAYS} days ahead`)
    const row = await transition(w.tx, inboxItemStatus, 'snooze', item, { snoozedUntil: input.until, updatedAt: now })
    await w.audit('inbox.snooze', { type: 'inbox_item', id: item.id }, { kind: item.kind, until: input.until.toISOString() }, { programId: item.programId })
    await announce(w.tx, row, 'snoozed')
    return withChange(row, 'snoozed')
  },
})

/** Sets an item aside as not needing the person; refused for items that close only by a decision. */
export const dismissInboxItem = onId(command({
  ...ownItemWrite,
  input: ItemId,
  errors: [DecisionRequired, InvalidTransition],
  audit: ['inbox.dismiss'],
  async run(w, _input, item) {
    if (DECIDED_KINDS.has(item.kind)) throw new DecisionRequired(undefined, { field: 'id' })
    const now = new Date()
    const row = await transition(w.tx, inboxItemStatus, 'dismiss', item, { snoozedUntil: null, updatedAt: now })
    await w.audit('inbox.dismiss', { type: 'inbox_item', id: item.id }, { kind: item.kind }, { programId: item.programId })
    await announce(w.tx, row, 'dismissed')
    return withChange(row, 'dismissed')
  },
}))

/**
 * Helpful or not useful, on an item in any status. Evaluation data only (twin_evaluate reads the not_useful rate per
 * trigger): it changes nothing else, and it is never used to train or tune any model.
 */
export const inboxFeedback = command({
  ...ownItemWrite,
  input: z.object({ id: IdInput, feedback: z.enum(['helpful', 'not_useful']) }),
  audit: ['inbox.feedback'],
  async run(w, input, item) {
    const row = await w.tx.inboxItem.update({ where: { id: item.id }, data: { feedback: input.feedback, updatedAt: new Date() } })
    await w.audit('inbox.feedback', { type: 'inbox_item', id: item.id }, {
      feedback: input.feedback, previous: item.feedback, kind: item.kind, twin_id: item.twinId, trigger_id: item.triggerId,
    }, { programId: item.programId, triggerId: item.triggerId })
    await announce(w.tx, row, 'feedback')
    return withChange(row, 'feedback')
  },
})

/**
 * Closes the open or snoozed items that point to a source once it was decided (a proposal approved or declined):
 * the decision's write calls this in its transaction with the person who decided. The only way a decision item
 * becomes done. Returns the items it closed (each announced as resolved).
 */
export async function closeItemsForSource(anyTx: AnyTx, source: { organizationId: string; sourceType: string; sourceId: string } | { organizationId: string; interruptId: string }, doneBy: string) {
  const tx = asTx(anyTx)
  const now = new Date()
  const where = 'interruptId' in source
    ? { organizationId: source.organizationId, interruptId: source.interruptId }
    : { organizationId: source.organizationId, sourceType: source.sourceType, sourceId: source.sourceId }
  const rows = await transitionAll(tx, inboxItemStatus, 'resolve', where, { doneBy, doneAt: now, snoozedUntil: null, updatedAt: now })
  for (const r of rows) await announce(tx, r, 'resolved')
  await resolveEscalationNotices(tx, rows, doneBy)
  return rows
}

/** Escalation notices (inbox-escalation.ts) resolve with the item they are about. */
async function resolveEscalationNotices(tx: AnyTx, items: InboxItem[], doneBy: string | null) {
  if (!items.some((i) => i.escalatedAt)) return
  await resolveNoticesAbout(tx, items, doneBy)
}


/** A decision item is reminded at most once a day (twins document, Limits), and not in its first day. */
export const REMINDER_INTERVAL_MS = 86_400_000
/** Kinds that wait for a person's decision or answer and so get decision_reminder. */
const REMINDED_KINDS: InboxItemKind[] = ['decision', 'signature', 'question']

/**
 * The inbox_expire sweep: open or snoozed items past their due time expire (the card reads 'Expired, nothing
 * written'; the run that filed them stays succeeded); snoozed items whose snooze ended reopen; items open longer than
 * their program's escalation_days escalate; open decision items
 * waiting a day or more get a decision_reminder, at most one a day per item (reminded_at is claimed in the same
 * statement, so two sweeps never remind twice), delivered after the person's quiet hours. Each change is announced.
 */
export async function sweepInbox(db: Db, now = new Date()) {
  return sweepInboxAcrossOrganisations(db, now)
}

/** One rule for every organisation's items, all or nothing: the sweep's one transaction spans the organisations. */
function sweepInboxAcrossOrganisations(db: Db, now: Date) {
  return db.$transaction(async (tx) => {
    // Every organisation's items (a system sweep); the from-states come from the declaration.
    const expired = await transitionAll(tx, inboxItemStatus, 'expire', { dueAt: { not: null, lte: now } }, { updatedAt: now })
    const reopened = await transitionAll(tx, inboxItemStatus, 'wake', { snoozedUntil: { not: null, lte: now } }, { snoozedUntil: null, updatedAt: now })
    // Set-based: one UPDATE per kind of change and one NOTIFY statement each, never a round trip per item.
    await announceAll(tx, expired, 'expired')
    await announceAll(tx, reopened, 'reopened')
    const dayAgo = new Date(now.getTime() - REMINDER_INTERVAL_MS)
    const reminded = await tx.inboxItem.updateManyAndReturn({
      where: {
        status: 'open', kind: { in: REMINDED_KINDS }, createdAt: { lte: dayAgo },
        OR: [{ remindedAt: null }, { remindedAt: { lte: dayAgo } }],
      },
      data: { remindedAt: now, updatedAt: now },
    })
    for (const r of reminded) {
      await notifyPerson(tx, {
        organizationId: r.organizationId, programId: r.programId, userId: r.userId, kind: 'decision_reminder', now,
        payload: { inbox_item_id: r.id, kind: r.kind, due_at: r.dueAt?.toISOString() ?? null },
      })
      await announce(tx, r, 'reminded')
    }
    // escalation_days: signature, question and stage items open too long (inbox-escalation.ts; after the reminders, so
    // a subscriber's coalesced event says escalated), and notices whose item closed without a decision resolve.
    const escalated = await escalateOverdue(tx, now)
    await resolveStaleNotices(tx, now)
    return { expired: expired.length, reopened: reopened.length, reminded: reminded.length, escalated }
    // Known bulk work on a system sweep (thousands of items after downtime; each reminder reads its person's quiet
    // hours): Prisma's 5 s interactive default is too short on a loaded 2-core machine, and the sweep is all or nothing.
  }, { timeout: 120_000 })
}
