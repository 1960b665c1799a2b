import { CONNECTION_INIT_SHAPE_REASON } from '../../gateway/connection-init'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import * as jose from 'jose'
import { devKeyPair, mintDevToken, signGatewayToken, signInternalToken } from '../../core/identity'
import { env } from '../../core/config'
import { createGateway, type Gateway } from '../../gateway/server'
import { fileInboxItem } from '../../domain/inbox'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let tenant: Tenant
let token = ''
const gateways: Record<'development' | 'production', { gateway: Gateway; url: string }> = {} as never

/** A gateway in "development" as `npm start` runs it (NODE_ENV=development), and one in production. */
async function startGateway(production: boolean, extra: Partial<Parameters<typeof createGateway>[0]> = {}) {
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = production ? 'production' : 'development'
  try {
    const gateway = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, production, dataDir: stack.db.dataDir, ...extra })
    return { gateway, url: await gateway.listen(0, '127.0.0.1') }
  } finally {
    process.env.NODE_ENV = nodeEnv
  }
}

beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
  token = await tenant.token('scientist')
  gateways.development = await startGateway(false)
  gateways.production = await startGateway(true)
})
afterAll(async () => {
  for (const g of Object.values(gateways)) await g.gateway.close()
})

interface Answer { errors: { message: string; extensions?: Record<string, any> }[]; data?: unknown }

/** One operation over a socket: its next payloads' errors, or the errors of an error message. */
function overWs(client: Client, query: string, variables: Record<string, unknown> = {}, extensions?: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const answer: Answer = { errors: [] }
    const timer = setTimeout(() => reject(new Error(`no answer over ws to ${query.slice(0, 80)}`)), 10_000)
    client.subscribe({ query, variables, extensions }, {
      next: (m: any) => { answer.data = m.data; answer.errors.push(...(m.errors ?? [])) },
      error: (e: any) => { clearTimeout(timer); if (Array.isArray(e)) { answer.errors.push(...e); resolve(answer) } else reject(new Error(`socket closed: ${e?.code} ${e?.reason}`)) },
      complete: () => { clearTimeout(timer); resolve(answer) },
    })
  })
}

/** A socket that records how it closed. */
function socket(url: string, bearer = token) {
  const closes: { code: number; reason: string }[] = []
  const client = wsClient(`${url}/graphql`, bearer, { on: { closed: (e: any) => closes.push({ code: e.code, reason: e.reason }) } })
  return { client, closes }
}

const codeOf = (a: { errors?: { extensions?: Record<string, any> }[] }) => a.errors?.[0]?.extensions?.code


