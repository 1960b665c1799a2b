// Owns recovery of jobs left locked by worker processes that are gone (killed, crashed, lost their host).
//
// graphile-worker locks a job with its pool id and only frees locks older than 4 hours. Here every worker process holds a
// session advisory lock (namespace LEASE_NAMESPACE, key = its lease key) on one dedicated connection for its whole life,
// and records which pool ids it runs in worker_leases. PostgreSQL drops the advisory lock the moment that connection
// ends, so "a pool whose lease key nobody holds" is exactly "a pool whose process is gone". On start and every minute, a
// worker unlocks the jobs of such pools (graphile_worker.force_unlock_workers) and they run again at once.
// Tasks are idempotent (processing marks commit with their writes), so a job that a half-dead worker still finishes
// after being unlocked does nothing twice.
import os from 'node:os'
import { randomInt } from 'node:crypto'
import pg from 'pg'
import { log } from '../core/log'

export const LEASE_NAMESPACE = 727301

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.Client, 'query'>

export class WorkerLease {
  private readonly pools = new Set<string>()
  private stopped = false
  private retry?: NodeJS.Timeout

  /** Called each time the lease comes back after a lost connection (the database was gone). */
  onRestored?: () => void

  private constructor(
    private client: pg.Client,
    readonly leaseKey: number,
    private readonly databaseUrl: string,
  ) {
    this.watch(client)
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
    try {
      await this.client.query('DELETE FROM worker_leases WHERE lease_key = $1', [this.leaseKey])
    } finally {
      await this.client.end().catch(() => {})
    }
  }
}

/** Unlocks every job and queue held by a pool whose process is gone; returns the pool ids it freed. */
export async function recoverJobsOfGoneWorkers(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ pool_id: string }>(
    `SELECT l.pool_id
       FROM worker_leases l
      WHERE NOT EXISTS (
        SELECT 1 FROM pg_locks k
         WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
           AND k.classid = $1::int::oid AND k.objid = l.lease_key::oid
           AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
    [LEASE_NAMESPACE],
  )
  const gone = rows.map((r) => r.pool_id)
  if (!gone.length) return []
  await db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [gone])
  await db.query('DELETE FROM worker_leases WHERE pool_id = ANY($1::text[])', [gone])
  log.info('worker.recovered_jobs_of_gone_workers', { pools: gone.length })
  return gone
}
