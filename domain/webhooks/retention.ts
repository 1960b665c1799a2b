// Owns the retention of webhook_deliveries: 90 days, rejected deliveries 30 days; delivery-id claims once the 72 h
// replay window is over; per-source counters once their window is long over (daily job webhook_retention).
import type { Db } from '../../core/database'
import { REPLAY_WINDOW_MS } from './ingress'
import { sweepSourceCounters } from './limits'

export const DELIVERY_RETENTION_DAYS = 90
export const REJECTED_RETENTION_DAYS = 30
const DAY = 24 * 60 * 60_000

export async function sweepWebhookDeliveries(db: Db, now = new Date()): Promise<{ deleted: number; rejected: number; deliveryIds: number; counters: number }> {
  const { rejected, older, ids } = await deleteExpiredDeliveriesAcrossOrganisations(db, now)
  const counters = await sweepSourceCounters(db)
  return { deleted: rejected.count + older.count, rejected: rejected.count, deliveryIds: ids.count, counters }
}

/** Retention is one rule for every organisation (and for rejected deliveries that have none), so the sweep spans them. */
async function deleteExpiredDeliveriesAcrossOrganisations(db: Db, now: Date) {
  const rejected = await db.webhookDelivery.deleteMany({
    where: { outcome: 'rejected', receivedAt: { lt: new Date(now.getTime() - REJECTED_RETENTION_DAYS * DAY) } },
  })
  const older = await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: new Date(now.getTime() - DELIVERY_RETENTION_DAYS * DAY) } } })
  // A claim past the replay window no longer blocks anything: the ingress would overwrite it on the next copy anyway.
  const ids = await db.webhookDeliveryId.deleteMany({ where: { firstReceivedAt: { lt: new Date(now.getTime() - REPLAY_WINDOW_MS) } } })
  return { rejected, older, ids }
}
