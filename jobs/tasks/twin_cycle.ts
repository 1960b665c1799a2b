// Task twin_cycle: executes one queued twin run through its harness (domain/twins/run-cycle.ts).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runTwinCycle } from '../../domain/twins'
import type { WorkerDeps } from './deps'

export const twinCycle = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { runId } = TaskPayloads.twin_cycle.parse(payload)
  const r = await runTwinCycle(deps.db, runId)
  helpers.logger.info(`twin_cycle run=${runId} ${r.ran ? `status=${r.status}` : `skipped=${r.why}`}`)
}
