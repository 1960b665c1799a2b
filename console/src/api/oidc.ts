// Owns signing in at the organisation's identity provider (OpenID Connect, authorization code with PKCE S256, through
// oauth4webapi): discovery from the issuer, the redirect there and back (/sign-in/callback, state and nonce checked),
// renewal with a refresh token where the provider issues one, a fresh sign-in for a signature (prompt=login,
// max_age), and sign-out that ends the provider's session where it offers end_session_endpoint.
import * as oauth from 'oauth4webapi'
import type { SignInSettings } from './config'
import { unverifiedClaims, type Session } from './session'

/** Where the provider sends the browser back: register exactly this (per console origin) at the provider. */
export const CALLBACK_PATH = '/sign-in/callback'
/** Where the provider sends the browser after signing out: register it as a post-logout redirect URI. */
export const SIGNED_OUT_PATH = '/sign-in'
/** The flow under way (PKCE verifier, state, nonce, where to return), for the one redirect there and back. */
const FLOW_KEY = 'console:oidc-flow'
/** A few seconds of clock difference between the provider and this browser. */
const CLOCK_SKEW_S = 30

interface Flow {
  verifier: string
  state: string
  nonce: string
  returnTo: string
  /** A fresh sign-in was asked for (a signature): the provider's auth_time must be from this flow. */
  fresh: boolean
  startedAt: number
}

const redirectUri = () => `${location.origin}${CALLBACK_PATH}`
const client = (s: SignInSettings): oauth.Client => ({ client_id: s.clientId })
/** Plain http only to a provider on this machine (development and tests); anywhere else oauth4webapi insists on https. */
const loopback = (issuer: URL) => issuer.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)
const insecure = (s: SignInSettings) => (loopback(new URL(s.issuer)) ? { [oauth.allowInsecureRequests]: true } : {})

let discovered: { issuer: string; as: Promise<oauth.AuthorizationServer> } | undefined
/** The provider's metadata from <issuer>/.well-known/openid-configuration (once per page). */
function discover(s: SignInSettings): Promise<oauth.AuthorizationServer> {
  if (discovered?.issuer !== s.issuer) {
    const issuer = new URL(s.issuer)
    const as = oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure(s) }).then((res) => oauth.processDiscoveryResponse(issuer, res))
    as.catch(() => { discovered = undefined })
    discovered = { issuer: s.issuer, as }
  }
  return discovered.as
}

function resourceParameter(s: SignInSettings): Record<string, string> {
  return s.audience ? { resource: s.audience } : {}
}

/**
 * Sends the browser to the provider's sign-in. `fresh`: the person must authenticate again (prompt=login, max_age=0),
 * as a signature needs; the provider's answer must then carry an auth_time from now.
 */
export async function beginSignIn(s: SignInSettings, opts: { returnTo: string; fresh?: boolean; loginHint?: string }): Promise<void> {
  const as = await discover(s)
  if (!as.authorization_endpoint) throw new Error('The identity provider names no authorization endpoint.')
  const verifier = oauth.generateRandomCodeVerifier()
  const flow: Flow = {
    verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(),
    returnTo: opts.returnTo.startsWith('/') && !opts.returnTo.startsWith('//') ? opts.returnTo : '/',
    fresh: Boolean(opts.fresh), startedAt: Date.now(),
  }
  const url = new URL(as.authorization_endpoint)
  const params: Record<string, string> = {
    client_id: s.clientId, redirect_uri: redirectUri(), response_type: 'code', scope: s.scopes,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    state: flow.state, nonce: flow.nonce, ...resourceParameter(s),
    ...(opts.fresh ? { prompt: 'login', max_age: '0' } : {}),
    ...(opts.loginHint ? { login_hint: opts.loginHint } : {}),
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  sessionStorage.setItem(FLOW_KEY, JSON.stringify(flow))
  location.assign(url.href)
}

function takeFlow(): Flow | null {
  try {
    const raw = sessionStorage.getItem(FLOW_KEY)
    sessionStorage.removeItem(FLOW_KEY)
    return raw ? (JSON.parse(raw) as Flow) : null
  } catch {
    return null
  }
}

/** The access token's auth_time where it is a JWT saying so (the gateway reads the same claim); else null. */
function accessTokenAuthTime(token: string): number | null {
  const authTime = unverifiedClaims(token).auth_time
  return typeof authTime === 'number' ? authTime : null
}

function sessionFrom(result: oauth.TokenEndpointResponse, previous?: Session): Session {
  const claims = oauth.getValidatedIdTokenClaims(result)
  // the ID token's auth_time (validated); a provider that leaves it out of ID tokens still puts it in the API's token
  const authTime = typeof claims?.auth_time === 'number' ? claims.auth_time
    : accessTokenAuthTime(result.access_token) ?? previous?.authTime ?? null
  return {
    token: result.access_token,
    authTime,
    email: typeof claims?.email === 'string' ? claims.email : previous?.email,
    idToken: result.id_token ?? previous?.idToken,
    refreshToken: result.refresh_token ?? previous?.refreshToken,
    expiresAt: typeof result.expires_in === 'number' ? Date.now() + result.expires_in * 1000 : undefined,
    source: 'provider',
  }
}

/** Completes the redirect back from the provider: the code for tokens, with state, nonce and PKCE checked. */
export async function completeSignIn(s: SignInSettings, callbackUrl: URL): Promise<{ session: Session; returnTo: string }> {
  const flow = takeFlow()
  if (!flow) throw new Error('This sign-in was not started in this tab.')
  const as = await discover(s)
  const params = oauth.validateAuthResponse(as, client(s), callbackUrl, flow.state)
  const res = await oauth.authorizationCodeGrantRequest(as, client(s), oauth.None(), params, redirectUri(), flow.verifier, {
    additionalParameters: resourceParameter(s), ...insecure(s),
  })
  const result = await oauth.processAuthorizationCodeResponse(as, client(s), res, { expectedNonce: flow.nonce, requireIdToken: true })
  const session = sessionFrom(result)
  if (flow.fresh && (session.authTime === null || session.authTime * 1000 < flow.startedAt - CLOCK_SKEW_S * 1000)) {
    throw new Error('The identity provider did not ask you to sign in again.')
  }
  return { session, returnTo: flow.returnTo }
}

/** A new access token from the refresh token (the provider's auth_time stays that of the sign-in). */
export async function renew(s: SignInSettings, session: Session): Promise<Session> {
  if (!session.refreshToken) throw new Error('no refresh token')
  const as = await discover(s)
  const res = await oauth.refreshTokenGrantRequest(as, client(s), oauth.None(), session.refreshToken, {
    additionalParameters: resourceParameter(s), ...insecure(s),
  })
  return sessionFrom(await oauth.processRefreshTokenResponse(as, client(s), res), session)
}

/** Ends the provider's session too where it offers end_session_endpoint (back to /sign-in); false where it does not. */
export async function endProviderSession(s: SignInSettings, session: Session | null): Promise<boolean> {
  const as = await discover(s).catch(() => null)
  if (!as?.end_session_endpoint) return false
  const url = new URL(as.end_session_endpoint)
  url.searchParams.set('client_id', s.clientId)
  url.searchParams.set('post_logout_redirect_uri', `${location.origin}${SIGNED_OUT_PATH}`)
  if (session?.idToken) url.searchParams.set('id_token_hint', session.idToken)
  location.assign(url.href)
  return true
}
