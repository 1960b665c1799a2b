// Notebook canvas launches in the connectors subgraph: LaunchTarget and Mutation.openLaunch.
import { result, type Builder } from '../../shared/builder'
import { openLaunch, type LaunchTarget } from '../../../domain/notebook'
import type { ConnectorsRefs } from './refs'

export function addLaunch(builder: Builder, { ProgramRef }: ConnectorsRefs) {
  const Launch = builder.objectRef<LaunchTarget>('LaunchTarget').implement({
    description: 'What a notebook canvas launch opens in the console.',
    fields: (t) => ({
      launchId: t.exposeID('launchId'),
      program: t.field({ type: ProgramRef, resolve: async (l, _a, ctx) => (await ctx.loaders.program.load(l.programId))! }),
      connectionId: t.exposeID('connectionId'),
      sourceSystem: t.exposeString('sourceSystem'),
      entryId: t.exposeString('entryId'),
      entryName: t.string({ nullable: true, resolve: (l) => l.entryName }),
      sourceId: t.id({ nullable: true, resolve: (l) => l.sourceId }),
      experimentId: t.id({ nullable: true, resolve: (l) => l.experimentId }),
      targetRef: t.string({ nullable: true, resolve: (l) => l.targetRef }),
      checkId: t.id({ nullable: true, description: 'The SOP check this launch opened (Query.sopCheck).', resolve: (l) => l.checkId }),
      checkNote: t.string({ nullable: true, description: 'Why no check was opened, when none was.', resolve: (l) => l.checkNote }),
    }),
  })

  builder.mutationFields((t) => ({
    openLaunch: t.field({
      type: Launch, errors: result(openLaunch, 'target'),
      description: 'Opens a notebook canvas launch once (launch_used on a second use, launch_expired after 10 minutes).',
      args: { launchId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => openLaunch(ctx, a),
    }),
  }))
}
