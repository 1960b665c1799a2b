// Owns the graphile-worker runner: the programmatic task list, the crontab, and graceful shutdown.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { Logger, run, runMigrations, type Runner, type TaskList } from 'graphile-worker'
import type { Db } from '../core/db'
import { log } from '../core/log'
import { deliverEmail } from './tasks/deliver_email'
import { inboxExpire } from './tasks/inbox_expire'
import { skillLibraryJob } from './tasks/skill_library_job'

export interface WorkerDeps { db: Db; databaseUrl: string }

const CRONTAB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crontab')

/** Task name = file name under jobs/tasks; each task asserts its payload before calling domain code. */
export function createTaskList(deps: WorkerDeps): TaskList {
  return {
    deliver_email: deliverEmail(deps),
    inbox_expire: inboxExpire(deps),
    skill_library_job: skillLibraryJob(deps),
  }
}

export async function migrateWorkerSchema(databaseUrl: string) {
  // Own the pool: graphile-worker leaves a pool it created idle for 10 s, which holds the process open.
  const pgPool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  try { await runMigrations({ pgPool, logger: quietLogger }) } finally { await pgPool.end() }
}

const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') log.warn('worker.log', { level, message })
  else log.debug('worker.log', { level, message })
})

export async function startWorker(deps: WorkerDeps, opts: { concurrency?: number; crontab?: boolean } = {}): Promise<Runner> {
  const pgPool = new pg.Pool({ connectionString: deps.databaseUrl, max: (opts.concurrency ?? 4) + 2 })
  // Connections dropped by the server (restart, shutdown) are reported here instead of crashing the process.
  pgPool.on('error', (err) => log.warn('worker.pool_error', { message: err.message }))
  const runner = await run({
    pgPool,
    taskList: createTaskList(deps),
    crontab: opts.crontab === false ? '' : fs.readFileSync(CRONTAB, 'utf8'),
    concurrency: opts.concurrency ?? 4,
    noHandleSignals: true, // the launcher owns signals and stops the runner gracefully
    pollInterval: 1000,
    logger: quietLogger,
  })
  log.info('worker.started', { concurrency: opts.concurrency ?? 4 })
  const stop = runner.stop.bind(runner)
  runner.stop = async () => { await stop(); await pgPool.end() }
  return runner
}
