// Task reconcile_qms (nightly): the QMS reconciliation of every active QMS connection (or the one named).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runQmsJob } from '../../domain/qms'
import type { WorkerDeps } from './deps'

export const reconcileQms = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { connectionId } = TaskPayloads.reconcile_qms.parse(payload ?? {})
  const outcomes = await runQmsJob(deps.db, 'reconcile', connectionId)
  helpers.logger.info(`reconcile_qms ${outcomes.map((o) => o.status).join(',') || 'no connections'}`)
}
