import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, createUser, type Tenant } from '../helpers/factories'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const CHANGE = `__typename ... on DomainError { code message field }`

async function call(t: Tenant, persona: Parameters<Tenant['token']>[0], query: string, variables: Record<string, unknown>) {
  return gql(url(), query, variables, await t.token(persona))
}

describe('people and programs', () => {
  it('lets an organisation admin create a program and become its owner, audited', async () => {
    const t = await createTenant(stack.db.db)
    const slug = `new-${Date.now().toString(36)}`
    const r = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} ... on MutationCreateProgramSuccess { program { id slug name myPersonas members { user { email } personas } } } } }`,
      { input: { slug, name: 'Second program' } })
    expect(r.body.errors).toBeUndefined()
    const program = r.body.data.createProgram.program
    expect(program).toMatchObject({ slug, name: 'Second program', myPersonas: ['program_owner'], members: [{ user: { email: t.users.org_admin.email }, personas: ['program_owner'] }] })
    const actions = (await stack.db.db.auditEvent.findMany({ where: { programId: program.id }, orderBy: { entrySeq: 'asc' } })).map((e) => e.action)
    expect(actions).toEqual(['program.create', 'role_assignment.create'])
    const again = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} } }`, { input: { slug, name: 'Again' } })
    expect(again.body.data.createProgram).toMatchObject({ __typename: 'DomainError', code: 'slug_taken', field: 'slug' })
    const bad = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} } }`, { input: { slug: 'Bad Slug!', name: 'x' } })
    expect(bad.body.data.createProgram).toMatchObject({ __typename: 'DomainError', code: 'invalid_input', field: 'slug' })
  })

  it('adds a member with personas, gives and removes a persona, each audited, and ends the membership with the last persona', async () => {
    const t = await createTenant(stack.db.db)
    const newcomer = await createUser(stack.db.db, t.organization.id, { name: 'Nora Newcomer' })
    const add = await call(t, 'program_lead', `mutation($p: ID!, $u: ID!) { addProgramMember(programId: $p, userId: $u, personas: ["scientist"]) { ${CHANGE} ... on MutationAddProgramMemberSuccess { change { user { name } } } } }`,
      { p: t.program.id, u: newcomer.id })
    expect(add.body.data.addProgramMember.change.user.name).toBe('Nora Newcomer')
    await call(t, 'program_lead', `mutation($p: ID!, $u: ID!) { assignPersona(programId: $p, userId: $u, persona: "quality_reviewer") { ${CHANGE} } }`, { p: t.program.id, u: newcomer.id })
    const members = await call(t, 'viewer', `query($id: ID!) { program(id: $id) { members { user { id } personas } } }`, { id: t.program.id })
    expect(members.body.data.program.members.find((m: any) => m.user.id === newcomer.id).personas.sort()).toEqual(['quality_reviewer', 'scientist'])
    for (const persona of ['scientist', 'quality_reviewer']) {
      const r = await call(t, 'program_lead', `mutation($p: ID!, $u: ID!, $k: String!) { removePersona(programId: $p, userId: $u, persona: $k) { ${CHANGE} ... on MutationRemovePersonaSuccess { change { remainingPersonas } } } }`,
        { p: t.program.id, u: newcomer.id, k: persona })
      expect(r.body.errors).toBeUndefined()
    }
    const audit = await stack.db.db.auditEvent.findMany({ where: { programId: t.program.id, action: { startsWith: 'role_assignment.' } }, orderBy: { entrySeq: 'asc' } })
    expect(audit.map((a) => a.action)).toEqual(['role_assignment.create', 'role_assignment.create', 'role_assignment.delete', 'role_assignment.delete'])
    expect(audit.every((a) => a.actorUserId === t.users.program_lead.id)).toBe(true)
    const membership = await stack.db.db.programMembership.findFirstOrThrow({ where: { programId: t.program.id, userId: newcomer.id } })
    expect(membership.endedAt).not.toBeNull()
  })

  it('refuses membership changes to a person without program.members.manage and writes nothing', async () => {
    const t = await createTenant(stack.db.db)
    const before = await stack.db.db.auditEvent.count({ where: { programId: t.program.id } })
    const r = await call(t, 'scientist', `mutation($p: ID!, $u: ID!) { assignPersona(programId: $p, userId: $u, persona: "program_owner") { ${CHANGE} } }`,
      { p: t.program.id, u: t.users.scientist.id })
    expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.members.manage' })
    expect(await stack.db.db.roleAssignment.count({ where: { programId: t.program.id, userId: t.users.scientist.id } })).toBe(1)
    expect(await stack.db.db.auditEvent.count({ where: { programId: t.program.id } })).toBe(before)
  })

  it('keeps the last program owner and refuses unknown personas and people of another organisation', async () => {
    const t = await createTenant(stack.db.db)
    const other = await createTenant(stack.db.db)
    const last = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { removePersona(programId: $p, userId: $u, persona: "program_owner") { ${CHANGE} } }`, { p: t.program.id, u: t.users.program_owner.id })
    expect(last.body.data.removePersona).toMatchObject({ code: 'last_owner' })
    const unknown = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { assignPersona(programId: $p, userId: $u, persona: "chief") { ${CHANGE} } }`, { p: t.program.id, u: t.users.viewer.id })
    expect(unknown.body.data.assignPersona).toMatchObject({ code: 'invalid_input', field: 'persona' })
    const foreign = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { addProgramMember(programId: $p, userId: $u, personas: ["viewer"]) { ${CHANGE} } }`, { p: t.program.id, u: other.users.viewer.id })
    expect(foreign.body.data.addProgramMember).toMatchObject({ code: 'not_found' })
  })

  it('answers me with the user, organisation, programs with personas and settings', async () => {
    const t = await createTenant(stack.db.db)
    const r = await call(t, 'quality_reviewer', '{ me { user { email } organization { slug } organizationPersonas programs { personas program { slug } } settings } }', {})
    expect(r.body.data.me).toEqual({
      user: { email: t.users.quality_reviewer.email }, organization: { slug: t.organization.slug }, organizationPersonas: [],
      programs: [{ personas: ['quality_reviewer'], program: { slug: t.program.slug } }],
      settings: expect.objectContaining({ timezone: 'UTC', workbench_role: {} }),
    })
  })
})
