// Rate budgets in the connectors subgraph: RateBudget and Connection.budgets.
import type { Builder } from '../../shared/builder'
import type { BudgetState } from '../../../domain/adapters'
import { connectionBudgets } from '../../../domain/connections'
import type { ConnectionRefs } from './connections'

export function addBudgets(builder: Builder, { ConnectionRef }: ConnectionRefs) {
  const Budget = builder.objectRef<BudgetState>('RateBudget').implement({
    fields: (t) => ({
      scope: t.exposeString('scope'),
      limitPerWindow: t.exposeInt('limitPerWindow'),
      windowSeconds: t.exposeInt('windowSeconds'),
      used: t.exposeInt('used'),
      windowStartedAt: t.field({ type: 'DateTime', resolve: (b) => b.windowStartedAt }),
      remoteLimit: t.int({ nullable: true, resolve: (b) => b.remoteLimit }),
      remoteRemaining: t.int({ nullable: true, resolve: (b) => b.remoteRemaining }),
      remoteResetAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => b.remoteResetAt }),
    }),
  })

  builder.objectField(ConnectionRef, 'budgets', (t) =>
    t.field({ type: [Budget], description: "The budgets the connection's vendor reads draw from.", resolve: (c, _a, ctx) => connectionBudgets(ctx, c) }))
}
