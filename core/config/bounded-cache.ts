// Owns the one policy of every bounded in-process cache (sessions, tokens, stamps, documents, plans, tenant clients):
// lru-cache, least recently used out first when full, and an entry's lifetime as a TTL the cache enforces rather than a
// timestamp kept beside the value. Least recently used matters under churn: a person sending requests all day keeps
// their entry while a crowd of one-off callers passes through (evicting the oldest insertion would drop theirs first).
// tests/platform/bounded-caches.test.ts fails on a hand-rolled bounded Map anywhere else.
import { LRUCache } from 'lru-cache'

export type BoundedCache<K extends {}, V extends {}> = LRUCache<K, V>

/**
 * A cache of at most `max` entries; with `ttlMs`, entries expire that long after they were set (a `set` may give its
 * own `ttl`, or a `start` read from `cache.perf.now()` before the value was computed). Reads do not extend a lifetime.
 */
export function boundedCache<K extends {}, V extends {}>(opts: { max: number; ttlMs?: number }): BoundedCache<K, V> {
  // ttlResolution 0: every read takes the time itself (performance.now()). lru-cache's default (1 ms) remembers the time
  // behind a 1 ms timer instead, armed again on the next read: on a request path that reads a few caches that is a
  // few timers per request and an event loop woken every millisecond, which cost more than the reads they spared.
  return new LRUCache<K, V>({ max: opts.max, ttlResolution: 0, ...(opts.ttlMs ? { ttl: opts.ttlMs } : {}) })
}

/** A TTL for an entry valid until `until` (ms since epoch): lru-cache reads a TTL of 0 as "never expires", so at least 1. */
export function ttlUntil(until: number): number {
  return Math.max(1, Math.floor(until - Date.now()))
}
