// Owns the graphile-worker runner: the programmatic task list, the crontab, and graceful shutdown.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { EventEmitter } from 'node:events'
import { Logger, run, runMigrations, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker'
import type { Db } from '../core/db'
import { log } from '../core/log'
import { deliverEmail } from './tasks/deliver_email'
import { inboxExpire } from './tasks/inbox_expire'
import { skillLibraryJob } from './tasks/skill_library_job'
import { notebookProcessDelivery } from './tasks/notebook_process_delivery'
import { connectorDrainDeliveries } from './tasks/connector_drain_deliveries'
import { connectorSync } from './tasks/connector_sync'
import { launchIdsSweep } from './tasks/launch_ids_sweep'
import { pollQms } from './tasks/poll_qms'
import { reconcileQms } from './tasks/reconcile_qms'
import { webhookRetention } from './tasks/webhook_retention'
import { memoryExpire } from './tasks/memory_expire'
import { twinCycle } from './tasks/twin_cycle'
// The deterministic harness (an MCP client of the tool server) registers itself under the default key when loaded.
import '../subgraphs/twins/harness/deterministic'
import { twinSchedule } from './tasks/twin_schedule'
import { twinEventsReconcile } from './tasks/twin_events_reconcile'
import { twinEvaluate } from './tasks/twin_evaluate'
import { delegationExpire } from './tasks/delegation_expire'
import { installTwinAuditHooks } from '../subgraphs/twins/domain/twin-events'
import { twinDigest } from './tasks/twin_digest'
import { stageReadinessRefresh } from './tasks/stage_readiness_refresh'
import { WorkerLease, recoverJobsOfGoneWorkers } from './leases'

export interface WorkerDeps { db: Db; databaseUrl: string }

export const CRONTAB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crontab')

/** Task name = file name under jobs/tasks; each task asserts its payload before calling domain code. */
export function createTaskList(deps: WorkerDeps): TaskList {
  installTwinAuditHooks() // jobs record audit rows too: triggerable and pause actions reach twins from here as well
  return {
    deliver_email: deliverEmail(deps),
    inbox_expire: inboxExpire(deps),
    skill_library_job: skillLibraryJob(deps),
    notebook_process_delivery: notebookProcessDelivery(deps),
    connector_drain_deliveries: connectorDrainDeliveries(deps),
    connector_sync: connectorSync(deps),
    launch_ids_sweep: launchIdsSweep(deps),
    webhook_retention: webhookRetention(deps),
    memory_expire: memoryExpire(deps),
    twin_cycle: twinCycle(deps),
    twin_schedule: twinSchedule(deps),
    twin_events_reconcile: twinEventsReconcile(deps),
    twin_evaluate: twinEvaluate(deps),
    delegation_expire: delegationExpire(deps),
    twin_digest: twinDigest(deps),
    stage_readiness_refresh: stageReadinessRefresh(deps),
    poll_qms: pollQms(deps),
    reconcile_qms: reconcileQms(deps),
  }
}

/** A pool whose dropped connections (server restart, shutdown) are logged instead of crashing the process. */
function guardedPool(connectionString: string, max: number) {
  const pool = new pg.Pool({ connectionString, max })
  const onError = (err: Error) => log.warn('worker.pool_error', { message: err.message })
  pool.on('error', onError)
  pool.on('connect', (client) => client.on('error', onError))
  return pool
}

export async function migrateWorkerSchema(databaseUrl: string) {
  // Own the pool: graphile-worker leaves a pool it created idle for 10 s, which holds the process open.
  const pgPool = guardedPool(databaseUrl, 1)
  try { await runMigrations({ pgPool, logger: quietLogger }) } finally { await pgPool.end() }
}

const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') log.warn('worker.log', { level, message })
  else log.debug('worker.log', { level, message })
})

export async function startWorker(deps: WorkerDeps, opts: { concurrency?: number; crontab?: boolean } = {}): Promise<Runner> {
  const pgPool = guardedPool(deps.databaseUrl, (opts.concurrency ?? 4) + 2)
  // Jobs locked by worker processes that are gone run again now, not after graphile-worker's 4 hours (jobs/leases.ts).
  const lease = await WorkerLease.acquire(deps.databaseUrl)
  await recoverJobsOfGoneWorkers(pgPool).catch((error) => log.warn('worker.recovery_failed', { error }))
  const events = new EventEmitter() as WorkerEvents
  events.on('pool:create', ({ workerPool }) => { void lease.register(workerPool.id).catch((error) => log.warn('worker.lease_register_failed', { error })) })
  const recovery = setInterval(() => { void recoverJobsOfGoneWorkers(pgPool).catch((error) => log.warn('worker.recovery_failed', { error })) }, 60_000)
  recovery.unref()
  let runner: Runner
  try {
    runner = await run({
      events,
      pgPool,
      taskList: createTaskList(deps),
      crontab: opts.crontab === false ? '' : fs.readFileSync(CRONTAB, 'utf8'),
      concurrency: opts.concurrency ?? 4,
      noHandleSignals: true, // the launcher owns signals and stops the runner gracefully
      pollInterval: 1000,
      logger: quietLogger,
      // Batching: under a stream of webhook jobs each add_job NOTIFY would cost a fetch and each job a completion
      // round trip, on the cores the ingress needs. A local queue fetches several jobs at once (waiting 100 ms after a
      // thin fetch instead of answering every NOTIFY) and completions are written together. Locked-but-queued jobs of a
      // killed worker are unlocked by the lease recovery; processing is idempotent (marks commit once).
      preset: { worker: { localQueue: { size: (opts.concurrency ?? 4) * 4, refetchDelay: { durationMs: 100, threshold: opts.concurrency ?? 4 } }, completeJobBatchDelay: 20 } },
    })
  } catch (err) {
    clearInterval(recovery)
    await lease.release()
    await pgPool.end()
    throw err
  }
  log.info('worker.started', { concurrency: opts.concurrency ?? 4 })
  const stop = runner.stop.bind(runner)
  runner.stop = async () => { clearInterval(recovery); await stop(); await lease.release(); await pgPool.end() }
  return runner
}
