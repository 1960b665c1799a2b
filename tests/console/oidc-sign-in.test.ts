// Production sign-in in real Chromium against a real OpenID provider (panva's oidc-provider, started here): the
// console sends the browser to the provider and back (authorization code, PKCE S256, state and nonce), keeps the token
// only in the tab, offers to sign in again before it expires, asks the provider for a fresh sign-in before a signature
// (prompt=login) and stores when it happened, and signs out at the provider too. The gateway runs in production mode:
// the development sign-in does not exist there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as jose from 'jose'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { launchChromium, openGraphiql, runGraphiqlOperation } from '../helpers/browser'
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider'
import { createGateway, type Gateway } from '../../gateway/server'
import { env, EnvError, parseEnv, setEnv, type Env } from '../../core/config'
import { resetAuthKeys } from '../../core/identity'
import { freePort } from '../../core/database'

const stack = useStack()
const CLIENT_ID = 'evidence-console'
/** Short, so the test sees a sign-in go stale (the console steps up 5 s this side of it). */
const MAX_AUTH_AGE_S = 20
/** Short enough that "sign in again" is offered (two minutes before expiry) as soon as the person signs in. */
const ACCESS_TOKEN_TTL_S = 125

let tenant: Tenant
let gateId = ''
let provider: TestProvider
let gateway: Gateway
let base = ''
/** A development gateway beside the identity provider: GraphiQL is served there, the development sign-in is not. */
let devGateway: Gateway
let devBase = ''
let browser: Browser
let context: BrowserContext
let page: Page
let previousEnv: Env


async function call(token: string, query: string, variables: Record<string, unknown> = {}) {
  const r = await gql(`${stack.current.gatewayUrl}/graphql`, query, variables, token)
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}

