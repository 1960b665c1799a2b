// Programs in the workbench subgraph: the fields workbench adds to Program (myPersonas, settings), Query.program and
// Mutation.createProgram.
import { result, type Builder } from '../../shared/builder'
import * as programs from '../../../domain/programs'
import { TWINS } from '../../../core/text'

const UPDATE_PROGRAM_SETTINGS = TWINS.updateProgramSettings
import type { WorkbenchRefs } from './refs'

export function addPrograms(builder: Builder, { ProgramRef }: WorkbenchRefs) {
  builder.objectField(ProgramRef, 'myPersonas', (t) =>
    t.stringList({ description: 'The personas the caller holds in this program.', resolve: (p, _a, ctx) => programs.myPersonas(ctx, p.id) }))
  builder.objectField(ProgramRef, 'settings', (t) =>
    t.field({ type: 'JSON', description: 'evidence_query_budget, twin_defaults, escalation_days, gate_critical_milestone_tag', resolve: (p) => p.settings }))

  builder.queryFields((t) => ({
    program: t.field({
      type: ProgramRef,
      nullable: true,
      description: 'A program by id or slug, if the caller may read it.',
      args: { id: t.arg.id({ required: false }), slug: t.arg.string({ required: false }) },
      resolve: (_r, args, ctx) => programs.findProgram(ctx, { id: args.id ? String(args.id) : null, slug: args.slug }),
    }),
  }))

  const CreateProgramInput = builder.inputType('CreateProgramInput', {
    fields: (t) => ({ slug: t.string({ required: true }), name: t.string({ required: true }) }),
  })
  builder.mutationFields((t) => ({
    createProgram: t.field({
      type: ProgramRef,
      errors: result(programs.createProgram, 'program'),
      args: { input: t.arg({ type: CreateProgramInput, required: true }) },
      resolve: (_r, { input }, ctx) => programs.createProgram(ctx, input),
    }),
    updateProgramSettings: t.field({
      type: ProgramRef,
      errors: result(programs.updateProgramSettings, 'program'),
      // program.settings.update's description since R4: the gate is the only writer of the stage.
      description: `${UPDATE_PROGRAM_SETTINGS} (program.settings.update): a patch of evidence_query_budget, escalation_days, gate_critical_milestone_tag (twin_defaults: setProgramTwinDefaults). The stage is not a setting: naming it answers StageViaGate.`,
      args: { programId: t.arg.id({ required: true }), settings: t.arg({ type: 'JSON', required: true }) },
      resolve: (_r, { programId, settings }, ctx) => programs.updateProgramSettings(ctx, { programId, settings }),
    }),
  }))
}
