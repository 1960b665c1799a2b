// Task memory_expire (daily): applies the memory retention windows (domain/memory/retention.ts).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { sweepMemory } from '../../domain/memory'
import type { WorkerDeps } from './deps'

export const memoryExpire = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.memory_expire.parse(payload ?? {})
  const r = await sweepMemory(deps.db)
  helpers.logger.info(`memory_expire membership_ended=${r.membershipEnded} episodic_expired=${r.episodicExpired} questions_erased=${r.questionsErased}`)
}
