// Owns people and programs: the caller's own view, program lookup, creation, membership and persona assignment.
import { z } from 'zod'
import { personText } from '../../core/text'
import { InvalidInput, LastOwner, NotAMember, NotAssigned, NotFoundError, SlugTaken, StageViaGate } from '../../core/errors'
import { assertCan, can } from '../../core/identity'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { PROGRAM_PERSONAS } from '../../core/permissions'
import { DEFAULT_PROGRAM_SETTINGS } from '../../core/database'
import type { Program, User } from '../../generated/prisma/client'
import { lockProgramOwners, meUserRow, myProgramRows, programRowBy } from './sql'
import { keysetPage, mapPage, type Page, type PageArgs } from '../../core/database'
import { IdInput } from '../../core/text'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

const UUID = IdInput

export async function getMe(ctx: Pick<DomainContext, 'session' | 'tdb' | 'db'>, asks: { user: boolean; openInboxCounts: boolean } = { user: true, openInboxCounts: false }) {
  // hot reads (every console screen): plain SQL, the organisation in the filter. The programs' statement also tells
  // whether the person is in the organisation; the person's row is read beside it only when the query asks for it
  // (the console's first screen does not: one statement for its programs and their open counts, not three).
  const { organizationId, userId } = ctx.session
  const [user, programs] = await Promise.all([
    asks.user ? meUserRow(organizationId, ctx.db, userId) : undefined,
    myProgramRows(organizationId, ctx.db, userId, [...ctx.session.programPersonas.keys()], asks.openInboxCounts),
  ])
  if (!programs || (asks.user && !user)) throw new NotFoundError('User')
  return {
    /** the person's row, when asked for (getMe's `asks.user`) */
    user,
    organizationId: ctx.session.organizationId,
    orgPersonas: ctx.session.orgPersonas,
    programs: programs.map((program) => ({ program, personas: ctx.session.programPersonas.get(program.id) ?? [] })),
  }
}

/**
 * A program the caller may read (program.settings.read there); anything else, an id that is not a UUID included,
 * reads as not found. Exactly one of id and slug: both or neither is invalid_input.
 */
export function getProgram(ctx: Ctx, by: { id?: string | null; slug?: string | null }, q: TenantTx = ctx.tdb) {
  return checkedProgram(ctx, by, (key) => q.program.findFirst({ where: key }))
}

/** getProgram's check and errors around one read of the row, by id (already known to be a UUID) or by slug. */
async function checkedProgram(
  ctx: Pick<DomainContext, 'session'>, by: { id?: string | null; slug?: string | null },
  read: (key: { id: string } | { slug: string }) => Promise<Program | null | undefined>,
): Promise<Program> {
  if (!by.id === !by.slug) throw InvalidInput.of(by.id ? 'slug' : 'id', 'Give exactly one of id or slug.')
  if (by.id && !UUID.safeParse(by.id).success) throw new NotFoundError('Program', { field: 'id' })
  const program = await read(by.id ? { id: by.id } : { slug: by.slug! })
  if (!program || !can(ctx.session, 'program.settings.read', program.id)) throw new NotFoundError('Program', { field: by.id ? 'programId' : 'slug' })
  return program
}

/** The personas the caller holds in a program (none where they are not a member). */
export function myPersonas(ctx: Pick<DomainContext, 'session'>, programId: string): string[] {
  return ctx.session.programPersonas.get(programId) ?? []
}

/**
 * getProgram outside a transaction, the row read without Prisma's query compiler (the console's first screen reads a
 * program on every open): the same check, the same errors.
 */
export function readProgram(ctx: Pick<DomainContext, 'session' | 'db'>, by: { id?: string | null; slug?: string | null }) {
  return checkedProgram(ctx, by, (key) => programRowBy(ctx.session.organizationId, ctx.db, key))
}

