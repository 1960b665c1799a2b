// Mutation.setProgramTwinDefaults: the program's twin defaults under program.twins.manage, with a reason
// (domain/twin-defaults.ts). The program's settings (Program.settings, workbench) show them as twin_defaults.
import { entityRef, result, type Builder } from '../../shared/builder'
import { setProgramTwinDefaults } from '../../../domain/twins'
import type { TwinsRefs } from './refs'

export function addTwinDefaults(builder: Builder, { ProgramRef }: TwinsRefs) {
  builder.mutationFields((t) => ({
    setProgramTwinDefaults: t.field({
      type: ProgramRef, errors: result(setProgramTwinDefaults, 'program'),
      description: "Sets the program's twin defaults (program.twins.manage, with a reason): expiry_hours, digest_time, batch_times, budget_tool_calls_month, budget_usd_month, duties. A new twin takes each one its person leaves out; existing twins are not changed. Replaces the whole object.",
      args: { programId: t.arg.id({ required: true }), defaults: t.arg({ type: 'JSON', required: true }), reason: t.arg.string({ required: false }) },
      resolve: async (_r, { programId, defaults, reason }, ctx) => {
        const program = await setProgramTwinDefaults(ctx, { programId, defaults: defaults as Record<string, unknown>, reason })
        return entityRef(program.id)
      },
    }),
  }))
}
