// Program membership in the workbench subgraph: ProgramMember, Program.members (cursor pages) and the membership
// mutations (addProgramMember, removeProgramMember, assignPersona, removePersona).
import { result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import * as programs from '../../../domain/programs'
import type { WorkbenchRefs } from './refs'

export function addMembers(builder: Builder, { ProgramRef, UserRef }: WorkbenchRefs) {
  const Member = builder.objectRef<programs.Member>('ProgramMember').implement({
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: (m) => m.user }),
      personas: t.exposeStringList('personas'),
      joinedAt: t.field({ type: 'DateTime', resolve: (m) => m.joinedAt }),
    }),
  })
  const Members = connectionType(builder, 'ProgramMember', Member, "A page of a program's current members, the latest to join first.")

  builder.objectField(ProgramRef, 'members', (t) =>
    t.field({
      type: Members,
      description: 'Current members and their personas, the latest to join first (program.members.read).',
      args: pageArgs(t.arg),
      resolve: (p, args, ctx) => programs.listMembers(ctx, p.id, args),
    }))

  const MembershipChange = builder.objectRef<{ programId: string; userId: string; remainingPersonas?: number }>('MembershipChange').implement({
    fields: (t) => ({
      program: t.field({ type: ProgramRef, resolve: async (m, _a, ctx) => (await ctx.loaders.program.load(m.programId))! }),
      user: t.field({ type: UserRef, resolve: async (m, _a, ctx) => (await ctx.loaders.user.load(m.userId))! }),
      remainingPersonas: t.int({ nullable: true, resolve: (m) => m.remainingPersonas ?? null }),
    }),
  })

  // Resolvers translate: GraphQL arguments in, the domain write's result (or one of its declared errors) out.
  builder.mutationFields((t) => ({
    addProgramMember: t.field({
      type: MembershipChange,
      errors: result(programs.addMember, 'membership'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), personas: t.arg.stringList({ required: true }) },
      resolve: (_r, a, ctx) => programs.addMember(ctx, a),
    }),
    removeProgramMember: t.field({
      type: MembershipChange,
      errors: result(programs.removeMember, 'membership'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => programs.removeMember(ctx, a),
    }),
    assignPersona: t.field({
      type: MembershipChange,
      errors: result(programs.assignPersona, 'membership'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), persona: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => programs.assignPersona(ctx, a),
    }),
    removePersona: t.field({
      type: MembershipChange,
      errors: result(programs.removePersona, 'membership'),
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), persona: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => programs.removePersona(ctx, a),
    }),
    deactivateUser: t.field({
      type: UserRef,
      errors: result(programs.deactivateUser, 'user'),
      description: "Deactivates a person of the organisation (org.members.manage); their twins pause with reason user_inactive.",
      args: { userId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => programs.deactivateUser(ctx, a),
    }),
  }))
}
