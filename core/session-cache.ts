// Owns a process's caches on the request path of a subgraph: verified internal tokens, and sessions kept until the
// person's session version moves (issue 20). Permissions stay live: the gateway reads the version on every request and
// signs it into the internal token, and triggers bump it in the same transaction as any change to what a session holds
// (memberships, role assignments, organisation roles, the person's row), so the first request after a change commits
// carries a version newer than the cached session's and reloads it, in every process, with no event to wait for.
import type { Db } from './db'
import { verifyInternalToken, type InternalIdentity } from './auth'
import { loadSession, type Session } from './session'

/** A backstop only: versions make reloads exact; this bounds what a missed trigger (a table added later) could cost. */
export const SESSION_MAX_AGE_MS = 60_000
const MAX_ENTRIES = 10_000

/** A Map with a size bound: the oldest insertion goes first (enough for caches whose entries expire anyway). */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) { super() }
  override set(key: K, value: V) {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K)
    return super.set(key, value)
  }
}

export class SessionCache {
  private readonly tokens = new BoundedMap<string, InternalIdentity>(MAX_ENTRIES)
  private readonly sessions = new BoundedMap<string, { session: Session; at: number }>(MAX_ENTRIES)
  private readonly loading = new Map<string, Promise<Session>>()
  /** Sessions read from the database since start (tests and benches read it). */
  loads = 0

  constructor(private readonly db: Db, private readonly maxAgeMs = SESSION_MAX_AGE_MS) {}

  /** The identity of a valid internal token; a token is verified once, then remembered until it expires. */
  async identity(token: string | undefined | null): Promise<InternalIdentity> {
    const hit = token ? this.tokens.get(token) : undefined
    if (hit && hit.expiresAt > Date.now()) return hit
    const identity = await verifyInternalToken(token)
    this.tokens.set(token!, identity)
    return identity
  }

  /**
   * The person's session, from the cache when it is at least as new as `version` (the token's) and younger than the
   * maximum age; otherwise loaded (once for concurrent requests of the same person). Without a version: loaded.
   */
  async session(userId: string, version: number | null): Promise<Session> {
    const hit = this.sessions.get(userId)
    if (hit && version !== null && hit.session.version >= version && Date.now() - hit.at < this.maxAgeMs) return hit.session
    const inFlight = this.loading.get(userId)
    if (inFlight) {
      const s = await inFlight
      if (version !== null && s.version >= version) return s
    }
    const load = (async () => {
      this.loads++
      const at = Date.now()
      const s = await loadSession(this.db, userId) // throws UNAUTHENTICATED for a deactivated person: nothing cached
      const current = this.sessions.get(userId)
      if (!current || current.session.version <= s.version) this.sessions.set(userId, { session: s, at })
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
