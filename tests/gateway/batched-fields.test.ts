// Fields resolved once per program of `me` are read for all programs together (issue 20): the answers must be the same
// as one program at a time, pages and permissions included.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { addMember, createProgram, createTenant, type Tenant } from '../helpers/factories'
import { fileInboxItem } from '../../domain/inbox'

const stack = useStack()
let tenant: Tenant
const programs: { id: string; name: string }[] = []
const connectionsOf = new Map<string, string[]>() // newest first

beforeAll(async () => {
  const db = stack.db.db
  tenant = await createTenant(db, 'Batch')
  const lead = tenant.users.program_lead
  programs.push(tenant.program)
  for (let i = 0; i < 3; i++) {
    const p = await createProgram(db, tenant.organization.id, { name: `Batch program ${i}` })
    // the last program (programs[3]): a member without program.connections.read (viewer)
    await addMember(db, p, lead.id, [i === 2 ? 'viewer' : 'program_lead'])
    programs.push(p)
  }
  // connections: 3 in the first program, 1 in the second, none in the third
  for (const [p, n] of [[programs[0], 3], [programs[1], 1]] as const) {
    for (let i = 0; i < n; i++) {
      const c = await db.connection.create({
        data: {
          organizationId: tenant.organization.id, programId: p.id, providerId: 'eln_provider', name: `Notebook ${i}`,
          credentialClass: 'service', apiVersion: 'v2', consentedBy: lead.id, consentedAt: new Date(), createdByUserId: lead.id,
          createdAt: new Date(Date.now() - (10 - i) * 1000),
        },
      })
      connectionsOf.set(p.id, [c.id, ...(connectionsOf.get(p.id) ?? [])])
    }
  }
  // open inbox items: 2 (one then closed, so 1 counts), 0, 1, 0
  await db.$transaction(async (tx) => {
    for (const [p, n] of [[programs[0], 2], [programs[2], 1]] as const) {
      for (let i = 0; i < n; i++) {
        await fileInboxItem(tx, { organizationId: tenant.organization.id, userId: lead.id, programId: p.id, kind: 'decision', sourceType: 't', sourceId: `${p.id}-${i}`, title: 'x' })
      }
    }
  })
  const closed = await db.inboxItem.findFirstOrThrow({ where: { programId: programs[0].id } })
  await db.inboxItem.update({ where: { id: closed.id }, data: { status: 'done' } }).catch(async () => {
    await db.inboxItem.update({ where: { id: closed.id }, data: { status: 'dismissed' } })
  })
})

describe('fields of every program of me, read together', () => {
  it('answers connections pages and open inbox counts per program as if each were read alone', async () => {
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{ me { programs { program { id
      connections(first: 2) { nodes { id } pageInfo { hasNextPage } } myOpenInboxCount } } } }`, {}, await tenant.token('program_lead'))
    const byId = new Map((r.body.data?.me.programs ?? []).map((p: any) => [p.program.id, p.program]))
    expect(byId.size).toBe(4)
    expect(byId.get(programs[0].id)).toEqual({ id: programs[0].id, connections: { nodes: connectionsOf.get(programs[0].id)!.slice(0, 2).map((id) => ({ id })), pageInfo: { hasNextPage: true } }, myOpenInboxCount: 1 })
    expect(byId.get(programs[1].id)).toEqual({ id: programs[1].id, connections: { nodes: connectionsOf.get(programs[1].id)!.map((id) => ({ id })), pageInfo: { hasNextPage: false } }, myOpenInboxCount: 0 })
    expect(byId.get(programs[2].id)).toEqual({ id: programs[2].id, connections: { nodes: [], pageInfo: { hasNextPage: false } }, myOpenInboxCount: 1 })
    // the viewer's program: connections refused there alone (FORBIDDEN on that path), its count still answered
    expect(byId.get(programs[3].id)).toEqual({ id: programs[3].id, connections: null, myOpenInboxCount: 0 })
    expect(r.body.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN'])
  })

  it("answers me's programs and open counts alike whether or not the person's own fields are asked beside them", async () => {
    const token = await tenant.token('program_lead')
    const programsOnly = await gql(`${stack.current.gatewayUrl}/graphql`, '{ me { programs { personas program { id name myOpenInboxCount } } } }', {}, token)
    const withPerson = await gql(`${stack.current.gatewayUrl}/graphql`, '{ me { user { id name } settings programs { personas program { id name myOpenInboxCount } } } }', {}, token)
    expect(programsOnly.body.errors).toBeUndefined()
    expect(withPerson.body.errors).toBeUndefined()
    expect(withPerson.body.data.me.user).toEqual({ id: tenant.users.program_lead.id, name: tenant.users.program_lead.name })
    expect(programsOnly.body.data.me.programs).toEqual(withPerson.body.data.me.programs)
    expect(programsOnly.body.data.me.programs.map((p: any) => p.program.myOpenInboxCount).sort()).toEqual([0, 0, 1, 1])
  })
})
