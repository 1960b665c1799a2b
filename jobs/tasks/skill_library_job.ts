// Task skill_library_job: class B skills (the chemistry library) run here, never in an agent path.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runQueuedSkill } from '../../domain/skills'
import type { WorkerDeps } from './deps'

export const skillLibraryJob = (deps: WorkerDeps): Task => async (payload) => {
  const { toolCallId } = TaskPayloads.skill_library_job.parse(payload)
  await runQueuedSkill(deps.db, toolCallId)
}
