// Task delegation_expire (hourly): active delegations past ends_at expire, audited delegation.expire. Routing already
// stops at ends_at (routeDecision reads it), so the job records the end rather than causing it.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { expireDelegations } from '../../domain/collaboration'
import type { WorkerDeps } from './deps'

export const delegationExpire = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.delegation_expire.parse(payload ?? {})
  const r = await expireDelegations(deps.db)
  helpers.logger.info(`delegation_expire expired=${r.expired}`)
}
