// Owns who the gateway's caller is: verifies the bearer token (once per token), maps it to an active user, takes the
// person's session stamp (active, version) from gateway/session-stamps.ts (cached while PostgreSQL announces changes,
// read per request otherwise), and reuses one internal token per person and version across requests.
import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { decodeJwt } from 'jose'
import type { Db } from '../core/db'
import { INTERNAL_TOKEN_TTL_MS, signInternalToken, verifyCallerToken, type CallerClaims } from '../core/auth'
import { tokenExpired, unauthenticated } from '../core/errors'
import { isId } from '../core/ids'
import { SessionStamps } from './session-stamps'

export interface CallerIdentity {
  userId: string
  organizationId: string
  requestId: string
  /** When the caller's token expires (ms since epoch): a socket is closed then, and no internal token is minted after. */
  expiresAt: number
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

function bounded<V>(map: Map<string, V>, key: string, value: V) {
  if (!map.has(key) && map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string)
  map.set(key, value)
}

export class IdentityResolver {
  private readonly subjects = new Map<string, { at: number; userId: string | null }>()
  private readonly callerTokens = new Map<string, { claims: CallerClaims; expiresAt: number; until: number }>()
  private readonly internalTokens = new Map<string, { token: Promise<string>; renewAt: number }>()
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
    if (hit && Date.now() - hit.at < SUBJECT_CACHE_MS) return hit.userId
    const select = { id: true }
    const row = (isId(sub) ? await this.db.user.findUnique({ where: { id: sub }, select }) : null)
      ?? (email ? await this.db.user.findUnique({ where: { email }, select }) : null)
    bounded(this.subjects, key, { at: Date.now(), userId: row?.id ?? null })
    return row?.id ?? null
  }

  /** The caller's claims; a token is verified once, then remembered until it expires (at most CALLER_TOKEN_CACHE_MS). */
  private async claimsOf(authorization: string | undefined | null): Promise<{ claims: CallerClaims; expiresAt: number }> {
    const key = authorization ?? ''
    const hit = this.callerTokens.get(key)
    const now = Date.now()
    if (hit && now < hit.until) {
      if (now >= hit.expiresAt) throw tokenExpired()
      return hit
    }
    const claims = await verifyCallerToken(authorization)
    // Verified just above; decoding again only reads its expiry (a token without one lives as long as the socket).
    const exp = decodeJwt(/^Bearer\s+(\S+)$/i.exec(key)![1]).exp
    const expiresAt = typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY
    bounded(this.callerTokens, key, { claims, expiresAt, until: Math.min(expiresAt, now + CALLER_TOKEN_CACHE_MS) })
    return { claims, expiresAt }
  }

  /** One internal token per person, organisation and session version, reused across requests until near expiry. */
  private internalTokenFor(userId: string, organizationId: string, sessionVersion: number): Promise<string> {
    const key = `${userId}|${organizationId}|${sessionVersion}`
    const hit = this.internalTokens.get(key)
    if (hit && Date.now() < hit.renewAt) return hit.token
    const token = signInternalToken({ userId, organizationId, sessionVersion })
    bounded(this.internalTokens, key, { token, renewAt: Date.now() + INTERNAL_TOKEN_TTL_MS - INTERNAL_TOKEN_MARGIN_MS })
    token.catch(() => this.internalTokens.delete(key))
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
    return {
      userId: stamp.userId, organizationId: stamp.organizationId, requestId, expiresAt,
      internalToken: async () => {
        if (Date.now() >= expiresAt) throw tokenExpired()
        return this.internalTokenFor(stamp.userId, stamp.organizationId, stamp.version)
      },
    }
  }
}
