// Owns cross-process events: key-only NOTIFY sent inside the writing transaction, LISTEN with reconnect,
// and a bounded in-process fan-out where a subscriber that cannot keep up is closed, not buffered forever.
// Service plumbing, not tenant data: its SQL is pg_notify and LISTEN on channels of key-only payloads, never a read or
// write of an organisation's rows (listed as plumbing in tests/platform/sql-road.test.ts).
import pg from 'pg'
import { asTx, type AnyTx } from './db'
import { log } from '../config'

/** Channels and their key-only payloads. Subscribers re-read the row; nothing else travels. */
export interface Channels {
  /** `change` names what happened to the item (created, resolved, snoozed, ...); absent, it is read from the row's status. */
  inbox_changed: { id: string; userId: string; organizationId: string; change?: InboxChange }
  /** A twin run changed status (domain/twins/runs.ts); audience: its program. */
  twin_run_updated: { id: string; programId: string; organizationId: string }
  /** A program record was created or changed (domain/records). */
  record_changed: { id: string; programId: string; organizationId: string; version: number }
  /** A stage gate's readiness or status changed (domain/gates/gates.ts); audience: its program. */
  stage_gate_readiness_changed: { id: string; programId: string; organizationId: string }
  /**
   * What a person's session holds changed (memberships, role assignments, organisation roles, their row): sent by the
   * trigger that bumps session_versions, never by application code (prisma/migrations/*_session_change_notify).
   */
  session_changed: { userId: string; version: number }
}
export type Channel = keyof Channels

/** What an inbox_changed event announces (Subscription.inboxChanged). */
// memory_note: a Keep question beneath the item (InboxItem.memoryNotes) was added, answered, or erased.
// escalated: open longer than the program's escalation_days (inbox_expire; domain/inbox/inbox-escalation.ts).
export const INBOX_CHANGES = ['created', 'resolved', 'snoozed', 'reopened', 'dismissed', 'expired', 'reminded', 'feedback', 'memory_note', 'escalated'] as const
export type InboxChange = (typeof INBOX_CHANGES)[number]

/** Sends the event in the caller's transaction, so nothing is announced that was not committed. */
export async function publish<C extends Channel>(tx: AnyTx, channel: C, payload: Channels[C]): Promise<void> {
  await asTx(tx).$executeRaw`SELECT pg_notify(${channel}, ${JSON.stringify(payload)})`
}

/** Sends many events of one channel in one statement (sweeps over thousands of rows), in the caller's transaction. */
export async function publishMany<C extends Channel>(tx: AnyTx, channel: C, payloads: readonly Channels[C][]): Promise<void> {
  if (payloads.length === 0) return
  await asTx(tx).$executeRaw`SELECT pg_notify(${channel}, p) FROM unnest(${payloads.map((p) => JSON.stringify(p))}::text[]) AS p`
}

export class SlowConsumerError extends Error {
  constructor(readonly limit: number) {
    super(`Subscription closed: more than ${limit} events were waiting to be read. Refetch and subscribe again.`)
  }
}

/** An async iterator fed by push(); at `limit` queued items it ends with SlowConsumerError. */
export function boundedQueue<T>(limit: number, onClose: () => void) {
  const buffer: T[] = []
  let waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null = null
  let failure: unknown = null
  let done = false
  const close = () => {
    if (done) return
    done = true
    onClose()
  }
  const iterator: AsyncIterableIterator<T> & { return(): Promise<IteratorResult<T>> } = {
    next() {
      if (buffer.length) return Promise.resolve({ value: buffer.shift()!, done: false })
      if (failure) { const f = failure; failure = null; return Promise.reject(f) }
      if (done) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve, reject) => { waiting = { resolve, reject } })
    },
    return() {
      buffer.length = 0
      close()
      waiting?.resolve({ value: undefined, done: true })
      waiting = null
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]() { return this },
  }
  return {
    iterator,
    /** Takes up to `max` already-queued items without waiting (a consumer that handles events in batches). */
    takeAvailable(max: number): T[] { return buffer.splice(0, max) },
    push(item: T) {
      if (done) return
      if (waiting) { const w = waiting; waiting = null; w.resolve({ value: item, done: false }); return }
      if (buffer.length >= limit) {
        buffer.length = 0
        failure = new SlowConsumerError(limit)
        close()
        return
      }
      buffer.push(item)
    },
  }
}

/** In-process fan-out of one channel's events to many subscribers. */
export class Broadcaster<T> {
  private readonly subscribers = new Set<(m: T) => void>()
  constructor(private readonly queueLimit = 256) {}
  publish(message: T) { for (const s of this.subscribers) s(message) }
  subscribe(filter?: (m: T) => boolean): AsyncIterableIterator<T> {
    const queue = boundedQueue<T>(this.queueLimit, () => this.subscribers.delete(push))
    const push = (m: T) => { if (!filter || filter(m)) queue.push(m) }
    this.subscribers.add(push)
    return queue.iterator
  }
  get size() { return this.subscribers.size }
}

/**
 * One dedicated LISTEN connection per process (not pooled). On loss it reconnects with back-off until it is back
 * (a PostgreSQL restart or outage of any length); events sent while it was down are lost, so `onLost` tells the
 * live topics at once (they end their streams with SUBSCRIPTION_INTERRUPTED and the clients refetch), and
 * `onReconnect` reports the way back.
 */
/** The LISTEN connection's application_name (operators see it in pg_stat_activity; the outage test ends it). */
export const LISTEN_APPLICATION_NAME = 'evidence-workspace listen'

