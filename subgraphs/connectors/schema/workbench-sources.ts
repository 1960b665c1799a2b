// The connectors subgraph's part of the role home: Workbench.sources (WorkbenchOut.sources), added to the workbench
// subgraph's Workbench entity by its key (programId).
import type { Builder } from '../../shared/builder'
import { SOURCE_STATUSES, programSources, type WorkbenchSource } from '../../../domain/connections'

export function addWorkbenchSources(builder: Builder) {
  const Status = builder.enumType('WorkbenchSourceStatus', {
    description: 'connected, not_connected or degraded, from connection health (terms_changed is R5 and does not exist in R4).',
    values: SOURCE_STATUSES,
  })
  const Source = builder.objectRef<WorkbenchSource>('WorkbenchSource').implement({
    description: 'A connector provider as the role home shows it: {provider, status, verified_on?}.',
    fields: (t) => ({
      provider: t.exposeString('provider'),
      displayName: t.exposeString('displayName'),
      status: t.field({ type: Status, resolve: (s) => s.status }),
      verifiedOn: t.string({ nullable: true, description: 'YYYY-MM-DD of the last passing health check.', resolve: (s) => s.verifiedOn }),
    }),
  })
  builder.externalRef('Workbench', builder.selection<{ programId: string }>('programId'), (e) => e).implement({
    fields: (t) => ({
      programId: t.exposeID('programId'),
      sources: t.field({
        type: [Source],
        description: 'One entry per connector provider with its status in the program.',
        resolve: (w, _a, ctx) => programSources(ctx, w.programId),
      }),
    }),
  })
}
