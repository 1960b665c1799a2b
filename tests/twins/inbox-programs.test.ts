// The programs of an inbox page (`program { name slug }`, answered by twins itself): read with the page, in its own
// statement, only when the selection asks more than their ids, and always as they are now.
import { describe, expect, it } from 'vitest'
import { execute, parse } from 'graphql'
import { useStack, gql } from '../helpers/stack'
import { addMember, createProgram, createTenant } from '../helpers/factories'
import { fileInboxItem } from '../../domain/inbox'
import { buildTwinsSchema } from '../../subgraphs/twins/schema'
import { createContext } from '../../subgraphs/shared/context'
import { loadSession } from '../../core/identity'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`

/** A program lead with one item in each of two programs (the second filed last: newest first). */
async function leadWithTwoPrograms(name: string) {
  const t = await createTenant(db(), name)
  const lead = t.users.program_lead
  const second = await createProgram(db(), t.organization.id)
  await addMember(db(), second, lead.id, ['program_lead'])
  for (const [i, program] of [t.program, second].entries()) {
    await db().$transaction((tx) => fileInboxItem(tx, {
      organizationId: t.organization.id, userId: lead.id, programId: program.id,
      kind: 'decision', sourceType: 'test', sourceId: `q-${i}`, title: `Item ${i}`,
    }))
  }
  return { t, lead, first: t.program, second }
}

describe("an inbox page's programs", () => {
  it('names each item\'s program through nodes, edges and fragments alike', async () => {
    const { t, first, second } = await leadWithTwoPrograms('Names')
    const r = await gql(url(), `{ myInbox(first: 10) {
      nodes { title program { id name slug } }
      edges { node { title program { ...P } } }
    } } fragment P on Program { name slug }`, {}, await t.token('program_lead'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.myInbox.nodes).toEqual([
      { title: 'Item 1', program: { id: second.id, name: second.name, slug: second.slug } },
      { title: 'Item 0', program: { id: first.id, name: first.name, slug: first.slug } },
    ])
    expect(r.body.data.myInbox.edges.map((e: any) => e.node)).toEqual([
      { title: 'Item 1', program: { name: second.name, slug: second.slug } },
      { title: 'Item 0', program: { name: first.name, slug: first.slug } },
    ])
  })

  it('shows a renamed program on the very next request', async () => {
    const { t, second } = await leadWithTwoPrograms('Rename')
    const token = await t.token('program_lead')
    const query = '{ myInbox(first: 1) { nodes { program { name slug } } } }'
    expect((await gql(url(), query, {}, token)).body.data.myInbox.nodes).toEqual([{ program: { name: second.name, slug: second.slug } }])
    await db().program.update({ where: { id: second.id }, data: { name: 'Renamed program', slug: `renamed-${second.slug}` } })
    expect((await gql(url(), query, {}, token)).body.data.myInbox.nodes).toEqual([{ program: { name: 'Renamed program', slug: `renamed-${second.slug}` } }])
  })

  it("reads the page's programs with the page itself, asking the program loader for none, and no names for a page that asks program ids only", async () => {
    const { lead, first, second } = await leadWithTwoPrograms('Reads')
    const schema = buildTwinsSchema({ inboxEvents: null as never, twinRunEvents: null as never, stageGateEvents: null as never })
    const session = await loadSession(db(), lead.id)
    const run = async (query: string) => {
      const ctx = createContext(db(), session, 'test')
      // who asks the loader: loadMany (one call for the page) or load one id at a time (loadMany's own loads aside)
      const batches: string[][] = []
      const loader = ctx.loaders.program
      const load = loader.load.bind(loader)
      const loadMany = loader.loadMany.bind(loader)
      let inLoadMany = false
      loader.load = (id) => { if (!inLoadMany) batches.push([id]); return load(id) }
      loader.loadMany = (keys) => {
        batches.push(Array.from(keys))
        inLoadMany = true
        try { return loadMany(keys) } finally { inLoadMany = false }
      }
      const result = await execute({ schema, document: parse(query), contextValue: ctx })
      expect(result.errors).toBeUndefined()
      return { result, batches, named: [...ctx.loaders.programNames.keys()].sort() }
    }
    const ids = await run('{ myInbox(first: 10) { nodes { program { id __typename } } } }')
    expect(ids.batches).toEqual([])
    expect(ids.named).toEqual([])
    const names = await run('{ myInbox(first: 10) { nodes { program { name } } } }')
    expect(names.batches).toEqual([]) // the page's statement brought them: no loader call, no second read
    expect(names.named).toEqual([first.id, second.id].sort())
    expect(names.result.data).toEqual({ myInbox: { nodes: [{ program: { name: second.name } }, { program: { name: first.name } }] } })
  })
})
