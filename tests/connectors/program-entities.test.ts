// Connectors' Program entity: a program the caller is a member of answers an entity fetch by its key, with no read of
// its row unless the fetch asks the program's own fields; every answer is the one a read row gives, and a program of
// another organisation is still null.
import { describe, expect, it } from 'vitest'
import { execute, parse } from 'graphql'
import { useTestDatabase } from '../helpers/db'
import { createProgram, createTwoOrganizations } from '../helpers/factories'
import { buildConnectorsSchema } from '../../subgraphs/connectors/schema'
import { createContext } from '../../subgraphs/shared/context'

const t = useTestDatabase()
const db = () => t.current.db

const FETCH = `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on Program { __FIELDS__ } } }`

describe("connectors' Program entity", () => {
  it("answers a member's program by its key without reading it, its own fields as read, and another organisation's program as null", async () => {
    const { a, b } = await createTwoOrganizations(db())
    const notMine = await createProgram(db(), a.organization.id, { name: 'Not a member here' })
    const schema = buildConnectorsSchema()
    const run = async (persona: 'program_lead' | 'org_admin', fields: string, ids: string[]) => {
      const ctx = createContext(db(), await a.session(persona), 'test')
      const result = await execute({
        schema, document: parse(FETCH.replace('__FIELDS__', fields)), contextValue: ctx,
        variableValues: { representations: ids.map((id) => ({ __typename: 'Program', id })) },
      })
      return { result: result as { data?: { _entities: unknown[] } | null; errors?: readonly unknown[] }, read: [...ctx.loaders.programsRead.keys()].sort() }
    }
    const ids = [a.program.id, notMine.id, b.program.id]

    // connections alone: the member's program is not read; the others are (null for the other organisation's)
    const connections = await run('program_lead', 'id connections { nodes { id } }', ids)
    expect(connections.read).toEqual([notMine.id, b.program.id].sort())
    expect(connections.result.data?._entities[0]).toEqual({ id: a.program.id, connections: { nodes: [] } })
    expect(connections.result.data?._entities[2]).toBeNull()

    // the program's own fields: read (one batch) and answered as the row says, for members and others alike
    const own = await run('program_lead', 'id name slug illustrative organization { id }', ids)
    expect(own.result.errors).toBeUndefined()
    expect(own.read).toEqual(ids.slice().sort())
    expect(own.result.data?._entities).toEqual([
      { id: a.program.id, name: a.program.name, slug: a.program.slug, illustrative: false, organization: { id: a.organization.id } },
      { id: notMine.id, name: notMine.name, slug: notMine.slug, illustrative: false, organization: { id: a.organization.id } },
      null,
    ])

    // someone who is a member of none of them: every program read, as before
    const admin = await run('org_admin', 'id name', ids)
    expect(admin.read).toEqual(ids.slice().sort())
    expect(admin.result.data?._entities).toEqual([{ id: a.program.id, name: a.program.name }, { id: notMine.id, name: notMine.name }, null])
  })

  it("never takes another organisation's program for a member's, even when stray rows name the person in it", async () => {
    const { a, b } = await createTwoOrganizations(db())
    const lead = a.users.program_lead.id
    // rows no code writes: the person of organisation A as a member with a persona in organisation B's program, stamped
    // with either organisation
    for (const org of [a.organization.id, b.organization.id]) {
      await db().$executeRaw`DELETE FROM program_memberships WHERE program_id = ${b.program.id}::uuid AND user_id = ${lead}::uuid`
      await db().$executeRaw`DELETE FROM role_assignments WHERE program_id = ${b.program.id}::uuid AND user_id = ${lead}::uuid`
      await db().$executeRaw`INSERT INTO program_memberships (organization_id, program_id, user_id) VALUES (${org}::uuid, ${b.program.id}::uuid, ${lead}::uuid)`
      await db().$executeRaw`INSERT INTO role_assignments (organization_id, program_id, user_id, persona_key) VALUES (${org}::uuid, ${b.program.id}::uuid, ${lead}::uuid, 'program_lead')`
      const session = await a.session('program_lead')
      expect(session.programPersonas.has(b.program.id)).toBe(false)
      expect(session.programPersonas.has(a.program.id)).toBe(true)
      const ctx = createContext(db(), session, 'test')
      const result = await execute({
        schema: buildConnectorsSchema(), document: parse(FETCH.replace('__FIELDS__', 'id connections { nodes { id } }')), contextValue: ctx,
        variableValues: { representations: [{ __typename: 'Program', id: b.program.id }] },
      }) as { data?: { _entities: unknown[] } | null }
      expect(result.data?._entities).toEqual([null])
    }
  })
})
