// Owns threads and messages only as far as mentions need them (twins document: messages.mentions, mention.create, the
// mention notification, 'Let my twin look at this', 'Share this thread to mention colleagues.'). A thread belongs to
// a program and starts private (its author only); sharing it opens it to the program's people and is what lets a
// message mention them. A mention files a `mention` inbox item (notified in-app) and is audited mention.create; it
// never starts a run by itself: the mentioned person's 'Let my twin look at this' is the only way (a mention trigger).
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Thread } from '../../generated/prisma/client'
import { command, type DomainContext } from '../../core/jobs'
import { DutyUnavailable, InvalidInput, NotFoundError, TwinPaused } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import { TWINS } from '../../core/text'
import { fileInboxItem } from '../inbox'
import { createTwinRun } from '../twins'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

/** The composer's line of a private thread: mentions wait until the thread is shared. */
export const composerHint = (t: Pick<Thread, 'private'>) => (t.private ? TWINS.shareThisThread : null)

/** A thread the caller may read: shared in a program they are a person of, or private and theirs. */
export async function getThread(ctx: Ctx, id: string) {
  if (!isId(id)) return null
  const t = await ctx.tdb.thread.findFirst({ where: { id } })
  if (!t || !ctx.session.programPersonas.has(t.programId)) return null
  return t.private && t.createdByUserId !== ctx.session.userId ? null : t
}

export const listMessages = (ctx: Ctx, threadId: string) =>
  ctx.tdb.message.findMany({ where: { threadId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 500 })

/** A new private thread in a program (any person of it). */
export const createThread = command({
  permission: 'program.handoffs.read',
  input: z.object({ programId: IdInput, title: personText(300, 'a title is required') }),
  program: (i) => i.programId,
  audit: [],
  run: (w, input) => w.tx.thread.create({ data: { organizationId: w.ctx.session.organizationId, programId: input.programId, createdByUserId: w.ctx.session.userId, title: input.title } }),
})

const loadOwnThread = async (q: Parameters<NonNullable<Parameters<typeof command>[0]['load']>>[0], id: string, ctx: DomainContext) => {
  const t = await q.thread.findFirst({ where: { id } })
  if (!t || !ctx.session.programPersonas.has(t.programId) || (t.private && t.createdByUserId !== ctx.session.userId)) throw new NotFoundError('Thread', { field: 'threadId' })
  return t
}

/** Shares a private thread with the program's people (its author only); then its messages may mention them. */
export const shareThread = command({
  permission: 'program.handoffs.read',
  input: z.object({ threadId: IdInput }),
  load: (q, input, ctx) => loadOwnThread(q, input.threadId, ctx),
  program: (_i, t) => t.programId,
  audit: [],
  async run(w, _input, t) {
    if (t.createdByUserId !== w.ctx.session.userId) throw new NotFoundError('Thread', { field: 'threadId' })
    return w.tx.thread.update({ where: { id: t.id }, data: { private: false } })
  },
})

/**
 * Posts a message; each person it mentions (a person of the program, never the author) gets a `mention` inbox item
 * and notification, audited mention.create. Mentions in a private thread are refused with the composer's line.
 */
export const postMessage = command({
  permission: 'program.handoffs.read',
  input: z.object({ threadId: IdInput, bodyMd: personText(20_000, 'write a message'), mentions: z.array(IdInput).max(50).default([]) }),
  load: (q, input, ctx) => loadOwnThread(q, input.threadId, ctx),
  program: (_i, t) => t.programId,
  audit: ['mention.create'],
  async run(w, input, t) {
    const { session } = w.ctx
    const mentions = [...new Set(input.mentions)].filter((u) => u !== session.userId)
    if (mentions.length && t.private) throw InvalidInput.of('mentions', TWINS.shareThisThread)
    if (mentions.length) {
      const people = await w.tx.roleAssignment.findMany({ where: { programId: t.programId, userId: { in: mentions }, user: { deactivatedAt: null } }, select: { userId: true } })
      const outside = mentions.filter((u) => !people.some((p) => p.userId === u))
      if (outside.length) throw InvalidInput.of('mentions', `Not people of this program: ${outside.join(', ')}`)
    }
    const message = await w.tx.message.create({
      data: { organizationId: session.organizationId, threadId: t.id, authorUserId: session.userId, bodyMd: input.bodyMd, mentions },
    })
    for (const userId of mentions) {
      await w.audit('mention.create', { type: 'message', id: message.id }, { mentioned_user_id: userId, thread_id: t.id }, { programId: t.programId })
      await fileInboxItem(w.tx, {
        organizationId: session.organizationId, userId, programId: t.programId, kind: 'mention', sourceType: 'message', sourceId: message.id,
        title: `${session.name} mentioned you in ${t.title}`, priority: 'now',
      })
    }
    return message
  },
})

/**
 * 'Let my twin look at this': on one of the caller's mention items, starts a run of the caller's twin in that program
 * through its mention trigger (enabled, under an approved plan). The only way a mention starts a run. No twin or no
 * mention duty: duty_unavailable; a paused twin: twin_paused. Audited twin.enqueue.
 */
export const letMyTwinLook = command({
  permission: 'program.twins.use',
  input: z.object({ inboxItemId: IdInput }),
  async load(q, input, ctx) {
    const item = await q.inboxItem.findFirst({ where: { id: input.inboxItemId, userId: ctx.session.userId, kind: 'mention' } })
    if (!item || !item.programId) throw new NotFoundError('InboxItem', { field: 'inboxItemId' })
    return item as typeof item & { programId: string }
  },
  program: (_i, item) => item.programId,
  errors: [DutyUnavailable, TwinPaused],
  audit: ['twin.enqueue'],
  async run(w, _input, item) {
    const { session } = w.ctx
    const twin = await w.tx.twinDefinition.findFirst({ where: { programId: item.programId, userId: session.userId, status: { in: ['active', 'paused'] } }, orderBy: { createdAt: 'asc' } })
    if (!twin) throw new DutyUnavailable('You have no twin in this program to look at this.', { field: 'inboxItemId' })
    if (twin.status !== 'active') throw new TwinPaused(undefined, { field: 'inboxItemId' })
    const trigger = await w.tx.twinTrigger.findFirst({ where: { twinId: twin.id, kind: 'mention', enabled: true, standingPlanApprovedAt: { not: null } } })
    if (!trigger) throw new DutyUnavailable('Your twin has no mention duty under an approved plan; add one to let it look at mentions.', { field: 'inboxItemId' })
    const { run } = await createTwinRun(w.tx, {
      organizationId: twin.organizationId, programId: item.programId, twinId: twin.id, triggerId: trigger.id, kind: 'twin_cycle',
      initiatedBy: 'user', startedByUserId: session.userId, priority: trigger.priority, targetId: item.sourceId,
    })
    await w.audit('twin.enqueue', { type: 'agent_run', id: run.id }, { twin_id: twin.id, initiated_by: 'user', via: 'mention', message_id: item.sourceId }, { triggerId: trigger.id })
    return run
  },
})