const deep = `query { __schema { types { fields { type { ${'ofType { '.repeat(30)}name${' }'.repeat(30)} } } } } }`
const manyTokens = `{ me { user { ${'id '.repeat(4000)}} } }`
const huge = `{ me { user { id } } } # ${'x'.repeat(900_000)}`
// A real unexpected failure: the inbox table of this file's own database is renamed away while the query runs, so
// the resolver's read fails inside Prisma (no test-only switch in the product code).
const UNREADABLE_INBOX_QUERY = '{ inboxItem(id: "00000000-0000-4000-8000-000000000000") { id } }'
async function withUnreadableInbox<T>(run: () => Promise<T>): Promise<T> {
  await stack.db.db.$executeRawUnsafe('ALTER TABLE inbox_items RENAME TO inbox_items_away')
  try { return await run() } finally { await stack.db.db.$executeRawUnsafe('ALTER TABLE inbox_items_away RENAME TO inbox_items') }
}
const cases: { name: string; query: string; variables?: Record<string, unknown>; code?: string; status?: number; unreadableInbox?: boolean }[] = [
  { name: 'a syntax error', query: '{ me { user { id ', code: 'GRAPHQL_PARSE_FAILED', status: 400 },
  { name: 'a document over the token limit', query: manyTokens, code: 'GRAPHQL_PARSE_FAILED', status: 400 },
  { name: 'a 900 kB document', query: huge, code: 'GRAPHQL_PARSE_FAILED', status: 400 },
  { name: 'a query over the depth limit', query: deep, code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  { name: 'a query over the alias limit', query: `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: me { user { id } }`).join(' ')} }`, code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  { name: 'an enum typo', query: '{ myInbox(status: [opn]) { nodes { id } } }', code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  { name: 'a field typo', query: '{ me { usr { id } } }', code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  { name: 'a list variable of 120,000 enum values', query: 'query($s: [InboxItemStatus!]) { myInbox(status: $s) { nodes { id } } }', variables: { s: Array(120_000).fill('open') }, code: 'INPUT_TOO_LARGE', status: 400 },
  { name: 'a 900 kB string variable', query: 'query($slug: String) { program(slug: $slug) { id } }', variables: { slug: 'x'.repeat(900_000) }, code: 'INPUT_TOO_LARGE', status: 400 },
  { name: 'a 70,000-character string literal', query: `{ program(slug: "${'x'.repeat(70_000)}") { id } }`, code: 'INPUT_TOO_LARGE', status: 400 },
  { name: 'a mutation the caller may not run', query: 'mutation { createConnection(input: { programId: "PROGRAM", providerId: "eln_provider", name: "n", scopeRules: { projectIds: ["p"] }, consent: true }) { __typename } }' },
  { name: 'an unexpected error inside a resolver', query: UNREADABLE_INBOX_QUERY, code: 'INTERNAL_SERVER_ERROR', unreadableInbox: true },
  // custom scalars: every DateTime argument on both transports is in bad-input.test.ts; these are issue 26's three
  { name: 'a malformed DateTime variable', query: 'mutation($e: DateTime!) { createDelegation(delegateUserId: "PROGRAM", endsAt: $e) { __typename } }', variables: { e: 'tomorrow-ish' }, code: 'BAD_USER_INPUT', status: 400 },
  { name: 'a malformed DateTime literal', query: 'mutation { snoozeInboxItem(id: "PROGRAM", until: "soon") { __typename } }', code: 'BAD_USER_INPUT', status: 400 },
  { name: 'an impossible calendar date', query: '{ decisionMetrics(programId: "PROGRAM", since: "2026-13-45") { __typename } }', code: 'BAD_USER_INPUT', status: 400 },
  // the page's own refusal (the range to ask for), not the cost limit that a literal page size used to hit first
  { name: 'a page size over the largest page', query: '{ myInbox(first: 100000) { nodes { id } } }', code: 'INVALID_INPUT', status: 200 },
]

describe.each(['development', 'production'] as const)('the same document gets the same code over HTTP and graphql-ws (%s)', (mode) => {
  for (const c of cases) {
    it(`answers ${c.name} with the same code on both transports, and the socket lives on`, async () => {
      const { url } = gateways[mode]
      const query = c.query.replace('PROGRAM', tenant.program.id)
      const { client, closes } = socket(url)
      try {
        const both = async () => ({ http: await gql(`${url}/graphql`, query, c.variables, token), ws: await overWs(client, query, c.variables) })
        const { http, ws } = c.unreadableInbox ? await withUnreadableInbox(both) : await both()
        expect(codeOf(http.body)).toBeDefined()
        expect(codeOf(ws)).toBe(codeOf(http.body))
        if (c.code) expect(codeOf(http.body)).toBe(c.code)
        if (c.status) expect(http.status).toBe(c.status)
        // the socket still answers afterwards
        const ok = await overWs(client, '{ me { user { id } } }')
        expect(ok.data).toEqual({ me: { user: { id: tenant.users.scientist.id } } })
        expect(closes).toEqual([])
        for (const answer of [http.body, ws]) {
          const text = JSON.stringify(answer)
          expect(text).not.toMatch(/stacktrace|\/work\/|node_modules|at .*\.ts:\d+/)
          expect(text).not.toMatch(/serviceName/) // which subgraph answered is internal
          expect(text).not.toMatch(/"response"|https?:\/\/|"\d{3}: /) // nor anything of the subgraph fetch behind it
          if (mode === 'production') {
            expect(text).not.toMatch(/Did you mean/)
            // a refused value's message quotes the caller's value and the expected format (a date), never a limit
            // and a page's refusal states the documented range to ask for (1 to 100)
            const messages = (answer.errors ?? []).filter((e) => !['BAD_USER_INPUT', 'INVALID_INPUT'].includes(e.extensions?.code))
              .map((e) => e.message).filter((m) => !m.startsWith('Unexpected error (reference'))
            expect(messages.join(' ')).not.toMatch(/\d{2,}/) // no configured limit, no count
          }
        }
      } finally {
        await client.dispose()
      }
    })
  }

  it('answers introspection with the same answer on both transports (refused in production)', async () => {
    const { url } = gateways[mode]
    const query = '{ __schema { queryType { name } } }'
    const http = await gql(`${url}/graphql`, query, {}, token)
    const { client } = socket(url)
    try {
      const ws = await overWs(client, query)
      expect(codeOf(ws)).toBe(codeOf(http.body))
      if (mode === 'production') expect(codeOf(http.body)).toBe('GRAPHQL_VALIDATION_FAILED')
      else expect(ws.data).toEqual(http.body.data)
    } finally {
      await client.dispose()
    }
  })

  it('answers a subscription field typo with the same code as HTTP gives the typo, without suggestions in production', async () => {
    const { url } = gateways[mode]
    const { client } = socket(url)
    try {
      const ws = await overWs(client, 'subscription { inboxChanged { titel } }')
      expect(codeOf(ws)).toBe('GRAPHQL_VALIDATION_FAILED')
      if (mode === 'production') expect(JSON.stringify(ws)).not.toMatch(/Did you mean/)
      else expect(ws.errors[0].message).toMatch(/Did you mean "title"/)
    } finally {
      await client.dispose()
    }
  })

  it('answers a subscription sent over HTTP with a 400 that says to subscribe over graphql-ws on /graphql, not a masked 500', async () => {
    const { url } = gateways[mode]
    const named = 'query Me { me { user { id } } }\nsubscription Watch { inboxChanged { id } }'
    const answers = [
      await gql(`${url}/graphql`, 'subscription { inboxChanged { id } }', {}, token),
      await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: named, operationName: 'Watch' }) })
        .then(async (r) => ({ status: r.status, body: await r.json() as any })),
      await fetch(`${url}/graphql?query=${encodeURIComponent('subscription { inboxChanged { id } }')}`, { headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': '1' } })
        .then(async (r) => ({ status: r.status, body: await r.json() as any })),
    ]
    for (const r of answers) {
      expect(r.status).toBe(400)
      expect(r.body.errors).toEqual([{
        message: 'Subscriptions are not served over HTTP: open a WebSocket to /graphql with the graphql-ws protocol (subprotocol graphql-transport-ws) and subscribe there.',
        extensions: { code: 'SUBSCRIPTION_REQUIRES_WEBSOCKET' },
      }])
    }
    // the query of the same document still runs over HTTP
    const query = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: named, operationName: 'Me' }) })
    expect(await query.json()).toEqual({ data: { me: { user: { id: tenant.users.scientist.id } } } })
  })

  it('sends /graphql answers with X-Content-Type-Options: nosniff', async () => {
    const res = await fetch(`${gateways[mode].url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

// The cost limit (10,000): a paged query costs its page size times its selection (here 14 per inbox item), so seven
// full pages of 100 and one of 14 cost 9,996 and are answered, and one of 15 costs 10,010 and is refused, on both
// transports. A raised limit lets the second through (issue 41, item 2); the rule alone: edge-limit-rules.test.ts.
const pagedInbox = (lastPage: number) =>
  `{ ${[...Array.from({ length: 7 }, () => 100), lastPage].map((n, i) => `p${i}: myInbox(first: ${n}) { nodes { id kind status title } }`).join(' ')} }`

describe('the query cost limit', () => {
  it('answers a paged query just under the limit and refuses one just over it, over HTTP and over graphql-ws', async () => {
    const { url } = gateways.development
    const { client, closes } = socket(url)
    try {
      for (const transport of ['http', 'ws'] as const) {
        const ask = async (q: string): Promise<Answer> => transport === 'http' ? (await gql(`${url}/graphql`, q, {}, token)).body as Answer : overWs(client, q)
        const under = await ask(pagedInbox(14))
        expect({ transport, errors: under.errors ?? [] }).toEqual({ transport, errors: [] })
        expect(Object.keys(under.data as object)).toHaveLength(8)
        const over = await ask(pagedInbox(15))
        expect({ transport, code: codeOf(over), message: over.errors[0]?.message, data: over.data }).toEqual({
          transport, code: 'GRAPHQL_VALIDATION_FAILED', message: 'Query Cost limit of 10000 exceeded, found 10010.', data: undefined,
        })
      }
      expect(closes).toEqual([])
    } finally {
      await client.dispose()
    }
  })
})

describe('one failing operation never ends the socket', () => {
  it('keeps a live subscription delivering after a forbidden mutation, a syntax error and an unexpected error on the same socket', async () => {
    const { client, closes } = socket(stack.current.gatewayUrl)
    const sub = collect(client, 'subscription { inboxChanged { title } }', 1, 15_000)
    await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1)
    for (const q of [cases[0].query, cases[10].query.replace('PROGRAM', tenant.program.id)]) await overWs(client, q)
    expect(codeOf(await withUnreadableInbox(() => overWs(client, UNREADABLE_INBOX_QUERY)))).toBe('INTERNAL_SERVER_ERROR')
    await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: tenant.organization.id, userId: tenant.users.scientist.id, programId: tenant.program.id,
      kind: 'information', sourceType: 'note', sourceId: 'after-errors', title: 'Still live',
    }))
    await sub.finished
    expect(sub.received).toEqual([{ data: { inboxChanged: { title: 'Still live' } } }])
    expect(closes).toEqual([])
    await client.dispose()
  })
})

