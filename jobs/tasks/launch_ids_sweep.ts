// Task launch_ids_sweep (daily): deletes launch ids 24 h after they expired.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { sweepLaunchIds } from '../../domain/notebook'
import type { WorkerDeps } from './deps'

export const launchIdsSweep = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.launch_ids_sweep.parse(payload ?? {})
  const deleted = await sweepLaunchIds(deps.db)
  helpers.logger.info(`launch_ids_sweep deleted=${deleted}`)
}
