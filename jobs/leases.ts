// Owns recovery of jobs left locked by worker processes that are gone (killed, crashed, lost their host).
// Service plumbing, not tenant data: its SQL reads and writes worker_leases, advisory locks and graphile-worker's own
// tables, never an organisation's rows (listed as plumbing in tests/platform/sql-road.test.ts).
//
// graphile-worker locks a job with its pool id and only frees locks older than 4 hours. Here every worker process holds a
// session advisory lock (namespace LEASE_NAMESPACE, key = its lease key) on one dedicated connection for its whole life,
// and records which pool ids it runs in worker_leases. PostgreSQL drops the advisory lock the moment that connection
// ends, so "a pool whose lease key nobody holds" is exactly "a pool whose process is gone".
// The advisory lock cannot see a pool that lives in a live process but will never hand its jobs back (a runner replaced
// after an outage whose stop hangs, a pool whose lease row was never written): so each process also refreshes
// worker_leases.heartbeat_at every HEARTBEAT_MS for the pools of its current runner only, and a pool silent for
// STALE_AFTER_SECONDS counts as gone too, as does a lock held for that long by a pool id with no lease row at all.
// On start and every RECOVERY_INTERVAL_MS, a worker unlocks the jobs (and job queues) of gone pools
// (graphile_worker.force_unlock_workers) and they run again at once. A pool that heartbeats keeps its jobs however
// long they run.
// Tasks are idempotent (processing marks commit with their writes), so a job that a half-dead worker still finishes
// after being unlocked does nothing twice.
import os from 'node:os'
import { randomInt } from 'node:crypto'
import pg from 'pg'
import { log } from '../core/config'

export const LEASE_NAMESPACE = 727301
/** How often a process refreshes the heartbeat of its current pools. */
export const HEARTBEAT_MS = 10_000
/** A pool whose heartbeat (or, without a lease row, whose lock) is older than this is gone: six missed heartbeats. */
export const STALE_AFTER_SECONDS = 60
/** How often every worker looks for gone pools (so a crash delays work by at most about 75 s). */
export const RECOVERY_INTERVAL_MS = 15_000

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.Client, 'query'>

export class WorkerLease {
  private readonly pools = new Set<string>()
  private stopped = false
  private retry?: NodeJS.Timeout
  private readonly heartbeat: NodeJS.Timeout

  /** Called each time the lease comes back after a lost connection (the database was gone). */
  onRestored?: () => void

  private constructor(
    private client: pg.Client,
    readonly leaseKey: number,
    private readonly databaseUrl: string,
  ) {
    this.watch(client)
    this.heartbeat = setInterval(() => { void this.beat().catch((error) => log.warn('worker.heartbeat_failed', { message: (error as Error).message })) }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  /**
   * Refreshes the heartbeat of the current pools, writing their rows again if a recovery removed them (this process was
   * silent too long, e.g. a blocked event loop): the jobs they held then were unlocked, the ones they lock now are kept.
   */
  async beat(): Promise<void> {
    if (this.stopped || !this.pools.size) return
    await this.client.query(
      `INSERT INTO worker_leases (pool_id, lease_key, hostname, pid)
       SELECT p, $2::int, $3::text, $4::int FROM unnest($1::text[]) AS p
       ON CONFLICT (pool_id) DO UPDATE SET heartbeat_at = now()`,
      [[...this.pools], this.leaseKey, os.hostname().slice(0, 200), process.pid],
    )
  }

  /**
   * The pools of a runner being replaced: no longer heartbeated, so if that runner never hands its jobs back (a stop
   * that hangs), any worker unlocks them once the heartbeat is stale. Their rows stay until then or until the caller
   * deletes them.
   */
  retire(poolIds: string[]) {
    for (const id of poolIds) this.pools.delete(id)
  }

  private static async connect(databaseUrl: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'evidence-workspace worker lease', connectionTimeoutMillis: 5_000, keepAlive: true })
    client.on('error', (err) => log.warn('worker.lease_connection_error', { message: err.message }))
    await client.connect()
    return client
  }

