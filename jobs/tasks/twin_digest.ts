// Task twin_digest (every 60 s): persona briefs and digest notifications at each twin's digest moments.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { runDigests } from '../../domain/inbox'
import type { WorkerDeps } from './deps'

export const twinDigest = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.twin_digest.parse(payload ?? {})
  const r = await runDigests(deps.db)
  helpers.logger.info(`twin_digest briefs=${r.briefs} notified=${r.notified}`)
}
