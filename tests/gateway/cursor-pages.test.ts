// Cursor pages through the gateway: every list that can grow (myInbox, Program.connections, Program.members,
// Connection.objects, Connection.deliveries) pages the same way, with neither gaps nor repeats when rows share a
// timestamp, and answers invalid_input on `first` or `after` for a page size or cursor it cannot honour.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTwoOrganizations, type PersonaKey, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db

interface ListCase {
  name: string
  persona: PersonaKey
  /** The list field with `$first` and `$after`, selecting `sel`, inside a query over `$id`. */
  query: (sel: string) => string
  pick: (data: any) => { nodes: { id: string }[]; edges: { cursor: string; node: { id: string } }[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } }
  /** Writes rows of this list for the tenant, most of them sharing one timestamp; returns their ids, newest first. */
  seed: (t: Tenant, connectionId: string) => Promise<string[]>
}

const AT = new Date('2026-11-20T10:00:00.000Z')
const EARLIER = new Date('2026-11-19T10:00:00.000Z')
/** The order the lists promise: newest first, ids (descending) breaking ties. */
const newestFirst = (rows: { id: string; at: Date }[]) =>
  [...rows].sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id)

const VARS = '($id: ID!, $first: Int, $after: String)'
const PAGE = '(first: $first, after: $after)'

const CASES: ListCase[] = [
  {
    name: 'myInbox',
    persona: 'scientist',
    query: (sel) => `query${VARS} { program(id: $id) { id } myInbox${PAGE} { ${sel} } }`,
    pick: (d) => d.myInbox,
    async seed(t) {
      const rows = []
      for (let i = 0; i < 9; i++) {
        rows.push(await db().inboxItem.create({
          data: { organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id, kind: 'information', sourceType: 'test', sourceId: `s${i}`, createdAt: i < 7 ? AT : EARLIER },
        }))
      }
      return newestFirst(rows.map((r) => ({ id: r.id, at: r.createdAt })))
    },
  },
  {
    name: 'Program.connections',
    persona: 'program_lead',
    query: (sel) => `query${VARS} { program(id: $id) { connections${PAGE} { ${sel} } } }`,
    pick: (d) => d.program.connections,
    async seed(t, connectionId) {
      const rows = [await db().connection.update({ where: { id: connectionId }, data: { createdAt: AT } })]
      for (let i = 0; i < 6; i++) rows.push(await connectionRow(t, 'disconnected', i < 4 ? AT : EARLIER))
      return newestFirst(rows.map((r) => ({ id: r.id, at: r.createdAt })))
    },
  },
  {
    name: 'Program.members',
    persona: 'viewer',
    query: (sel) => `query${VARS} { program(id: $id) { members${PAGE} { ${sel.replaceAll('id', 'user { id }')} } } }`,
    pick: (d) => {
      const page = d.program.members
      // A member is identified by its person.
      return { ...page, nodes: page.nodes.map((m: any) => m.user), edges: page.edges.map((e: any) => ({ cursor: e.cursor, node: e.node.user })) }
    },
    async seed(t) {
      await db().programMembership.updateMany({ where: { programId: t.program.id }, data: { createdAt: AT } })
      await db().programMembership.updateMany({ where: { programId: t.program.id, userId: t.users.viewer.id }, data: { createdAt: EARLIER } })
      const rows = await db().programMembership.findMany({ where: { programId: t.program.id, endedAt: null } })
      const byMembership = new Map(rows.map((r) => [r.id, r.userId]))
      return newestFirst(rows.map((r) => ({ id: r.id, at: r.createdAt }))).map((id) => byMembership.get(id)!)
    },
  },
  {
    name: 'Connection.objects',
    persona: 'quality_reviewer',
    query: (sel) => `query${VARS} { connection(id: $id) { objects${PAGE} { ${sel} } } }`,
    pick: (d) => d.connection.objects,
    async seed(t, connectionId) {
      const rows = []
      for (let i = 0; i < 11; i++) {
        rows.push(await db().connectorObject.create({
          data: {
            organizationId: t.organization.id, programId: t.program.id, connectionId, externalType: i % 3 ? 'entry' : 'attachment',
            externalId: `etr_page_${i}`, firstSeenAt: i < 8 ? AT : EARLIER,
          },
        }))
      }
      // A deleted record is left out unless asked for.
      await db().connectorObject.create({ data: { organizationId: t.organization.id, programId: t.program.id, connectionId, externalType: 'entry', externalId: 'etr_gone', firstSeenAt: AT, deletedAt: AT } })
      return newestFirst(rows.map((r) => ({ id: r.id, at: r.firstSeenAt })))
    },
  },
  {
    name: 'Connection.deliveries',
    persona: 'program_owner',
    query: (sel) => `query${VARS} { connection(id: $id) { deliveries${PAGE} { ${sel} } } }`,
    pick: (d) => d.connection.deliveries,
    async seed(t, connectionId) {
      const rows = []
      for (let i = 0; i < 10; i++) {
        rows.push(await db().webhookDelivery.create({
          data: {
            organizationId: t.organization.id, programId: t.program.id, connectionId, providerId: 'eln_provider', deliveryId: `d${i}`,
            signatureOk: true, outcome: 'enqueued', statusCode: 202, sourceAddress: '127.0.0.1', bodyBytes: 10, receivedAt: i < 7 ? AT : EARLIER,
          },
        }))
      }
      return newestFirst(rows.map((r) => ({ id: r.id, at: r.receivedAt })))
    },
  },
]

