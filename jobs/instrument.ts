// Owns what the worker reports about each job: Prometheus counters and durations (core/config/metrics.ts) and one JSON log
// line per finished job carrying the request id of the request that enqueued it (core/config/request-context.ts).
import type { WorkerEvents } from 'graphile-worker'
import { jobDuration, jobs } from '../core/config'
import { JOB_REQUEST_ID_FIELD } from '../core/config'
import { log } from '../core/config'

const requestIdOf = (payload: unknown) => {
  const v = payload && typeof payload === 'object' ? (payload as Record<string, unknown>)[JOB_REQUEST_ID_FIELD] : undefined
  return typeof v === 'string' ? v : undefined
}

/**
 * `successes: 'debug'` (npm start outside production) logs a finished job at debug: a line per job pushed the start
 * banner and its token off the terminal within minutes; failures are always logged, metrics always counted.
 */
export function instrumentJobs(events: WorkerEvents, opts: { successes?: 'info' | 'debug' } = {}) {
  const successLevel = opts.successes ?? 'info'
  const started = new Map<string, bigint>()
  events.on('job:start', ({ job }) => {
    started.set(job.id, process.hrtime.bigint())
    log.debug('job.started', { task: job.task_identifier, jobId: job.id, attempt: job.attempts })
  })
  const finish = (job: { id: string; task_identifier: string; payload: unknown; attempts: number }, outcome: 'success' | 'error', error?: unknown) => {
    const t = started.get(job.id)
    started.delete(job.id)
    const seconds = t === undefined ? 0 : Number(process.hrtime.bigint() - t) / 1e9
    jobs.inc({ task: job.task_identifier, outcome })
    jobDuration.observe({ task: job.task_identifier }, seconds)
    const fields = { task: job.task_identifier, jobId: job.id, attempt: job.attempts, ms: Math.round(seconds * 1000), requestId: requestIdOf(job.payload) }
    if (outcome === 'success') log[successLevel]('job.done', fields)
    else log.warn('job.failed', { ...fields, message: error instanceof Error ? error.message : String(error) })
  }
  events.on('job:success', ({ job }) => finish(job, 'success'))
  events.on('job:error', ({ job, error }) => finish(job, 'error', error))
}
