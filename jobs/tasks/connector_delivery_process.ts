// Task connector_delivery_process: processes one stored webhook delivery of any provider (its adapter re-fetches the
// canonical object); a budget exhaustion reschedules it, a vendor failure fails the attempt so graphile-worker retries
// it with back-off. The worker also runs it under notebook_process_delivery, the name jobs were queued under before
// deliveries were provider-neutral, so jobs already waiting in a database still run.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { processDelivery } from '../../domain/webhooks'
import type { WorkerDeps } from './deps'

export const connectorDeliveryProcess = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { deliveryId } = TaskPayloads.connector_delivery_process.parse(payload ?? {})
  const outcome = await processDelivery(deps.db, deliveryId)
  helpers.logger.debug(`connector_delivery_process ${deliveryId} ${JSON.stringify(outcome)}`)
}
