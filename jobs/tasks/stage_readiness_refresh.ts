// Task stage_readiness_refresh (3600 s, twins document Worker jobs, R4): recomputes required_records of open stage
// gates only and writes a readiness_brief (a stage_readiness run) where readiness changed or none exists yet.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { refreshStageReadiness } from '../../domain/gates'
import type { WorkerDeps } from './deps'

export const stageReadinessRefresh = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { gateId } = TaskPayloads.stage_readiness_refresh.parse(payload ?? {})
  const r = await refreshStageReadiness(deps.db, { gateId })
  helpers.logger.info(`stage_readiness_refresh gates=${r.gates} changed=${r.changed} briefs=${r.briefs}`)
}
