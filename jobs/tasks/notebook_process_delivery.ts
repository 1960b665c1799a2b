// Task notebook_process_delivery: processes one stored webhook delivery (re-fetches the canonical object); a budget
// exhaustion reschedules it, a vendor failure fails the attempt so graphile-worker retries it with back-off.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { processDelivery } from '../../subgraphs/connectors/domain/webhooks/process'
import type { WorkerDeps } from './deps'

export const notebookProcessDelivery = (deps: WorkerDeps): Task => async (payload, helpers) => {
  const { deliveryId } = TaskPayloads.notebook_process_delivery.parse(payload ?? {})
  const outcome = await processDelivery(deps.db, deliveryId)
  helpers.logger.debug(`notebook_process_delivery ${deliveryId} ${JSON.stringify(outcome)}`)
}
