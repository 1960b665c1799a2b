// Task twin_events_reconcile (hourly): fires event triggers for audit entries past their watermark (domain/twin-events.ts).
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { reconcileEventTriggers } from '../../domain/twins'
import type { WorkerDeps } from './deps'

export const twinEventsReconcile = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.twin_events_reconcile.parse(payload ?? {})
  const r = await reconcileEventTriggers(deps.db)
  helpers.logger.info(`twin_events_reconcile triggers=${r.triggers} queued=${r.queued} coalesced=${r.coalesced} deferred=${r.deferred}`)
}
