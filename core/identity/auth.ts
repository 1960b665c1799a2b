// Owns identity: verifying callers' bearer JWTs (JWKS or the development key) and the gateway's internal token.
import fs from 'node:fs/promises'
import path from 'node:path'
import * as jose from 'jose'
import { env } from '../config'
import { tokenExpired, unauthenticated } from '../errors'

const ALG = 'ES256'
const INTERNAL_ISSUER = 'urn:evidence-workspace:gateway'
const INTERNAL_AUDIENCE = 'urn:evidence-workspace:subgraph'
/**
 * The audience of the gateway's own token (the connection_init of a shared subgraph socket): another audience than a
 * person's internal token, so neither is ever accepted where the other is required.
 */
const GATEWAY_AUDIENCE = 'urn:evidence-workspace:subgraph-socket'
const INTERNAL_TTL_SECONDS = 60

type Key = Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey']
type KeyPair = { privateKey: Key; publicKey: Key; kid: string }

/** Loads or creates an ES256 key pair kept as a JWK file under DATA_DIR (development keys, gateway key). */
export async function loadOrCreateKeyPair(file: string): Promise<KeyPair> {
  try {
    const jwk = JSON.parse(await fs.readFile(file, 'utf8')) as jose.JWK & { kid: string }
    const privateKey = (await jose.importJWK(jwk, ALG)) as Key
    const { d: _d, ...publicJwk } = jwk
    const publicKey = (await jose.importJWK(publicJwk, ALG)) as Key
    return { privateKey, publicKey, kid: jwk.kid }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  const { privateKey } = await jose.generateKeyPair(ALG, { extractable: true })
  const jwk = await jose.exportJWK(privateKey)
  const kid = await jose.calculateJwkThumbprint(jwk)
  await fs.mkdir(path.dirname(file), { recursive: true })
  // wx: two processes starting together must not overwrite each other's key.
  await fs.writeFile(file, JSON.stringify({ ...jwk, kid, alg: ALG }), { mode: 0o600, flag: 'wx' }).catch(async (err) => {
    if (err.code === 'EEXIST') return
    throw err
  })
  return loadOrCreateKeyPair(file)
}

let devKeys: Promise<KeyPair> | undefined
let gatewayKeys: Promise<KeyPair> | undefined
let remoteJwks: ReturnType<typeof jose.createRemoteJWKSet> | undefined

/** The development key pair; never in production, where callers' tokens come only from AUTH_JWKS_URL. */
export const devKeyPair = () => {
  if (env().NODE_ENV === 'production') return Promise.reject(new Error('The development key pair is not used in production: set AUTH_JWKS_URL.'))
  return (devKeys ??= loadOrCreateKeyPair(path.join(env().DATA_DIR, 'keys', 'dev-auth.jwk.json')))
}
const gatewayKeyPair = () => (gatewayKeys ??= loadOrCreateKeyPair(path.join(env().DATA_DIR, 'keys', 'gateway-internal.jwk.json')))

/** Forget cached keys (tests point DATA_DIR elsewhere). */
export function resetAuthKeys() {
  devKeys = undefined
  gatewayKeys = undefined
  remoteJwks = undefined
}

export interface CallerClaims {
  sub: string
  email?: string
  /** When the person last authenticated at the identity provider (the token's `auth_time`, seconds since epoch). */
  authTime?: number
}

/** Verifies a caller's `Authorization: Bearer <JWT>`; every failure is UNAUTHENTICATED without details. */
export async function verifyCallerToken(authorization: string | undefined | null): Promise<CallerClaims> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  if (!match) throw unauthenticated()
  const e = env()
  try {
    const options = { issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE, clockTolerance: 5 }
    let payload: jose.JWTPayload
    if (e.AUTH_JWKS_URL) {
      remoteJwks ??= jose.createRemoteJWKSet(new URL(e.AUTH_JWKS_URL))
      payload = (await jose.jwtVerify(match[1], remoteJwks, options)).payload
    } else {
      payload = (await jose.jwtVerify(match[1], (await devKeyPair()).publicKey, { ...options, algorithms: [ALG] })).payload
    }
    if (!payload.sub) throw new Error('no subject')
    return {
      sub: payload.sub, email: typeof payload.email === 'string' ? payload.email : undefined,
      authTime: typeof payload.auth_time === 'number' && Number.isFinite(payload.auth_time) ? payload.auth_time : undefined,
    }
  } catch (err) {
    const expired = err instanceof jose.errors.JWTExpired
    throw expired ? tokenExpired() : unauthenticated('The bearer token is not valid.')
  }
}

/**
 * Mints a development token for a user (npm run token, the development sign-in). Refused when an external identity
 * provider is configured. Its `auth_time` is when it was minted (the person chose to sign in), unless given.
 */