async function connectionRow(t: Tenant, status: 'active' | 'disconnected', createdAt = new Date()) {
  return db().connection.create({
    data: {
      organizationId: t.organization.id, programId: t.program.id, providerId: 'eln_provider', name: 'Notebook', status,
      credentialClass: 'service', apiVersion: 'v2', consentedBy: t.users.program_owner.id, consentedAt: new Date(),
      createdByUserId: t.users.program_owner.id, createdAt,
    },
  })
}

const SEL = 'nodes { id } edges { cursor node { id } } pageInfo { endCursor hasNextPage }'

describe('cursor pages', () => {
  let t: Tenant
  let other: Tenant
  let connectionId: string
  const expected = new Map<string, string[]>()
  const idOf = (c: ListCase) => (c.name.startsWith('Connection.') ? connectionId : t.program.id)
  const ask = async (c: ListCase, vars: Record<string, unknown>) =>
    gql(`${stack.current.gatewayUrl}/graphql`, c.query(SEL), { id: idOf(c), ...vars }, await t.token(c.persona))

  beforeAll(async () => {
    ({ a: t, b: other } = await createTwoOrganizations(db()))
    connectionId = (await connectionRow(t, 'active')).id
    for (const c of CASES) expected.set(c.name, await c.seed(t, connectionId))
    // The other organisation has rows of every list too, so a page that leaked them would show it.
    const foreign = (await connectionRow(other, 'active')).id
    for (const c of CASES) await c.seed(other, foreign)
  })

  for (const c of CASES) {
    it(`pages through ${c.name} three at a time without gaps or repeats when rows share a timestamp`, async () => {
      const seen: string[] = []
      let after: string | null = null
      for (let pages = 0; pages < 20; pages++) {
        const r = await ask(c, { first: 3, after })
        expect(r.body.errors).toBeUndefined()
        const page = c.pick(r.body.data)
        expect(page.nodes.length).toBeLessThanOrEqual(3)
        expect(page.edges.map((e) => e.node.id)).toEqual(page.nodes.map((n) => n.id))
        expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null)
        seen.push(...page.nodes.map((n) => n.id))
        if (!page.pageInfo.hasNextPage) break
        after = page.pageInfo.endCursor
      }
      expect(seen).toEqual(expected.get(c.name))
      // An edge's cursor resumes right after its node.
      const whole = c.pick((await ask(c, { first: 100 })).body.data)
      expect(whole.nodes.map((n) => n.id)).toEqual(expected.get(c.name))
      const resumed = c.pick((await ask(c, { first: 2, after: whole.edges[4].cursor })).body.data)
      expect(resumed.nodes.map((n) => n.id)).toEqual(expected.get(c.name)!.slice(5, 7))
    })

    it(`answers ${c.name} with a page of 50 by default and invalid_input on first outside 1 to 100`, async () => {
      const byDefault = await ask(c, {})
      expect(byDefault.body.errors).toBeUndefined()
      expect(c.pick(byDefault.body.data).nodes).toHaveLength(expected.get(c.name)!.length)
      for (const first of [101, 500, 0, -1]) {
        const r = await ask(c, { first })
        expect(r.status).toBe(200)
        expect(r.body.errors?.[0].extensions, `first: ${first}`).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'first' })
        expect(r.body.errors?.[0].message).toMatch(/1 to 100/)
      }
    })

    it(`refuses a garbage or forged ${c.name} cursor with invalid_input on after`, async () => {
      const forged = Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url')
      for (const after of ['garbage', forged, '!!!', Buffer.from('x|y|z').toString('base64url'), Buffer.from(`not a date|${connectionId}`).toString('base64url')]) {
        const r = await ask(c, { after })
        expect(r.status).toBe(200)
        expect((r.body.errors ?? []).map((e) => e.extensions?.code)).not.toContain('INTERNAL_SERVER_ERROR')
        expect(r.body.errors?.[0].extensions, after).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
      }
    })
  }

  it('leaves deleted records out of Connection.objects unless includeDeleted is set', async () => {
    const c = CASES.find((x) => x.name === 'Connection.objects')!
    const all = await gql(`${stack.current.gatewayUrl}/graphql`, `query($id: ID!) { connection(id: $id) { objects(includeDeleted: true, first: 100) { nodes { externalId } } entries: objects(externalType: "entry") { nodes { externalId } } } }`,
      { id: connectionId }, await t.token(c.persona))
    expect(all.body.errors).toBeUndefined()
    expect(all.body.data.connection.objects.nodes).toHaveLength(expected.get(c.name)!.length + 1)
    expect(all.body.data.connection.objects.nodes.map((o: any) => o.externalId)).toContain('etr_gone')
    expect(all.body.data.connection.entries.nodes.map((o: any) => o.externalId)).toEqual(expect.arrayContaining(['etr_page_1', 'etr_page_2']))
    expect(all.body.data.connection.entries.nodes.map((o: any) => o.externalId)).not.toContain('etr_page_0')
  })
})
