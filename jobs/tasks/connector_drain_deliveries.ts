// Task connector_drain_deliveries: after a budget exhaustion, processes a connection's waiting deliveries in one pass
// (one job per connection, keyed), instead of every postponed delivery waking up on its own at the window's end.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { drainDeliveries } from '../../domain/webhooks'
import type { WorkerDeps } from './deps'

export const connectorDrainDeliveries = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { connectionId } = TaskPayloads.connector_drain_deliveries.parse(payload ?? {})
  const r = await drainDeliveries(deps.db, connectionId)
  helpers.logger.debug(`connector_drain_deliveries ${connectionId} processed=${r.processed} stopped=${r.stopped}`)
}
