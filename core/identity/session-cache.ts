// Owns a process's caches on the request path of a subgraph: verified internal tokens, and sessions kept until the
// person's session version moves (issue 20). Permissions stay live: the gateway reads the version on every request and
// signs it into the internal token, and triggers bump it in the same transaction as any change to what a session holds
// (memberships, role assignments, organisation roles, the person's row), so the first request after a change commits
// carries a version newer than the cached session's and reloads it, in every process, with no event to wait for.
import type { Db } from '../database'
import { verifyInternalToken, type InternalIdentity } from './auth'
import { boundedCache, ttlUntil, type BoundedCache } from '../config'
import { loadSession, type Session } from './session'

/** A backstop only: versions make reloads exact; this bounds what a missed trigger (a table added later) could cost. */
export const SESSION_MAX_AGE_MS = 60_000
const MAX_ENTRIES = 10_000

export class SessionCache {
  /** verified internal tokens, each until it expires */
  private readonly tokens = boundedCache<string, InternalIdentity>({ max: MAX_ENTRIES })
  /** sessions by person, each for at most maxAgeMs from the start of its load */
  private readonly sessions: BoundedCache<string, Session>
  private readonly loading = new Map<string, Promise<Session>>()
  /** Sessions read from the database since start (tests and benches read it). */
  loads = 0

  /** `maxEntries`: how many people's sessions are kept (tests make it small to show who is evicted). */
  constructor(private readonly db: Db, maxAgeMs = SESSION_MAX_AGE_MS, maxEntries = MAX_ENTRIES) {
    this.sessions = boundedCache({ max: maxEntries, ttlMs: maxAgeMs })
  }

  /** The identity of a valid internal token; a token is verified once, then remembered until it expires. */
  async identity(token: string | undefined | null): Promise<InternalIdentity> {
    const hit = token ? this.tokens.get(token) : undefined
    if (hit) return hit
    const identity = await verifyInternalToken(token)
    this.tokens.set(token!, identity, { ttl: ttlUntil(identity.expiresAt) })
    return identity
  }

  /**
   * The person's session, from the cache when it is at least as new as `version` (the token's) and younger than the
   * maximum age; otherwise loaded (once for concurrent requests of the same person). Without a version: loaded.
   */
  async session(userId: string, version: number | null): Promise<Session> {
    const hit = this.sessions.get(userId)
    if (hit && version !== null && hit.version >= version) return hit
    const inFlight = this.loading.get(userId)
    if (inFlight) {
      const s = await inFlight
      if (version !== null && s.version >= version) return s
    }
    const load = (async () => {
      this.loads++
      const start = this.sessions.perf.now() // its age counts from before the read
      const s = await loadSession(this.db, userId) // throws UNAUTHENTICATED for a deactivated person: nothing cached
      const current = this.sessions.peek(userId)
      if (!current || current.version <= s.version) this.sessions.set(userId, s, { start })
      return s
    })()
    this.loading.set(userId, load)
    try { return await load } finally { if (this.loading.get(userId) === load) this.loading.delete(userId) }
  }

  clear() {
    this.tokens.clear()
    this.sessions.clear()
  }
}
