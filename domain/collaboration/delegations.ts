// Owns delegations: a person routes their write approvals one hop to a delegate for at most 30 days (GET, POST
// /me/delegations, DELETE /me/delegations/{id}); renewal, revocation, expiry (job delegation_expire), and the routing
// question every decision filing asks (routeDecision): while a delegation is active, in its program and before its
// end, the delegator's decision items go to the delegate, who decides in their own right under their own live
// permissions. One hop only: routing never looks at the delegate's own delegations (and a chain cannot be created).
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Delegation } from '../../generated/prisma/client'
import { command, onId, type DomainContext } from '../../core/jobs'
import { systemActor, recordAudit } from '../../core/audit'
import { asTx, type AnyTx, type Db } from '../../core/database'
import { publishMany } from '../../core/database'
import { lockDelegationsOf } from './sql'
import { DelegationInvalid, NotFoundError } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import { transition, transitionAll } from '../../core/states'
import { delegationStatus } from '../../core/states'

/** Limits: 'delegation length: at most 30 days' (twins document). */
export const MAX_DELEGATION_DAYS = 30
const DAY_MS = 86_400_000
/** A start this far in the past is taken as "now" (clocks of callers differ a little). */
const START_SLACK_MS = 5 * 60_000

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

/** The caller's delegations, given and received, newest first (GET /me/delegations). */
export async function listMyDelegations(ctx: Ctx, args: { status?: Delegation['status'][] | null } = {}) {
  const me = ctx.session.userId
  return ctx.tdb.delegation.findMany({
    where: { OR: [{ userId: me }, { delegateUserId: me }], ...(args.status?.length ? { status: { in: args.status } } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 200,
  })
}

/** One delegation the caller gave or received; anything else is null. */
export async function getMyDelegation(ctx: Ctx, id: string) {
  if (!isId(id)) return null
  return ctx.tdb.delegation.findFirst({ where: { id, OR: [{ userId: ctx.session.userId }, { delegateUserId: ctx.session.userId }] } })
}

/** Active and in force at `now`: started, not ended, not revoked. The expiry job may not have run yet: ends_at decides. */
const inForce = (now: Date) => ({ status: 'active' as const, startsAt: { lte: now }, endsAt: { gt: now } })

/** Whether `delegateId` holds a persona in `programId` now and is an active person of the organisation. */
async function isProgramPerson(q: AnyTx, organizationId: string, programId: string, userId: string) {
  const tx = asTx(q)
  const [persona, user] = await Promise.all([
    tx.roleAssignment.findFirst({ where: { organizationId, programId, userId }, select: { id: true } }),
    tx.user.findFirst({ where: { id: userId, organizationId, deactivatedAt: null }, select: { id: true } }),
  ])
  return !!persona && !!user
}

/**
 * Where a decision item of `userId` in `programId` goes now: to the delegate of an active delegation in force that
 * covers the program (a program delegation before an every-program one), when the delegate is still a person of that
 * program; else to the person. One hop: the delegate's own delegations are never followed.
 */
export async function routeDecision(q: AnyTx, item: { organizationId: string; userId: string; programId: string | null }, now = new Date()): Promise<{ userId: string; delegatedFromUserId: string | null; delegationId: string | null }> {
  const own = { userId: item.userId, delegatedFromUserId: null, delegationId: null }
  if (!item.programId) return own
  const delegations = await asTx(q).delegation.findMany({
    where: { organizationId: item.organizationId, userId: item.userId, ...inForce(now), OR: [{ programId: item.programId }, { programId: null }] },
  })
  const d = delegations.find((x) => x.programId === item.programId) ?? delegations.find((x) => x.programId === null)
  if (!d || !(await isProgramPerson(q, item.organizationId, item.programId, d.delegateUserId))) return own
  return { userId: d.delegateUserId, delegatedFromUserId: item.userId, delegationId: d.id }
}

/** The delegation in force from `principalId` to `delegateId` covering `programId`, if any (Keep questions, decisions). */
export async function delegationBetween(q: AnyTx, organizationId: string, principalId: string, delegateId: string, programId: string, now = new Date()) {
  const route = await routeDecision(q, { organizationId, userId: principalId, programId }, now)
  return route.delegatedFromUserId && route.userId === delegateId ? route.delegationId : null
}

const CreateInput = z.object({
  delegateUserId: IdInput,
  programId: IdInput.nullish(),
  startsAt: z.coerce.date().nullish(),
  endsAt: z.coerce.date(),
  reason: personText(2000).default(''),
})

/** Refused shapes, each delegation_invalid with the field it concerns and why (nothing is written). */
const invalid = (field: string, message: string) => new DelegationInvalid(message, { field })

/**
 * POST /me/delegations: delegates the caller's write approvals (in one program, or every program when programId is
 * null) from startsAt (default now) to endsAt. Asking again for the same delegate and program while one is active
 * renews it: a new period from now, renewal_count + 1, audit delegation.renew. Refused with delegation_invalid: the
 * caller as delegate; a period over 30 days, ending before it starts or already over; a chain (the delegate has
 * delegated, or the caller is someone's delegate now); a delegate outside the program (or organisation, or inactive);
 * a program the caller holds no persona in; another active delegation of the caller for that program.
 */
export const createDelegation = command({
  permission: 'self',
  input: CreateInput,
  program: () => null,
  errors: [DelegationInvalid],
  audit: ['delegation.create', 'delegation.renew', 'delegation.expire'],
  async run(w, input) {
    const { session } = w.ctx
    const me = session.userId
    const orgId = session.organizationId
    const now = new Date()
    const startsAt = !input.startsAt || input.startsAt.getTime() < now.getTime() ? now : input.startsAt
    if (input.startsAt && input.startsAt.getTime() < now.getTime() - START_SLACK_MS) throw invalid('startsAt', 'A delegation cannot start in the past.')
    if (input.delegateUserId === me) throw invalid('delegateUserId', 'You cannot delegate to yourself; the delegate must be someone else.')
    if (input.endsAt.getTime() <= startsAt.getTime()) throw invalid('endsAt', 'A delegation ends after it starts.')
    if (input.endsAt.getTime() - startsAt.getTime() > MAX_DELEGATION_DAYS * DAY_MS) throw invalid('endsAt', `A delegation lasts at most ${MAX_DELEGATION_DAYS} days.`)
    const programId = input.programId ?? null
    if (programId && !session.programPersonas.has(programId)) throw invalid('programId', 'You hold no persona in this program, so there is nothing of yours to route there.')
    const delegate = await w.tx.user.findFirst({ where: { id: input.delegateUserId, deactivatedAt: null }, select: { id: true } })
    if (!delegate) throw invalid('delegateUserId', 'The delegate is not an active person of your organisation.')
    if (programId && !(await isProgramPerson(w.tx, orgId, programId, delegate.id))) throw invalid('delegateUserId', 'The delegate holds no persona in this program; a delegation never routes outside its program.')
    // Serialise a person's delegation writes, so two requests cannot both pass the checks below.
    await lockDelegationsOf(w.tx, orgId)
    // Rows past their end that the job has not swept yet are expired here first, audited like the job does.
    const lapsed = await transitionAll(w.tx, delegationStatus, 'expire', { organizationId: orgId, userId: { in: [me, delegate.id] }, endsAt: { lte: now } }, { updatedAt: now })
    for (const d of lapsed) {
      await w.audit('delegation.expire', { type: 'delegation', id: d.id }, { by: 'create', user_id: d.userId, ends_at: d.endsAt.toISOString() }, { programId: d.programId })
      await returnRoutedItems(w.tx, d, now)
    }
    const overlap = (p: string | null) => (p ? { OR: [{ programId: p }, { programId: null }] } : {})
    const onward = await w.tx.delegation.findFirst({ where: { userId: delegate.id, status: 'active', ...overlap(programId) } })
    if (onward) throw invalid('delegateUserId', 'The delegate has delegated their own approvals; a delegation routes one hop, never onward.')
    const inbound = await w.tx.delegation.findFirst({ where: { delegateUserId: me, status: 'active', ...overlap(programId) } })
    if (inbound) throw invalid('delegateUserId', "You are someone's delegate now; what is routed to you cannot be routed onward.")
    const current = await w.tx.delegation.findFirst({ where: { userId: me, status: 'active', programId } })
    if (current && current.delegateUserId !== delegate.id) throw invalid('delegateUserId', 'You have an active delegation to someone else here; revoke it first.')
    if (current) {
      const renewed = await transition(w.tx, delegationStatus, 'renew', current, {
        startsAt, endsAt: input.endsAt, renewalCount: { increment: 1 }, reason: input.reason || current.reason, updatedAt: now,
      })
      await w.audit('delegation.renew', { type: 'delegation', id: renewed.id }, {
        delegate_user_id: delegate.id, renewal_count: renewed.renewalCount, starts_at: startsAt.toISOString(), ends_at: input.endsAt.toISOString(),
      }, { programId })
      return renewed
    }
    const created = await w.tx.delegation.create({
      data: { organizationId: orgId, userId: me, delegateUserId: delegate.id, programId, startsAt, endsAt: input.endsAt, reason: input.reason, status: 'active' },
    })
    await w.audit('delegation.create', { type: 'delegation', id: created.id }, {
      delegate_user_id: delegate.id, starts_at: startsAt.toISOString(), ends_at: input.endsAt.toISOString(),
    }, { programId })
    return created
  },
})

/** DELETE /me/delegations/{id}: the delegator revokes; routing stops at once (the next filing reads the status). */
export const revokeDelegation = onId(command({
  permission: 'self',
  input: z.object({ id: IdInput }),
  async load(q, input, ctx) {
    const d = await q.delegation.findFirst({ where: { id: input.id, userId: ctx.session.userId } })
    if (!d) throw new NotFoundError('Delegation', { field: 'id' })
    return d
  },
  program: () => null,
  errors: [],
  audit: ['delegation.revoke'],
  async run(w, _input, d) {
    const now = new Date()
    const revoked = await transition(w.tx, delegationStatus, 'revoke', d, { revokedAt: now, updatedAt: now })
    const returned = await returnRoutedItems(w.tx, d, now)
    await w.audit('delegation.revoke', { type: 'delegation', id: d.id }, { delegate_user_id: d.delegateUserId, items_returned: returned }, { programId: d.programId })
    return revoked
  },
}))

/**
 * When a delegation stops routing (revoked, expired), the open and snoozed items it routed to the delegate go back to
 * the person: only the person (or a live delegate) may decide their twin's proposals, so an item left with a former
 * delegate could only expire. Each returned item is announced to the person as filed (it arrives in their inbox);
 * the delegate's list drops it on its next read.
 */
async function returnRoutedItems(tx: AnyTx, d: Delegation, now: Date): Promise<number> {
  const q = asTx(tx)
  const items = await q.inboxItem.findMany({
    where: {
      organizationId: d.organizationId, userId: d.delegateUserId, delegatedFromUserId: d.userId, status: { in: ['open', 'snoozed'] },
      ...(d.programId ? { programId: d.programId } : {}),
    },
    select: { id: true },
  })
  if (items.length === 0) return 0
  await q.inboxItem.updateMany({ where: { organizationId: d.organizationId, id: { in: items.map((i) => i.id) } }, data: { userId: d.userId, delegatedFromUserId: null, updatedAt: now } })
  await publishMany(tx, 'inbox_changed', items.map((i) => ({ id: i.id, userId: d.userId, organizationId: d.organizationId, change: 'created' as const })))
  return items.length
}

/** Job delegation_expire (hourly): active delegations past ends_at expire, each audited delegation.expire. */
export async function expireDelegations(db: Db, now = new Date()) {
  return expireDelegationsAcrossOrganisations(db, now)
}

/** The hourly sweep takes every organisation's ended delegations in one transaction, all or nothing. */
function expireDelegationsAcrossOrganisations(db: Db, now: Date) {
  return db.$transaction(async (tx) => {
    const expired = await transitionAll(tx, delegationStatus, 'expire', { endsAt: { lte: now } }, { updatedAt: now })
    for (const d of expired) {
      const returned = await returnRoutedItems(tx, d, now)
      await recordAudit(tx, {
        organizationId: d.organizationId, programId: d.programId, action: 'delegation.expire', actor: systemActor('delegation_expire'),
        target: { type: 'delegation', id: d.id }, details: { user_id: d.userId, ends_at: d.endsAt.toISOString(), items_returned: returned },
      })
    }
    return { expired: expired.length }
  }, { timeout: 120_000 })
}
