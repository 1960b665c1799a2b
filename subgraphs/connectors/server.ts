// Builds the connectors subgraph server (no side effects until listen): GraphQL plus the webhook REST shim, whose routes
// are mounted before listen() adds /graphql.
import type { Db } from '../../core/database'
import { createSubgraphServer } from '../shared/server'
import { buildConnectorsSchema } from './schema'
import type { IngressOptions } from '../../domain/webhooks'
import { createHookRoutes } from './http/hooks'

export function createConnectorsSubgraph(db: Db, options: IngressOptions = {}) {
  const server = createSubgraphServer({ name: 'connectors', schema: buildConnectorsSchema(), db })
  const ingress = createHookRoutes(db, options)
  server.app.use(ingress.router)
  return Object.assign(server, { webhookStats: ingress.stats })
}
