// Owns live inbox events in this process: one LISTEN, one re-read per NOTIFY, fan-out to that user's subscribers.
import type { InboxItem } from '../../../generated/prisma/client'
import type { Db } from '../../../core/db'
import { Broadcaster, type PgListener } from '../../../core/pubsub'
import { loadSession, type Session } from '../../../core/session'
import { log } from '../../../core/log'

/** How many events may wait for one subscriber before it is closed as too slow. */
export const SUBSCRIBER_QUEUE_LIMIT = 256

export class InboxEvents {
  private readonly byUser = new Map<string, Broadcaster<InboxItem>>()
  private chain = Promise.resolve()
  private readonly pending: { id: string; userId: string; organizationId: string }[] = []
  private readonly off: () => void

  constructor(private readonly db: Db, listener: PgListener) {
    this.off = listener.on('inbox_changed', (n) => {
      if (!this.byUser.has(n.userId)) return // nobody here listens to that inbox: skip the re-read
      this.pending.push(n)
      if (this.pending.length === 1) this.chain = this.chain.then(() => this.flush())
    })
  }

  /** Re-reads every pending notification in one query, then publishes in notification order. */
  private async flush() {
    const batch = this.pending.splice(0)
    if (!batch.length) return
    try {
      const rows = await this.db.inboxItem.findMany({ where: { id: { in: [...new Set(batch.map((n) => n.id))] } } })
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const n of batch) {
        const row = byId.get(n.id)
        // The key in the notification must match the row: a payload never widens who receives it.
        if (row && row.userId === n.userId && row.organizationId === n.organizationId) this.byUser.get(row.userId)?.publish(row)
      }
    } catch (e) {
      log.error('inbox_events.reread_failed', { error: e, events: batch.length })
    }
  }

  get subscriberCount() {
    let n = 0
    for (const b of this.byUser.values()) n += b.size
    return n
  }

  /**
   * Events for the session's own inbox. Permission is checked now and again on every event: an event is
   * delivered only while the person is active and still a member of the item's program.
   */
  subscribe(session: Session): AsyncIterableIterator<InboxItem> {
    let broadcaster = this.byUser.get(session.userId)
    if (!broadcaster) this.byUser.set(session.userId, (broadcaster = new Broadcaster<InboxItem>(SUBSCRIBER_QUEUE_LIMIT)))
    const source = broadcaster.subscribe()
    const db = this.db
    const byUser = this.byUser
    const userId = session.userId
    // Live permissions on every event (one statement): a person removed from the program stops receiving its
    // items at once, and a deactivated person's subscription ends with UNAUTHENTICATED.
    const stillAllowed = async (item: InboxItem) => {
      const current = await loadSession(db, userId)
      return item.organizationId === current.organizationId && (!item.programId || current.programPersonas.has(item.programId))
    }
    const iterator: AsyncIterableIterator<InboxItem> = {
      async next() {
        for (;;) {
          const r = await source.next()
          if (r.done) return r
          if (await stillAllowed(r.value)) return r
        }
      },
      async return() {
        const r = await source.return!()
        const b = byUser.get(userId)
        if (b && b.size === 0) byUser.delete(userId)
        return r
      },
      [Symbol.asyncIterator]() { return this },
    }
    return iterator
  }

  close() { this.off() }
}
