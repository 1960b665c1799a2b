// The subgraphs' own GraphQL over HTTP (issue 20: graphql-js on node:http instead of Apollo Server): what a direct
// caller gets (the shapes Apollo answered with), documents prepared once per string, and the plain-SQL hot reads
// filtering by organisation although the other tenant's rows exist.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { INTERNAL_HEADER, signInternalToken } from '../../core/identity'
import { domainContext } from '../../core/jobs'
import { loadSession } from '../../core/identity'
import { createLoaders } from '../../subgraphs/shared/context'
import { countMyOpenInboxByProgram, fileInboxItem, listMyInbox } from '../../domain/inbox'
import { useStack, gql } from '../helpers/stack'
import { createTwoOrganizations, expectRowsExist } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db

describe('subgraph GraphQL over HTTP', () => {
  it('answers parse, validation, variable and missing-query errors with the codes and statuses Apollo Server used', async () => {
    const { a } = await createTwoOrganizations(db())
    const internal = { [INTERNAL_HEADER]: await signInternalToken({ userId: a.users.program_lead.id, organizationId: a.organization.id, requestId: randomUUID() }) }
    const url = stack.current.subgraphUrls.twins
    const parse = await gql(url, '{ myInbox(first: 1) {', {}, undefined, internal)
    expect([parse.status, parse.body.errors?.[0].extensions?.code]).toEqual([400, 'GRAPHQL_PARSE_FAILED'])
    const invalid = await gql(url, '{ noSuchField }', {}, undefined, internal)
    expect([invalid.status, invalid.body.errors?.[0].extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED'])
    const variables = await gql(url, 'query($n: Int!) { myInbox(first: $n) { nodes { id } } }', { n: 'many' }, undefined, internal)
    expect([variables.status, variables.body.errors?.[0].extensions?.code]).toEqual([400, 'BAD_USER_INPUT'])
    const empty = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...internal }, body: '{}' })
    expect([empty.status, ((await empty.json()) as any).errors[0].extensions.code]).toEqual([400, 'BAD_REQUEST'])
    const notJson = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...internal }, body: '{"query":' })
    expect([notJson.status, ((await notJson.json()) as any).errors[0].extensions.code]).toEqual([400, 'BAD_REQUEST'])
    // no internal token: refused before the document is even read
    const refused = await gql(url, '{ myInbox(first: 1) {', {})
    expect([refused.status, refused.body.errors?.[0].extensions?.code, refused.body.data]).toEqual([401, 'UNAUTHENTICATED', undefined])
    const ok = await gql(url, '{ myInbox(first: 1) { nodes { id } } }', {}, undefined, internal)
    expect([ok.status, ok.body.errors, ok.body.data.myInbox.nodes]).toEqual([200, undefined, []])
  })

  it('parses and validates a document once, then serves it from the cache', async () => {
    const { a } = await createTwoOrganizations(db())
    const internal = { [INTERNAL_HEADER]: await signInternalToken({ userId: a.users.viewer.id, organizationId: a.organization.id, requestId: randomUUID() }) }
    const url = stack.current.subgraphUrls.workbench
    const query = `{ me { user { id } } } # ${randomUUID()}`
    const cache = stack.current.subgraphs.workbench.documents
    const before = { hits: cache.hits, misses: cache.misses }
    for (let i = 0; i < 3; i++) expect((await gql(url, query, {}, undefined, internal)).body.data.me.user.id).toBe(a.users.viewer.id)
    expect({ hits: cache.hits - before.hits, misses: cache.misses - before.misses }).toEqual({ hits: 2, misses: 1 })
  })
})

describe('hot reads in plain SQL', () => {
  it("read only the caller's organisation and the caller's own inbox, although the other rows exist", async () => {
    const { a, b } = await createTwoOrganizations(db())
    for (const t of [a, b]) {
      await db().$transaction((tx) => fileInboxItem(tx, {
        organizationId: t.organization.id, userId: t.users.program_lead.id, programId: t.program.id,
        kind: 'decision', sourceType: 'test', sourceId: `s-${t.organization.id}`, title: 'Decide',
      }))
    }
    await db().$transaction((tx) => fileInboxItem(tx, {
      organizationId: a.organization.id, userId: a.users.scientist.id, programId: a.program.id,
      kind: 'information', sourceType: 'test', sourceId: 'someone-else', title: 'Not yours',
    }))
    await expectRowsExist(db(), 'programs', b.organization.id)
    await expectRowsExist(db(), 'inbox_items', b.organization.id)
    const ctx = domainContext(db(), await loadSession(db(), a.users.program_lead.id))
    const loaders = createLoaders(db(), ctx.tdb, a.organization.id)
    expect((await loaders.program.load(a.program.id))?.name).toBe(a.program.name)
    expect(await loaders.program.load(b.program.id)).toBeNull()
    expect(await loaders.user.load(b.users.program_lead.id)).toBeNull()
    expect(await loaders.program.load('not-a-uuid')).toBeNull()
    const page = await listMyInbox(ctx, { first: 10 })
    expect(page.edges.map((e) => [e.node.organizationId, e.node.userId, e.node.title])).toEqual([[a.organization.id, a.users.program_lead.id, 'Decide']])
    expect(page.edges[0].node.createdAt).toBeInstanceOf(Date)
    expect(await countMyOpenInboxByProgram(ctx, [a.program.id, b.program.id])).toEqual([1, 0])
  })
})
