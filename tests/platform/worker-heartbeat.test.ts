// A pool that stops heartbeating loses its locked jobs to a running worker within about a minute (not graphile-worker's
// 4 hours); a pool that heartbeats keeps them however old its locks are. The test plays the process owning the fake
// pools: it holds their lease key (so only the heartbeat decides) and refreshes the live pool's heartbeat.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { startTestWorker } from '../helpers/stack'
import { LEASE_NAMESPACE, RECOVERY_INTERVAL_MS, STALE_AFTER_SECONDS, recoverJobsOfGoneWorkers } from '../../jobs/leases'

const t = useTestDatabase()

const waitFor = async <T>(check: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> => {
  const until = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe('worker heartbeats', () => {
  it('unlocks the jobs of a pool whose heartbeat is stale and leaves those of a heartbeating pool alone', { timeout: 90_000 }, async () => {
    await using worker = await startTestWorker(t.current)
    const owner = new pg.Client({ connectionString: t.current.url })
    await owner.connect()
    const leaseKey = 424242
    let beating: NodeJS.Timeout | undefined
    try {
      await owner.query('SELECT pg_advisory_lock($1::int, $2::int)', [LEASE_NAMESPACE, leaseKey])
      await owner.query(
        `INSERT INTO worker_leases (pool_id, lease_key, hostname, pid, heartbeat_at) VALUES
           ('pool-stalled', $1, 'test', 1, now() - make_interval(secs => $2 + 30)),
           ('pool-alive', $1, 'test', 1, now())`,
        [leaseKey, STALE_AFTER_SECONDS],
      )
      // a beat still in flight when the test ends its connection rejects with 'Connection terminated': nothing to report
      beating = setInterval(() => { owner.query(`UPDATE worker_leases SET heartbeat_at = now() WHERE pool_id = 'pool-alive'`).catch(() => undefined) }, 2_000)
      // Each job is added and locked in one transaction, so the running worker never sees it unlocked.
      const lockedJob = async (key: string, lockedBy: string) => {
        await owner.query('BEGIN')
        const { rows } = await owner.query<{ id: string }>(`SELECT id FROM graphile_worker.add_job('inbox_expire', '{}'::json, job_key => $1)`, [key])
        await owner.query(`UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - interval '10 minutes' WHERE id = $1`, [rows[0].id, lockedBy])
        await owner.query('COMMIT')
        return rows[0].id
      }
      const stalled = await lockedJob('stalled', 'pool-stalled')
      const noLease = await lockedJob('no-lease', 'pool-without-lease-row')
      const alive = await lockedJob('alive', 'pool-alive')
      const job = async (id: string) => (await owner.query<{ locked_by: string | null }>('SELECT locked_by FROM graphile_worker._private_jobs WHERE id = $1', [id])).rows[0]
      expect((await job(stalled)).locked_by).toBe('pool-stalled')

      // The running worker's periodic recovery frees them and it runs them (a done job leaves the table).
      await waitFor(async () => !(await job(stalled)) && !(await job(noLease)), RECOVERY_INTERVAL_MS + 15_000, 'the stalled jobs to run')
      expect((await owner.query(`SELECT pool_id FROM worker_leases WHERE pool_id = 'pool-stalled'`)).rowCount).toBe(0)

      // The heartbeating pool's job, locked just as long ago, is untouched, also by another explicit recovery pass.
      expect(await recoverJobsOfGoneWorkers(owner)).toEqual([])
      expect((await job(alive)).locked_by).toBe('pool-alive')

      // The worker's own pool heartbeats on its own.
      const own = await waitFor(async () => (await owner.query<{ fresh: boolean }>(
        `SELECT heartbeat_at > started_at AND heartbeat_at > now() - make_interval(secs => $1) AS fresh FROM worker_leases WHERE hostname <> 'test'`, [STALE_AFTER_SECONDS])).rows[0]?.fresh, 20_000, "the worker's own heartbeat")
      expect(own).toBe(true)
      expect(worker.generations).toBe(1)
    } finally {
      clearInterval(beating)
      await owner.end()
    }
  })
})
