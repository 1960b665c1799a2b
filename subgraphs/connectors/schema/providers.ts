// The provider registry in the connectors subgraph: ConnectorProvider and Query.connectorProviders.
import type { Builder } from '../../shared/builder'
import { PROVIDERS, providerStatus, type ProviderSpec } from '../../../domain/adapters'

export function addProviders(builder: Builder) {
  const Provider = builder.objectRef<ProviderSpec>('ConnectorProvider').implement({
    description: 'A connector provider of the registry. All connectors are read-only.',
    fields: (t) => ({
      id: t.exposeID('id'),
      displayName: t.exposeString('displayName'),
      category: t.exposeString('category'),
      credentialClass: t.exposeString('credentialClass'),
      eventVerification: t.exposeString('eventVerification'),
      events: t.exposeString('events'),
      launchable: t.exposeBoolean('launchable'),
      apiVersionDefault: t.exposeString('apiVersionDefault'),
      writePolicy: t.exposeString('writePolicy'),
      budgetScope: t.exposeString('budgetScope'),
      pollIntervalSeconds: t.int({ nullable: true, resolve: (p) => p.pollIntervalSeconds }),
      status: t.string({ description: 'designed until the R1 gates pass', resolve: () => providerStatus() ?? 'designed' }),
      excludedSources: t.field({
        type: 'JSON', nullable: true, description: 'literature_search: the source kinds left out, each with its stated reason.',
        resolve: (p) => p.excludedSources ?? null,
      }),
    }),
  })

  builder.queryFields((t) => ({
    connectorProviders: t.field({ type: [Provider], description: 'The provider registry.', resolve: () => [...PROVIDERS] }),
  }))
  return { Provider }
}
