// Task poll_qms (every 15 minutes): the QMS delta poll of every active QMS connection (or the one named).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runQmsJob } from '../../domain/qms'
import type { WorkerDeps } from './deps'

export const pollQms = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { connectionId } = TaskPayloads.poll_qms.parse(payload ?? {})
  const outcomes = await runQmsJob(deps.db, 'poll', connectionId)
  helpers.logger.info(`poll_qms ${outcomes.map((o) => o.status).join(',') || 'no connections'}`)
}