export class PgListener {
  private client?: pg.Client
  private stopped = false
  private retry?: NodeJS.Timeout
  /** Ends the current connection as lost (a barrier that got no answer: the connection is not to be trusted). */
  private drop?: (why: unknown) => void
  private barrier?: Promise<void>
  private nextBarrier?: Promise<void>
  /** Round trips sync() has sent (tests read it). */
  syncRoundTrips = 0
  private readonly handlers = new Map<string, Set<(payload: unknown) => void>>()
  private readonly lostHandlers = new Set<() => void>()
  /** True while the LISTEN connection is up; live topics refuse new streams while it is not. */
  connected = false

  constructor(private readonly url: string, private readonly onReconnect?: () => void) {}

  on<C extends Channel>(channel: C, handler: (payload: Channels[C]) => void): () => void {
    const set = this.handlers.get(channel) ?? new Set()
    set.add(handler as (p: unknown) => void)
    this.handlers.set(channel, set)
    if (set.size === 1 && this.client) this.client.query(`LISTEN ${channel}`).catch(() => {})
    return () => set.delete(handler as (p: unknown) => void)
  }

  /** Called once per loss of the connection (events may be missed from now until it is back). */
  onLost(handler: () => void): () => void {
    this.lostHandlers.add(handler)
    return () => this.lostHandlers.delete(handler)
  }

  async start(): Promise<void> {
    await this.connect()
  }

  /**
   * Connects without waiting, and keeps trying with back-off while PostgreSQL is unreachable (a process that must start
   * anyway, and works without LISTEN meanwhile: the gateway's session stamps). `onReconnect` reports the first success.
   */
  startInBackground(): void {
    this.connect().then(() => this.onReconnect?.(), () => this.scheduleReconnect(0))
  }

  /**
   * Resolves once every notification of a transaction that committed before this call has been handed to the
   * handlers. A round trip on the LISTEN connection: PostgreSQL signals the listening backends while a transaction
   * commits (before its writer hears of the commit), and a backend sends the notifications it was signalled for before
   * it reports ready for the next query, and in order. Concurrent callers share round trips: a caller that arrives while
   * one is under way waits for the next (the one under way may have been sent before its commit), so under load one
   * round trip answers many callers. Rejects when not connected, or without an answer within `timeoutMs` (the connection
   * is then dropped as lost, and reconnected: a half-open connection is found here).
   */
  sync(timeoutMs = 2_000): Promise<void> {
    if (!this.client || !this.connected) return Promise.reject(new Error('Not listening.'))
    if (!this.barrier) {
      const client = this.client
      let timer: NodeJS.Timeout | undefined
      this.syncRoundTrips++
      const answered = client.query('').then(() => undefined) // an empty query: the cheapest round trip there is
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          if (this.client === client) this.drop?.(new Error(`No answer on the LISTEN connection within ${timeoutMs} ms.`))
          reject(new Error('The LISTEN connection did not answer.'))
        }, timeoutMs)
      })
      const barrier = Promise.race([answered, timedOut]).finally(() => {
        clearTimeout(timer)
        if (this.barrier === barrier) this.barrier = undefined
      })
      answered.catch(() => {}) // after a timeout, the late failure of the query itself is of no interest
      this.barrier = barrier
      return barrier
    }
    this.nextBarrier ??= this.barrier.catch(() => {}).then(() => {
      this.nextBarrier = undefined
      return this.sync(timeoutMs)
    })
    return this.nextBarrier
  }

  /** The LISTEN connection's backend pid while it is up (tests end exactly this connection). */
  get backendPid(): number | undefined {
    return this.connected ? (this.client as unknown as { processID?: number } | undefined)?.processID : undefined
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true, application_name: LISTEN_APPLICATION_NAME })
    client.on('notification', (msg) => {
      const set = this.handlers.get(msg.channel)
      if (!set || !msg.payload) return
      let payload: unknown
      try { payload = JSON.parse(msg.payload) } catch { log.warn('pubsub.bad_payload', { channel: msg.channel }); return }
      for (const h of set) {
        try { h(payload) } catch (e) { log.error('pubsub.handler_failed', { channel: msg.channel, error: e }) }
      }
    })
    const lost = (why: unknown) => {
      if (this.stopped || this.client !== client) return
      this.client = undefined
      this.connected = false
      log.warn('pubsub.listen_lost', { reason: String((why as Error)?.message ?? why) })
      client.removeAllListeners()
      client.on('error', () => {})
      client.end().catch(() => {})
      for (const h of this.lostHandlers) { try { h() } catch (e) { log.error('pubsub.lost_handler_failed', { error: e }) } }
      this.scheduleReconnect(0)
    }
    client.on('error', lost)
    client.on('end', () => lost('end'))
    this.client = client
    this.drop = lost
    try {
      await client.connect()
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`) // trusted identifiers
    } catch (err) {
      if (this.client === client) { this.client = undefined; client.removeAllListeners(); client.on('error', () => {}); client.end().catch(() => {}) }
      throw err
    }
    if (this.client !== client) throw new Error('The listener was stopped while connecting.')
    this.connected = true
  }

  private scheduleReconnect(attempt: number) {
    if (this.stopped) return
    const wait = Math.min(250 * 2 ** attempt, 5_000)
    this.retry = setTimeout(() => {
      this.connect().then(() => {
        log.info('pubsub.listen_restored', { attempts: attempt + 1 })
        this.onReconnect?.()
      }, () => this.scheduleReconnect(attempt + 1))
    }, wait)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    const c = this.client
    this.client = undefined
    this.connected = false
    await c?.end().catch(() => {})
  }
}
