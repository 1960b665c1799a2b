// Owns using a signed inbox link (its token: link-tokens.ts): what a link page may show, and resolving the one item
// it names as the person it names, without signing in and without reading the private thread. A link works once.
import { z } from 'zod'
import { forOrganization, type Db } from '../../core/database'
import { command, contextForUser } from '../../core/jobs'
import { IdInput } from '../../core/text'
import { DecisionRequired, InboxLinkInvalid, InboxLinkUsed, InvalidTransition } from '../../core/errors'
import { DECIDED_KINDS, ownItemWrite, resolveOwnItem } from './inbox'
import { LINK_ACTIONS, verifyInboxLink } from './link-tokens'

/** What a link page may show: the kind of item and whether it can be resolved here. Never a title or thread text. */
export async function describeInboxLink(db: Db, token: string | undefined, itemId: string) {
  const claims = await verifyInboxLink(token, itemId)
  // The signed link names its organisation: both reads are that organisation's.
  const tdb = forOrganization(db, claims.org)
  const used = await tdb.inboxLinkUse.findUnique({ where: { id: claims.jti } })
  if (used) throw new InboxLinkUsed()
  const item = await tdb.inboxItem.findFirst({ where: { id: claims.item, userId: claims.sub, organizationId: claims.org }, select: { kind: true, status: true } })
  if (!item) throw new InboxLinkInvalid()
  return { kind: item.kind, status: item.status, resolvable: !DECIDED_KINDS.has(item.kind) }
}

/** Resolve through a link: the link's use is recorded in the resolve's own transaction. */
const resolveByLink = command({
  ...ownItemWrite,
  input: z.object({ id: IdInput, jti: z.string().uuid(), action: z.enum(LINK_ACTIONS), expiresAt: z.date() }),
  errors: [DecisionRequired, InvalidTransition, InboxLinkUsed],
  audit: ['inbox.resolve'],
  async run(w, input, item) {
    const recorded = await w.tx.inboxLinkUse.createManyAndReturn({
      data: [{ id: input.jti, organizationId: item.organizationId, itemId: item.id, userId: item.userId, action: input.action, expiresAt: input.expiresAt }],
      skipDuplicates: true,
    })
    if (!recorded.length) throw new InboxLinkUsed()
    return resolveOwnItem(w, item, 'link')
  },
})

/**
 * Uses a link: verifies it, then resolves the item as the person the link names, under their live permissions, and
 * records the link's id in the same transaction: a second use answers inbox_link_used, and a refused resolve
 * (decision_required, already done) leaves the link unused.
 */
export async function useInboxLink(db: Db, token: string | undefined, itemId: string) {
  const claims = await verifyInboxLink(token, itemId)
  const ctx = await contextForUser(db, claims.sub, claims.org).catch(() => { throw new InboxLinkInvalid() })
  return resolveByLink(ctx, { id: claims.item, jti: claims.jti, action: claims.act, expiresAt: new Date(claims.exp * 1000) })
}
