// The worker as its own process (production scales it separately): `tsx jobs/main.ts` runs until SIGTERM or SIGINT
// (then: no new job, the running ones finish within SHUTDOWN_GRACE_SECONDS or are released, exit 0);
// `--once` runs every job that is due now and exits.
import os from 'node:os'
import { runOnce } from 'graphile-worker'
import { parseEnv, setEnv, EnvError } from '../core/config'
import { resolveDatabaseUrl } from '../core/database'
import { reportStartFailure, exitOnStartFailure } from '../core/config'
import { createPrisma, type Db } from '../core/database'
import { log, markShuttingDown } from '../core/config'
import { isDatabaseUnavailable } from '../core/database'
import { createTaskList, migrateWorkerSchema, startWorker, type WorkerHandle } from './worker'
import { startWorkerProbes } from './probes'
import { installDomain } from '../subgraphs/install'
import { startTracing, stopTracing } from '../core/config'

const e = (() => {
  try { return parseEnv() } catch (err) { console.error((err as EnvError).message); process.exit(1) }
})()
setEnv(e)
installDomain()
await startTracing('worker') // when OTEL_* asks for traces (core/config/tracing.ts)
// Background work yields to the servers sharing the host: a 202 to the vendor must not wait behind job processing.
try { if (e.WORKER_NICE > 0) os.setPriority(Math.max(os.getPriority(), e.WORKER_NICE)) } catch { /* not permitted: run as is */ }
// Stopping. graphile-worker's own signal handling is off (noHandleSignals: it fails the running jobs after a few
// seconds). SIGTERM and SIGINT are bound here, before anything starts, so a signal at any moment ends in an orderly
// exit 0, and a rolling deploy never kills a job mid-run. `running` holds what has started so far; stop() stops it.
interface Running { probes?: { close(): void }; worker?: WorkerHandle; db?: Db; database?: { stop(): Promise<void> } }
const running: Running = {}
let stopping = false
/**
 * Stops in order: the probes (the platform stops routing here), the worker (no new job; the running ones finish
 * within SHUTDOWN_GRACE_SECONDS or are released to the next worker), tracing, the database client, the embedded
 * database; then exit 0. A second signal while stopping changes nothing.
 */
async function stop(signal: NodeJS.Signals) {
  if (stopping) return
  stopping = true
  markShuttingDown()
  log.info('worker.stopping', { signal, graceSeconds: e.SHUTDOWN_GRACE_SECONDS })
  running.probes?.close()
  await running.worker?.stop()
  await stopTracing().catch(() => {})
  await running.db?.$disconnect()
  await running.database?.stop()
  log.info('worker.stopped', { signal })
  process.exit(0)
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop(signal))

const database = running.database = await resolveDatabaseUrl().catch(exitOnStartFailure)
const db = running.db = createPrisma(database.url)
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
// What finishes starting after a signal was passed over by stop() (which exits once it is done): the probes close
// with the process, the worker is stopped here so that it takes no job.
if (!stopping) running.probes = probes
const worker = await startWorker({ db, databaseUrl: database.url }, { concurrency: e.WORKER_CONCURRENCY })
if (stopping) await worker.stop()
else running.worker = worker
