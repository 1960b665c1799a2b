// People in the workbench subgraph: Me, the programs the caller belongs to (MyProgram) and Query.me (GET /me).
import type { Builder } from '../../shared/builder'
import * as programs from '../../../domain/programs'
import type { WorkbenchRefs } from './refs'
import { servedUserSettings } from '../../../domain/programs'

export function addPeople(builder: Builder, { OrganizationRef, ProgramRef, UserRef }: WorkbenchRefs) {
  const ProgramPersonas = builder.objectRef<{ program: { id: string; name: string; slug: string }; personas: string[] }>('MyProgram').implement({
    description: 'A program the caller belongs to, with the personas they hold there.',
    fields: (t) => ({
      program: t.field({ type: ProgramRef, resolve: (m) => m.program as never }),
      personas: t.exposeStringList('personas'),
    }),
  })

  const Me = builder.objectRef<Awaited<ReturnType<typeof programs.getMe>>>('Me').implement({
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: (m) => m.user }),
      organization: t.field({ type: OrganizationRef, resolve: async (m, _a, ctx) => (await ctx.loaders.organization.load(m.organizationId))! }),
      organizationPersonas: t.exposeStringList('orgPersonas'),
      programs: t.field({ type: [ProgramPersonas], resolve: (m) => m.programs }),
      settings: t.field({
        type: 'JSON',
        description: 'UserSettings: quiet_hours, digest_time, timezone, workbench_role (program id to key)',
        resolve: (m) => servedUserSettings(m.user.settings),
      }),
    }),
  })

  builder.queryFields((t) => ({
    me: t.field({ type: Me, description: 'The caller, their organisation, programs with personas held, and settings (GET /me).', resolve: (_r, _a, ctx) => programs.getMe(ctx) }),
  }))
  return { Me }
}
