// Connectors subgraph schema: the provider registry and a program's connections.
import { createBuilder, defineCoreEntities } from '../../shared/builder'
import { assertCan } from '../../../core/session'
import { PROVIDERS, providerStatus, type ProviderSpec } from '../domain/providers'

export function buildConnectorsSchema() {
  const builder = createBuilder()
  const { ProgramRef } = defineCoreEntities(builder)

  const Provider = builder.objectRef<ProviderSpec>('ConnectorProvider').implement({
    description: 'A connector provider of the registry. All connectors are read-only.',
    fields: (t) => ({
      id: t.exposeID('id'),
      category: t.exposeString('category'),
      credentialClass: t.exposeString('credentialClass'),
      eventVerification: t.exposeString('eventVerification'),
      launchable: t.exposeBoolean('launchable'),
      apiVersionDefault: t.exposeString('apiVersionDefault'),
      writePolicy: t.exposeString('writePolicy'),
      pollIntervalSeconds: t.int({ nullable: true, resolve: (p) => p.pollIntervalSeconds }),
      status: t.string({ description: 'designed until the R1 gates pass', resolve: () => providerStatus() ?? 'designed' }),
    }),
  })

  const Connection = builder.objectRef<{ id: string; providerId: string }>('Connection').implement({
    fields: (t) => ({ id: t.exposeID('id'), providerId: t.exposeString('providerId') }),
  })

  builder.queryFields((t) => ({
    connectorProviders: t.field({ type: [Provider], description: 'The provider registry.', resolve: () => [...PROVIDERS] }),
  }))
  builder.objectField(ProgramRef, 'connections', (t) =>
    t.field({
      type: [Connection],
      description: "The program's connections (program.connections.read).",
      resolve: (p, _a, ctx) => {
        assertCan(ctx.session, 'program.connections.read', p.id)
        return [] // the connections table arrives with the notebook connector
      },
    }))

  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