/** Query.program: the program, or null where readProgram answers not found (never telling which). */
export async function findProgram(ctx: Pick<DomainContext, 'session' | 'db'>, by: { id?: string | null; slug?: string | null }) {
  try {
    return await readProgram(ctx, by)
  } catch (e) {
    if (e instanceof NotFoundError) return null
    throw e
  }
}

/**
 * A program row this request already read (Program.workbench under Query.program), held to getProgram's check: in the
 * caller's organisation and program.settings.read there, not found otherwise (never telling the program exists).
 */
export function readableProgram(ctx: Pick<DomainContext, 'session'>, program: Program): Program {
  if (program.organizationId !== ctx.session.organizationId || !can(ctx.session, 'program.settings.read', program.id)) {
    throw new NotFoundError('Program', { field: 'programId' })
  }
  return program
}

export interface Member { user: User; joinedAt: Date; personas: string[] }

/** Current members with their personas, the latest to join first, in cursor pages (program.members.read). */
export async function listMembers(ctx: Ctx, programId: string, args: PageArgs = {}): Promise<Page<Member>> {
  assertCan(ctx.session, 'program.members.read', programId)
  const page = await keysetPage(args, 'createdAt', (q) => ctx.tdb.programMembership.findMany({ ...q, where: { programId, endedAt: null, ...q.where }, include: { user: true } }))
  return mapPage(page, async (memberships) => {
    const assignments = await ctx.tdb.roleAssignment.findMany({ where: { programId, userId: { in: memberships.map((m) => m.userId) } }, orderBy: { createdAt: 'asc' } })
    return memberships.map((m) => ({
      user: m.user,
      joinedAt: m.createdAt,
      personas: assignments.filter((a) => a.userId === m.userId).map((a) => a.personaKey),
    }))
  })
}

const slugSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'use 2 to 63 lower-case letters, digits and hyphens')
export const CreateProgramInput = z.object({
  slug: slugSchema,
  name: personText(200, 'a name is required'),
})

/** Creates a program; the creator becomes its program owner. Needs org.programs.create. */
export const createProgram = command({
  permission: 'org.programs.create',
  input: CreateProgramInput,
  program: () => null,
  audit: ['program.create', 'role_assignment.create'],
  errors: [SlugTaken],
  async run(w, data) {
    const { session } = w.ctx
    if (await w.tx.program.findFirst({ where: { slug: data.slug } })) {
      throw new SlugTaken(`A program with the slug ${data.slug} exists already.`, { field: 'slug' })
    }
    const program = await w.tx.program.create({ data: { organizationId: session.organizationId, slug: data.slug, name: data.name, settings: DEFAULT_PROGRAM_SETTINGS } })
    await w.tx.programMembership.create({ data: { organizationId: session.organizationId, programId: program.id, userId: session.userId } })
    const assignment = await w.tx.roleAssignment.create({
      data: { organizationId: session.organizationId, programId: program.id, userId: session.userId, personaKey: 'program_owner', createdByUserId: session.userId },
    })
    const inProgram = { programId: program.id }
    await w.audit('program.create', { type: 'program', id: program.id }, { slug: data.slug }, inProgram)
    await w.audit('role_assignment.create', { type: 'role_assignment', id: assignment.id }, { user_id: session.userId, persona_key: 'program_owner' }, inProgram)
    // The rest of this request (e.g. the returned program's members) sees the new ownership.
    w.afterCommit(() => session.programPersonas.set(program.id, ['program_owner']))
    return program
  },
})

const persona = z.enum(PROGRAM_PERSONAS, { error: () => `use one of ${PROGRAM_PERSONAS.join(', ')}` })
const Membership = z.object({ programId: UUID, userId: UUID })

/** Membership writes act on a program the caller may read (not_found otherwise) under program.members.manage. */
const membershipWrite = {
  permission: 'program.members.manage',
  load: (q: TenantTx, input: { programId: string }, ctx: DomainContext) => getProgram(ctx, { id: input.programId }, q),
  program: (input: { programId: string }) => input.programId,
} as const