describe('a subgraph\'s own graphql-ws server', () => {
  it('answers a syntax error and an unknown field with their codes and keeps the gateway\'s socket open', async () => {
    // as the gateway's bridge talks to it: its own token on the socket, the person's on each operation
    const person = { internalToken: await signInternalToken({ userId: tenant.users.scientist.id, organizationId: tenant.organization.id, requestId: 'r' }) }
    const closes: number[] = []
    const client = createClient({
      url: stack.current.subgraphUrls.twins.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0,
      connectionParams: async () => ({ internalToken: await signGatewayToken() }), on: { closed: (e: any) => closes.push(e.code) },
    })
    try {
      expect(codeOf(await overWs(client, 'subscription { inboxChanged { id ', {}, person))).toBe('GRAPHQL_PARSE_FAILED')
      expect(codeOf(await overWs(client, 'subscription { inboxChanged { nope } }', {}, person))).toBe('GRAPHQL_VALIDATION_FAILED')
      expect((await overWs(client, '{ __typename }', {}, person)).data).toEqual({ __typename: 'Query' })
      expect(closes).toEqual([])
    } finally {
      await client.dispose()
    }
  })
})

describe('unexpected errors and stack traces', () => {
  it('logs an unexpected subgraph error once, under the reference the caller receives', async () => {
    const lines: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => { lines.push(String(chunk)); return true })
    let r
    try {
      r = await withUnreadableInbox(() => gql(`${stack.current.gatewayUrl}/graphql`, UNREADABLE_INBOX_QUERY, {}, token))
    } finally {
      spy.mockRestore()
    }
    const logged = lines.filter((l) => l.includes('graphql.unexpected_error')).map((l) => JSON.parse(l))
    expect(r.body.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR')
    expect(logged).toHaveLength(1)
    expect(r.body.errors?.[0].extensions?.errorId).toBe(logged[0].errorId)
  })

  it('sends no stack trace in development unless a developer opts in with GRAPHQL_STACK_TRACES', async () => {
    const plain = await gql(`${gateways.development.url}/graphql`, '{ me { usr { id } } }', {}, token)
    expect(JSON.stringify(plain.body)).not.toMatch(/stacktrace/)
    const optedIn = await startGateway(false, { stackTraces: true })
    try {
      const r = await gql(`${optedIn.url}/graphql`, '{ me { usr { id } } }', {}, token)
      expect(JSON.stringify(r.body)).toMatch(/stacktrace/)
    } finally {
      await optedIn.gateway.close()
    }
  })
})

