// Task twin_evaluate (daily): per-twin evaluation and the high_decline_rate pause (domain/evaluation.ts).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { evaluateTwins } from '../../domain/twins'
import type { WorkerDeps } from './deps'

export const twinEvaluate = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.twin_evaluate.parse(payload ?? {})
  const r = await evaluateTwins(deps.db)
  helpers.logger.info(`twin_evaluate evaluated=${r.evaluated} paused=${r.paused}`)
}