async function activeUser(q: TenantTx, userId: string) {
  const user = await q.user.findFirst({ where: { id: userId } })
  if (!user || user.deactivatedAt) throw new NotFoundError('User', { field: 'userId' })
  return user
}

/** Adds a person of the organisation to the program with one or more personas (role_assignment.create each). */
export const addMember = command({
  ...membershipWrite,
  input: Membership.extend({ personas: z.array(persona).min(1, 'give at least one persona').max(PROGRAM_PERSONAS.length, 'give each persona once') }),
  audit: ['role_assignment.create'],
  async run(w, input) {
    await activeUser(w.tx, input.userId)
    await w.tx.programMembership.upsert({
      where: { programId_userId: { programId: input.programId, userId: input.userId } },
      update: { endedAt: null },
      create: { organizationId: w.ctx.session.organizationId, programId: input.programId, userId: input.userId },
    })
    for (const key of new Set(input.personas)) await assign(w, input.userId, key)
    return { programId: input.programId, userId: input.userId }
  },
})

async function assign(w: Write<'role_assignment.create'>, userId: string, personaKey: string) {
  const programId = w.programId!
  const existing = await w.tx.roleAssignment.findFirst({ where: { programId, userId, personaKey } })
  if (existing) return existing
  const assignment = await w.tx.roleAssignment.create({
    data: { organizationId: w.ctx.session.organizationId, programId, userId, personaKey, createdByUserId: w.ctx.session.userId },
  })
  await w.audit('role_assignment.create', { type: 'role_assignment', id: assignment.id }, { user_id: userId, persona_key: personaKey })
  return assignment
}

/** Gives a member another persona in the program. */
export const assignPersona = command({
  ...membershipWrite,
  input: Membership.extend({ persona }),
  audit: ['role_assignment.create'],
  errors: [NotAMember],
  async run(w, input) {
    const membership = await w.tx.programMembership.findFirst({ where: { programId: input.programId, userId: input.userId, endedAt: null } })
    if (!membership) throw new NotAMember('That person is not a member of this program; add them first.', { field: 'userId' })
    await assign(w, input.userId, input.persona)
    return { programId: input.programId, userId: input.userId }
  },
})

/** Removes a persona; removing the last one ends the membership. A program keeps at least one owner. */
export const removePersona = command({
  ...membershipWrite,
  input: Membership.extend({ persona }),
  audit: ['role_assignment.delete'],
  errors: [NotAssigned, LastOwner],
  async run(w, input) {
    const assignment = await w.tx.roleAssignment.findFirst({ where: { programId: input.programId, userId: input.userId, personaKey: input.persona } })
    if (!assignment) throw new NotAssigned('That person does not hold this persona here.', { field: 'persona' })
    if (input.persona === 'program_owner') {
      // Two removals of two owners at once must not both count the other: the program's owner rows are locked first,
      // so the second removal counts (a new snapshot) after the first has committed.
      await lockProgramOwners(w.ctx.session.organizationId, w.tx, input.programId)
      const owners = await w.tx.roleAssignment.count({ where: { programId: input.programId, personaKey: 'program_owner' } })
      if (owners <= 1) throw new LastOwner('A program keeps at least one program owner.', { field: 'persona' })
    }
    await w.tx.roleAssignment.delete({ where: { id: assignment.id } })
    await w.audit('role_assignment.delete', { type: 'role_assignment', id: assignment.id }, { user_id: input.userId, persona_key: input.persona })
    const remaining = await w.tx.roleAssignment.count({ where: { programId: input.programId, userId: input.userId } })
    if (remaining === 0) {
      await w.tx.programMembership.updateMany({ where: { programId: input.programId, userId: input.userId, endedAt: null }, data: { endedAt: new Date() } })
    }
    return { programId: input.programId, userId: input.userId, remainingPersonas: remaining }
  },
})

/**
 * Removes a member: every persona (each audited role_assignment.delete) and the membership, in one transaction, so
 * a refusal or failure part-way (the last owner, a database error) leaves every persona in place.
 */
