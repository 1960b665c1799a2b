// Trusted documents (issue 36 item 9): the console's operations registered at build (hash → document), run by their
// id, and a gateway set to run only registered operations, which an organisation administrator (GraphiQL) may pass.
import fs from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { print } from 'graphql'
import { Client as UrqlClient, cacheExchange, fetchExchange } from '@urql/core'
import { createGateway, type Gateway } from '../../gateway/server'
import { generateTrustedDocuments, TRUSTED_DOCUMENTS_FILE } from '../../console/codegen'
import { RoleHomeDocument, MyInboxDocument } from '../../console/src/generated/graphql'
import { documentHash } from '../../core/http'
import { useStack, gql, wsClient, collect } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
/** the same subgraphs behind a gateway that runs only registered operations */
let strict: Gateway
let strictUrl: string

beforeAll(async () => {
  t = await createTenant(stack.db.db)
  strict = await createGateway({ db: stack.db.db, databaseUrl: stack.db.url, subgraphUrls: stack.current.subgraphUrls, dataDir: stack.db.dataDir, trustedDocumentsOnly: true })
  strictUrl = `${await strict.listen(0, '127.0.0.1')}/graphql`
})
afterAll(async () => { await strict?.close() })

const post = (url: string, body: unknown, token: string) => fetch(url, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
})
const unregistered = '{ me { user { id name } } }'

describe('the console operations registered at build', () => {
  it('are what npm run schema makes of console/src/operations today (run npm run schema when this fails)', async () => {
    expect(await fs.readFile(TRUSTED_DOCUMENTS_FILE, 'utf8')).toBe(await generateTrustedDocuments())
    const manifest = JSON.parse(await fs.readFile(TRUSTED_DOCUMENTS_FILE, 'utf8')) as Record<string, string>
    expect(manifest[documentHash(RoleHomeDocument)]).toContain('query RoleHome(')
  })

  it('run by their id, as documentId or as a persisted query hash, through the gateway', async () => {
    const token = await t.token('program_lead')
    const id = documentHash(RoleHomeDocument)
    const byDocumentId = await post(`${stack.current.gatewayUrl}/graphql`, { documentId: `sha256:${id}`, variables: { slug: t.program.slug } }, token)
    expect(byDocumentId.status).toBe(200)
    expect(((await byDocumentId.json()) as any).data.program.id).toBe(t.program.id)
    const byHash = await post(`${stack.current.gatewayUrl}/graphql`, { extensions: { persistedQuery: { version: 1, sha256Hash: id } }, variables: { slug: t.program.slug } }, token)
    expect(((await byHash.json()) as any).data.program.slug).toBe(t.program.slug)
    const byGet = await fetch(`${stack.current.gatewayUrl}/graphql?documentId=sha256:${id}&variables=${encodeURIComponent(JSON.stringify({ slug: t.program.slug }))}`, { headers: { authorization: `Bearer ${token}` } })
    expect(((await byGet.json()) as any).data.program.id).toBe(t.program.id)
    const unknown = await post(`${stack.current.gatewayUrl}/graphql`, { documentId: `sha256:${'0'.repeat(64)}` }, token)
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as any).errors[0]).toMatchObject({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' }, message: expect.stringContaining("send the operation's document in `query`") })
  })
})

describe('a gateway that runs only registered operations', () => {
  it('runs a console operation sent by id, or as its document however a client formats it (urql adds __typename)', async () => {
    const token = await t.token('program_lead')
    const byId = await post(strictUrl, { documentId: `sha256:${documentHash(RoleHomeDocument)}`, variables: { slug: t.program.slug } }, token)
    expect(((await byId.json()) as any).data.program.id).toBe(t.program.id)
    const reformatted = await gql(strictUrl, `${print(MyInboxDocument).replace(/\n\s*/g, ' ')}   # a comment`, {}, token)
    expect(reformatted.body.errors).toBeUndefined()
    const urql = new UrqlClient({ url: strictUrl, exchanges: [cacheExchange, fetchExchange], preferGetMethod: false, fetchOptions: { headers: { authorization: `Bearer ${token}` } } })
    const result = await urql.query(RoleHomeDocument, { slug: t.program.slug }).toPromise()
    expect(result.error).toBeUndefined()
    expect(result.data?.program?.id).toBe(t.program.id)
  })

  it('refuses an unregistered operation over HTTP and graphql-ws with OPERATION_NOT_REGISTERED', async () => {
    const token = await t.token('program_lead')
    const res = await gql(strictUrl, unregistered, {}, token)
    expect(res.status).toBe(400)
    expect(res.body.errors![0]).toMatchObject({ extensions: { code: 'OPERATION_NOT_REGISTERED' }, message: expect.stringContaining('runs only registered operations') })
    // the same request runs on a gateway not set to registered operations only
    expect((await gql(`${stack.current.gatewayUrl}/graphql`, unregistered, {}, token)).body.data.me.user.id).toBe(t.users.program_lead.id)
    const client = wsClient(strictUrl, token)
    const sub = collect(client, 'subscription { inboxChanged { id } }', 1)
    await sub.finished
    await client.dispose()
    expect(sub.received[0].errors?.[0]).toMatchObject({ extensions: { code: 'OPERATION_NOT_REGISTERED' } })
  })

  it("lets an organisation administrator run any operation (GraphiQL), through the permission org.settings.update", async () => {
    const admin = await gql(strictUrl, unregistered, {}, await t.token('org_admin'))
    expect(admin.body.errors).toBeUndefined()
    expect(admin.body.data.me.user.id).toBe(t.users.org_admin.id)
  })
})
