// A worker killed between the 202 and the processing: the job was committed before the 202, the killed worker's lock is
// recognised as orphaned (its lease is gone) and the next worker processes the delivery at once, not after 4 hours.
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { startTestWorker } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { entryUpdated, sampleEntry, useNotebookStack } from './helpers'

const { stack, fake, connect } = useNotebookStack()

const waitFor = async <T>(check: () => Promise<T | null | undefined | false>, ms: number, what: string): Promise<T> => {
  const until = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('worker recovery', () => {
  it('processes a delivery whose worker was killed mid-job as soon as the next worker starts', { timeout: 90_000 }, async () => {
    const db = stack.db.db
    const tenant = await createTenant(db, 'Recovery')
    const nb = await connect(tenant)
    sampleEntry(fake, 'etr_recovery_1')
    // The vendor hangs, so the first worker is inside the job when it dies.
    fake.control.misbehave({ delayMs: 15_000, pathPrefix: '/api/v2/entries' })
    const sent = await nb.send(entryUpdated('etr_recovery_1'))
    expect(sent.status).toBe(202)

    const child = spawn(process.execPath, ['--import', 'tsx', 'jobs/main.ts'], {
      env: { ...process.env, DATABASE_URL: stack.db.url, DATA_DIR: stack.db.dataDir, LOG_LEVEL: 'error', WORKER_CONCURRENCY: '1', NOTEBOOK_HTTP_TIMEOUT_MS: '60000' },
      stdio: 'ignore',
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    try {
      const lockedBy = await waitFor(async () => {
        const rows = await db.$queryRaw<{ locked_by: string | null }[]>`
          SELECT j.locked_by FROM graphile_worker.jobs j JOIN worker_leases l ON l.pool_id = j.locked_by
          WHERE j.task_identifier = 'connector_delivery_process'`
        return rows[0]?.locked_by
      }, 45_000, 'the first worker to lock the job')
      await waitFor(async () => fake.control.requestLog.some((r) => r.path.startsWith('/api/v2/token')) || null, 10_000, 'the first worker to call the vendor')
      child.kill('SIGKILL')
      await exited

      const row = await db.webhookDelivery.findFirstOrThrow({ where: { deliveryId: sent.deliveryId } })
      expect(row.processedAt).toBeNull()
      // graphile-worker alone would keep this lock for 4 hours.
      const [job] = await db.$queryRaw<{ locked_by: string | null }[]>`SELECT locked_by FROM graphile_worker.jobs WHERE task_identifier = 'connector_delivery_process'`
      expect(job.locked_by).toBe(lockedBy)

      fake.control.behave()
      await using _worker = await startTestWorker(stack.db)
      const processed = await waitFor(async () => {
        const r = await db.webhookDelivery.findFirstOrThrow({ where: { deliveryId: sent.deliveryId } })
        return r.processedAt ? r : null
      }, 20_000, 'the next worker to process the delivery')
      expect(processed.processingResult).toBe('created')
      expect(await db.workerLease.count({ where: { poolId: lockedBy } })).toBe(0)
      expect(await db.connectorObject.count({ where: { connectionId: nb.connection.id, externalId: 'etr_recovery_1' } })).toBe(1)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
