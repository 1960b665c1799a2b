// Every crontab entry runs to completion through the real worker with the payload graphile-worker's cron gives it.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { Logger, parseCrontab, runOnce } from 'graphile-worker'
import { CRONTAB, createTaskList } from '../../jobs/worker'
import { useTestDatabase } from '../helpers/db'

const t = useTestDatabase()
const items = parseCrontab(fs.readFileSync(CRONTAB, 'utf8'))

describe('scheduled jobs (jobs/crontab)', () => {
  it('lists the specification cadences', () => {
    expect(items.map((i) => i.task).sort()).toEqual(['deliver_email', 'inbox_expire', 'launch_ids_sweep', 'webhook_retention'])
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
    // A completed job is deleted; a failed one stays with its error and a later run_at.
    const left = await t.current.db.$queryRaw<{ last_error: string | null; attempts: number }[]>`
      SELECT last_error, attempts FROM graphile_worker.jobs WHERE task_identifier = ${item.task}`
    expect(left).toEqual([])
  })
})
