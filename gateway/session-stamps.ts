// Owns the gateway's session stamps (is the person active, and the version of what their session holds): kept in a
// bounded per-process cache, dropped at once when PostgreSQL announces a change, read per request whenever the
// announcements cannot be trusted (issue 20). The stamp's version is what the internal token carries to the subgraphs,
// which reload a cached session when it moved (core/identity/session-cache.ts): so this cache decides how live permissions are.
//
// Why the first request after a change sees it (the consistency argument):
// 1. Every change to what a session holds goes through a trigger that bumps session_versions and sends
//    NOTIFY session_changed {userId, version} in the same transaction (prisma/migrations/*_session_change_notify): the
//    tables the session reads (memberships, role assignments, organisation roles, users including deactivated_at),
//    whoever writes. PostgreSQL queues it at commit (never for a rollback; a NOTIFY that cannot be queued fails the
//    transaction, so no change commits unannounced) and delivers it to every backend listening then, in commit order.
// 2. A notification alone is not enough: it travels on another connection than the request, and a request that reaches
//    this process just after the commit can be served before the notification has been read from the LISTEN socket.
//    (tests/gateway/live-permissions.test.ts failed that way on its first run, with a change written straight to the
//    database: the query saw the old personas, the mutation right after it the new ones.) So a cached stamp is used
//    only after PgListener.sync(): a round trip on the LISTEN connection, sent after the request arrived. PostgreSQL
//    signals the listening backends inside the commit (AtCommit_Notify), before the writer's client hears of it, and a
//    backend sends the notifications it was signalled for before it reports ready for the next query (postgres.c: "they'll
//    be seen by the client before ReadyForQuery is"); so when the sync
//    returns, every change committed before the request arrived has reached `forget`. Requests arriving together share
//    one round trip, so under load it costs a fraction of a read per request, and it is cheaper than the read it
//    replaces (an empty query: no parse, no plan, no pool).
// 3. A stamp is cached only from a read that started while the LISTEN connection was up with LISTEN in effect (the
//    listener sets `connected` after its LISTEN statements returned). A change committed before the read's snapshot is
//    in the read; one committed after it is notified: arriving while the read is in flight, it removes the read from
//    `reading` and the finished read is not cached; arriving later, it deletes the entry. A request joins a read in
//    flight only after its own sync, so it never takes a read older than a change committed before it arrived.
// 4. While the connection is down (start, loss, reconnecting) notifications are missed: every request reads, as before
//    this cache existed, nothing read then is cached, the loss clears the cache and the reconnect clears it again. A
//    sync without an answer in 2 s drops the connection as lost (a half-open connection is found by the next request).
// 5. Each gateway replica has its own LISTEN connection and cache; the trigger's notification reaches all of them.
// What is left to STAMP_MAX_AGE_MS: writes that bypass row triggers (TRUNCATE, session_replication_role = replica during
// a restore), or a table a session comes to depend on without a trigger.
import type pg from 'pg'
import type { Db } from '../core/database'
import { boundedCache, type BoundedCache } from '../core/config'
import { log } from '../core/config'
import { PgListener } from '../core/database'
import { readSessionStamp, type SessionStamp } from '../core/identity'

/**
 * The longest a cached stamp is trusted: 5 s. Notifications and syncs keep the cache exact; this only bounds what a
 * change that bypasses the triggers could cost, to about the time a person takes to notice (the same order as
 * PgListener's longest reconnect back-off, 5 s, during which every request reads anyway). Longer buys little: a person
 * sending requests (a console page fans out to several, a script or a busy screen sends many per second) is read once
 * per 5 s instead of once per request, at 100 requests per second 1 read in 500; an idle person costs nothing either way.
 */
export const STAMP_MAX_AGE_MS = 5_000
const MAX_ENTRIES = 10_000

export class SessionStamps {
  /** stamps by person, each trusted for maxAgeMs from the start of its read; least recently used out first when full */
  private readonly cache: BoundedCache<string, SessionStamp>
  /** Reads in flight, shared by concurrent requests of one person while listening; a notification removes its person's. */
  private readonly reading = new Map<string, Promise<SessionStamp | null>>()
  private readonly listener?: PgListener
  /** Stamps read from the database since start (tests and benches read it). */
  reads = 0
  /** STAMP_MAX_AGE_MS; tests lengthen it so that counts of reads never depend on how busy the machine is. */
  maxAgeMs = STAMP_MAX_AGE_MS

  /**
   * `listenUrl`: where to LISTEN for session_changed; without one nothing is cached (every request reads).
   * `maxEntries`: how many people's stamps are kept (tests make it small to show who is evicted).
   */
  constructor(private readonly db: Db, private readonly pool?: pg.Pool, listenUrl?: string, maxEntries = MAX_ENTRIES) {
    this.cache = boundedCache({ max: maxEntries })
    if (!listenUrl) return
    this.listener = new PgListener(listenUrl, () => {
      this.forgetAll() // notifications sent while it was down are lost
      log.info('gateway.session_stamps_listening')
    })
    this.listener.on('session_changed', ({ userId }) => this.forget(userId)) // before start: LISTEN is in effect once connected
    this.listener.onLost(() => this.forgetAll())
    this.listener.startInBackground()
  }

  /** True while the cache is trusted: the LISTEN connection is up. */
  get listening(): boolean {
    return this.listener?.connected ?? false
  }

  /** The LISTEN connection's backend pid while it is up (tests end it). */
  get listenerPid(): number | undefined {
    return this.listener?.backendPid
  }

  /** The person's stamp, null for an unknown id: from the cache while listening (after a sync), else read. */
  async read(userId: string): Promise<SessionStamp | null> {
    if (!this.listening) return this.fromDatabase(userId)
    if (this.fresh(userId) || this.reading.has(userId)) {
      // Something to reuse: first let every notification of a change committed before this request reach `forget`.
      try { await this.listener!.sync() } catch { return this.fromDatabase(userId) }
      if (!this.listening) return this.fromDatabase(userId)
      const hit = this.fresh(userId)
      if (hit) return hit
      const inFlight = this.reading.get(userId)
      if (inFlight) return inFlight
    }
    const start = this.cache.perf.now() // its age counts from before the read
    const read: Promise<SessionStamp | null> = this.fromDatabase(userId).then((stamp) => {
      // still ours: no notification for this person and no loss of the connection since the read started
      if (this.reading.get(userId) === read) {
        this.reading.delete(userId)
        if (stamp && this.listening) this.cache.set(userId, stamp, { ttl: this.maxAgeMs, start })
      }
      return stamp
    }, (error) => {
      if (this.reading.get(userId) === read) this.reading.delete(userId)
      throw error
    })
    this.reading.set(userId, read)
    return read
  }

  async close(): Promise<void> {
    await this.listener?.stop()
    this.forgetAll()
  }

  private fromDatabase(userId: string): Promise<SessionStamp | null> {
    this.reads++
    return readSessionStamp(this.db, userId, this.pool)
  }

  /** The cached stamp while it is trusted (reading it makes it the most recently used). */
  private fresh(userId: string): SessionStamp | undefined {
    return this.cache.get(userId)
  }

  private forget(userId: string) {
    this.cache.delete(userId)
    this.reading.delete(userId)
  }

  private forgetAll() {
    this.cache.clear()
    this.reading.clear()
  }
}
