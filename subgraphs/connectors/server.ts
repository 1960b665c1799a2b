// Builds the connectors subgraph server (no side effects until listen): GraphQL plus the webhook REST shim, whose routes
// are mounted before listen() adds /graphql.
import type { Db } from '../../core/db'
import { createSubgraphServer } from '../shared/server'
import { buildConnectorsSchema } from './schema'
import type { IngressOptions } from './domain/webhooks/ingress'
import { createHookRoutes } from './http/hooks'
import { installTwinAuditHooks } from '../twins/domain/audit-hooks'

export function createConnectorsSubgraph(db: Db, options: IngressOptions = {}) {
  installTwinAuditHooks() // connector_object.update (a triggerable action) reaches twins through the audit hooks
  const server = createSubgraphServer({ name: 'connectors', schema: buildConnectorsSchema(), db })
  const ingress = createHookRoutes(db, options)
  server.app.use(ingress.router)
  return Object.assign(server, { webhookStats: ingress.stats })
}
