// Connectors subgraph schema: composes the provider registry, connections, what they have seen, their webhook
// deliveries and budgets, and the notebook canvas launch (one file per type, resolvers translate to domain/).
import { createBuilder, defineCoreEntitiesKeyedByMembership, defineErrorTypes } from '../../shared/builder'
import { VENDOR_ERROR_CLASSES } from '../../../domain/adapters'
import { addBudgets } from './budgets'
import { addConnections } from './connections'
import { addConnectorObjects } from './connector-objects'
import { addDeliveries } from './deliveries'
import { addLaunch } from './launch'
import { addLiterature } from './literature'
import { addProviders } from './providers'
import { addWorkbenchSources } from './workbench-sources'
import { addQms } from './qms'

export type { ConnectorsRefs } from './refs'

export function buildConnectorsSchema() {
  const builder = createBuilder()
  // an entity fetch of a program of the caller's reads no row unless it asks the program's own fields
  const refs = defineCoreEntitiesKeyedByMembership(builder)
  defineErrorTypes(builder, VENDOR_ERROR_CLASSES)
  builder.mutationType({})

  const providers = addProviders(builder)
  const connections = addConnections(builder, refs, providers)
  addConnectorObjects(builder, connections)
  addDeliveries(builder, connections)
  addBudgets(builder, connections)
  addLaunch(builder, refs)
  addWorkbenchSources(builder)
  addQms(builder, refs, connections)
  addLiterature(builder, refs)

  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
