// Owns the job catalogue: every task's name and payload schema, and the typed enqueue used inside transactions.
import { z } from 'zod'
import type { AnyTx } from '../database'
import { addGraphileJob } from '../sql'
import { currentRequestId, JOB_REQUEST_ID_FIELD } from '../config'
import { currentTraceparent, JOB_TRACEPARENT_FIELD } from '../config'

/**
 * graphile-worker adds `_cron: { ts, backfilled }` to the payload of every job its crontab schedules (jobs/crontab).
 * Tasks the crontab runs accept that field and drop it, so their payload schemas stay strict about everything else.
 */
const CronStamp = z.object({ ts: z.string().or(z.date()), backfilled: z.boolean().optional() }).strict()
function cronTask<S extends z.ZodRawShape>(shape: S) {
  return z.object({ ...shape, _cron: CronStamp.optional() }).strict()
    .transform((stamped) => {
      const { _cron: _stamp, ...payload } = stamped as Record<string, unknown>
      return payload as z.output<z.ZodObject<S, z.core.$strict>>
    })
}

export const TaskPayloads = {
  deliver_email: cronTask({ outboxId: z.string().uuid().optional() }),
  inbox_expire: cronTask({}),
  skill_library_job: z.object({ toolCallId: z.string().uuid() }).strict(),
  connector_delivery_process: z.object({ deliveryId: z.string().uuid() }).strict(),
  // The same task under its former name: jobs queued before the rename still run (jobs/tasks/connector_delivery_process.ts).
  notebook_process_delivery: z.object({ deliveryId: z.string().uuid() }).strict(),
  connector_drain_deliveries: z.object({ connectionId: z.string().uuid() }).strict(),
  connector_sync: z.object({ connectionId: z.string().uuid(), mode: z.enum(['full', 'incremental']) }).strict(),
  launch_ids_sweep: cronTask({}),
  webhook_retention: cronTask({}),
  memory_expire: cronTask({}),
  // The audit chain (issue 35): every organisation's chain verified daily; a break files an inbox item.
  audit_verify: cronTask({}),
  // Persona twins (twins document, Worker jobs): one run; the 60 s schedule claim; the hourly watermark check; daily evaluation.
  twin_cycle: z.object({ runId: z.string().uuid() }).strict(),
  twin_schedule: cronTask({}),
  twin_events_reconcile: cronTask({}),
  twin_evaluate: cronTask({}),
  // Persona briefs and digests at each twin's digest moments (twins document, Worker jobs: 60 s).
  twin_digest: cronTask({}),
  // Stage gates (twins document, Worker jobs, R4: 3600 s): recompute required_records of open gates only; gateId
  // narrows it to one gate (enqueued when a gate opens, so its first readiness_brief is written at once).
  stage_readiness_refresh: cronTask({ gateId: z.string().uuid().optional() }),
  // QMS/SOP connector (connector document, Events): the delta poll every 15 minutes and the nightly reconciliation.
  poll_qms: cronTask({ connectionId: z.string().uuid().optional() }),
  reconcile_qms: cronTask({ connectionId: z.string().uuid().optional() }),
  // The literature sources' platform health for the role home (ours: it has no connection whose health could say it).
  literature_health: cronTask({}),
  // Delegations past ends_at expire (ours: the twins document names the operation expire, not its job; hourly).
  delegation_expire: cronTask({}),
} as const

export type TaskName = keyof typeof TaskPayloads
export type TaskPayload<T extends TaskName> = z.output<(typeof TaskPayloads)[T]>

export interface EnqueueOptions {
  runAt?: Date
  jobKey?: string
  /** replace (default), preserve_run_at, unsafe_dedupe */
  jobKeyMode?: 'replace' | 'preserve_run_at' | 'unsafe_dedupe'
  maxAttempts?: number
  queueName?: string
  priority?: number
}

/**
 * Adds a job in the caller's transaction: it exists exactly when the write that needs it commits.
 * The payload is validated here as well as when the task runs.
 */
export async function enqueue<T extends TaskName>(tx: AnyTx, task: T, payload: TaskPayload<T>, opts: EnqueueOptions = {}) {
  const valid = TaskPayloads[task].parse(payload) as Record<string, unknown>
  // the request that enqueued the job: its id follows into the job's log lines (removed before the task parses it)
  const requestId = currentRequestId()
  if (requestId) valid[JOB_REQUEST_ID_FIELD] = requestId
  // with tracing on, the job's run continues the trace of the request that enqueued it
  const traceparent = currentTraceparent()
  if (traceparent) valid[JOB_TRACEPARENT_FIELD] = traceparent
  await addGraphileJob(tx, {
    task, payload: valid, queueName: opts.queueName ?? null, runAt: opts.runAt ?? null, maxAttempts: opts.maxAttempts ?? null,
    jobKey: opts.jobKey ?? null, jobKeyMode: opts.jobKeyMode ?? 'replace', priority: opts.priority ?? null,
  })
}
