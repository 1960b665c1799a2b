// Renewal in real Chromium against a real OpenID provider that issues refresh tokens: a minute before the access token
// expires the console exchanges the refresh token for a new one, without leaving the page and without a new sign-in
// (the person's auth_time stays that of their sign-in), and the gateway accepts the new token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as jose from 'jose'
import type { Browser, Page } from 'playwright-core'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { launchChromium } from '../helpers/browser'
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider'
import { createGateway, type Gateway } from '../../gateway/server'
import { env, setEnv, type Env } from '../../core/config'
import { resetAuthKeys } from '../../core/identity'
import { freePort } from '../../core/database'

const stack = useStack()
const CLIENT_ID = 'evidence-console'
/** The console renews a minute before expiry: five seconds after signing in. */
const ACCESS_TOKEN_TTL_S = 65

let tenant: Tenant
let provider: TestProvider
let gateway: Gateway
let base = ''
let browser: Browser
let page: Page
let previousEnv: Env

const stored = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('console:session') ?? 'null') as { token: string; authTime: number; refreshToken?: string } | null)

beforeAll(async () => {
  tenant = await createTenant(stack.db.db, 'Renewal')
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  provider = await startTestProvider({
    clientId: CLIENT_ID, redirectUris: [`${origin}/sign-in/callback`], postLogoutRedirectUris: [`${origin}/sign-in`],
    audience: env().AUTH_AUDIENCE, accessTokenTtlSeconds: ACCESS_TOKEN_TTL_S, refreshTokens: true,
    people: Object.values(tenant.users).map((u) => ({ email: u.email, name: u.name })),
  })
  previousEnv = env()
  setEnv({ ...previousEnv, AUTH_JWKS_URL: provider.jwksUrl, AUTH_ISSUER: provider.issuer, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT_ID })
  resetAuthKeys()
  gateway = await createGateway({ db: stack.db.db, databaseUrl: stack.db.url, subgraphUrls: stack.current.subgraphUrls, production: true, dataDir: stack.db.dataDir })
  base = await gateway.listen(port, '127.0.0.1')
  browser = await launchChromium()
  page = await (await browser.newContext()).newPage()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await gateway?.close()
  await provider?.close()
  if (previousEnv) setEnv(previousEnv)
  resetAuthKeys()
})

describe('renewing the sign-in with a refresh token', { timeout: 90_000 }, () => {
  it('exchanges the refresh token for a new access token before expiry, on the same page, keeping when the person signed in', async () => {
    await page.goto(`${base}/`)
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click()
    await page.waitForURL((u) => u.origin === provider.issuer, { timeout: 20_000 })
    await page.locator('input[name="login"]').fill(tenant.users.program_lead.email)
    await page.locator('input[name="password"]').fill('any password will do')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Your programs' }).waitFor({ timeout: 20_000 })
    const first = (await stored())!
    expect(first.refreshToken).toBeTruthy()

    const navigations: string[] = []
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations.push(f.url()) })
    await expect.poll(async () => (await stored())?.token, { timeout: 30_000 }).not.toBe(first.token)
    const renewed = (await stored())!
    expect(navigations).toEqual([]) // no trip to the provider's pages
    expect(renewed.authTime).toBe(first.authTime)
    expect(jose.decodeJwt(renewed.token).auth_time).toBe(first.authTime)
    const me = await gql(`${base}/graphql`, '{ me { user { id } } }', {}, renewed.token)
    expect(me.body.data.me.user.id).toBe(tenant.users.program_lead.id)
    expect(await page.getByTestId('session-ending').count()).toBe(0)
  })
})
