// Task literature_health (every 15 minutes): probe the literature sources the platform keys reach and record their
// health for the role home (domain/literature/platform-health.ts).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { recordLiteratureHealth } from '../../domain/literature'
import type { WorkerDeps } from './deps'

export const literatureHealth = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.literature_health.parse(payload ?? {})
  const report = await recordLiteratureHealth(deps.db)
  helpers.logger.info(`literature_health ${report.status}`)
}
