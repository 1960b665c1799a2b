// The gateway's own GraphQL pipeline (issue 20: no Apollo Server on /graphql): Apollo Server's HTTP rules and answer
// shapes kept, and a one-fetch query answered with the subgraph's bytes only where the planner's shaping would give
// back the same JSON, byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type Gateway } from '../../gateway/server'
import { fileInboxItem } from '../../domain/inbox'
import { useStack } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
let token: string
/** the same subgraphs behind a second gateway that always plans and shapes */
let shaping: Gateway
let shapingUrl: string

beforeAll(async () => {
  t = await createTenant(stack.db.db)
  token = await t.token('program_lead')
  await stack.db.db.$transaction(async (tx) => {
    for (let i = 0; i < 3; i++) {
      await fileInboxItem(tx, {
        organizationId: t.organization.id, userId: t.users.program_lead.id, programId: t.program.id,
        kind: 'decision', sourceType: 'test', sourceId: `edge-${i}`, title: `Item "${i}" é ✓`,
      })
    }
  })
  shaping = await createGateway({
    db: stack.db.db, databaseUrl: stack.db.url, subgraphUrls: stack.current.subgraphUrls, dataDir: stack.db.dataDir, singleFetchPassThrough: false,
  })
  shapingUrl = `${await shaping.listen(0, '127.0.0.1')}/graphql`
})
afterAll(async () => { await shaping?.close() })

const post = (url: string, body: unknown, headers: Record<string, string> = {}) => fetch(url, {
  method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
})
const gatewayUrl = () => `${stack.current.gatewayUrl}/graphql`

describe('a one-fetch query answered with the subgraph\'s bytes', () => {
  const cases: [string, string, Record<string, unknown>?][] = [
    ['a plain page', '{ myInbox(first: 50) { nodes { id kind status title program { id } } } }'],
    ['names from the same subgraph', '{ myInbox(first: 50) { nodes { id title program { name slug } } } }'],
    ['aliases and variables', 'query($n: Int) { mine: myInbox(first: $n) { items: nodes { key: id t: title } } }', { n: 2, unused: 'x' }],
    ['a fragment', 'query { myInbox { nodes { ...F } } } fragment F on InboxItem { id title }'],
    ['__typename', '{ myInbox { __typename nodes { __typename id } } }'],
    ['an error from the subgraph', '{ program { id } }'],
    ['a skipped field', 'query($s: Boolean!) { myInbox { nodes { id title @skip(if: $s) } } }', { s: true }],
    ['three subgraphs', '{ me { programs { program { name connections { nodes { id } } myOpenInboxCount } } } myInbox { nodes { id program { name } } } }'],
  ]
  for (const [what, query, variables] of cases) {
    it(`answers ${what} with the same status and bytes as the gateway that plans and shapes every answer`, async () => {
      const [fast, shaped] = await Promise.all([post(gatewayUrl(), { query, variables }), post(shapingUrl, { query, variables })])
      const [fastText, shapedText] = [await fast.text(), await shaped.text()]
      expect(fast.status).toBe(shaped.status)
      expect(fastText).toBe(shapedText)
      expect(JSON.parse(fastText).data).toBeDefined()
    })
  }

  it('passes the bytes on only for a clean answer to a plan of one fetch selecting what the caller selected', async () => {
    const federation = stack.current.gateway.federation
    const count = async (query: string) => {
      const before = federation.passedThrough
      await post(gatewayUrl(), { query })
      return federation.passedThrough - before
    }
    expect(await count('{ myInbox { nodes { id title } } }')).toBe(1)
    expect(await count('{ program { id } }')).toBe(0) // errors: shaped by the planner's path from the same answer
    expect(await count('query { myInbox { nodes { ...F } } } fragment F on InboxItem { id }')).toBe(0) // the planner expands fragments
    expect(await count('{ me { user { id } } myInbox { nodes { id } } }')).toBe(0) // two subgraphs
  })
})

describe("Apollo Server's HTTP rules, kept by the gateway's own pipeline", () => {
  const query = '{ myInbox { nodes { id } } }'

  it('answers a query with x-request-id, nosniff and application/json, or the GraphQL response type when preferred', async () => {
    const plain = await post(gatewayUrl(), { query })
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff')
    expect(plain.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const preferred = await post(gatewayUrl(), { query }, { accept: 'application/graphql-response+json, application/json;q=0.9' })
    expect(preferred.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8')
    const refused = await post(gatewayUrl(), { query }, { accept: 'text/html' })
    expect(refused.status).toBe(406)
  })

  it('blocks a request a browser could send from another site without a preflight (CSRF)', async () => {
    // no authorization header: a page on another site could send exactly this (with an authorization header, a
    // browser asks first, tests/gateway/client-compat.test.ts)
    const res = await fetch(gatewayUrl(), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query }) })
    expect(res.status).toBe(400)
    const body = await res.json() as any
    expect(body.errors[0]).toMatchObject({ message: expect.stringContaining('Cross-Site Request Forgery'), extensions: { code: 'BAD_REQUEST' } })
    const get = await fetch(`${gatewayUrl()}?query=${encodeURIComponent(query)}`)
    expect(get.status).toBe(400)
    expect(((await get.json()) as any).errors[0].message).toContain('Cross-Site Request Forgery')
  })

  it('runs a query sent by GET with a preflight header, and refuses a mutation sent by GET with 405', async () => {
    const headers = { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' }
    const get = await fetch(`${gatewayUrl()}?query=${encodeURIComponent(query)}`, { headers })
    expect(get.status).toBe(200)
    expect(((await get.json()) as any).data.myInbox.nodes).toHaveLength(3)
    const mutation = await fetch(`${gatewayUrl()}?query=${encodeURIComponent('mutation { openLaunch(launchId: "x") { __typename } }')}`, { headers })
    expect(mutation.status).toBe(405)
    expect(mutation.headers.get('allow')).toBe('POST')
    const put = await fetch(gatewayUrl(), { method: 'PUT', headers })
    expect(put.status).toBe(405)
  })

  it('answers malformed requests with BAD_REQUEST and the reason, before any GraphQL runs', async () => {
    const cases: [unknown, string][] = [
      [[{ query }], 'Batched requests (a JSON array of operations) are not accepted'],
      [{}, 'POST body missing'],
      [{ query, variables: '{"a":1}' }, 'not a recursively JSON-encoded string'],
      [{ query, operationName: 3 }, '`operationName` in a POST body must be a string'],
      ['{"query":', 'The request body is not valid JSON.'],
    ]
    for (const [body, message] of cases) {
      const res = await post(gatewayUrl(), body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as any).errors[0]).toMatchObject({ message: expect.stringContaining(message), extensions: { code: 'BAD_REQUEST' } })
    }
  })

  it('answers an unknown operation name with OPERATION_RESOLUTION_FAILURE and a variable of the wrong type with BAD_USER_INPUT, both 400', async () => {
    const unknown = await post(gatewayUrl(), { query: 'query A { myInbox { nodes { id } } }', operationName: 'B' })
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as any).errors[0]).toMatchObject({ message: 'Unknown operation named "B".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })
    const wrong = await post(gatewayUrl(), { query: 'query($n: Int) { myInbox(first: $n) { nodes { id } } }', variables: { n: 'many' } })
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as any).errors[0].extensions.code).toBe('BAD_USER_INPUT')
  })

  it('tells a client trying automatic persisted queries that they are not supported, so it sends the document', async () => {
    const res = await post(gatewayUrl(), { extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } })
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED')
  })
})
