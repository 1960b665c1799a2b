// People in the workbench subgraph: Me, the programs the caller belongs to (MyProgram) and Query.me (GET /me).
import { asksAt, asksOnly, type Builder } from '../../shared/builder'
import type { GraphQLContext } from '../../shared/context'
import type { User } from '../../../generated/prisma/client'
import { NotFoundError } from '../../../core/errors'
import * as programs from '../../../domain/programs'
import type { WorkbenchRefs } from './refs'
import { servedUserSettings } from '../../../domain/programs'

/** Me's fields that read nothing of the person's own row (everything else has getMe read it). */
const FIELDS_WITHOUT_THE_PERSON: ReadonlySet<string> = new Set(['programs', 'organization', 'organizationPersonas'])

/** Me's person row: read by getMe whenever the selection asks more than FIELDS_WITHOUT_THE_PERSON, so always there. */
export async function meUser(m: { user?: User }, ctx: GraphQLContext): Promise<User> {
  if (m.user) return m.user
  const user = await ctx.loaders.user.load(ctx.session.userId)
  if (!user) throw new NotFoundError('User')
  return user
}

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
      user: t.field({ type: UserRef, resolve: (m, _a, ctx) => meUser(m, ctx) }),
      organization: t.field({ type: OrganizationRef, resolve: async (m, _a, ctx) => (await ctx.loaders.organization.load(m.organizationId))! }),
      organizationPersonas: t.exposeStringList('orgPersonas'),
      programs: t.field({ type: [ProgramPersonas], resolve: (m) => m.programs }),
      settings: t.field({
        type: 'JSON',
        description: 'UserSettings: quiet_hours, digest_time, timezone, workbench_role (program id to key)',
        resolve: async (m, _a, ctx) => servedUserSettings((await meUser(m, ctx)).settings),
      }),
    }),
  })

  builder.queryFields((t) => ({
    me: t.field({
      type: Me, description: 'The caller, their organisation, programs with personas held, and settings (GET /me).',
      // the person's row is read for any field but those that need nothing of it (the console's first screen asks
      // `me { programs { program { … myOpenInboxCount } } }`: one statement, the open counts in it)
      resolve: (_r, _a, ctx, info) => programs.getMe(ctx, {
        user: !asksOnly(info, FIELDS_WITHOUT_THE_PERSON),
        openInboxCounts: asksAt(info, ['programs', 'program', 'myOpenInboxCount']),
      }),
    }),
  }))
  return { Me }
}
