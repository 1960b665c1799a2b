import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { addMember, createTenant, createUser, type Tenant } from '../helpers/factories'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const CHANGE = `__typename ... on Error { code message field }`

async function call(t: Tenant, persona: Parameters<Tenant['token']>[0], query: string, variables: Record<string, unknown>) {
  return gql(url(), query, variables, await t.token(persona))
}

describe('people and programs', () => {
  it('lets an organisation admin create a program and become its owner, audited', async () => {
    const t = await createTenant(stack.db.db)
    const slug = `new-${Date.now().toString(36)}`
    const r = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} ... on MutationCreateProgramSuccess { program { id slug name myPersonas members { nodes { user { email } personas } } } } } }`,
      { input: { slug, name: 'Second program' } })
    expect(r.body.errors).toBeUndefined()
    const program = r.body.data.createProgram.program
    expect(program).toMatchObject({ slug, name: 'Second program', myPersonas: ['program_owner'], members: { nodes: [{ user: { email: t.users.org_admin.email }, personas: ['program_owner'] }] } })
    const actions = (await stack.db.db.auditEvent.findMany({ where: { programId: program.id }, orderBy: { entrySeq: 'asc' } })).map((e) => e.action)
    expect(actions).toEqual(['program.create', 'role_assignment.create'])
    const again = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} } }`, { input: { slug, name: 'Again' } })
    expect(again.body.data.createProgram).toMatchObject({ __typename: 'SlugTaken', code: 'slug_taken', field: 'input.slug' })
    const bad = await call(t, 'org_admin', `mutation($input: CreateProgramInput!) { createProgram(input: $input) { ${CHANGE} } }`, { input: { slug: 'Bad Slug!', name: 'x' } })
    expect(bad.body.data.createProgram).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'input.slug' })
  })

  it('adds a member with personas, gives and removes a persona, each audited, and ends the membership with the last persona', async () => {
    const t = await createTenant(stack.db.db)
    const newcomer = await createUser(stack.db.db, t.organization.id, { name: 'Nora Newcomer' })
    const add = await call(t, 'program_lead', `mutation($p: ID!, $u: ID!) { addProgramMember(programId: $p, userId: $u, personas: ["scientist"]) { ${CHANGE} ... on MutationAddProgramMemberSuccess { membership { user { name } } } } }`,
      { p: t.program.id, u: newcomer.id })
    expect(add.body.data.addProgramMember.membership.user.name).toBe('Nora Newcomer')
    await call(t, 'program_lead', `mutation($p: ID!, $u: ID!) { assignPersona(programId: $p, userId: $u, persona: "quality_reviewer") { ${CHANGE} } }`, { p: t.program.id, u: newcomer.id })
    const members = await call(t, 'viewer', `query($id: ID!) { program(id: $id) { members { nodes { user { id } personas } } } }`, { id: t.program.id })
    expect(members.body.data.program.members.nodes.find((m: any) => m.user.id === newcomer.id).personas.sort()).toEqual(['quality_reviewer', 'scientist'])
    for (const persona of ['scientist', 'quality_reviewer']) {
      const r = await call(t, 'program_lead', `mutation($p: ID!, $u: ID!, $k: String!) { removePersona(programId: $p, userId: $u, persona: $k) { ${CHANGE} ... on MutationRemovePersonaSuccess { membership { remainingPersonas } } } }`,
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

  it('keeps one program owner when two owners remove each other at once', async () => {
    const t = await createTenant(stack.db.db)
    const second = await createUser(stack.db.db, t.organization.id, { name: 'Olga Owner' })
    const add = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { addProgramMember(programId: $p, userId: $u, personas: ["program_owner"]) { ${CHANGE} } }`, { p: t.program.id, u: second.id })
    expect(add.body.data.addProgramMember.__typename).toBe('MutationAddProgramMemberSuccess')
    const remove = `mutation($p: ID!, $u: ID!) { removePersona(programId: $p, userId: $u, persona: "program_owner") { ${CHANGE} } }`
    // The first owner removes the second while the lead removes the first: each saw two owners before acting.
    const [a, b] = await Promise.all([
      call(t, 'program_owner', remove, { p: t.program.id, u: second.id }),
      call(t, 'program_lead', remove, { p: t.program.id, u: t.users.program_owner.id }),
    ])
    expect([a.body.data.removePersona.__typename, b.body.data.removePersona.__typename].sort()).toEqual(['LastOwner', 'MutationRemovePersonaSuccess'])
    expect(await stack.db.db.roleAssignment.count({ where: { programId: t.program.id, personaKey: 'program_owner' } })).toBe(1)
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

  it('removes a member in one transaction: a failure part-way leaves every persona, the membership and the audit trail as they were', async () => {
    const t = await createTenant(stack.db.db)
    const member = t.users.scientist
    await addMember(stack.db.db, t.program, member.id, ['viewer'])
    // A failure after the first persona is gone: the database refuses to delete the second one (viewer comes after
    // scientist by creation and by name, whichever order the removal reads them in).
    await stack.db.db.$executeRawUnsafe(`CREATE FUNCTION refuse_second_persona() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF OLD.user_id = '${member.id}' AND OLD.persona_key = 'viewer' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN OLD; END $$`)
    await stack.db.db.$executeRawUnsafe('CREATE TRIGGER refuse_second_persona BEFORE DELETE ON role_assignments FOR EACH ROW EXECUTE FUNCTION refuse_second_persona()')
    try {
      const r = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { removeProgramMember(programId: $p, userId: $u) { ${CHANGE} } }`, { p: t.program.id, u: member.id })
      expect(r.body.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR')
    } finally {
      await stack.db.db.$executeRawUnsafe('DROP TRIGGER refuse_second_persona ON role_assignments')
      await stack.db.db.$executeRawUnsafe('DROP FUNCTION refuse_second_persona()')
    }
    const held = await stack.db.db.roleAssignment.findMany({ where: { programId: t.program.id, userId: member.id } })
    expect(held.map((a) => a.personaKey).sort()).toEqual(['scientist', 'viewer'])
    const membership = await stack.db.db.programMembership.findFirstOrThrow({ where: { programId: t.program.id, userId: member.id } })
    expect(membership.endedAt).toBeNull()
    expect(await stack.db.db.auditEvent.count({ where: { programId: t.program.id, action: 'role_assignment.delete' } })).toBe(0)

    // Without the failure the same call removes both personas and the membership, each audited by the caller.
    const ok = await call(t, 'program_owner', `mutation($p: ID!, $u: ID!) { removeProgramMember(programId: $p, userId: $u) { ${CHANGE} ... on MutationRemoveProgramMemberSuccess { membership { remainingPersonas } } } }`, { p: t.program.id, u: member.id })
    expect(ok.body.data.removeProgramMember).toEqual({ __typename: 'MutationRemoveProgramMemberSuccess', membership: { remainingPersonas: 0 } })
    const audit = await stack.db.db.auditEvent.findMany({ where: { programId: t.program.id, action: 'role_assignment.delete' } })
    expect(audit.map((a) => [a.actorType, a.actorUserId])).toEqual([['user', t.users.program_owner.id], ['user', t.users.program_owner.id]])
    expect((await stack.db.db.programMembership.findFirstOrThrow({ where: { programId: t.program.id, userId: member.id } })).endedAt).not.toBeNull()
  })

  it('refuses to remove the last program owner as a member and keeps every persona they hold, the first ones included', async () => {
    const t = await createTenant(stack.db.db)
    // The sole owner holds viewer (older) and program_owner: removing viewer first must not stick when the owner stays.
    const owner = await createUser(stack.db.db, t.organization.id, { name: 'Olga Owner' })
    await addMember(stack.db.db, t.program, owner.id, ['viewer'])
    await addMember(stack.db.db, t.program, owner.id, ['program_owner'])
    await stack.db.db.roleAssignment.deleteMany({ where: { programId: t.program.id, userId: t.users.program_owner.id } })
    const r = await call(t, 'program_lead', `mutation($p: ID!, $u: ID!) { removeProgramMember(programId: $p, userId: $u) { ${CHANGE} } }`, { p: t.program.id, u: owner.id })
    expect(r.body.data.removeProgramMember).toMatchObject({ __typename: 'LastOwner', code: 'last_owner', field: 'persona' })
    const held = await stack.db.db.roleAssignment.findMany({ where: { programId: t.program.id, userId: owner.id } })
    expect(held.map((a) => a.personaKey).sort()).toEqual(['program_owner', 'viewer'])
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