export async function mintDevToken(user: { id: string; email: string }, ttl = '12h', opts: { authTime?: Date } = {}): Promise<string> {
  const e = env()
  if (e.AUTH_JWKS_URL) throw new Error('AUTH_JWKS_URL is set: tokens come from your identity provider, not from this service.')
  const { privateKey, kid } = await devKeyPair()
  return new jose.SignJWT({ email: user.email, auth_time: Math.floor((opts.authTime ?? new Date()).getTime() / 1000) })
    .setProtectedHeader({ alg: ALG, kid })
    .setSubject(user.id)
    .setIssuer(e.AUTH_ISSUER)
    .setAudience(e.AUTH_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(privateKey)
}

export interface InternalTokenInput {
  userId: string
  organizationId: string
  /**
   * The person's session version (session_versions) the gateway read for the request: a subgraph whose cached session
   * is older reloads it. Without one the subgraph never trusts a cached session.
   */
  sessionVersion?: number | null
  /** Only for tokens minted for one purpose (the REST edge); the gateway reuses a token across requests. */
  requestId?: string
  /** When the caller authenticated (their token's auth_time, seconds since epoch): what a signature checks and stores. */
  authTime?: number | null
}

export interface InternalIdentity {
  userId: string
  organizationId: string
  sessionVersion: number | null
  requestId: string
  /** When the token stops being valid (ms since epoch, clock tolerance included). */
  expiresAt: number
  /** When the person authenticated (seconds since epoch), from their token's auth_time; null when it carried none. */
  authTime: number | null
}

/** The short-lived token the gateway forwards to subgraphs in place of the caller's own token. */
export async function signInternalToken(identity: InternalTokenInput): Promise<string> {
  return signWithGatewayKey({
    org: identity.organizationId,
    ...(typeof identity.sessionVersion === 'number' ? { sv: identity.sessionVersion } : {}),
    ...(identity.requestId ? { rid: identity.requestId } : {}),
    ...(typeof identity.authTime === 'number' ? { at: identity.authTime } : {}),
  }, identity.userId, INTERNAL_AUDIENCE)
}

/** A short-lived token the gateway signs (issuer the gateway), for one audience: a person's, or the gateway's own. */
async function signWithGatewayKey(claims: jose.JWTPayload, subject: string, audience: string): Promise<string> {
  const { privateKey, kid } = await gatewayKeyPair()
  return new jose.SignJWT(claims)
    .setProtectedHeader({ alg: ALG, kid })
    .setSubject(subject)
    .setIssuer(INTERNAL_ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${INTERNAL_TTL_SECONDS}s`)
    .sign(privateKey)
}

export const INTERNAL_HEADER = 'x-internal-token'
export const INTERNAL_TOKEN_TTL_MS = INTERNAL_TTL_SECONDS * 1000
const CLOCK_TOLERANCE_S = 5

/** Subgraphs accept only this: a valid internal token signed by the gateway key. */
export async function verifyInternalToken(token: string | undefined | null): Promise<InternalIdentity> {
  if (!token) throw unauthenticated('This service only answers the gateway.')
  try {
    const { payload } = await jose.jwtVerify(token, (await gatewayKeyPair()).publicKey, {
      issuer: INTERNAL_ISSUER, audience: INTERNAL_AUDIENCE, algorithms: [ALG], clockTolerance: CLOCK_TOLERANCE_S,
    })
    return {
      userId: payload.sub!, organizationId: String(payload.org),
      sessionVersion: typeof payload.sv === 'number' ? payload.sv : null,
      requestId: String(payload.rid ?? ''),
      expiresAt: (payload.exp! + CLOCK_TOLERANCE_S) * 1000,
      authTime: typeof payload.at === 'number' ? payload.at : null,
    }
  } catch {
    throw unauthenticated('This service only answers the gateway.')
  }
}

/**
 * The gateway's own short-lived token: it names no person and proves only that the caller holds the gateway key. It
 * opens a subgraph socket that the gateway shares between people; every subscription on it carries its person's own
 * internal token (signInternalToken) in the subscribe message's extensions.
 */
export function signGatewayToken(): Promise<string> {
  return signWithGatewayKey({}, INTERNAL_ISSUER, GATEWAY_AUDIENCE)
}

/** A subgraph's check on a shared socket's connection_init: a valid gateway token (signGatewayToken), nothing else. */
export async function verifyGatewayToken(token: string | undefined | null): Promise<void> {
  if (!token) throw unauthenticated('This service only answers the gateway.')
  try {
    await jose.jwtVerify(token, (await gatewayKeyPair()).publicKey, {
      issuer: INTERNAL_ISSUER, audience: GATEWAY_AUDIENCE, subject: INTERNAL_ISSUER, algorithms: [ALG], clockTolerance: CLOCK_TOLERANCE_S,
    })
  } catch {
    throw unauthenticated('This service only answers the gateway.')
  }
}
