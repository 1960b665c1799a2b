// Workbench subgraph schema: people and programs (Query.me, Query.program, Program.members, membership mutations).
import { NotFoundError } from '../../../core/errors'
import { createBuilder, defineCoreEntities, result } from '../../shared/builder'
import * as programs from '../domain/programs'

export function buildWorkbenchSchema() {
  const builder = createBuilder()
  const { OrganizationRef, ProgramRef, UserRef } = defineCoreEntities(builder)

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
        description: 'UserSettings: quiet_hours, digest_time, timezone, inbox_shortcuts, workbench_role (program id to key)',
        resolve: (m) => m.user.settings,
      }),
    }),
  })

  const Member = builder.objectRef<Awaited<ReturnType<typeof programs.listMembers>>[number]>('ProgramMember').implement({
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: (m) => m.user }),
      personas: t.exposeStringList('personas'),
      joinedAt: t.field({ type: 'DateTime', resolve: (m) => m.joinedAt }),
    }),
  })

  builder.objectField(ProgramRef, 'members', (t) =>
    t.field({ type: [Member], description: 'Current members and their personas (program.members.read).', resolve: (p, _a, ctx) => programs.listMembers(ctx, p.id) }))
  builder.objectField(ProgramRef, 'myPersonas', (t) =>
    t.stringList({ resolve: (p, _a, ctx) => ctx.session.programPersonas.get(p.id) ?? [] }))
  builder.objectField(ProgramRef, 'settings', (t) =>
    t.field({ type: 'JSON', description: 'evidence_query_budget, twin_defaults, escalation_days, gate_critical_milestone_tag', resolve: (p) => p.settings }))

  builder.queryFields((t) => ({
    me: t.field({ type: Me, description: 'The caller, their organisation, programs with personas held, and settings (GET /me).', resolve: (_r, _a, ctx) => programs.getMe(ctx) }),
    program: t.field({
      type: ProgramRef,
      nullable: true,
      description: 'A program by id or slug, if the caller may read it.',
      args: { id: t.arg.id({ required: false }), slug: t.arg.string({ required: false }) },
      resolve: async (_r, args, ctx) => {
        try { return await programs.getProgram(ctx, { id: args.id ? String(args.id) : null, slug: args.slug }) } catch (e) {
          if (e instanceof NotFoundError) return null
          throw e
        }
      },
    }),
  }))

  const MembershipChange = builder.objectRef<{ programId: string; userId: string; remainingPersonas?: number }>('MembershipChange').implement({
    fields: (t) => ({
      program: t.field({ type: ProgramRef, resolve: async (m, _a, ctx) => (await ctx.loaders.program.load(m.programId))! }),
      user: t.field({ type: UserRef, resolve: async (m, _a, ctx) => (await ctx.loaders.user.load(m.userId))! }),
      remainingPersonas: t.int({ nullable: true, resolve: (m) => m.remainingPersonas ?? null }),
    }),
  })

  const CreateProgramInput = builder.inputType('CreateProgramInput', {
    fields: (t) => ({ slug: t.string({ required: true }), name: t.string({ required: true }) }),
  })
  builder.mutationType({})
  // Resolvers translate: GraphQL arguments in, the domain write's result (or one of its declared errors) out.
  builder.mutationFields((t) => ({
    createProgram: t.field({
      type: ProgramRef,
      errors: result(programs.createProgram, 'program'),
      args: { input: t.arg({ type: CreateProgramInput, required: true }) },
      resolve: (_r, { input }, ctx) => programs.createProgram(ctx, input),
    }),
    addProgramMember: t.field({
      type: MembershipChange,
      errors: result(programs.addMember, 'change'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), personas: t.arg.stringList({ required: true }) },
      resolve: (_r, a, ctx) => programs.addMember(ctx, a),
    }),
    removeProgramMember: t.field({
      type: MembershipChange,
      errors: result(programs.removeMember, 'change'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => programs.removeMember(ctx, a),
    }),
    assignPersona: t.field({
      type: MembershipChange,
      errors: result(programs.assignPersona, 'change'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), persona: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => programs.assignPersona(ctx, a),
    }),
    removePersona: t.field({
      type: MembershipChange,
      errors: result(programs.removePersona, 'change'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), persona: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => programs.removePersona(ctx, a),
    }),
  }))

  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
