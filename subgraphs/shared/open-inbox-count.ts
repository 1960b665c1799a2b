// Owns Program.myOpenInboxCount as a field any subgraph may answer (shareable): twins, where the inbox lives, and
// workbench, which lists `me { programs }`, so the console's first screen needs no extra fetch to twins for the counts
// of the programs workbench just returned (issue 20). One definition, one domain function (the twins inbox's, passed in
// by each schema: shared code imports no subgraph), one batch per request, or none where the program's row came with
// the count (workbench reads `me`'s programs and their counts in one statement).
import type { ObjectRef } from '@pothos/core'
import type { Builder, SchemaTypes } from './builder'
import type { DomainContext } from '../../core/jobs'

export type OpenInboxCounts = (ctx: DomainContext, programIds: readonly string[]) => Promise<number[]>

export function addMyOpenInboxCount<T extends { id: string }>(builder: Builder, ProgramRef: ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, T>, countMyOpenInboxByProgram: OpenInboxCounts) {
  builder.objectField(ProgramRef, 'myOpenInboxCount', (t) =>
    t.int({
      description: "How many of the caller's inbox items in this program are open.",
      shareable: true,
      // a program read with the count in it (workbench's `me` programs) answers it at once; any other is counted in one batch
      resolve: (p, _a, ctx) => {
        const counted = (p as { myOpenInboxCount?: unknown }).myOpenInboxCount
        return typeof counted === 'number' ? counted
          : ctx.loader('Program.myOpenInboxCount', (ids: readonly string[]) => countMyOpenInboxByProgram(ctx, ids)).load(p.id)
      },
    }))
}
