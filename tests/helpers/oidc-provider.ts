// A real OpenID provider for tests: panva's oidc-provider (OpenID Certified), on a free port of 127.0.0.1, with its
// development sign-in pages (any password), one public client for the console (authorization code, PKCE S256, no
// secret, refresh tokens when offline_access is asked for), JWT access tokens for the API carrying sub, email and
// auth_time, and RP-initiated logout. What an operator registers at their own provider is the same list
// (docs/operators.md: identity provider and console sign-in).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as jose from 'jose'
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import { track } from './resources'

export interface TestProviderOptions {
  clientId: string
  /** The console's /sign-in/callback, exactly. */
  redirectUris: string[]
  /** Where the provider may send the browser after sign-out (the console's /sign-in). */
  postLogoutRedirectUris: string[]
  /** The access token's `aud` (the gateway's AUTH_AUDIENCE). */
  audience: string
  /** People who may sign in: their login is their e-mail address. */
  people: { email: string; name: string }[]
  accessTokenTtlSeconds?: number
  /**
   * Issue refresh tokens to the console without offline_access (as many providers do for single-page applications
   * when the client is configured so); oidc-provider otherwise asks for offline_access with prompt=consent.
   */
  refreshTokens?: boolean
}

export interface TestProvider extends AsyncDisposable {
  issuer: string
  jwksUrl: string
  close(): Promise<void>
}

/** The resource indicator of the workspace API at this provider (its access tokens carry `aud` = the audience). */
export const API_RESOURCE = 'urn:evidence-workspace:api'
const API_SCOPE = 'workspace'

export async function startTestProvider(opts: TestProviderOptions): Promise<TestProvider> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
  const jwk = { ...(await jose.exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'test-es256' }
  const rsa = await jose.generateKeyPair('RS256', { extractable: true })
  const rsaJwk = { ...(await jose.exportJWK(rsa.privateKey)), alg: 'RS256', use: 'sig', kid: 'test-rs256' }
  const names = new Map(opts.people.map((p) => [p.email, p.name]))

  const configuration: Configuration = {
    clients: [{
      client_id: opts.clientId, token_endpoint_auth_method: 'none', application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      redirect_uris: opts.redirectUris, post_logout_redirect_uris: opts.postLogoutRedirectUris,
      id_token_signed_response_alg: 'ES256', require_auth_time: true,
    }],
    jwks: { keys: [jwk as never, rsaJwk as never] },
    cookies: { keys: ['a test provider cookie key, not a secret'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: API_SCOPE, audience: opts.audience, accessTokenFormat: 'jwt',
          accessTokenTTL: opts.accessTokenTtlSeconds ?? 3600, jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: sub, email_verified: true, name: names.get(sub) ?? sub }),
    }),
    // The API's access token says who (email) and when they authenticated (auth_time), as the gateway expects.
    extraTokenClaims: async (ctx: KoaContextWithOIDC, token) => {
      const entities = ctx.oidc.entities as { AuthorizationCode?: { authTime?: number }; RefreshToken?: { authTime?: number } }
      const authTime = entities.AuthorizationCode?.authTime ?? entities.RefreshToken?.authTime
      return { email: (token as { accountId?: string }).accountId, ...(authTime ? { auth_time: authTime } : {}) }
    },
    // The console is the organisation's own application: no consent page, the grant is made on first sign-in.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId)
      if (grantId) return ctx.oidc.provider.Grant.find(grantId)
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId })
      grant.addOIDCScope('openid email profile offline_access')
      grant.addResourceScope(API_RESOURCE, API_SCOPE)
      await grant.save()
      return grant
    },
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && (Boolean(opts.refreshTokens) || code.scopes.has('offline_access')),
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris!.some((uri) => new URL(uri).origin === origin),
  }
  const provider = new Provider(issuer, configuration)
  server.on('request', provider.callback())
  const close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  const handle = { issuer, jwksUrl: `${issuer}/jwks`, close, [Symbol.asyncDispose]: close }
  return track('the test OpenID provider', handle, close)
}
