// Owns the retention of webhook_deliveries: 90 days, rejected deliveries 30 days (daily job webhook_retention).
import type { Db } from '../../../../core/db'

export const DELIVERY_RETENTION_DAYS = 90
export const REJECTED_RETENTION_DAYS = 30
const DAY = 24 * 60 * 60_000

export async function sweepWebhookDeliveries(db: Db, now = new Date()): Promise<{ deleted: number; rejected: number }> {
  const rejected = await db.webhookDelivery.deleteMany({
    where: { outcome: 'rejected', receivedAt: { lt: new Date(now.getTime() - REJECTED_RETENTION_DAYS * DAY) } },
  })
  const older = await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: new Date(now.getTime() - DELIVERY_RETENTION_DAYS * DAY) } } })
  return { deleted: rejected.count + older.count, rejected: rejected.count }
}