/** A ready stage gate in the tenant's program, set up with development tokens before the identity provider takes over. */
async function readyGate(t: Tenant): Promise<string> {
  const db = stack.db.db
  const stages = await Promise.all(['discovery', 'preclinical'].map((key, position) =>
    db.programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key === 'discovery' ? 'Discovery' : 'Preclinical', position } })))
  const owner = await t.token('program_owner')
  const created = await call(owner, `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ... on MutationCreateRecordSuccess { record { id } } } }`,
    { i: { programId: t.program.id, recordType: 'evidence.findings', title: 'Rat liver weights, day 28', fields: { kind: 'result', species: 'rat', dose_mg_per_kg: 30 } } })
  const recordId = created.createRecord.record.id as string
  const opened = await call(await t.token('program_lead'), `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { ... on MutationOpenStageGateSuccess { gate { id } } } }`,
    { i: { programId: t.program.id, stageId: stages[0].id, nextStageId: stages[1].id, requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.findings', recordId }] } })
  await call(owner, `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id: recordId, outcome: 'confirm' } })
  const id = opened.openStageGate.gate.id as string
  const ready = await call(owner, `mutation($id: ID!) { markStageGateReady(id: $id) { __typename } }`, { id })
  expect(ready.markStageGateReady.__typename).toBe('MutationMarkStageGateReadySuccess')
  return id
}

/** The provider's own sign-in page (its development interactions): any password. */
async function signInAtProvider(email: string, on: Page = page) {
  const page = on
  await page.waitForURL((u) => u.origin === provider.issuer, { timeout: 20_000 }).catch(async (e) => {
    throw new Error(`${e}: at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`)
  })
  await page.locator('input[name="login"]').fill(email)
  await page.locator('input[name="password"]').fill('any password will do')
  await page.getByRole('button', { name: 'Sign-in' }).click()
}

const stored = () => page.evaluate(() => {
  const w = globalThis as any
  return {
    session: JSON.parse(w.sessionStorage.getItem('console:session') ?? 'null') as { token: string; authTime: number; idToken?: string } | null,
    local: Object.keys(w.localStorage),
    cookies: String(w.document.cookie),
  }
})

beforeAll(async () => {
  tenant = await createTenant(stack.db.db, 'Signin')
  gateId = await readyGate(tenant)
  const port = await freePort()
  const devPort = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const devOrigin = `http://127.0.0.1:${devPort}`
  provider = await startTestProvider({
    clientId: CLIENT_ID, redirectUris: [`${origin}/sign-in/callback`, `${devOrigin}/sign-in/callback`],
    postLogoutRedirectUris: [`${origin}/sign-in`, `${devOrigin}/sign-in`],
    audience: env().AUTH_AUDIENCE, accessTokenTtlSeconds: ACCESS_TOKEN_TTL_S,
    people: Object.values(tenant.users).map((u) => ({ email: u.email, name: u.name })),
  })
  previousEnv = env()
  setEnv({
    ...previousEnv, AUTH_JWKS_URL: provider.jwksUrl, AUTH_ISSUER: provider.issuer,
    OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_SCOPES: 'openid email profile',
    SIGNATURE_AUTH_MAX_AGE_SECONDS: MAX_AUTH_AGE_S,
  })
  resetAuthKeys()
  gateway = await createGateway({ db: stack.db.db, databaseUrl: stack.db.url, subgraphUrls: stack.current.subgraphUrls, production: true, dataDir: stack.db.dataDir })
  base = await gateway.listen(port, '127.0.0.1')
  devGateway = await createGateway({ db: stack.db.db, databaseUrl: stack.db.url, subgraphUrls: stack.current.subgraphUrls, dataDir: stack.db.dataDir })
  devBase = await devGateway.listen(devPort, '127.0.0.1')
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
}, 180_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await gateway?.close()
  await devGateway?.close()
  await provider?.close()
  if (previousEnv) setEnv(previousEnv)
  resetAuthKeys()
})

describe('signing in with the organisation\'s identity provider (production)', { timeout: 120_000 }, () => {
  it('refuses to start with an issuer and no client id (or the reverse), naming what is missing', () => {
    expect(() => parseEnv({ OIDC_ISSUER: 'https://id.example.org' })).toThrow(EnvError)
    expect(() => parseEnv({ OIDC_ISSUER: 'https://id.example.org' })).toThrow(/OIDC_CLIENT_ID: required with OIDC_ISSUER/)
    expect(() => parseEnv({ OIDC_CLIENT_ID: 'console' })).toThrow(/OIDC_ISSUER: required with OIDC_CLIENT_ID/)
    expect(() => parseEnv({ OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'console', OIDC_SCOPES: 'email profile' })).toThrow(/OIDC_SCOPES: must include openid/)
    expect(parseEnv({ OIDC_ISSUER: 'https://id.example.org', OIDC_CLIENT_ID: 'console' })).toMatchObject({ OIDC_SCOPES: 'openid email profile', SIGNATURE_AUTH_MAX_AGE_SECONDS: 300 })
  })

  it('serves nothing of the development sign-in: no people list, no token minting, and a page offering the provider', async () => {
    expect((await fetch(`${base}/api/dev/people`)).status).toBe(404)
    expect((await fetch(`${base}/api/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"owner@illustrative.example"}' })).status).toBe(404)
    const config = await (await fetch(`${base}/console-config.json`)).json()
    expect(config).toEqual({ gatewayUrl: '', signIn: { issuer: provider.issuer, clientId: CLIENT_ID, scopes: 'openid email profile' }, signatureMaxAgeSeconds: MAX_AUTH_AGE_S })
    // the page may reach the provider (discovery, token) and nothing else beyond itself
    const csp = (await fetch(`${base}/`, { headers: { accept: 'text/html' } })).headers.get('content-security-policy')!
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${new URL(base).port} wss://127.0.0.1:${new URL(base).port} ${provider.issuer};`)

    await page.goto(`${base}/p/${tenant.program.slug}/stage-gates`)
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/sign-in')
    await page.getByRole('button', { name: 'Sign in with your organisation' }).waitFor()
    expect(await page.getByRole('heading', { name: 'Choose a person from the illustrative program' }).count()).toBe(0)
    expect(await page.locator('input[type="password"]').count()).toBe(0) // no pasted token either
  })

  it('goes to the provider and back (code with PKCE S256, state, nonce), keeping the token in the tab only', async () => {
    const authorize: URL[] = []
    page.on('request', (r) => { if (r.url().startsWith(`${provider.issuer}/auth`)) authorize.push(new URL(r.url())) })
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click()
    await signInAtProvider(tenant.users.quality_reviewer.email)
    await page.getByRole('heading', { level: 1, name: 'Stage gates' }).waitFor({ timeout: 20_000 })
    expect(new URL(page.url()).pathname).toBe(`/p/${tenant.program.slug}/stage-gates`) // back where the person was going

    const asked = authorize[0].searchParams
    expect(asked.get('response_type')).toBe('code')
    expect(asked.get('code_challenge_method')).toBe('S256')
    expect(asked.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(asked.get('state')).toBeTruthy()
    expect(asked.get('nonce')).toBeTruthy()
    expect(asked.get('redirect_uri')).toBe(`${base}/sign-in/callback`)
    expect(asked.get('client_id')).toBe(CLIENT_ID)

    const { session, local, cookies } = await stored()
    expect(local).toEqual([])
    expect(cookies).toBe('')
    // cookies are per host, not per port: the only ones here are the provider's own (its session), none holds the token
    for (const cookie of await context.cookies(base)) {
      expect(cookie.name).toMatch(/^_(session|interaction)/)
      expect(cookie.value).not.toContain(session!.token.split('.')[2])
    }
    const claims = jose.decodeJwt(session!.token)
    expect(claims).toMatchObject({ iss: provider.issuer, aud: env().AUTH_AUDIENCE, email: tenant.users.quality_reviewer.email })
    expect(session!.authTime).toBe(claims.auth_time)
    // the gateway knows the person by the provider's token
    const me = await gql(`${base}/graphql`, '{ me { user { id } } }', {}, session!.token)
    expect(me.body.data.me.user.id).toBe(tenant.users.quality_reviewer.id)
    await page.locator(`[data-gate="${gateId}"]`).waitFor()
  })

  it('offers to sign in again before the token expires, and comes back to the same page with a new token', async () => {
    const before = (await stored()).session!.token
    const line = page.getByTestId('session-ending')
    await line.waitFor({ timeout: 20_000 })
    expect(await line.innerText()).toMatch(/^Your sign-in ends at .+\. Sign in again$/)
    await line.getByRole('button', { name: 'Sign in again' }).click()
    // the provider still knows the person: no password asked, straight back
    await page.waitForURL((u) => u.origin === base && u.pathname === `/p/${tenant.program.slug}/stage-gates`, { timeout: 20_000 })
    await page.getByRole('heading', { level: 1, name: 'Stage gates' }).waitFor()
    expect((await stored()).session!.token).not.toBe(before)
  })

  it('asks the provider for a fresh sign-in before a signature, and the signature keeps when it happened', async () => {
    const first = (await stored()).session!.authTime
    const card = page.locator(`[data-gate="${gateId}"]`)
    // wait until the sign-in is older than a signature allows
    await page.waitForTimeout(Math.max(0, (first + MAX_AUTH_AGE_S) * 1000 - Date.now() + 1000))
    await card.getByRole('button', { name: 'Review and sign', exact: true }).click()
    await card.getByTestId('fresh-sign-in').waitFor()
    expect(await card.getByRole('button', { name: 'Sign the review', exact: true }).count()).toBe(0)
    // the service refuses the stale sign-in too, with its code
    const stale = await gql(`${base}/graphql`, `mutation($id: ID!) { reviewStageGate(id: $id, signature: { meaning: review }) { __typename ... on Error { code message } } }`, { id: gateId }, (await stored()).session!.token)
    expect(stale.body.data.reviewStageGate).toMatchObject({ __typename: 'FreshSignInRequired', code: 'fresh_sign_in_required' })
    await card.getByLabel('Comment (optional)').fill('Read all three reports.')

    const authorize: URL[] = []
    page.on('request', (r) => { if (r.url().startsWith(`${provider.issuer}/auth`)) authorize.push(new URL(r.url())) })
    await card.getByRole('button', { name: 'Sign in again to sign' }).click()
    // the provider asks for the password again, although its session is live (prompt=login, max_age=0)
    await signInAtProvider(tenant.users.quality_reviewer.email)
    expect(authorize[0].searchParams.get('prompt')).toBe('login')
    expect(authorize[0].searchParams.get('max_age')).toBe('0')
    await page.waitForURL((u) => u.origin === base && u.pathname === `/p/${tenant.program.slug}/stage-gates`, { timeout: 20_000 })
    const again = page.locator(`[data-gate="${gateId}"]`)
    await again.getByText('You signed in again. Sign the review to finish.').waitFor()
    expect(await again.getByLabel('Comment (optional)').inputValue()).toBe('Read all three reports.')
    const fresh = (await stored()).session!.authTime
    expect(fresh).toBeGreaterThan(first)
    await again.getByRole('button', { name: 'Sign the review', exact: true }).click()
    await again.getByText(/^Reviewed by /).waitFor()

    const signature = await stack.db.db.signature.findFirstOrThrow({ where: { targetType: 'stage_gate', targetId: gateId } })
    expect(signature.signerUserId).toBe(tenant.users.quality_reviewer.id)
    expect(signature.authenticatedAt!.getTime()).toBe(fresh * 1000)
  })

  it('signs out at the provider too, and the tab holds no token afterwards', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL((u) => u.origin === provider.issuer, { timeout: 20_000 })
    expect(new URL(page.url()).pathname).toMatch(/^\/session\/end/)
    await page.getByRole('button', { name: 'Yes, sign me out' }).click()
    await page.waitForURL((u) => u.origin === base && u.pathname === '/sign-in', { timeout: 20_000 })
    await page.getByRole('button', { name: 'Sign in with your organisation' }).waitFor()
    expect(await page.evaluate(() => Object.keys((globalThis as any).sessionStorage))).not.toContain('console:session')
    // the provider's session is gone: signing in asks for the password again
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click()
    await page.waitForURL((u) => u.origin === provider.issuer, { timeout: 20_000 })
    await page.locator('input[name="password"]').waitFor()
  })

  it('signs GraphiQL in through the same sign-in, and runs an operation as the person', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const tab = await other.newPage()
      expect((await fetch(`${devBase}/api/dev/people`)).status).toBe(404) // beside an identity provider: none
      await openGraphiql(tab, `${devBase}/graphiql`)
      await tab.getByRole('link', { name: 'Sign in with your organisation' }).click()
      await tab.getByRole('button', { name: 'Sign in with your organisation' }).click()
      await signInAtProvider(tenant.users.scientist.email, tab)
      await tab.waitForURL((u) => u.origin === devBase && u.pathname === '/graphiql', { timeout: 20_000 })
      await openGraphiql(tab, tab.url())
      await tab.locator('[data-testid="token-status"][data-state="set"]').waitFor()
      const result = await runGraphiqlOperation(tab, '{ me { user { id } } }', /"id"/)
      expect(result).toContain(tenant.users.scientist.id)
    } finally {
      await other.close()
    }
  })
})
