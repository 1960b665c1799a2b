// Task connector_sync: a full or incremental sync of one connection (its provider's rules are its adapter's sync hooks);
// writes connection.health every time.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runSync } from '../../domain/connections'
import type { WorkerDeps } from './deps'

export const connectorSync = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { connectionId, mode } = TaskPayloads.connector_sync.parse(payload ?? {})
  const outcome = await runSync(deps.db, connectionId, mode)
  helpers.logger.info(`connector_sync ${connectionId} ${mode} ${outcome.status}${outcome.status === 'synced' ? ` seen=${outcome.report.seen} created=${outcome.report.created} updated=${outcome.report.updated}` : ''}`)
}
