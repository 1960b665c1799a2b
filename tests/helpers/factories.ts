// Factories: every call makes a new organisation (unique slugs and e-mails), so tests never share tenants.
import { randomBytes } from 'node:crypto'
import type { Db } from '../../core/database'
import { loadSession, type Session } from '../../core/identity'
import { mintDevToken } from '../../core/identity'
import { DEFAULT_PROGRAM_SETTINGS, DEFAULT_USER_SETTINGS } from '../../core/database'

const uid = () => randomBytes(4).toString('hex')

export const PROGRAM_PERSONA_KEYS = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer', 'manufacturing_specialist', 'viewer'] as const
export type PersonaKey = (typeof PROGRAM_PERSONA_KEYS)[number]

export async function createOrganization(db: Db, name = 'Test organisation') {
  const slug = `org-${uid()}`
  return db.organization.create({ data: { slug, name: `${name} ${slug}` } })
}

export async function createUser(db: Db, organizationId: string, opts: { name?: string; email?: string; orgPersonas?: string[] } = {}) {
  const tag = uid()
  const user = await db.user.create({
    data: {
      organizationId, email: opts.email ?? `user-${tag}@test.example`, name: opts.name ?? `User ${tag}`,
      settings: DEFAULT_USER_SETTINGS,
    },
  })
  for (const personaKey of opts.orgPersonas ?? []) {
    await db.orgRoleAssignment.create({ data: { organizationId, userId: user.id, personaKey } })
  }
  return user
}

export async function createProgram(db: Db, organizationId: string, opts: { name?: string; slug?: string } = {}) {
  const slug = opts.slug ?? `prog-${uid()}`
  return db.program.create({
    data: { organizationId, slug, name: opts.name ?? `Program ${slug}`, settings: DEFAULT_PROGRAM_SETTINGS },
  })
}

export async function addMember(db: Db, program: { id: string; organizationId: string }, userId: string, personas: string[]) {
  await db.programMembership.upsert({
    where: { programId_userId: { programId: program.id, userId } },
    update: { endedAt: null },
    create: { organizationId: program.organizationId, programId: program.id, userId },
  })
  for (const personaKey of personas) {
    await db.roleAssignment.upsert({
      where: { programId_userId_personaKey: { programId: program.id, userId, personaKey } },
      update: {},
      create: { organizationId: program.organizationId, programId: program.id, userId, personaKey },
    })
  }
}

export interface Tenant {
  organization: { id: string; slug: string; name: string }
  program: { id: string; organizationId: string; slug: string; name: string }
  /** one user per program persona, plus an org_admin */
  users: Record<PersonaKey | 'org_admin', { id: string; email: string; name: string }>
  session(persona: PersonaKey | 'org_admin'): Promise<Session>
  token(persona: PersonaKey | 'org_admin'): Promise<string>
}

/** An organisation with one program and one member per persona. */
export async function createTenant(db: Db, name = 'Tenant'): Promise<Tenant> {
  const organization = await createOrganization(db, name)
  const program = await createProgram(db, organization.id)
  const users = {} as Tenant['users']
  for (const persona of PROGRAM_PERSONA_KEYS) {
    const user = await createUser(db, organization.id, { name: `${name} ${persona}` })
    await addMember(db, program, user.id, [persona])
    users[persona] = user
  }
  users.org_admin = await createUser(db, organization.id, { name: `${name} admin`, orgPersonas: ['org_admin'] })
  return {
    organization, program, users,
    session: (persona) => loadSession(db, users[persona].id),
    token: (persona) => mintDevToken(users[persona]),
  }
}

/**
 * Two organisations, each with a program and a member per persona. Isolation tests first show the other
 * tenant's rows exist (see expectRowsExist), so a test can never pass because there was nothing to leak.
 */
export async function createTwoOrganizations(db: Db) {
  const [a, b] = [await createTenant(db, 'Alpha'), await createTenant(db, 'Beta')]
  return { a, b }
}

/** Precondition for isolation tests: the rows that must not leak are really there. */
export async function expectRowsExist(db: Db, table: string, organizationId: string): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*)::bigint AS n FROM "${table}" WHERE organization_id = $1::uuid`, organizationId)
  const n = Number(rows[0].n)
  if (n === 0) throw new Error(`isolation precondition failed: ${table} has no rows for organisation ${organizationId}`)
  return n
}
