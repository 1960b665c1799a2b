// Task inbox_expire (hourly): expires items past their due time and reopens items whose snooze ended.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { sweepInbox } from '../../domain/inbox'
import type { WorkerDeps } from './deps'

export const inboxExpire = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.inbox_expire.parse(payload ?? {})
  const r = await sweepInbox(deps.db)
  helpers.logger.info(`inbox_expire expired=${r.expired} reopened=${r.reopened} reminded=${r.reminded} escalated=${r.escalated}`)
}
