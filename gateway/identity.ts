// Owns who the gateway's caller is: verifies the bearer token, maps it to an active user, mints internal tokens.
import { randomUUID } from 'node:crypto'
import { decodeJwt } from 'jose'
import type { Db } from '../core/db'
import { signInternalToken, verifyCallerToken } from '../core/auth'
import { unauthenticated } from '../core/errors'
import { isId } from '../core/ids'

export interface CallerIdentity {
  userId: string
  organizationId: string
  requestId: string
  /** When the caller's token expires (ms since epoch): a socket is closed then, and no internal token is minted after. */
  expiresAt: number
  /** The internal token for subgraph calls; refreshed before it expires (long-lived subscriptions). */
  internalToken(): Promise<string>
}

const USER_CACHE_MS = 15_000
const TOKEN_REUSE_MS = 30_000 // internal tokens live 60 s

export class IdentityResolver {
  private readonly users = new Map<string, { at: number; user: { id: string; organizationId: string } | null }>()
  constructor(private readonly db: Db) {}

  private async findUser(sub: string, email: string | undefined) {
    const key = `${sub}|${email ?? ''}`
    const hit = this.users.get(key)
    if (hit && Date.now() - hit.at < USER_CACHE_MS) return hit.user
    const select = { id: true, organizationId: true, deactivatedAt: true }
    const row = (isId(sub) ? await this.db.user.findUnique({ where: { id: sub }, select }) : null)
      ?? (email ? await this.db.user.findUnique({ where: { email }, select }) : null)
    const user = row && !row.deactivatedAt ? { id: row.id, organizationId: row.organizationId } : null
    if (this.users.size > 10_000) this.users.clear()
    this.users.set(key, { at: Date.now(), user })
    return user
  }

  /** UNAUTHENTICATED for a missing, invalid or expired token, and for a person unknown here or deactivated. */
  async resolve(authorization: string | undefined | null): Promise<CallerIdentity> {
    const claims = await verifyCallerToken(authorization)
    const user = await this.findUser(claims.sub, claims.email)
    if (!user) throw unauthenticated('Your account is not active in this service.')
    const requestId = randomUUID()
    // Verified just above; decoding again only reads its expiry (a token without one lives as long as the socket).
    const exp = decodeJwt(/^Bearer\s+(\S+)$/i.exec(authorization ?? '')![1]).exp
    const expiresAt = typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY
    let cached: { token: string; at: number } | undefined
    return {
      userId: user.id, organizationId: user.organizationId, requestId, expiresAt,
      internalToken: async () => {
        if (Date.now() >= expiresAt) throw unauthenticated('The bearer token has expired.')
        if (!cached || Date.now() - cached.at > TOKEN_REUSE_MS) {
          cached = { token: await signInternalToken({ userId: user.id, organizationId: user.organizationId, requestId }), at: Date.now() }
        }
        return cached.token
      },
    }
  }
}
