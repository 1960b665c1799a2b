// Owns the live inbox topic: an item's owner receives it while still active and a member of its program, with the
// change the (latest) notification announced (created, resolved, snoozed, expired, reminded, ...).
import type { InboxItem } from '../../generated/prisma/client'
import type { Db } from '../../core/database'
import type { InboxChange, PgListener } from '../../core/database'
import type { Session } from '../../core/identity'
import { LiveTopic } from '../../core/http'
import { changeShownBy } from './inbox'

/** An item as a subscriber receives it: the row and what happened to it. */
export type LiveInboxItem = InboxItem & { change?: InboxChange }

/** The items one batch of notifications names: a batch serves every organisation's subscribers, each filtered by visible. */
function inboxItemsAcrossOrganisations(db: Db, ids: string[]) {
  return db.inboxItem.findMany({ where: { id: { in: ids } } })
}

export class InboxEvents extends LiveTopic<'inbox_changed', LiveInboxItem> {
  constructor(db: Db, listener: PgListener) {
    super(db, listener, {
      channel: 'inbox_changed',
      audience: (n) => n.userId,
      key: (n) => n.id,
      read: inboxItemsAcrossOrganisations,
      keyOf: (item) => item.id,
      matches: (item, n) => item.userId === n.userId && item.organizationId === n.organizationId,
      visible: (item, session) => item.organizationId === session.organizationId && (!item.programId || session.programPersonas.has(item.programId)),
      // Changes to one item coalesce until delivered: the latest notification names the change of the state delivered.
      emit: (item, n) => ({ ...item, change: n.change ?? changeShownBy(item) }),
    })
  }

  /** Events for the session's own inbox. */
  subscribeOwn(session: Session) { return this.subscribe(session, session.userId) }
}
