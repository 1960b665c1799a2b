// Owns live topics for every subgraph: one LISTEN channel, per-subscriber queues of keys (coalesced, bounded),
// rows re-read by ids in one query per tick across subscribers, and who may see a row decided per delivery
// under the subscriber's live session.
import { GraphQLError } from 'graphql'
import type { Db } from '../database'
import { SlowConsumerError, type Channel, type Channels, type PgListener } from '../database'
import { loadSession, type Session } from '../identity'
import { INTERRUPTED_MESSAGE, SUBSCRIPTION_INTERRUPTED } from './subgraph-protocol'

export { INTERRUPTED_MESSAGE, SUBSCRIPTION_INTERRUPTED }

export interface LiveTopicSpec<C extends Channel, Row> {
  channel: C
  /** Whose subscriptions a notification concerns (e.g. the user id of an inbox item, a program id). */
  audience: (notification: Channels[C]) => string
  /** The row the notification announces; notifications for the same key coalesce until delivered. */
  key: (notification: Channels[C]) => string
  /** Re-reads rows by key, in one query. */
  read: (db: Db, keys: string[]) => Promise<Row[]>
  keyOf: (row: Row) => string
  /** The payload must agree with the row: a notification never widens who receives a row. */
  matches: (row: Row, notification: Channels[C]) => boolean
  /** Whether the person may see the row now (called with the session loaded for this delivery). */
  visible: (row: Row, session: Session) => boolean
  /** What a subscriber receives for a row and the (latest) notification that announced it; default the row. */
  emit?: (row: Row, notification: Channels[C]) => Row
}

/**
 * Distinct keys waiting for one subscriber before it is closed as too slow. Keys, not rows: a burst of a thousand
 * changes waits as a thousand ids, and a row changed twice before delivery is read (and delivered) once.
 */
export const LIVE_TOPIC_PENDING_LIMIT = 4096
export function interruptedError() {
  return new GraphQLError(INTERRUPTED_MESSAGE, { extensions: { code: SUBSCRIPTION_INTERRUPTED } })
}

/** Keys re-read together for one subscriber. */
const READ_BATCH = 500

interface Subscriber<N> {
  pending: Map<string, N>
  wake?: () => void
  failure?: unknown
  closed: boolean
}

export class LiveTopic<C extends Channel, Row> {
  private readonly byAudience = new Map<string, Set<Subscriber<Channels[C]>>>()
  private readonly off: () => void
  private readonly offLost: () => void
  private tick?: { keys: Set<string>; rows: Promise<Map<string, Row>> }

  constructor(private readonly db: Db, private readonly listener: PgListener, private readonly spec: LiveTopicSpec<C, Row>) {
    // Events sent while the LISTEN connection is down are lost: every open stream ends with a code, none goes quiet.
    this.offLost = listener.onLost(() => {
      for (const set of this.byAudience.values()) for (const s of set) this.fail(s, interruptedError())
    })
    this.off = listener.on(spec.channel, (n) => {
      const subscribers = this.byAudience.get(spec.audience(n))
      if (!subscribers) return // nobody here listens: no re-read at all
      const key = spec.key(n)
      for (const s of subscribers) this.offer(s, key, n)
    })
  }

  private fail(s: Subscriber<Channels[C]>, failure: unknown) {
    if (s.closed) return
    s.failure = failure
    s.pending.clear()
    s.closed = true
    s.wake?.()
  }

  private offer(s: Subscriber<Channels[C]>, key: string, n: Channels[C]) {
    if (s.closed) return
    if (!s.pending.has(key) && s.pending.size >= LIVE_TOPIC_PENDING_LIMIT) {
      s.failure = new SlowConsumerError(LIVE_TOPIC_PENDING_LIMIT)
      s.pending.clear()
      s.closed = true
    } else {
      s.pending.set(key, n) // a later notification for a waiting key replaces it, in its place
    }
    s.wake?.()
  }

  /** Every subscriber re-reading in the same tick shares one query. */
  private readRows(keys: string[]): Promise<Map<string, Row>> {
    if (!this.tick) {
      const batch = { keys: new Set<string>(), rows: undefined as unknown as Promise<Map<string, Row>> }
      batch.rows = new Promise<void>((r) => setImmediate(r)).then(async () => {
        this.tick = undefined
        const rows = await this.spec.read(this.db, [...batch.keys])
        return new Map(rows.map((row) => [this.spec.keyOf(row), row]))
      })
      this.tick = batch
    }
    for (const k of keys) this.tick.keys.add(k)
    return this.tick.rows
  }

  get subscriberCount() {
    let n = 0
    for (const set of this.byAudience.values()) n += set.size
    return n
  }

  /**
   * Rows for `audience` as `session`'s person may see them: the live session is loaded for every delivery, so a
   * person who lost access stops receiving at once, and a deactivated person's subscription ends (UNAUTHENTICATED).
   */
  subscribe(session: Session, audience: string): AsyncIterableIterator<Row> {
    const s: Subscriber<Channels[C]> = { pending: new Map(), closed: false }
    // While the LISTEN connection is down a new stream would silently miss events: it ends at once, with the code.
    if (!this.listener.connected) { s.failure = interruptedError(); s.closed = true }
    let set = this.byAudience.get(audience)
    if (!set) this.byAudience.set(audience, (set = new Set()))
    set.add(s)
    const leave = () => {
      s.closed = true
      s.pending.clear()
      set.delete(s)
      if (!set.size && this.byAudience.get(audience) === set) this.byAudience.delete(audience)
      s.wake?.()
    }
    const ready: Row[] = []
    const iterator: AsyncIterableIterator<Row> = {
      next: async (): Promise<IteratorResult<Row>> => {
        for (;;) {
          if (ready.length) return { value: ready.shift()!, done: false }
          if (s.failure) { const f = s.failure; s.failure = undefined; leave(); throw f }
          if (s.closed) { leave(); return { value: undefined, done: true } }
          if (!s.pending.size) { await new Promise<void>((r) => { s.wake = r }); s.wake = undefined; continue }
          const batch = [...s.pending].slice(0, READ_BATCH)
          for (const [k] of batch) s.pending.delete(k)
          let rows: Map<string, Row>, current: Session
          // a person deactivated meanwhile (UNAUTHENTICATED) or a failed read ends the stream: leave the audience too,
          // since a for-await that receives a throw from next() never calls return()
          try { [rows, current] = await Promise.all([this.readRows(batch.map(([k]) => k)), loadSession(this.db, session.userId)]) } catch (e) { leave(); throw e }
          for (const [k, n] of batch) {
            const row = rows.get(k)
            if (row && this.spec.matches(row, n) && this.spec.visible(row, current)) ready.push(this.spec.emit ? this.spec.emit(row, n) : row)
          }
        }
      },
      return: async () => { leave(); return { value: undefined, done: true } },
      [Symbol.asyncIterator]() { return this },
    }
    return iterator
  }

  close() { this.off(); this.offLost() }
}
