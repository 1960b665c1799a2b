// Sessions are cached in every subgraph process (issue 20), yet a permission granted or removed is seen by the very
// next request on every subgraph: workbench (the caller's personas), connectors (a connection only quality and
// managers may read) and twins (a skill run only scientists and managers may start).
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let tenant: Tenant
let connectionId: string
let personId: string
let token: string

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db

/** What the person may do now, asked of each subgraph: one query (workbench, connectors) and one mutation (twins). */
async function probe() {
  const q = await gql(url(), `query($id: ID!) { me { programs { program { id } personas } } connection(id: $id) { id } }`, { id: connectionId }, token)
  // unit_required comes after the permission check: it means "allowed"; FORBIDDEN means not.
  const m = await gql(url(), `mutation($programId: ID!, $input: SkillRunInput!) { runSkill(programId: $programId, input: $input) { __typename } }`, {
    programId: tenant.program.id,
    input: { skillKey: 'tox.fih_dose_projection', inputs: { route: 'oral', noael: [{ species: 'rat', dose: { value: 50 }, citation: 'x' }] } },
  }, token)
  const refused = (r: typeof q) => r.body.errors?.[0]?.extensions?.code
  return {
    workbench: refused(q) ?? (q.body.data.me.programs.find((p: any) => p.program.id === tenant.program.id)?.personas.sort() ?? 'not a member'),
    connectors: refused(q) ?? (q.body.data.connection ? 'reads the connection' : 'no connection'),
    twins: refused(m) ?? m.body.data.runSkill.__typename,
  }
}

const loads = () => ['workbench', 'connectors', 'twins'].map((n) => stack.current.subgraphs[n as 'twins'].sessions.loads)

async function asOwner(mutation: string, variables: Record<string, unknown>) {
  const r = await gql(url(), mutation, variables, await tenant.token('program_owner'))
  expect(r.body.errors).toBeUndefined()
  expect(Object.values(r.body.data as Record<string, { __typename: string }>)[0].__typename).toMatch(/Success$/)
  return r.body.data
}
const ASSIGN = 'mutation($p: ID!, $u: ID!, $k: String!) { assignPersona(programId: $p, userId: $u, persona: $k) { __typename ... on Error { code message } } }'
const REMOVE_MEMBER = 'mutation($p: ID!, $u: ID!) { removeProgramMember(programId: $p, userId: $u) { __typename } }'

beforeAll(async () => {
  tenant = await createTenant(db(), 'Live')
  personId = tenant.users.viewer.id
  token = await tenant.token('viewer')
  const c = await db().connection.create({
    data: {
      organizationId: tenant.organization.id, programId: tenant.program.id, providerId: 'eln_provider', name: 'Notebook',
      credentialClass: 'service', apiVersion: 'v2', consentedBy: tenant.users.program_owner.id, consentedAt: new Date(),
      createdByUserId: tenant.users.program_owner.id,
    },
  })
  connectionId = c.id
})

describe('permissions stay live with cached sessions', () => {
  it('reuses the cached session on every subgraph while nothing about the person changed', async () => {
    await probe()
    const before = loads()
    expect(await probe()).toEqual({ workbench: ['viewer'], connectors: 'no connection', twins: 'FORBIDDEN' })
    expect(loads()).toEqual(before)
  })

  it('sees a persona granted through the gateway on the very next request, on every subgraph', async () => {
    await probe() // cached as a viewer everywhere
    await asOwner(ASSIGN, { p: tenant.program.id, u: personId, k: 'scientist' })
    expect(await probe()).toEqual({ workbench: ['scientist', 'viewer'], connectors: 'no connection', twins: 'UnitRequired' })
    await asOwner(ASSIGN, { p: tenant.program.id, u: personId, k: 'quality_reviewer' })
    expect(await probe()).toEqual({ workbench: ['quality_reviewer', 'scientist', 'viewer'], connectors: 'reads the connection', twins: 'UnitRequired' })
  })

  it('sees a removal from the program on the very next request, on every subgraph', async () => {
    expect((await probe()).connectors).toBe('reads the connection')
    await asOwner(REMOVE_MEMBER, { p: tenant.program.id, u: personId })
    expect(await probe()).toEqual({ workbench: 'not a member', connectors: 'no connection', twins: 'FORBIDDEN' })
  })

  it('sees a change written straight to the database (a job, another process) on the very next request', async () => {
    await probe()
    // what addProgramMember writes, written by something other than the gateway (removal deleted the personas)
    await db().$transaction([
      db().programMembership.update({ where: { programId_userId: { programId: tenant.program.id, userId: personId } }, data: { endedAt: null } }),
      db().roleAssignment.createMany({ data: ['viewer', 'quality_reviewer', 'scientist'].map((personaKey) => ({ organizationId: tenant.organization.id, programId: tenant.program.id, userId: personId, personaKey })) }),
    ])
    expect(await probe()).toEqual({ workbench: ['quality_reviewer', 'scientist', 'viewer'], connectors: 'reads the connection', twins: 'UnitRequired' })
    await db().roleAssignment.deleteMany({ where: { programId: tenant.program.id, userId: personId, personaKey: { in: ['quality_reviewer', 'scientist'] } } })
    expect(await probe()).toEqual({ workbench: ['viewer'], connectors: 'no connection', twins: 'FORBIDDEN' })
  })

  it('refuses a person deactivated a moment ago on the very next request', async () => {
    await probe()
    await db().user.update({ where: { id: personId }, data: { deactivatedAt: new Date() } })
    expect(await probe()).toEqual({ workbench: 'UNAUTHENTICATED', connectors: 'UNAUTHENTICATED', twins: 'UNAUTHENTICATED' })
  })

  it('bumps the session version in the same transaction as each change, and not for other edits of the person', async () => {
    const person = tenant.users.program_lead
    const version = async () => Number((await db().sessionVersion.findUnique({ where: { userId: person.id } }))?.version ?? 0)
    const v0 = await version()
    await db().user.update({ where: { id: person.id }, data: { settings: { timezone: 'UTC' } } })
    expect(await version()).toBe(v0)
    await db().$transaction(async (tx) => {
      await tx.orgRoleAssignment.create({ data: { organizationId: tenant.organization.id, userId: person.id, personaKey: 'org_auditor' } })
      expect(Number((await tx.sessionVersion.findUniqueOrThrow({ where: { userId: person.id } })).version)).toBe(v0 + 1)
    })
    await db().user.update({ where: { id: person.id }, data: { name: 'Renamed' } })
    expect(await version()).toBe(v0 + 2)
  })
})
