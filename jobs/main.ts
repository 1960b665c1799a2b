// The worker as its own process (production scales it separately): `tsx jobs/main.ts` runs until SIGTERM;
// `--once` runs every job that is due now and exits.
import os from 'node:os'
import { runOnce } from 'graphile-worker'
import { parseEnv, setEnv, EnvError } from '../core/env'
import { resolveDatabaseUrl } from '../core/postgres'
import { reportStartFailure, exitOnStartFailure } from '../core/start-failure'
import { createPrisma } from '../core/db'
import { log } from '../core/log'
import { isDatabaseUnavailable } from '../core/db-outage'
import { createTaskList, migrateWorkerSchema, startWorker } from './worker'
import { startWorkerProbes } from './probes'
import { installDomain } from '../subgraphs/install'

let e
try { e = parseEnv() } catch (err) { console.error((err as EnvError).message); process.exit(1) }
setEnv(e)
installDomain()
// Background work yields to the servers sharing the host: a 202 to the vendor must not wait behind job processing.
try { if (e.WORKER_NICE > 0) os.setPriority(Math.max(os.getPriority(), e.WORKER_NICE)) } catch { /* not permitted: run as is */ }
const database = await resolveDatabaseUrl().catch(exitOnStartFailure)
const db = createPrisma(database.url)
await migrateWorkerSchema(database.url)
if (process.argv.includes('--once')) {
  await runOnce({ connectionString: database.url, taskList: createTaskList({ db, databaseUrl: database.url }), noHandleSignals: true })
  await db.$disconnect()
  await database.stop()
  process.exit(0)
}
// graphile-worker's local queue can reject outside any caller while the database is gone (returning queued jobs):
// logged, not fatal. The runner it belonged to ends and is replaced once the database answers (jobs/worker.ts).
process.on('unhandledRejection', (error) => { log.error('worker.unhandled_rejection', { error }) })
process.on('uncaughtException', (error) => {
  if (isDatabaseUnavailable(error)) return void log.warn('worker.database_connection_lost', { message: error.message })
  log.error('worker.crashed', { error })
  process.exit(1)
})
// Probes and metrics for the worker (it serves no API): /healthz, /readyz (database), /metrics on WORKER_METRICS_PORT.
// Bound before any job runs, so a port in use stops the start (one sentence: which, held by whom, what to do).
const probes = process.env.WORKER_METRICS_PORT
  ? await startWorkerProbes(Number(process.env.WORKER_METRICS_PORT), db).catch(async (error) => {
    await reportStartFailure('worker.start_failed', error)
    await db.$disconnect(); await database.stop()
    process.exit(1)
  })
  : undefined
const worker = await startWorker({ db, databaseUrl: database.url }, { concurrency: e.WORKER_CONCURRENCY })
const stop = async () => { probes?.close(); await worker.stop(); await db.$disconnect(); await database.stop(); process.exit(0) }
// The stop was written but never bound (the linter's unused-code rule found it): the worker now stops on SIGTERM, as
// this file's header says, and on SIGINT (Ctrl-C).
process.once('SIGTERM', () => void stop())
process.once('SIGINT', () => void stop())
