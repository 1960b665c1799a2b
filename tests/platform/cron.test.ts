// Every crontab entry runs to completion through the real worker with the payload graphile-worker's cron gives it.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EventEmitter } from 'node:events'
import { Logger, parseCrontab, run, runOnce, type WorkerEvents } from 'graphile-worker'
import { CRONTAB, createTaskList } from '../../jobs/worker'
import { useTestDatabase } from '../helpers/db'

const t = useTestDatabase()
const items = parseCrontab(fs.readFileSync(CRONTAB, 'utf8'))

describe('scheduled jobs (jobs/crontab)', () => {
  it('lists the specification cadences', () => {
    expect(items.map((i) => i.task).sort()).toEqual(['audit_verify', 'delegation_expire', 'deliver_email', 'inbox_expire', 'launch_ids_sweep', 'literature_health', 'memory_expire', 'poll_qms', 'reconcile_qms', 'stage_readiness_refresh', 'twin_digest', 'twin_evaluate', 'twin_events_reconcile', 'twin_schedule', 'webhook_retention'])
  })

  it.each(items.map((i) => [i.task, i] as const))('%s runs to completion from its crontab entry, _cron stamp included', async (_task, item) => {
    // The job graphile-worker's scheduler inserts (cron.js makeJobForItem): the entry's payload plus `_cron`.
    const payload = { ...(item.payload ?? {}), _cron: { ts: new Date(), backfilled: false } }
    await t.current.db.$executeRaw`SELECT graphile_worker.add_job(
      identifier => ${item.task}::text, payload => ${JSON.stringify(payload)}::json,
      queue_name => ${item.options.queueName ?? null}::text, max_attempts => ${item.options.maxAttempts ?? null}::int,
      job_key => ${item.options.jobKey ?? null}::text, priority => ${item.options.priority ?? null}::int)`
    await runOnce({
      connectionString: t.current.url, taskList: createTaskList({ db: t.current.db, databaseUrl: t.current.url }),
      noHandleSignals: true, logger: new Logger(() => () => {}),
    })
    // A completed job is deleted; a failed one stays with its error and a later run_at. Under load runOnce can return
    // a moment before the completion's DELETE is visible (attempts 1, no error), so wait for a settled row.
    const leftRows = () => t.current.db.$queryRaw<{ last_error: string | null; attempts: number; locked_at: Date | null }[]>`
      SELECT last_error, attempts, locked_at FROM graphile_worker.jobs WHERE task_identifier = ${item.task}`
    let left = await leftRows()
    for (let i = 0; i < 50 && left.length && left.every((r) => r.last_error === null); i++) { await new Promise((r) => setTimeout(r, 100)); left = await leftRows() }
    expect(left).toEqual([])
  })

  it('every entry scheduled by the worker\'s own cron (a backfill of its last due time) runs to completion', async () => {
    // Known since yesterday, so graphile-worker's scheduler itself inserts each entry's last due job (backfilled).
    await t.current.db.$executeRaw`INSERT INTO graphile_worker._private_known_crontabs (identifier, known_since)
      SELECT unnest(${items.map((i) => i.identifier)}::text[]), now() - interval '2 days' ON CONFLICT (identifier) DO UPDATE SET known_since = excluded.known_since, last_execution = NULL`
    const period: Record<string, number> = { deliver_email: 6 * 60_000, inbox_expire: 61 * 60_000, twin_schedule: 2 * 60_000, twin_events_reconcile: 61 * 60_000, twin_digest: 90_000, stage_readiness_refresh: 61 * 60_000, poll_qms: 16 * 60_000, literature_health: 16 * 60_000 } // one due time each
    const parsedCronItems = items.map((i) => ({ ...i, options: { ...i.options, backfillPeriod: period[i.task] ?? 25 * 3600_000 } }))
    const events = new EventEmitter() as WorkerEvents
    const succeeded = new Set<string>()
    const failed: string[] = []
    events.on('job:success', ({ job }) => { if (job.payload && (job.payload as { _cron?: unknown })._cron) succeeded.add(job.task_identifier) })
    events.on('job:failed', ({ job, error }) => failed.push(`${job.task_identifier}: ${String(error)}`))
    const runner = await run({
      connectionString: t.current.url, taskList: createTaskList({ db: t.current.db, databaseUrl: t.current.url }), parsedCronItems,
      concurrency: 1, pollInterval: 100, noHandleSignals: true, events, logger: new Logger(() => () => {}),
    })
    try {
      for (let i = 0; i < 150 && succeeded.size < items.length && !failed.length; i++) await new Promise((r) => setTimeout(r, 100))
    } finally {
      await runner.stop()
    }
    expect(failed).toEqual([])
    expect([...succeeded].sort()).toEqual(items.map((i) => i.task).sort())
  }, 30_000)
})
