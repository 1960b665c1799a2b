// Owns the illustrative data: one organisation, one program labelled illustrative, one user per persona, a few records.
import type { Db } from './db'

export const ILLUSTRATIVE = {
  organization: { slug: 'illustrative-org', name: 'Illustrative Therapeutics (demo organisation)' },
  program: { slug: 'illustrative-program', name: 'ILL-101 illustrative program (demo data)' },
  stages: [
    { key: 'discovery', name: 'Discovery' },
    { key: 'lead_optimisation', name: 'Lead optimisation' },
    { key: 'ind_enabling', name: 'IND-enabling' },
    { key: 'phase_1', name: 'Phase 1' },
  ],
  users: [
    { email: 'owner@illustrative.example', name: 'Olivia Owner', persona: 'program_owner' },
    { email: 'lead@illustrative.example', name: 'Liam Lead', persona: 'program_lead' },
    { email: 'scientist@illustrative.example', name: 'Sofia Scientist', persona: 'scientist' },
    { email: 'quality@illustrative.example', name: 'Quinn Quality', persona: 'quality_reviewer' },
    { email: 'manufacturing@illustrative.example', name: 'Mateo Manufacturing', persona: 'manufacturing_specialist' },
    { email: 'viewer@illustrative.example', name: 'Vera Viewer', persona: 'viewer' },
  ],
  admin: { email: 'admin@illustrative.example', name: 'Ada Admin', orgPersonas: ['org_admin'] },
} as const

const DEFAULT_USER_SETTINGS = { timezone: 'UTC', digest_time: '08:00', quiet_hours: null, inbox_shortcuts: true, illustrative: true, workbench_role: {} }
const DEFAULT_PROGRAM_SETTINGS = { evidence_query_budget: 3, twin_defaults: {}, escalation_days: 3, gate_critical_milestone_tag: 'gate-critical' }

/** Idempotent: running it again changes nothing and creates no duplicates. */
export async function seedIllustrative(db: Db) {
  const seed = await seedPeople(db)
  // A few program records, written through the records write path (imported here only: the domain imports this module).
  const { seedIllustrativeRecords } = await import('../subgraphs/workbench/domain/records/seed')
  await seedIllustrativeRecords(db, seed)
  return seed
}

function seedPeople(db: Db) {
  return db.$transaction(async (tx) => {
    const org = await tx.organization.upsert({
      where: { slug: ILLUSTRATIVE.organization.slug },
      update: {},
      create: ILLUSTRATIVE.organization,
    })
    let program = await tx.program.findUnique({ where: { organizationId_slug: { organizationId: org.id, slug: ILLUSTRATIVE.program.slug } } })
    if (!program) {
      program = await tx.program.create({
        data: { organizationId: org.id, ...ILLUSTRATIVE.program, illustrative: true, settings: DEFAULT_PROGRAM_SETTINGS },
      })
    }
    for (const [position, stage] of ILLUSTRATIVE.stages.entries()) {
      await tx.programStage.upsert({
        where: { programId_key: { programId: program.id, key: stage.key } },
        update: {},
        create: { organizationId: org.id, programId: program.id, position, ...stage },
      })
    }
    const users: Record<string, { id: string; email: string }> = {}
    for (const u of ILLUSTRATIVE.users) {
      const user = await tx.user.upsert({
        where: { email: u.email },
        update: {},
        create: { organizationId: org.id, email: u.email, name: u.name, settings: DEFAULT_USER_SETTINGS },
      })
      users[u.persona] = user
      await tx.programMembership.upsert({
        where: { programId_userId: { programId: program.id, userId: user.id } },
        update: {},
        create: { organizationId: org.id, programId: program.id, userId: user.id },
      })
      await tx.roleAssignment.upsert({
        where: { programId_userId_personaKey: { programId: program.id, userId: user.id, personaKey: u.persona } },
        update: {},
        create: { organizationId: org.id, programId: program.id, userId: user.id, personaKey: u.persona },
      })
    }
    const admin = await tx.user.upsert({
      where: { email: ILLUSTRATIVE.admin.email },
      update: {},
      create: { organizationId: org.id, email: ILLUSTRATIVE.admin.email, name: ILLUSTRATIVE.admin.name, settings: DEFAULT_USER_SETTINGS },
    })
    for (const persona of ILLUSTRATIVE.admin.orgPersonas) {
      await tx.orgRoleAssignment.upsert({
        where: { organizationId_userId_personaKey: { organizationId: org.id, userId: admin.id, personaKey: persona } },
        update: {},
        create: { organizationId: org.id, userId: admin.id, personaKey: persona },
      })
    }
    users.org_admin = admin
    return { organization: org, program, users }
  })
}

export { DEFAULT_USER_SETTINGS, DEFAULT_PROGRAM_SETTINGS }