export const removeMember = command({
  ...membershipWrite,
  input: Membership,
  audit: ['role_assignment.delete'],
  errors: [NotAMember, LastOwner],
  async run(w, input) {
    const held = await w.tx.roleAssignment.findMany({ where: { programId: input.programId, userId: input.userId }, orderBy: { createdAt: 'asc' } })
    if (held.length === 0) throw new NotAMember('That person is not a member of this program.', { field: 'userId' })
    let result = { programId: input.programId, userId: input.userId, remainingPersonas: held.length }
    for (const p of held) result = await removePersona(w.ctx, { ...input, persona: p.personaKey }, { within: w })
    return result
  },
})

/**
 * Deactivates a person of the organisation (org.members.manage; audit user.deactivate, which pauses their twins with
 * reason user_inactive through the twins' audit hook). They can no longer sign in; their rows stay.
 */
export const deactivateUser = command({
  permission: 'org.members.manage',
  input: z.object({ userId: UUID }),
  program: () => null,
  audit: ['user.deactivate'],
  async run(w, input) {
    const user = await activeUser(w.tx, input.userId)
    if (user.id === w.ctx.session.userId) throw InvalidInput.of('userId', 'You cannot deactivate yourself.')
    const updated = await w.tx.user.update({ where: { id: user.id }, data: { deactivatedAt: new Date() } })
    await w.audit('user.deactivate', { type: 'user', id: user.id }, { user_id: user.id })
    return updated
  },
})

// ---- program.settings.update: 'Update program settings' -----------------------------------------------------------

/** Keys that would move the program's stage: only its stage gate does that (twins domain/gates.ts, stage_via_gate). */
const STAGE_KEYS = ['current_stage_id', 'currentStageId', 'current_stage', 'currentStage', 'stage_id', 'stageId']

const SettingsPatch = z.object({
  evidence_query_budget: z.number().int().min(0).max(1000).optional(),
  escalation_days: z.number().int().min(0).max(365).optional(),
  gate_critical_milestone_tag: z.string().trim().min(1).max(100).optional(),
}).strict()

/**
 * Updates program settings (program.settings.update, described 'Update program settings' from R4): a patch of the
 * known keys but twin_defaults, which program.twins.manage sets (setProgramTwinDefaults). The stage is not a setting: naming it answers stage_via_gate, nothing written (the database trigger
 * programs_stage_via_gate refuses it too, whoever writes).
 */
export const updateProgramSettings = command({
  permission: 'program.settings.update',
  input: z.object({ programId: UUID, settings: z.record(z.string(), z.unknown()) }),
  load: (q, input, ctx) => getProgram(ctx, { id: input.programId }, q),
  program: (input) => input.programId,
  audit: ['program.update'],
  errors: [StageViaGate],
  async run(w, input, program) {
    const stageKey = Object.keys(input.settings).find((k) => STAGE_KEYS.includes(k))
    if (stageKey) throw new StageViaGate("The program's stage changes only when its stage gate closes.", { field: `settings.${stageKey}` })
    // Twin defaults are set under program.twins.manage, with a reason (twins domain/twin-defaults.ts).
    if ('twin_defaults' in input.settings) throw InvalidInput.of('settings.twin_defaults', 'Twin defaults are set with setProgramTwinDefaults (program.twins.manage, with a reason).')
    const parsed = SettingsPatch.safeParse(input.settings)
    if (!parsed.success) throw new InvalidInput(parsed.error.issues.map((i) => ({ field: ['settings', ...i.path].join('.'), message: i.message })))
    const patch = parsed.data
    const settings = { ...(program.settings as Record<string, unknown>), ...patch }
    const updated = await w.tx.program.update({ where: { id: program.id }, data: { settings: settings as object } })
    await w.audit('program.update', { type: 'program', id: program.id }, { settings: Object.keys(patch) })
    return updated
  },
})
