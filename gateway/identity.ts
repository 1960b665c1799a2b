// Owns who the gateway's caller is: verifies the bearer token (once per token), maps it to an active user, takes the
// person's session stamp (active, version) from gateway/session-stamps.ts (cached while PostgreSQL announces changes,
// read per request otherwise), and reuses one internal token per person and version across requests.
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { decodeJwt } from 'jose'
import type { Db } from '../core/database'
import { INTERNAL_TOKEN_TTL_MS, signInternalToken, verifyCallerToken, type CallerClaims } from '../core/identity'
import { tokenExpired, unauthenticated } from '../core/errors'
import { isId } from '../core/text'
import { boundedCache, ttlUntil } from '../core/config'
import { SessionStamps } from './session-stamps'

export interface CallerIdentity {
  userId: string
  organizationId: string
  requestId: string
  /** When the caller's token expires (ms since epoch): a socket is closed then, and no internal token is minted after. */
  expiresAt: number
  /** When the person authenticated at the identity provider (their token's auth_time, seconds), if it says. */
  authTime: number | null
  /** The internal token for subgraph calls; refreshed before it expires (long-lived subscriptions). */
  internalToken(): Promise<string>
}

/** Which user a token's subject or e-mail names: stable, so remembered (liveness comes from the session stamp, not here). */
const SUBJECT_CACHE_MS = 5 * 60_000
/** A verified caller token is remembered until it expires, at most this long. */
const CALLER_TOKEN_CACHE_MS = 5 * 60_000
/** An internal token is reused until this long before its expiry (they live 60 s), so a subgraph never sees it expire. */
const INTERNAL_TOKEN_MARGIN_MS = 20_000
const MAX_ENTRIES = 10_000

export class IdentityResolver {
  /** the user a token's subject and e-mail name (null: nobody), for SUBJECT_CACHE_MS */
  private readonly subjects = boundedCache<string, { userId: string | null }>({ max: MAX_ENTRIES, ttlMs: SUBJECT_CACHE_MS })
  /** verified caller tokens (by Authorization header) with their expiry, each until min(expiry, CALLER_TOKEN_CACHE_MS) */
  private readonly callerTokens = boundedCache<string, { claims: CallerClaims; expiresAt: number }>({ max: MAX_ENTRIES })
  /** internal tokens by person, organisation and session version, each until INTERNAL_TOKEN_MARGIN_MS before it expires */
  private readonly internalTokens = boundedCache<string, Promise<string>>({ max: MAX_ENTRIES, ttlMs: INTERNAL_TOKEN_TTL_MS - INTERNAL_TOKEN_MARGIN_MS })
  /** Session stamps: `stamps.reads` counts database reads (tests), `stamps.listening` says whether the cache is trusted. */
  readonly stamps: SessionStamps
  /** `listenUrl`: LISTEN there for session changes and cache stamps meanwhile; without it every request reads. */
  constructor(private readonly db: Db, pool?: pg.Pool, listenUrl?: string) {
    this.stamps = new SessionStamps(db, pool, listenUrl)
  }

  /** Stops listening (the gateway's close). */
  close(): Promise<void> {
    return this.stamps.close()
  }

  private async userIdOf(sub: string, email: string | undefined): Promise<string | null> {
    const key = `${sub}|${email ?? ''}`
    const hit = this.subjects.get(key)
    if (hit) return hit.userId
    const select = { id: true }
    const row = (isId(sub) ? await this.db.user.findUnique({ where: { id: sub }, select }) : null)
      ?? (email ? await this.db.user.findUnique({ where: { email }, select }) : null)
    this.subjects.set(key, { userId: row?.id ?? null })
    return row?.id ?? null
  }

  /** The caller's claims; a token is verified once, then remembered until it expires (at most CALLER_TOKEN_CACHE_MS). */
  private async claimsOf(authorization: string | undefined | null): Promise<{ claims: CallerClaims; expiresAt: number }> {
    const key = authorization ?? ''
    const hit = this.callerTokens.get(key)
    if (hit) {
      if (Date.now() >= hit.expiresAt) throw tokenExpired()
      return hit
    }
    const claims = await verifyCallerToken(authorization)
    // Verified just above; decoding again only reads its expiry (a token without one lives as long as the socket).
    const exp = decodeJwt(/^Bearer\s+(\S+)$/i.exec(key)![1]).exp
    const expiresAt = typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY
    this.callerTokens.set(key, { claims, expiresAt }, { ttl: ttlUntil(Math.min(expiresAt, Date.now() + CALLER_TOKEN_CACHE_MS)) })
    return { claims, expiresAt }
  }

  /**
   * One internal token per person, organisation, session version and authentication time (a fresh sign-in for a
   * signature is a new one), reused across requests until near expiry.
   */
  private internalTokenFor(userId: string, organizationId: string, sessionVersion: number, authTime: number | null): Promise<string> {
    const key = `${userId}|${organizationId}|${sessionVersion}|${authTime ?? ''}`
    const hit = this.internalTokens.get(key)
    if (hit) return hit
    const token = signInternalToken({ userId, organizationId, sessionVersion, authTime })
    this.internalTokens.set(key, token)
    token.catch(() => { if (this.internalTokens.peek(key) === token) this.internalTokens.delete(key) })
    return token
  }

  /**
   * UNAUTHENTICATED for a missing, invalid or expired token, and for a person unknown here or deactivated. The stamp is
   * current: deactivation and permission changes apply to the next request (the argument is in session-stamps.ts).
   */
  async resolve(authorization: string | undefined | null): Promise<CallerIdentity> {
    const { claims, expiresAt } = await this.claimsOf(authorization)
    const userId = await this.userIdOf(claims.sub, claims.email)
    const stamp = userId ? await this.stamps.read(userId) : null
    if (!stamp || !stamp.active) throw unauthenticated('Your account is not active in this service.')
    const requestId = randomUUID()
    const authTime = claims.authTime ?? null
    return {
      userId: stamp.userId, organizationId: stamp.organizationId, requestId, expiresAt, authTime,
      internalToken: async () => {
        if (Date.now() >= expiresAt) throw tokenExpired()
        return this.internalTokenFor(stamp.userId, stamp.organizationId, stamp.version, authTime)
      },
    }
  }
}
