// The twins subgraph's part of the role home: Workbench.decisions ('Today's decisions'), Workbench.otherDecisionCount
// and Workbench.twin, added to the workbench subgraph's Workbench entity. The role's record types and the persona the
// home is for arrive with the entity (@requires), so this subgraph never reads the workbench's settings.
import type { ObjectRef } from '@pothos/core'
import type { TwinDefinition } from '../../../generated/prisma/client'
import type { Builder } from '../../shared/builder'
import { homeTwin, roleDecisions } from '../../../domain/proposals'
import type { LiveInboxItem } from '../../../domain/inbox'

type AnyRef<T> = ObjectRef<any, T> // eslint-disable-line @typescript-eslint/no-explicit-any

export function addWorkbenchHome(builder: Builder, refs: { InboxItemRef: AnyRef<LiveInboxItem>; TwinRef: AnyRef<TwinDefinition> }) {
  type Home = { programId: string; recordTypes?: string[] | null; fallback?: boolean | null; personaKey?: string | null }
  // One read per home for both decision fields.
  const decisionsOf = (ctx: Parameters<typeof roleDecisions>[0] & { loader: import('../../shared/context').GraphQLContext['loader'] }, w: Home) =>
    ctx.loader<string, Awaited<ReturnType<typeof roleDecisions>>>('workbench_decisions', (keys) => Promise.all(keys.map((k) => {
      const { programId, types } = JSON.parse(k) as { programId: string; types: string[] | null }
      return roleDecisions(ctx, programId, types)
    }))).load(JSON.stringify({ programId: w.programId, types: w.fallback ? null : w.recordTypes ?? [] }))

  builder.externalRef('Workbench', builder.selection<{ programId: string }>('programId'), (e) => e as Home).implement({
    externalFields: (t) => ({
      recordTypes: t.stringList(),
      fallback: t.boolean(),
      personaKey: t.string({ nullable: true }),
    }),
    fields: (t) => ({
      programId: t.exposeID('programId'),
      decisions: t.field({
        type: [refs.InboxItemRef],
        description: "'Today's decisions': the caller's open decisions in the program on the role's record types (every type under the neutral fallback), due first.",
        requires: builder.selection<{ recordTypes: string[]; fallback: boolean }>('recordTypes fallback'),
        resolve: async (w, _a, ctx) => (await decisionsOf(ctx, w)).decisions,
      }),
      otherDecisionCount: t.int({
        description: "The caller's open decisions in the program that Today's decisions does not show.",
        requires: builder.selection<{ recordTypes: string[]; fallback: boolean }>('recordTypes fallback'),
        resolve: async (w, _a, ctx) => (await decisionsOf(ctx, w)).otherDecisionCount,
      }),
      twin: t.field({
        type: refs.TwinRef,
        nullable: true,
        description: "The caller's twin in the program (for the persona the home is for).",
        requires: builder.selection<{ personaKey: string | null }>('personaKey'),
        resolve: (w, _a, ctx) => homeTwin(ctx, w.programId, w.personaKey ?? null),
      }),
    }),
  })
}
