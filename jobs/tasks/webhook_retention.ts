// Task webhook_retention (daily): webhook_deliveries are kept 90 days, rejected ones 30 days; delivery-id claims 72 h.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { sweepWebhookDeliveries } from '../../domain/webhooks'
import type { WorkerDeps } from './deps'

export const webhookRetention = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.webhook_retention.parse(payload ?? {})
  const r = await sweepWebhookDeliveries(deps.db)
  helpers.logger.info(`webhook_retention deleted=${r.deleted} rejected=${r.rejected} delivery_ids=${r.deliveryIds} counters=${r.counters}`)
}