  /** Opens the dedicated connection and takes a free lease key. */
  static async acquire(databaseUrl: string): Promise<WorkerLease> {
    const client = await WorkerLease.connect(databaseUrl)
    for (;;) {
      const key = randomInt(1, 2 ** 31 - 1)
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [LEASE_NAMESPACE, key])
      if (rows[0].ok) return new WorkerLease(client, key, databaseUrl)
    }
  }

  /**
   * A lost connection (PostgreSQL restart, failover) drops the advisory lock: this process would read as gone. It
   * reconnects with back-off, takes the same key again and re-records its pools, so it resumes without a restart.
   */
  private watch(client: pg.Client) {
    const lost = () => {
      if (this.stopped || this.client !== client) return
      log.warn('worker.lease_lost', { leaseKey: this.leaseKey })
      client.removeAllListeners('end')
      client.end().catch(() => {})
      this.reconnect(0)
    }
    client.on('end', lost)
    client.on('error', lost)
  }

  private reconnect(attempt: number) {
    if (this.stopped) return
    this.retry = setTimeout(async () => {
      try {
        const client = await WorkerLease.connect(this.databaseUrl)
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [LEASE_NAMESPACE, this.leaseKey])
        if (!rows[0].ok) { await client.end(); throw new Error('lease key held elsewhere') }
        this.client = client
        this.watch(client)
        for (const poolId of this.pools) await this.insert(poolId)
        log.info('worker.lease_restored', { leaseKey: this.leaseKey, attempts: attempt + 1 })
        this.onRestored?.()
      } catch {
        this.reconnect(attempt + 1)
      }
    }, Math.min(250 * 2 ** attempt, 5_000))
  }

  private insert(poolId: string) {
    return this.client.query(
      `INSERT INTO worker_leases (pool_id, lease_key, hostname, pid) VALUES ($1, $2, $3, $4) ON CONFLICT (pool_id) DO NOTHING`,
      [poolId, this.leaseKey, os.hostname().slice(0, 200), process.pid],
    )
  }

  /** Records that `poolId` runs under this lease (call on graphile-worker's pool:create). */
  async register(poolId: string): Promise<void> {
    this.pools.add(poolId)
    await this.insert(poolId)
  }

  /** Graceful stop: the rows go, then the connection (and with it the advisory lock). */
  async release(): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    clearInterval(this.heartbeat)
    try {
      await this.client.query('DELETE FROM worker_leases WHERE lease_key = $1', [this.leaseKey])
    } finally {
      await this.client.end().catch(() => {})
    }
  }
}

/**
 * Unlocks every job and queue held by a pool that is gone: its process no longer holds the lease key, its heartbeat is
 * older than `staleAfterSeconds`, or (no lease row at all) its lock is that old. Returns the pool ids it freed.
 */
export async function recoverJobsOfGoneWorkers(db: Queryable, staleAfterSeconds = STALE_AFTER_SECONDS): Promise<string[]> {
  const { rows } = await db.query<{ pool_id: string }>(
    `SELECT l.pool_id
       FROM worker_leases l
      WHERE l.heartbeat_at < now() - make_interval(secs => $2)
         OR NOT EXISTS (
        SELECT 1 FROM pg_locks k
         WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
           AND k.classid = $1::int::oid AND k.objid = l.lease_key::oid
           AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
     UNION
     SELECT x.locked_by FROM (
       SELECT locked_by, locked_at FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL
       UNION ALL
       SELECT locked_by, locked_at FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL) x
      WHERE x.locked_at < now() - make_interval(secs => $2)
        AND NOT EXISTS (SELECT 1 FROM worker_leases l WHERE l.pool_id = x.locked_by)`,
    [LEASE_NAMESPACE, staleAfterSeconds],
  )
  const gone = rows.map((r) => r.pool_id)
  if (!gone.length) return []
  await unlockJobsOfPools(db, gone)
  log.info('worker.recovered_jobs_of_gone_workers', { pools: gone.length })
  return gone
}

/** Unlocks the jobs and queues `pools` hold and forgets their lease rows (gone pools, or a runner being replaced). */
export async function unlockJobsOfPools(db: Queryable, pools: string[]): Promise<void> {
  await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [pools])
  await db.query('DELETE FROM worker_leases WHERE pool_id = ANY($1::text[])', [pools])
}
