// Owns the illustrative data's people: one organisation, one program labelled illustrative, one user per persona.
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

const DEFAULT_USER_SETTINGS = { timezone: 'UTC', digest_time: '08:00', quiet_hours: null, workbench_role: {} }
const DEFAULT_PROGRAM_SETTINGS = { evidence_query_budget: 3, twin_defaults: {}, escalation_days: 3, gate_critical_milestone_tag: 'gate-critical' }

/**
 * The people of the illustrative data: organisation, program, stages, one user per persona and the admin. Idempotent.
 * The records and the stage gate are written through their subgraphs' write paths by seedIllustrative
 * (subgraphs/seed.ts): core imports no subgraph code.
 */
export function seedPeople(db: Db) {
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
    // Set-based (insert-if-absent, like an upsert with no update): a handful of statements, not one round trip per
    // row, so the transaction stays short on a loaded machine.
    await tx.programStage.createMany({
      data: ILLUSTRATIVE.stages.map((stage, position) => ({ organizationId: org.id, programId: program.id, position, ...stage })),
      skipDuplicates: true,
    })
    const people = [...ILLUSTRATIVE.users, ILLUSTRATIVE.admin]
    await tx.user.createMany({
      data: people.map((u) => ({ organizationId: org.id, email: u.email, name: u.name, settings: DEFAULT_USER_SETTINGS })),
      skipDuplicates: true,
    })
    const byEmail = new Map((await tx.user.findMany({ where: { email: { in: people.map((u) => u.email) } } })).map((u) => [u.email, u]))
    const users: Record<string, { id: string; email: string }> = {}
    for (const u of ILLUSTRATIVE.users) users[u.persona] = byEmail.get(u.email)!
    const inProgram = ILLUSTRATIVE.users.map((u) => ({ organizationId: org.id, programId: program.id, userId: users[u.persona].id }))
    await tx.programMembership.createMany({ data: inProgram, skipDuplicates: true })
    await tx.roleAssignment.createMany({ data: ILLUSTRATIVE.users.map((u, i) => ({ ...inProgram[i], personaKey: u.persona })), skipDuplicates: true })
    const admin = byEmail.get(ILLUSTRATIVE.admin.email)!
    await tx.orgRoleAssignment.createMany({
      data: ILLUSTRATIVE.admin.orgPersonas.map((personaKey) => ({ organizationId: org.id, userId: admin.id, personaKey })),
      skipDuplicates: true,
    })
    users.org_admin = admin
    return { organization: org, program, users }
    // Bulk work at start-up on a possibly busy machine: more room than Prisma's 5 s interactive default.
  }, { timeout: 30_000 })
}

export { DEFAULT_USER_SETTINGS, DEFAULT_PROGRAM_SETTINGS }