describe('subscription limits', () => {
  it('refuses a subscription over the per-socket and per-person caps with TOO_MANY_SUBSCRIPTIONS', async () => {
    const capped = await startGateway(false, { subscriptionLimits: { perSocket: 3, perUser: 5 } })
    const one = socket(capped.url)
    const two = socket(capped.url)
    try {
      const subs = Array.from({ length: 3 }, () => collect(one.client, 'subscription { inboxChanged { id } }', 1, 60_000))
      await waitFor(() => capped.gateway.bridge.activeCount === 3)
      const refused = await overWs(one.client, 'subscription { inboxChanged { id } }')
      expect(codeOf(refused)).toBe('TOO_MANY_SUBSCRIPTIONS')
      subs.push(...Array.from({ length: 2 }, () => collect(two.client, 'subscription { inboxChanged { id } }', 1, 60_000)))
      await waitFor(() => capped.gateway.bridge.activeCount === 5)
      const overPerson = await overWs(two.client, 'subscription { inboxChanged { id } }')
      expect(codeOf(overPerson)).toBe('TOO_MANY_SUBSCRIPTIONS')
      subs[0].unsubscribe()
      await waitFor(() => capped.gateway.bridge.activeCount === 4)
      collect(one.client, 'subscription { inboxChanged { id } }', 1, 60_000)
      await waitFor(() => capped.gateway.bridge.activeCount === 5)
      expect(one.closes).toEqual([])
    } finally {
      await one.client.dispose()
      await two.client.dispose()
      await capped.gateway.close()
    }
  })

  it('closes a socket whose connection_init carries an expired token with 4401, and a garbage or missing one with 4403, each saying what to do', async () => {
    const { privateKey, kid } = await devKeyPair()
    const expired = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256', kid }).setSubject(tenant.users.scientist.id)
      .setIssuer(env().AUTH_ISSUER).setAudience(env().AUTH_AUDIENCE).setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600).sign(privateKey)
    const closeOf = async (bearer: string | undefined) => {
      const closes: { code: number; reason: string }[] = []
      const client = wsClient(`${stack.current.gatewayUrl}/graphql`, bearer, { on: { closed: (e: any) => closes.push({ code: e.code, reason: e.reason }) } })
      const sub = collect(client, 'subscription { inboxChanged { id } }', 1)
      await sub.finished
      await client.dispose()
      return closes[0]
    }
    expect(await closeOf(expired)).toEqual({ code: 4401, reason: 'The bearer token has expired: reconnect with a fresh one.' })
    expect(await closeOf('garbage')).toEqual({ code: 4403, reason: 'The bearer token is not valid: send a valid one as authorization in connection_init.' })
    expect(await closeOf(undefined)).toEqual({ code: 4403, reason: CONNECTION_INIT_SHAPE_REASON })
  })

  it('closes a socket with 4401 when its bearer token expires, and the subscription receives nothing after', async () => {
    const shortLived = await mintDevToken(tenant.users.scientist, '3s')
    const { client, closes } = socket(stack.current.gatewayUrl, shortLived)
    const sub = collect(client, 'subscription { inboxChanged { id } }', 1, 20_000)
    await waitFor(() => closes.length > 0, 15_000)
    expect(closes[0]).toEqual({ code: 4401, reason: 'The bearer token has expired: reconnect with a fresh one.' })
    await sub.finished
    expect(JSON.stringify(sub.received)).not.toMatch(/"data"/)
    await client.dispose()
  })
})

