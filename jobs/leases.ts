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
  private constructor(
    private readonly client: pg.Client,
    readonly leaseKey: number,
  ) {}

  /** Opens the dedicated connection and takes a free lease key. */
  static async acquire(databaseUrl: string): Promise<WorkerLease> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'evidence-workspace worker lease' })
    client.on('error', (err) => log.warn('worker.lease_connection_error', { message: err.message }))
    await client.connect()
    for (;;) {
      const key = randomInt(1, 2 ** 31 - 1)
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [LEASE_NAMESPACE, key])
      if (rows[0].ok) return new WorkerLease(client, key)
    }
  }

  /** Records that `poolId` runs under this lease (call on graphile-worker's pool:create). */
  async register(poolId: string): Promise<void> {
    await this.client.query(
      `INSERT INTO worker_leases (pool_id, lease_key, hostname, pid) VALUES ($1, $2, $3, $4) ON CONFLICT (pool_id) DO NOTHING`,
      [poolId, this.leaseKey, os.hostname().slice(0, 200), process.pid],
    )
  }

  /** Graceful stop: the rows go, then the connection (and with it the advisory lock). */
  async release(): Promise<void> {
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
