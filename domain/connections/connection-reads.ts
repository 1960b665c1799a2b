// Owns what a connection shows to those who may read it (program.connections.read): the records it has seen and its
// webhook deliveries in cursor pages, newest first, and its rate budgets.
import type { Connection, ConnectorObject, WebhookDelivery } from '../../generated/prisma/client'
import type { BudgetState } from '../adapters'
import type { DomainContext } from '../../core/jobs'
import { assertCan } from '../../core/identity'
import { keysetPage, mapPage, type Page, type PageArgs } from '../../core/database'
import { providerSpec } from '../adapters'
import { connectorRuntime } from './runtime'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db'>
export type ConnectorObjectOut = ConnectorObject & { providerId: string }

const READ = 'program.connections.read'

/** What the connection has seen, newest first by first sight; deleted records only when asked for. */
export async function listConnectorObjects(
  ctx: Ctx, c: Connection, args: PageArgs & { externalType?: string | null; includeDeleted?: boolean | null },
): Promise<Page<ConnectorObjectOut>> {
  assertCan(ctx.session, READ, c.programId)
  const page = await keysetPage(args, 'firstSeenAt', (q) => ctx.tdb.connectorObject.findMany({
    ...q,
    where: { connectionId: c.id, ...(args.externalType ? { externalType: args.externalType } : {}), ...(args.includeDeleted ? {} : { deletedAt: null }), ...q.where },
  }))
  // Every surfaced record names its source system: the connection's provider.
  return mapPage(page, (rows) => rows.map((o) => ({ ...o, providerId: c.providerId })))
}

/** The connection's webhook deliveries, newest first (rejected ones are stored without payload). */
export function listDeliveries(ctx: Ctx, c: Connection, args: PageArgs): Promise<Page<WebhookDelivery>> {
  assertCan(ctx.session, READ, c.programId)
  return keysetPage(args, 'receivedAt', (q) => ctx.tdb.webhookDelivery.findMany({ ...q, where: { connectionId: c.id, ...q.where } }))
}

/** The budgets the connection draws from (its own and its organisation's); none for providers without a budget. */
export async function connectionBudgets(ctx: Ctx, c: Connection): Promise<BudgetState[]> {
  assertCan(ctx.session, READ, c.programId)
  return providerSpec(c.providerId)?.budget ? connectorRuntime.context(ctx.db, c).budget.state() : []
}
