// Owns people and programs: the caller's own view, program lookup, creation, membership and persona assignment.
import { z } from 'zod'
import type { GraphQLContext } from '../../shared/context'
import type { TenantTx } from '../../../core/db'
import { DomainError, parseInput, NotFoundError } from '../../../core/errors'
import { assertCan, can } from '../../../core/session'
import { recordAudit } from '../../../core/audit'
import { PROGRAM_PERSONAS } from '../../../core/permissions'
import { DEFAULT_PROGRAM_SETTINGS } from '../../../core/seed'

type Ctx = Pick<GraphQLContext, 'session' | 'tdb' | 'db'>

export async function getMe(ctx: Ctx) {
  const user = await ctx.tdb.user.findUniqueOrThrow({ where: { id: ctx.session.userId } })
  const programIds = [...ctx.session.programPersonas.keys()]
  const programs = await ctx.tdb.program.findMany({ where: { id: { in: programIds } }, orderBy: { name: 'asc' } })
  return {
    user,
    organizationId: ctx.session.organizationId,
    orgPersonas: ctx.session.orgPersonas,
    programs: programs.map((program) => ({ program, personas: ctx.session.programPersonas.get(program.id) ?? [] })),
  }
}

/** A program the caller may read (program.settings.read there); anything else reads as not found. */
export async function getProgram(ctx: Ctx, by: { id?: string | null; slug?: string | null }) {
  if (!by.id === !by.slug) throw new DomainError('invalid_input', 'Give exactly one of id or slug.', { field: by.id ? 'slug' : 'id' })
  const program = by.id
    ? await ctx.tdb.program.findFirst({ where: { id: by.id } })
    : await ctx.tdb.program.findFirst({ where: { slug: by.slug! } })
  if (!program || !can(ctx.session, 'program.settings.read', program.id)) throw new NotFoundError('Program')
  return program
}

export async function listMembers(ctx: Ctx, programId: string) {
  assertCan(ctx.session, 'program.members.read', programId)
  const memberships = await ctx.tdb.programMembership.findMany({
    where: { programId, endedAt: null }, include: { user: true }, orderBy: { createdAt: 'asc' },
  })
  const assignments = await ctx.tdb.roleAssignment.findMany({ where: { programId } })
  return memberships.map((m) => ({
    user: m.user,
    joinedAt: m.createdAt,
    personas: assignments.filter((a) => a.userId === m.userId).map((a) => a.personaKey),
  }))
}

const slugSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'use 2 to 63 lower-case letters, digits and hyphens')
export const CreateProgramInput = z.object({
  slug: slugSchema,
  name: z.string().trim().min(1, 'a name is required').max(200),
})

/** Creates a program; the creator becomes its program owner. Needs org.programs.create. */
export async function createProgram(ctx: Ctx, input: z.input<typeof CreateProgramInput>) {
  assertCan(ctx.session, 'org.programs.create', null)
  const data = parseInput(CreateProgramInput, input)
  const organizationId = ctx.session.organizationId
  const created = await ctx.tdb.$transaction(async (tx) => {
    if (await tx.program.findFirst({ where: { slug: data.slug } })) {
      throw new DomainError('slug_taken', `A program with the slug ${data.slug} exists already.`, { field: 'slug', status: 409 })
    }
    const program = await tx.program.create({ data: { organizationId, slug: data.slug, name: data.name, settings: DEFAULT_PROGRAM_SETTINGS } })
    await tx.programMembership.create({ data: { organizationId, programId: program.id, userId: ctx.session.userId } })
    const assignment = await tx.roleAssignment.create({
      data: { organizationId, programId: program.id, userId: ctx.session.userId, personaKey: 'program_owner', createdByUserId: ctx.session.userId },
    })
    const actor = { type: 'user' as const, userId: ctx.session.userId }
    await recordAudit(tx, { organizationId, programId: program.id, action: 'program.create', actor, target: { type: 'program', id: program.id }, details: { slug: data.slug } })
    await recordAudit(tx, { organizationId, programId: program.id, action: 'role_assignment.create', actor, target: { type: 'role_assignment', id: assignment.id }, details: { user_id: ctx.session.userId, persona_key: 'program_owner' } })
    return program
  })
  // The rest of this request (e.g. the returned program's members) sees the new ownership.
  ctx.session.programPersonas.set(created.id, ['program_owner'])
  return created
}

function assertPersona(persona: string) {
  if (!(PROGRAM_PERSONAS as readonly string[]).includes(persona)) {
    throw new DomainError('invalid_input', `Unknown program persona ${persona}; use one of ${PROGRAM_PERSONAS.join(', ')}.`, { field: 'persona', status: 422 })
  }
}

async function memberUser(ctx: Ctx, userId: string) {
  const user = await ctx.tdb.user.findFirst({ where: { id: userId } })
  if (!user || user.deactivatedAt) throw new NotFoundError('User')
  return user
}

