// What the GraphQL clients teams use meet at the gateway with their defaults (issue 36 item 10): urql sends queries
// as GET, clients put the socket's token in different connection_init shapes, Apollo's BatchHttpLink sends arrays.
import { describe, expect, it } from 'vitest'
import { Client as UrqlClient, fetchExchange, gql as urqlGql } from '@urql/core'
import { CONNECTION_INIT_SHAPE_REASON } from '../../gateway/connection-init'
import { useStack, wsClient, collect } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`

describe('a query sent as GET', () => {
  it('runs for urql with its defaults (GET within the URL limit) when the token is sent as the authorization header', async () => {
    const t = await createTenant(stack.db.db)
    const token = await t.token('program_lead')
    const sentMethods: string[] = []
    const client = new UrqlClient({
      url: url(), exchanges: [fetchExchange],
      fetch: (input, init) => { sentMethods.push(init?.method ?? 'GET'); return fetch(input, init) },
      fetchOptions: () => ({ headers: { authorization: `Bearer ${token}` } }),
    })
    const result = await client.query(urqlGql`query Me { me { user { id } } }`, {}).toPromise()
    expect(sentMethods).toEqual(['GET'])
    expect(result.error).toBeUndefined()
    expect(result.data.me.user.id).toBe(t.users.program_lead.id)
  })

  it('runs as the documented curl line does (GET with an authorization header), and is refused without one as a possible CSRF', async () => {
    const t = await createTenant(stack.db.db)
    const token = await t.token('scientist')
    const query = encodeURIComponent('{ me { user { id } } }')
    const withToken = await fetch(`${url()}?query=${query}`, { headers: { authorization: `Bearer ${token}` } })
    expect(withToken.status).toBe(200)
    expect(((await withToken.json()) as any).data.me.user.id).toBe(t.users.scientist.id)
    // what a page on another site can make a browser send without asking: no authorization header
    const forged = await fetch(`${url()}?query=${query}`)
    expect(forged.status).toBe(400)
    expect(((await forged.json()) as any).errors[0].message).toContain('Cross-Site Request Forgery')
  })
})

describe('the socket token in connection_init', () => {
  const shapes: [string, (bearer: string) => Record<string, unknown>][] = [
    ['{ authorization }', (b) => ({ authorization: b })],
    ['{ Authorization }', (b) => ({ Authorization: b })],
    ['{ headers: { Authorization } }', (b) => ({ headers: { Authorization: b } })],
    ['{ headers: { authorization } }', (b) => ({ headers: { authorization: b } })],
  ]
  for (const [shape, params] of shapes) {
    it(`is read from ${shape}`, async () => {
      const t = await createTenant(stack.db.db)
      const bearer = `Bearer ${await t.token('scientist')}`
      const client = wsClient(url(), undefined, { connectionParams: params(bearer) })
      const sub = collect(client, '{ me { user { id } } }', 1)
      await sub.finished
      await client.dispose()
      expect(sub.received).toEqual([{ data: { me: { user: { id: t.users.scientist.id } } } }])
    })
  }

  it('when in none of those shapes, closes the socket with 4403 and the exact payload to send', async () => {
    const t = await createTenant(stack.db.db)
    const token = await t.token('scientist')
    for (const params of [{ token }, { authToken: `Bearer ${token}` }, {}]) {
      const closes: { code: number; reason: string }[] = []
      const client = wsClient(url(), undefined, { connectionParams: params, on: { closed: (e: any) => closes.push({ code: e.code, reason: e.reason }) } })
      const sub = collect(client, '{ me { user { id } } }', 1)
      await sub.finished
      await client.dispose()
      expect(closes[0]).toEqual({ code: 4403, reason: CONNECTION_INIT_SHAPE_REASON })
      expect(CONNECTION_INIT_SHAPE_REASON).toContain('{"authorization":"Bearer <token>"}')
    }
  })
})

describe('a batched request', () => {
  it('is refused with 400 and a message naming what to send instead', async () => {
    const t = await createTenant(stack.db.db)
    const res = await fetch(url(), {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await t.token('scientist')}` },
      body: JSON.stringify([{ query: '{ me { user { id } } }' }, { query: '{ myInbox { nodes { id } } }' }]),
    })
    expect(res.status).toBe(400)
    const error = ((await res.json()) as any).errors[0]
    expect(error.extensions.code).toBe('BAD_REQUEST')
    expect(error.message).toContain('send each operation as its own POST to /graphql')
    expect(error.message).toContain('several root fields in one operation')
  })
})
