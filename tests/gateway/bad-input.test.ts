// Bad input through the gateway answers its code (invalid_input with the field, or null / not_found), never a 500.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql, type GqlResult } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
beforeAll(async () => { t = await createTenant(stack.db.db) })

const ask = async (query: string, variables: Record<string, unknown> = {}, persona: Parameters<Tenant['token']>[0] = 'program_owner') =>
  gql(`${stack.current.gatewayUrl}/graphql`, query, variables, await t.token(persona))

function expectNoInternalError(r: GqlResult) {
  expect(r.status).toBe(200)
  expect((r.body.errors ?? []).map((e) => e.extensions?.code)).not.toContain('INTERNAL_SERVER_ERROR')
}

const ERR = '__typename ... on Error { code field } ... on InvalidInput { issues { field message } }'

describe('bad input through the gateway', () => {
  it('reads a program, an inbox item or a connection by an id that is not a UUID as null', async () => {
    const r = await ask('{ program(id: "x") { id } inboxItem(id: "x") { id } connection(id: "x") { id } }')
    expectNoInternalError(r)
    expect(r.body).toEqual({ data: { program: null, inboxItem: null, connection: null } })
  })

  it('refuses program with neither or both of id and slug with invalid_input naming the field, as a coded error', async () => {
    const neither = await ask('{ program { id } }')
    expectNoInternalError(neither)
    expect(neither.body.data).toEqual({ program: null })
    expect(neither.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('exactly one of id or slug'), extensions: { code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'id' } })
    const both = await ask('query($id: ID!, $slug: String!) { program(id: $id, slug: $slug) { id } }', { id: t.program.id, slug: t.program.slug })
    expectNoInternalError(both)
    expect(both.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'slug' })
  })

  it('refuses a garbage or forged inbox cursor with invalid_input on after', async () => {
    const forged = Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url')
    for (const after of ['garbage', forged, '!!!', Buffer.from('x|y|z').toString('base64url')]) {
      const r = await ask('query($after: String) { myInbox(after: $after) { nodes { id } } }', { after })
      expectNoInternalError(r)
      expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
    }
  })

  it('answers a mutation given an id that is not a UUID with InvalidInput naming every bad argument', async () => {
    const add = await ask(`mutation { addProgramMember(programId: "x", userId: "y", personas: ["chief"]) { ${ERR} } }`)
    expectNoInternalError(add)
    expect(add.body.data.addProgramMember).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'programId' })
    expect(add.body.data.addProgramMember.issues.map((i: { field: string }) => i.field)).toEqual(['programId', 'userId', 'personas.0'])

    const cases: [string, string, string][] = [
      ['addProgramMember', `addProgramMember(programId: "${'P'}", userId: "x", personas: ["viewer"])`, 'userId'],
      ['removeProgramMember', 'removeProgramMember(programId: "P", userId: "x")', 'userId'],
      ['assignPersona', 'assignPersona(programId: "P", userId: "x", persona: "viewer")', 'userId'],
      ['removePersona', 'removePersona(programId: "P", userId: "x", persona: "viewer")', 'userId'],
      ['runSkill', 'runSkill(programId: "x", input: { skillKey: "tox.fih_dose_projection", inputs: {} })', 'programId'],
      ['createConnection', 'createConnection(input: { programId: "x", providerId: "eln_provider", name: "n", scopeRules: { projectIds: ["p"] }, consent: true })', 'input.programId'],
      ['updateConnection', 'updateConnection(id: "x", input: { name: "n" })', 'id'],
      ['setConnectionCredentials', 'setConnectionCredentials(id: "x", clientId: "a", clientSecret: "b")', 'id'],
      ['checkConnectionHealth', 'checkConnectionHealth(id: "x")', 'id'],
      ['syncConnection', 'syncConnection(id: "x")', 'id'],
      ['disconnectConnection', 'disconnectConnection(id: "x")', 'id'],
    ]
    for (const [name, call, field] of cases) {
      const r = await ask(`mutation { ${call.replace('"P"', `"${t.program.id}"`)} { ${ERR} } }`)
      expectNoInternalError(r)
      expect(r.body.data?.[name], name).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field })
    }
  })

  it('answers a launch id that is not a UUID with LaunchNotFound, and an unknown user with NotFound', async () => {
    const launch = await ask(`mutation { openLaunch(launchId: "x") { ${ERR} } }`)
    expectNoInternalError(launch)
    expect(launch.body.data.openLaunch).toMatchObject({ __typename: 'LaunchNotFound', code: 'launch_not_found' })
    const nobody = await ask(`mutation($p: ID!) { addProgramMember(programId: $p, userId: "00000000-0000-4000-8000-000000000000", personas: ["viewer"]) { ${ERR} } }`, { p: t.program.id })
    expect(nobody.body.data.addProgramMember).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'userId' })
  })
})