/** Adds a person of the organisation to the program with one or more personas (role_assignment.create each). */
export async function addMember(ctx: Ctx, input: { programId: string; userId: string; personas: string[] }) {
  await getProgram(ctx, { id: input.programId })
  assertCan(ctx.session, 'program.members.manage', input.programId)
  if (input.personas.length === 0) throw new DomainError('invalid_input', 'Give at least one persona.', { field: 'personas', status: 422 })
  input.personas.forEach(assertPersona)
  await memberUser(ctx, input.userId)
  return ctx.tdb.$transaction(async (tx) => {
    await tx.programMembership.upsert({
      where: { programId_userId: { programId: input.programId, userId: input.userId } },
      update: { endedAt: null },
      create: { organizationId: ctx.session.organizationId, programId: input.programId, userId: input.userId },
    })
    for (const persona of new Set(input.personas)) await assign(ctx, tx, input.programId, input.userId, persona)
    return { programId: input.programId, userId: input.userId }
  })
}

async function assign(ctx: Ctx, tx: TenantTx, programId: string, userId: string, persona: string) {
  const existing = await tx.roleAssignment.findFirst({ where: { programId, userId, personaKey: persona } })
  if (existing) return existing
  const assignment = await tx.roleAssignment.create({
    data: { organizationId: ctx.session.organizationId, programId, userId, personaKey: persona, createdByUserId: ctx.session.userId },
  })
  await recordAudit(tx, {
    organizationId: ctx.session.organizationId, programId, action: 'role_assignment.create',
    actor: { type: 'user', userId: ctx.session.userId }, target: { type: 'role_assignment', id: assignment.id },
    details: { user_id: userId, persona_key: persona },
  })
  return assignment
}

/** Gives a member another persona in the program. */
export async function assignPersona(ctx: Ctx, input: { programId: string; userId: string; persona: string }) {
  await getProgram(ctx, { id: input.programId })
  assertCan(ctx.session, 'program.members.manage', input.programId)
  assertPersona(input.persona)
  const membership = await ctx.tdb.programMembership.findFirst({ where: { programId: input.programId, userId: input.userId, endedAt: null } })
  if (!membership) throw new DomainError('not_a_member', 'That person is not a member of this program; add them first.', { field: 'userId', status: 409 })
  return ctx.tdb.$transaction((tx) => assign(ctx, tx, input.programId, input.userId, input.persona))
}

/** Removes a persona; removing the last one ends the membership. A program keeps at least one owner. */
export async function removePersona(ctx: Ctx, input: { programId: string; userId: string; persona: string }) {
  await getProgram(ctx, { id: input.programId })
  assertCan(ctx.session, 'program.members.manage', input.programId)
  assertPersona(input.persona)
  return ctx.tdb.$transaction(async (tx) => {
    const assignment = await tx.roleAssignment.findFirst({ where: { programId: input.programId, userId: input.userId, personaKey: input.persona } })
    if (!assignment) throw new DomainError('not_assigned', 'That person does not hold this persona here.', { field: 'persona', status: 409 })
    if (input.persona === 'program_owner') {
      const owners = await tx.roleAssignment.count({ where: { programId: input.programId, personaKey: 'program_owner' } })
      if (owners <= 1) throw new DomainError('last_owner', 'A program keeps at least one program owner.', { field: 'persona', status: 409 })
    }
    await tx.roleAssignment.delete({ where: { id: assignment.id } })
    await recordAudit(tx, {
      organizationId: ctx.session.organizationId, programId: input.programId, action: 'role_assignment.delete',
      actor: { type: 'user', userId: ctx.session.userId }, target: { type: 'role_assignment', id: assignment.id },
      details: { user_id: input.userId, persona_key: input.persona },
    })
    const remaining = await tx.roleAssignment.count({ where: { programId: input.programId, userId: input.userId } })
    if (remaining === 0) {
      await tx.programMembership.updateMany({ where: { programId: input.programId, userId: input.userId, endedAt: null }, data: { endedAt: new Date() } })
    }
    return { programId: input.programId, userId: input.userId, remainingPersonas: remaining }
  })
}

/** Removes a member: every persona (each audited role_assignment.delete) and the membership. */
export async function removeMember(ctx: Ctx, input: { programId: string; userId: string }) {
  await getProgram(ctx, { id: input.programId })
  assertCan(ctx.session, 'program.members.manage', input.programId)
  const personas = await ctx.tdb.roleAssignment.findMany({ where: { programId: input.programId, userId: input.userId } })
  if (personas.length === 0) throw new DomainError('not_a_member', 'That person is not a member of this program.', { field: 'userId', status: 409 })
  let result = { programId: input.programId, userId: input.userId, remainingPersonas: personas.length }
  for (const p of personas) result = await removePersona(ctx, { ...input, persona: p.personaKey })
  return result
}
