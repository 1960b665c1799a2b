// Task twin_schedule (every 60 s): claims due twin schedules and enqueues their twin_cycle runs (domain/schedules.ts),
// and fails twin runs whose job is gone (domain/run-cycle.ts), so no run stays stuck.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { claimDueSchedules } from '../../domain/twins'
import { failAbandonedRuns } from '../../domain/twins'
import type { WorkerDeps } from './deps'

export const twinSchedule = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.twin_schedule.parse(payload ?? {})
  const r = await claimDueSchedules(deps.db)
  const abandoned = await failAbandonedRuns(deps.db)
  if (abandoned) helpers.logger.warn(`twin_schedule failed ${abandoned} abandoned twin runs`)
  if (r.claimed) helpers.logger.info(`twin_schedule claimed=${r.claimed} enqueued=${r.enqueued} deferred=${r.deferred} floored=${r.floored} coalesced=${r.coalesced}`)
}