describe('bursts', () => {
  it('delivers 1,000 inbox items expired in one transaction to a reading subscriber, with far fewer entity fetches than events', async () => {
    const user = tenant.users.program_lead
    const past = new Date(Date.now() - 60_000)
    await stack.db.db.inboxItem.createMany({ data: Array.from({ length: 1000 }, (_, i) => ({
      organizationId: tenant.organization.id, userId: user.id, programId: tenant.program.id, kind: 'decision',
      sourceType: 'proposal', sourceId: `burst-${i}`, title: `Burst ${i}`, dueAt: past,
    })) })
    let workbenchRequests = 0
    const count = () => { workbenchRequests++ }
    stack.current.subgraphs.workbench.httpServer.on('request', count)
    const client = createClient({ url: stack.current.gatewayUrl.replace(/^http/, 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { authorization: `Bearer ${await tenant.token('program_lead')}` } })
    try {
      const sub = collect(client, 'subscription { inboxChanged { id status program { name } } }', 1000, 60_000)
      await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount >= 1)
      const { sweepInbox } = await import('../../domain/inbox')
      await sweepInbox(stack.db.db)
      await sub.finished
      expect(sub.received.filter((m) => m.errors)).toEqual([])
      expect(new Set(sub.received.map((m: any) => m.data.inboxChanged.id)).size).toBe(1000)
      expect(sub.received.every((m: any) => m.data.inboxChanged.status === 'expired' && m.data.inboxChanged.program.name === tenant.program.name)).toBe(true)
      expect(workbenchRequests).toBeLessThan(200)
    } finally {
      stack.current.subgraphs.workbench.httpServer.off('request', count)
      await client.dispose()
    }
  })
})
