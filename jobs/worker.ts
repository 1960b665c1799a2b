// Owns the graphile-worker runner: the programmatic task list, the crontab, and graceful shutdown.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { EventEmitter } from 'node:events'
import { Logger, run, runMigrations, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker'
import { log } from '../core/config'
import { env } from '../core/config'
import { deliverEmail } from './tasks/deliver_email'
import { inboxExpire } from './tasks/inbox_expire'
import { skillLibraryJob } from './tasks/skill_library_job'
import { connectorDeliveryProcess } from './tasks/connector_delivery_process'
import { connectorDrainDeliveries } from './tasks/connector_drain_deliveries'
import { connectorSync } from './tasks/connector_sync'
import { launchIdsSweep } from './tasks/launch_ids_sweep'
import { pollQms } from './tasks/poll_qms'
import { reconcileQms } from './tasks/reconcile_qms'
import { webhookRetention } from './tasks/webhook_retention'
import { memoryExpire } from './tasks/memory_expire'
import { auditVerify } from './tasks/audit_verify'
import { twinCycle } from './tasks/twin_cycle'
import { twinSchedule } from './tasks/twin_schedule'
import { twinEventsReconcile } from './tasks/twin_events_reconcile'
import { twinEvaluate } from './tasks/twin_evaluate'
import { delegationExpire } from './tasks/delegation_expire'
import { twinDigest } from './tasks/twin_digest'
import { stageReadinessRefresh } from './tasks/stage_readiness_refresh'
import { literatureHealth } from './tasks/literature_health'
import { RECOVERY_INTERVAL_MS, WorkerLease, recoverJobsOfGoneWorkers, unlockJobsOfPools } from './leases'
import { instrumentJobs } from './instrument'
import { JOB_REQUEST_ID_FIELD, withRequestId } from '../core/config'
import { contextOf, inSpan, JOB_TRACEPARENT_FIELD, SpanKind, tracingOn } from '../core/config'

// What every task receives (jobs/tasks/deps.ts: the tasks import it from there, not from this module that lists them).
export type { WorkerDeps } from './tasks/deps'
import type { WorkerDeps } from './tasks/deps'

export const CRONTAB = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crontab')

/** Task name = file name under jobs/tasks; each task asserts its payload before calling domain code. */
export function createTaskList(deps: WorkerDeps): TaskList {
  return withRequestIds({
    deliver_email: deliverEmail(deps),
    inbox_expire: inboxExpire(deps),
    skill_library_job: skillLibraryJob(deps),
    connector_delivery_process: connectorDeliveryProcess(deps),
    notebook_process_delivery: connectorDeliveryProcess(deps), // the former name, for jobs queued before the rename
    connector_drain_deliveries: connectorDrainDeliveries(deps),
    connector_sync: connectorSync(deps),
    launch_ids_sweep: launchIdsSweep(deps),
    webhook_retention: webhookRetention(deps),
    memory_expire: memoryExpire(deps),
    audit_verify: auditVerify(deps),
    twin_cycle: twinCycle(deps),
    twin_schedule: twinSchedule(deps),
    twin_events_reconcile: twinEventsReconcile(deps),
    twin_evaluate: twinEvaluate(deps),
    delegation_expire: delegationExpire(deps),
    twin_digest: twinDigest(deps),
    stage_readiness_refresh: stageReadinessRefresh(deps),
    poll_qms: pollQms(deps),
    reconcile_qms: reconcileQms(deps),
    literature_health: literatureHealth(deps),
  })
}

/**
 * Each task runs under the request id of the request that enqueued it (or job-<id>), and with tracing on in a span
 * (`job <task>`) continuing that request's trace; it never sees either field.
 */
function withRequestIds(tasks: TaskList): TaskList {
  return Object.fromEntries(Object.entries(tasks).map(([name, task]) => [name, (payload: unknown, helpers: Parameters<NonNullable<typeof task>>[1]) => {
    let requestId = `job-${helpers.job.id}`
    let traceparent: unknown
    if (payload && typeof payload === 'object' && (JOB_REQUEST_ID_FIELD in payload || JOB_TRACEPARENT_FIELD in payload)) {
      const { [JOB_REQUEST_ID_FIELD]: rid, [JOB_TRACEPARENT_FIELD]: tp, ...rest } = payload as Record<string, unknown>
      if (typeof rid === 'string') requestId = rid
      traceparent = tp
      payload = rest
    }
    const run = () => withRequestId(requestId, () => task!(payload, helpers))
    if (!tracingOn()) return run()
    return inSpan(`job ${name}`, SpanKind.CONSUMER, { 'job.task': name, 'job.id': helpers.job.id, 'job.attempt': helpers.job.attempts },
      async () => { await run() }, typeof traceparent === 'string' ? contextOf({ traceparent }) : undefined)
  }]))
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

/** What startWorker answers: the running worker, whose graphile-worker runner may be replaced after an outage. */
export interface WorkerHandle {
  /**
   * Stops taking jobs and lets the running ones finish for up to the grace period (SHUTDOWN_GRACE_SECONDS unless
   * given); jobs still running then are released (unlocked, no attempt used up), so another worker runs them at once.
   */
  stop(opts?: { graceMs?: number }): Promise<void>
  /** Settles when the worker stops for good (stop() was called). */
  promise: Promise<void>
  /** Runners started so far (1 unless an outage made one give up). */
  readonly generations: number
}

/**
 * The worker, kept running through PostgreSQL outages. graphile-worker gives up on a pool whose job completions cannot be
 * written (a connection refused while the database restarts), so here a runner that ends unasked is replaced in the same
 * process once the database answers again: the jobs the dead pool held are unlocked first (they run again; tasks are
 * idempotent), and its lease rows go. Nothing needs a process restart.
 */
export async function startWorker(deps: WorkerDeps, opts: { concurrency?: number; crontab?: boolean; jobSuccessLog?: 'info' | 'debug' } = {}): Promise<WorkerHandle> {
  const concurrency = opts.concurrency ?? 4
  const pgPool = guardedPool(deps.databaseUrl, concurrency + 2)
  // Jobs locked by worker processes that are gone (or pools that stopped heartbeating) run again within about a minute,
  // not after graphile-worker's 4 hours (jobs/leases.ts).
  const lease = await WorkerLease.acquire(deps.databaseUrl)
  await recoverJobsOfGoneWorkers(pgPool).catch((error) => log.warn('worker.recovery_failed', { error }))
  const recovery = setInterval(() => { void recoverJobsOfGoneWorkers(pgPool).catch((error) => log.warn('worker.recovery_failed', { error })) }, RECOVERY_INTERVAL_MS)
  recovery.unref()
  const taskList = createTaskList(deps)
  const crontab = opts.crontab === false ? '' : fs.readFileSync(CRONTAB, 'utf8')
  let stopping = false
  let generations = 0
  let current: Runner | undefined
  const poolsOf = new WeakMap<Runner, string[]>()
  let finished!: () => void
  const promise = new Promise<void>((r) => { finished = r })

  const launch = async (): Promise<Runner> => {
    const pools: string[] = []
    const events = new EventEmitter() as WorkerEvents
    events.on('pool:create', ({ workerPool }) => {
      pools.push(workerPool.id)
      void lease.register(workerPool.id).catch((error) => log.warn('worker.lease_register_failed', { error }))
    })
    instrumentJobs(events, { successes: opts.jobSuccessLog })
    const runner = await run({
      events,
      pgPool,
      taskList,
      crontab,
      concurrency,
      noHandleSignals: true, // the launcher owns signals and stops the runner gracefully
      pollInterval: 1000,
      logger: quietLogger,
      // Batching: under a stream of webhook jobs each add_job NOTIFY would cost a fetch and each job a completion
      // round trip, on the cores the ingress needs. A local queue fetches several jobs at once (waiting 100 ms after a
      // thin fetch instead of answering every NOTIFY) and completions are written together. Locked-but-queued jobs of a
      // killed worker are unlocked by the lease recovery; processing is idempotent (marks commit once). Failures are
      // batched too: unbatched, a failure that cannot be written during an outage is an unhandled rejection.
      preset: { worker: { localQueue: { size: concurrency * 4, refetchDelay: { durationMs: 100, threshold: concurrency } }, completeJobBatchDelay: 20, failJobBatchDelay: 20 } },
    })
    generations++
    poolsOf.set(runner, pools)
    // Watched, not awaited: the chain handles the runner's end itself (it restarts the runner), and never rejects.
    void runner.promise.then(() => undefined, (error) => error).then(async (error) => {
      if (stopping || current !== runner) return
      log.warn('worker.runner_ended', { error: error ? String(error) : undefined, note: 'restarting it in this process once the database answers' })
      for (let attempt = 0; !stopping; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 10_000)))
        if (stopping) return
        try {
          if (pools.length) {
            lease.retire(pools)
            await unlockJobsOfPools(pgPool, pools)
          }
          current = await launch()
          log.info('worker.runner_restarted', { generation: generations })
          return
        } catch (e) {
          log.warn('worker.runner_restart_failed', { attempt: attempt + 1, message: (e as Error).message })
        }
      }
    })
    return runner
  }

  // After an outage the runner may hold jobs it can no longer account for (graphile-worker's local queue fails to hand
  // them back while the database is gone, and they stay locked by a pool that lives on): once the lease is back, the
  // runner is stopped and replaced like one that gave up, and its pools' jobs are unlocked.
  // Its pools stop heartbeating at once, so if its stop never settles, any worker unlocks their jobs once the heartbeat is
  // stale; and a runner still not stopped after 30 s is given up on here too (a new one is launched beside it).
  lease.onRestored = () => {
    const old = current
    if (stopping || !old) return
    log.warn('worker.runner_recycling', { note: 'the database came back: the runner is replaced and its jobs unlocked' })
    lease.retire(poolsOf.get(old) ?? [])
    void old.stop().catch((error) => log.warn('worker.stop_failed', { error }))
    setTimeout(() => {
      if (stopping || current !== old) return
      log.warn('worker.runner_stop_hung', { note: 'launching a new runner; the old pools\' jobs are unlocked once their heartbeat is stale' })
      current = undefined // the old runner's end no longer triggers a restart
      launch().then((r) => { if (stopping) void r.stop(); else current = r }, (error) => log.warn('worker.runner_restart_failed', { message: (error as Error).message }))
    }, 30_000).unref()
  }
  try {
    current = await launch()
  } catch (err) {
    clearInterval(recovery)
    await lease.release()
    await pgPool.end()
    throw err
  }
  log.info('worker.started', { concurrency })
  return {
    promise,
    get generations() { return generations },
    async stop({ graceMs = env().SHUTDOWN_GRACE_SECONDS * 1000 } = {}) {
      if (stopping) return promise
      stopping = true
      clearInterval(recovery)
      const runner = current
      if (runner) {
        // graceful: graphile-worker stops fetching, hands back the jobs it holds but has not started, lets the running
        // ones finish and writes their completions before it resolves; it never gives up on a job by itself.
        const stopped = runner.stop().then(() => true, (error) => { log.warn('worker.stop_failed', { error }); return true })
        let timer: NodeJS.Timeout | undefined
        const inTime = await Promise.race([stopped, new Promise<false>((r) => { timer = setTimeout(() => r(false), graceMs) })])
        clearTimeout(timer)
        if (!inTime) {
          const pools = poolsOf.get(runner) ?? []
          log.warn('worker.grace_period_over', { graceMs, note: 'the jobs still running are released: another worker runs them again at once' })
          lease.retire(pools)
          await unlockJobsOfPools(pgPool, pools).catch((error) => log.warn('worker.release_failed', { error }))
        }
      }
      await lease.release()
      // A runner still inside a job may hold a client: the pool is not waited for beyond a moment.
      await Promise.race([pgPool.end().catch(() => {}), new Promise((r) => setTimeout(r, 2_000).unref())])
      finished()
    },
  }
}
