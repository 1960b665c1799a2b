import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverAudits } from 'graphql-http'
import type { Browser } from 'playwright-core'
import { fileInboxItem } from '../../domain/inbox'
import { createGateway } from '../../gateway/server'
import { maskUnexpected } from '../../subgraphs/shared/server'
import { useStack, gql } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { launchChromium, openGraphiql, runGraphiqlOperation, setGraphiqlToken, watchPage, waitForGraphiqlResult, setGraphiqlOperation, clickGraphiqlRun } from '../helpers/browser'

const stack = useStack()
let token = ''
let tenant: Awaited<ReturnType<typeof createTenant>>
beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
  token = await tenant.token('program_lead')
})

describe('GraphQL over HTTP compliance (graphql-http serverAudits)', () => {
  // The audits are generated from the package; each MUST becomes its own test.
  const audits = serverAudits({
    url: () => `${stack.current.gatewayUrl}/graphql`,
    fetchFn: (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers)
      headers.set('authorization', `Bearer ${token}`)
      return fetch(input, { ...init, headers })
    },
  })
  for (const audit of audits.filter((a) => a.name.startsWith('MUST'))) {
    it(`passes the audit: ${audit.name}`, async () => {
      const result = await audit.fn()
      expect(result.status, 'reason' in result ? result.reason : '').toBe('ok')
    })
  }
})

describe('gateway protection', () => {
  it('refuses a query deeper than the depth limit', async () => {
    const deep = '{ me { programs { program { members { nodes { user { id } } } organization { name } } } } }'
    expect((await gql(`${stack.current.gatewayUrl}/graphql`, deep, {}, token)).body.errors).toBeUndefined()
    const nested = `query { __schema { types { fields { type { ${'ofType { '.repeat(30)}name${' }'.repeat(30)} } } } } }`
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, nested, {}, token)
    expect(r.body.errors?.[0].message).toMatch(/depth/i)
  })

  it('refuses a query with too many aliases', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: me { user { id } }`).join(' ')
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{ ${aliases} }`, {}, token)
    expect(r.body.errors?.[0].message).toMatch(/alias/i)
  })

  it('answers 413 with a GraphQL-shaped error for a body over 1 MB', async () => {
    const res = await fetch(`${stack.current.gatewayUrl}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ me { user { id } } }', variables: { pad: 'x'.repeat(1_100_000) } }),
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('masks an unexpected error behind a reference and keeps deliberate errors as they are', () => {
    const masked = maskUnexpected({ message: 'connect ECONNREFUSED 10.0.0.1:5432 password=hunter2', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, new Error('boom'))
    expect(masked.message).toMatch(/^Unexpected error \(reference [0-9a-f-]{36}\)\.$/)
    expect(JSON.stringify(masked)).not.toContain('hunter2')
    const deliberate = { message: 'You do not hold the permission x here.', extensions: { code: 'FORBIDDEN' } }
    expect(maskUnexpected(deliberate, new Error('x'))).toBe(deliberate)
  })

  it('turns off introspection and GraphiQL in production mode', async () => {
    const prod = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, production: true, dataDir: stack.db.dataDir })
    const url = await prod.listen(0, '127.0.0.1')
    try {
      const r = await gql(`${url}/graphql`, '{ __schema { queryType { name } } }', {}, token)
      expect(r.body.errors?.[0].message).toMatch(/introspection/i)
      expect((await fetch(`${url}/graphiql`)).status).toBe(404)
      const ok = await gql(`${url}/graphql`, '{ me { user { name } } }', {}, token)
      expect(ok.body.data.me.user.name).toBe(tenant.users.program_lead.name)
    } finally {
      await prod.close()
    }
  })
})

describe('GraphiQL served by the gateway', () => {
  let browser: Browser
  beforeAll(async () => { browser = await launchChromium() })
  afterAll(async () => { await browser?.close() })

  it('loads with zero console errors, runs a query with the pasted token and receives a subscription event', async () => {
    const page = await browser.newPage()
    const watch = watchPage(page)
    await openGraphiql(page, `${stack.current.gatewayUrl}/graphiql`)
    await setGraphiqlToken(page, token)
    const result = await runGraphiqlOperation(page, '{ me { user { name } } }', new RegExp(tenant.users.program_lead.name))
    expect(result).toContain(tenant.users.program_lead.name)

    await setGraphiqlOperation(page, 'subscription { inboxChanged { title program { name } } }')
    await clickGraphiqlRun(page)
    // File an item once the subscription is live through the gateway.
    const until = Date.now() + 10_000
    while (stack.current.subgraphs.twins.inboxEvents.subscriberCount === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    await stack.db.db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: tenant.organization.id, userId: tenant.users.program_lead.id, programId: tenant.program.id,
      kind: 'information', sourceType: 'note', sourceId: 'n-1', title: 'Seen in GraphiQL',
    }))
    const event = await waitForGraphiqlResult(page, /Seen in GraphiQL/)
    expect(event).toContain(tenant.program.name)
    await page.screenshot({ path: '/tmp/graphiql-gateway.png' })
    expect(watch.consoleErrors).toEqual([])
    expect(watch.foreignRequests).toEqual([])
    await page.close()
  })
})
