// The API conventions (docs/console-developers.md, Conventions): one payload shape for every mutation, refusals' `field` in one
// style, top-level codes in one case. Read from the committed supergraph and checked through the gateway.
import { beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { buildSchema, getNamedType, isUnionType, type GraphQLSchema } from 'graphql'
import { apiSchemaSdl } from '../../clients/console/codegen'
import { SCHEMA_DIR } from '../../gateway/supergraph'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
beforeAll(async () => { t = await createTenant(stack.db.db) })
const ask = async (query: string, variables: Record<string, unknown> = {}, persona: Parameters<Tenant['token']>[0] = 'org_admin') =>
  gql(`${stack.current.gatewayUrl}/graphql`, query, variables, await t.token(persona))

const api: GraphQLSchema = buildSchema(apiSchemaSdl(fs.readFileSync(path.join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8')))
const GENERIC = new Set(['data', 'result', 'change', 'acceptance', 'posted', 'deleted', 'promoted', 'payload', 'value'])

describe('the API conventions', () => {
  it('shapes every mutation payload alike: a Mutation<Name>Result union of refusals and Mutation<Name>Success, named after the object it returns', () => {
    const problems: string[] = []
    const fields = Object.values(api.getMutationType()!.getFields())
    expect(fields.length).toBeGreaterThan(60)
    for (const f of fields) {
      const Name = f.name[0].toUpperCase() + f.name.slice(1)
      const union = getNamedType(f.type)
      if (!isUnionType(union) || union.name !== `Mutation${Name}Result`) { problems.push(`${f.name}: returns ${union.name}`); continue }
      const success = union.getTypes().find((x) => x.name === `Mutation${Name}Success`)
      if (!success) { problems.push(`${f.name}: no Mutation${Name}Success`); continue }
      for (const member of union.getTypes()) {
        if (member !== success && !member.getInterfaces().some((i) => i.name === 'Error')) problems.push(`${f.name}: ${member.name} is not an Error`)
      }
      for (const name of Object.keys(success.getFields())) if (GENERIC.has(name)) problems.push(`${f.name}: success member '${name}'`)
    }
    expect(problems).toEqual([])
  })

  it('states lists as lists: a refusal\'s reasons are a list, and the settings\' list of workbench roles has a plural name', () => {
    const refused = api.getType('MemoryNoteRefused') as unknown as { getFields(): Record<string, { type: unknown }> }
    expect(String(refused.getFields().reasons.type)).toBe('[String!]!')
    const settings = api.getType('UserSettingsUpdate') as unknown as { getFields(): Record<string, unknown> }
    expect(Object.keys(settings.getFields())).toEqual(['workbenchRoles'])
  })

  it('gives acceptHandoff the shape of its siblings: the hand-off itself, with the run id beside it', () => {
    const success = (name: string) => Object.keys((api.getType(name) as unknown as { getFields(): Record<string, unknown> }).getFields()).sort()
    expect(success('MutationAcceptHandoffSuccess')).toEqual(['handoff', 'runId'])
    for (const sibling of ['Create', 'Decline', 'Complete', 'Withdraw']) expect(success(`Mutation${sibling}HandoffSuccess`)).toEqual(['handoff'])
  })

  it('names a refusal\'s field as a dotted path from the operation\'s arguments, in typed refusals and their issues', async () => {
    const r = await ask(`mutation($input: CreateProgramInput!) { createProgram(input: $input) {
      __typename ... on InvalidInput { code field issues { field } } } }`, { input: { slug: 'Bad Slug!', name: ' ' } })
    expect(r.body.data.createProgram).toEqual({ __typename: 'InvalidInput', code: 'invalid_input', field: 'input.slug', issues: [{ field: 'input.slug' }, { field: 'input.name' }] })
    const roles = await ask(`mutation($input: UserSettingsUpdate!) { updateMySettings(input: $input) { __typename ... on Error { code field } } }`,
      { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'no_such_role' }] } }, 'scientist')
    expect(roles.body.data.updateMySettings).toEqual({ __typename: 'InvalidInput', code: 'invalid_input', field: 'input.workbenchRoles.0.workbenchRoleKey' })
  })

  it('answers a top-level refusal with an UPPER_SNAKE_CASE code, the catalogue code verbatim beside it, and its field', async () => {
    const r = await ask('{ program { id } }')
    expect(r.body.errors?.[0].extensions).toEqual({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'id' })
    const anonymous = await gql(`${stack.current.gatewayUrl}/graphql`, '{ me { user { id } } }')
    expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED')
  })
})
