// Webhook deliveries in the connectors subgraph: WebhookDelivery and Connection.deliveries.
import type { WebhookDelivery } from '../../../generated/prisma/client'
import type { Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import { listDeliveries } from '../../../domain/connections'
import type { ConnectionRefs } from './connections'

export function addDeliveries(builder: Builder, { ConnectionRef }: ConnectionRefs) {
  const Outcome = builder.enumType('WebhookOutcome', { values: ['enqueued', 'ignored', 'rejected'] as const })
  const Delivery = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
    description: 'One inbound webhook delivery; rejected ones are stored without payload.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sourceSystem: t.exposeString('providerId'),
      deliveryId: t.string({ nullable: true, resolve: (d) => d.deliveryId }),
      eventType: t.string({ nullable: true, resolve: (d) => d.eventType }),
      receivedAt: t.field({ type: 'DateTime', resolve: (d) => d.receivedAt }),
      signatureOk: t.exposeBoolean('signatureOk'),
      replay: t.exposeBoolean('replay'),
      outcome: t.field({ type: Outcome, resolve: (d) => d.outcome }),
      reason: t.string({ nullable: true, resolve: (d) => d.reason }),
      statusCode: t.exposeInt('statusCode'),
      processedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.processedAt }),
      processingResult: t.string({ nullable: true, resolve: (d) => d.processingResult }),
      processingAttempts: t.exposeInt('processingAttempts'),
      lastError: t.string({ nullable: true, resolve: (d) => d.lastError }),
    }),
  })
  const DeliveryConnection = connectionType(builder, 'WebhookDelivery', Delivery, 'A page of webhook deliveries, newest first.')

  builder.objectField(ConnectionRef, 'deliveries', (t) =>
    t.field({
      type: DeliveryConnection,
      description: "The connection's webhook deliveries, newest first.",
      args: pageArgs(t.arg),
      resolve: (c, args, ctx) => listDeliveries(ctx, c, args),
    }))
}
