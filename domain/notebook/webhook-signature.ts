// Notebook webhook authenticity: ECDSA P-256 signatures over `${id}.${timestamp}.${rawBody}` checked against the app's JWKS.
//
// Call verifyWebhook on the raw bytes BEFORE parsing the body. It never logs and never returns key material or body
// content. Keep one JwksCache per (baseUrl, appDefinitionId) for the life of the process (JwksCaches does that):
// the re-fetch throttle below only protects the vendor if the cache outlives a single delivery.
//
// Signature header: a space-separated list of `v{n}der,<base64 DER>` entries, possibly over several header lines; like
// the vendor's SDK, every entry whose version tag contains `der` (any case) is tried, in any position.
//
// Key policy: a fetched JWKS is used for `maxAgeMs` (6 h) and refreshed in the background from `maxAgeMs -
// refreshAheadMs` on, so a delivery never waits for the vendor while keys are warm. While refreshes fail, the last key
// set keeps serving for at most `maxStaleMs` past its age (1 h); after that, or with no keys at all, a delivery waits
// at most `requestWaitMs` (800 ms) for a fetch, then is answered "unavailable" (the fetch carries on for the retry).
// Amplification guard: when no key verifies a delivery, the keys are fetched again once, unless a forced re-fetch for
// this app already happened within `minForcedRefetchMs` (1 minute). A failed fetch is not retried for
// `failureBackoffMs` (10 s) either, so a JWKS outage is not hammered.
import { createPublicKey, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto'
import got from 'got'
import { egressAgents } from '../../core/http'
import type { HeaderBag, VerifyResult, WebhookRejectReason } from '../adapters'
import { z } from 'zod'

export const DEFAULT_TOLERANCE_SECONDS = 300
/** At most this many signature entries are tried, so a forged header cannot buy unbounded CPU. */
export const MAX_SIGNATURE_ENTRIES = 8

// The verification types belong to the connector contract (shared by every provider that signs its webhooks).
export type { HeaderBag, VerifyResult, WebhookRejectReason }

export interface VerifyInput {
  headers: HeaderBag
  rawBody: Buffer
  jwks: KeySource
  /** Current time (Date or epoch milliseconds); defaults to Date.now(). */
  now?: Date | number
  toleranceSeconds?: number
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const bag = headers as Record<string, string | readonly string[] | undefined>
  let value = bag[name]
  if (value === undefined) {
    const key = Object.keys(bag).find((k) => k.toLowerCase() === name)
    // Stryker disable next-line ConditionalExpression: equivalent, bag[undefined] is undefined
    value = key === undefined ? undefined : bag[key]
  }
  // Stryker disable next-line ConditionalExpression: equivalent, one value joined is that value
  if (Array.isArray(value)) return value.length === 1 ? value[0] : value.length ? value.join(' ') : undefined
  return typeof value === 'string' ? value : undefined
}

/** A header that must appear once: several lines (an array, or node's ", "-joined copy) are malformed. */
function singleHeader(headers: HeaderBag, name: string): string | undefined | null {
  // Stryker disable next-line ConditionalExpression: equivalent, a Headers object has no own keys, so the bag finds nothing
  if (!(headers instanceof Headers)) {
    const bag = headers as Record<string, string | readonly string[] | undefined>
    const key = name in bag ? name : Object.keys(bag).find((k) => k.toLowerCase() === name)
    // Stryker disable next-line ConditionalExpression: equivalent, bag[undefined] is undefined
    const value = key === undefined ? undefined : bag[key]
    if (Array.isArray(value) && value.length > 1) return null
  }
  return header(headers, name)
}

/**
 * The base64 DER signatures of a webhook-signature header: every entry whose version tag contains `der` (v1der, v2der,
 * V3DER), whatever else is around it. Several header lines arrive joined by ", " (node) or " " (arrays): a trailing comma
 * is a separator, not part of the signature.
 */
export function parseSignatureHeader(value: string): Buffer[] {
  const out: Buffer[] = []
  // Stryker disable next-line MethodExpression,Regex: equivalent, the empty entries either change makes have no comma and are skipped
  for (const raw of value.trim().split(/\s+/)) {
    const entry = raw.replace(/,+$/, '')
    const comma = entry.indexOf(',')
    // Stryker disable next-line EqualityOperator: equivalent, an entry that starts with a comma has an empty tag, which holds no der
    if (comma < 0 || !entry.slice(0, comma).toLowerCase().includes('der')) continue
    const b64 = entry.slice(comma + 1)
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue
    out.push(Buffer.from(b64, 'base64'))
    if (out.length >= MAX_SIGNATURE_ENTRIES) break
  }
  return out
}

/** The exact bytes the vendor signs. */
export function signedContent(id: string, timestamp: string, rawBody: Buffer): Buffer {
  // Stryker disable next-line StringLiteral: equivalent, utf8 is Buffer.from's default
  return Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), rawBody])
}

function matchKey(data: Buffer, signatures: Buffer[], keys: readonly VerificationKey[]): VerificationKey | undefined {
  for (const sig of signatures) {
    for (const key of keys) {
      try {
        if (cryptoVerify('sha256', data, { key: key.key, dsaEncoding: 'der' }, sig)) return key
      } catch {
        // Malformed DER: same as a non-matching signature.
      }
    }
  }
  return undefined
}

/**
 * The checks that need no body and no key: headers present, well formed, fresh, at least one der entry. The ingress
 * runs them before reading the body of a source that is over its limit of rejected deliveries.
 */
export function checkWebhookHeaders(headers: HeaderBag, now: Date | number = Date.now(), toleranceSeconds = DEFAULT_TOLERANCE_SECONDS):
  | { ok: true; id: string; ts: string; timestamp: number; signatures: Buffer[] }
  | { ok: false; reason: WebhookRejectReason; deliveryId?: string } {
  const id = singleHeader(headers, 'webhook-id')
  const ts = singleHeader(headers, 'webhook-timestamp')
  const sigHeader = header(headers, 'webhook-signature')
  if (id === null || ts === null) return { ok: false, reason: 'malformed_headers' }
  const trimmedId = id?.trim()
  const trimmedTs = ts?.trim()
  if (!trimmedId || !trimmedTs || !sigHeader) return { ok: false, reason: 'missing_headers', ...(trimmedId ? { deliveryId: trimmedId.slice(0, 256) } : {}) }
  if (trimmedId.length > 256 || !/^\d{1,12}$/.test(trimmedTs)) return { ok: false, reason: 'malformed_headers', deliveryId: trimmedId.slice(0, 256) }
  const timestamp = Number(trimmedTs)
  // Stryker disable next-line ConditionalExpression: equivalent, a Date divides as its epoch milliseconds
  const nowSeconds = (typeof now === 'number' ? now : now.getTime()) / 1000
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { ok: false, reason: 'stale_timestamp', deliveryId: trimmedId }
  const signatures = parseSignatureHeader(sigHeader)
  if (signatures.length === 0) return { ok: false, reason: 'malformed_headers', deliveryId: trimmedId }
  return { ok: true, id: trimmedId, ts: trimmedTs, timestamp, signatures }
}

export async function verifyWebhook({
  headers,
  rawBody,
  jwks,
  now = Date.now(),
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
}: VerifyInput): Promise<VerifyResult> {
  const checked = checkWebhookHeaders(headers, now, toleranceSeconds)
  if (!checked.ok) return checked
  const { id, ts, timestamp, signatures } = checked
  const data = signedContent(id, ts, rawBody)
  let keys: readonly VerificationKey[]
  try {
    keys = await jwks.getKeys()
  } catch (e) {
    // the back-off's own remaining time, rounded up: a vendor that waits this long is not refused by the back-off
    const wait = e instanceof JwksUnavailable && e.retryAfterMs !== undefined ? { retryAfterSeconds: Math.max(1, Math.ceil(e.retryAfterMs / 1000)) } : {}
    return { ok: false, reason: 'jwks_unavailable', deliveryId: id, ...wait }
  }
  let key = matchKey(data, signatures, keys)
  if (!key) {
    // Unknown key or rotation: one throttled re-fetch, then a second attempt only if the key set changed.
    let refreshed: readonly VerificationKey[] | null = null
    try {
      refreshed = await jwks.refreshAfterFailure()
    } catch {
      // A failed re-fetch brings no new key: refreshed stays null.
    }
    if (refreshed && !sameKeySet(keys, refreshed)) key = matchKey(data, signatures, refreshed)
  }
  if (!key) return { ok: false, reason: 'bad_signature', deliveryId: id }
  return { ok: true, deliveryId: id, timestamp, kid: key.kid }
}

function sameKeySet(a: readonly VerificationKey[], b: readonly VerificationKey[]): boolean {
  return a.length === b.length && a.every((k, i) => k.thumb === b[i].thumb)
}

// ---------------------------------------------------------------------------------------------------------------
// Keys

export interface VerificationKey {
  kid: string | null
  key: KeyObject
  /** x.y coordinates; identifies the key for "did the set change" without comparing objects. */
  thumb: string
}

/** What verifyWebhook needs from a key store (JwksCache, or a fixed set in tests). */
export interface KeySource {
  getKeys(): Promise<readonly VerificationKey[]>
  /** Re-fetches if the throttle allows; returns the (possibly unchanged) keys, or null when nothing new was fetched. */
  refreshAfterFailure(): Promise<readonly VerificationKey[] | null>
}

const jwkSchema = z.looseObject({
  kty: z.string(),
  crv: z.string().optional(),
  x: z.string().optional(),
  y: z.string().optional(),
  kid: z.string().optional(),
  use: z.string().optional(),
  d: z.unknown().optional(),
})
const jwksSchema = z.object({ keys: z.array(z.unknown()) })

/** Imports the usable keys of a JWKS document: EC P-256 public signing keys; anything else is skipped. */
export function importJwks(doc: unknown): VerificationKey[] {
  const parsed = jwksSchema.parse(doc)
  const out: VerificationKey[] = []
  for (const raw of parsed.keys) {
    const r = jwkSchema.safeParse(raw)
    if (!r.success) continue
    const jwk = r.data
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y || (jwk.use && jwk.use !== 'sig')) continue
    try {
      // Only the public members are handed to node, so a JWKS that wrongly publishes `d` never becomes a private key.
      const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } as JsonWebKey, format: 'jwk' })
      out.push({ kid: jwk.kid ?? null, key, thumb: `${jwk.x}.${jwk.y}` })
    } catch {
      // Not a point on the curve: skip.
    }
  }
  return out
}

export class JwksUnavailable extends Error {
  override readonly name = 'JwksUnavailable'
  constructor(
    readonly appDefinitionId: string,
    readonly detail: string,
    /** How long until a delivery is not refused by the back-off (what the vendor's Retry-After says), when known. */
    readonly retryAfterMs?: number,
  ) {
    super(`JWKS for app definition ${appDefinitionId} unavailable: ${detail}`)
  }
}

/** got's longest wait between two attempts of one JWKS fetch. */
const JWKS_BACKOFF_LIMIT_MS = 2_000

export type JwksFetchReason = 'initial' | 'expired' | 'refresh_ahead' | 'verification_failed'

export interface JwksCacheOptions {
  baseUrl: string
  appDefinitionId: string
  /** Longest time a fetched JWKS is used without a successful refresh (default 6 h). */
  maxAgeMs?: number
  /** A background refresh starts this long before the keys reach maxAgeMs (default 30 min). */
  refreshAheadMs?: number
  /** While refreshes fail, keys keep serving this long past maxAgeMs (default 1 h); then deliveries wait for a fetch. */
  maxStaleMs?: number
  /** Longest a delivery waits for a JWKS fetch (default 800 ms, well under the 2 s answer budget). */
  requestWaitMs?: number
  /** Least time between two re-fetches caused by failed verifications (default 60 s). */
  minForcedRefetchMs?: number
  /** After a failed fetch, no new attempt before this (default 10 s). */
  failureBackoffMs?: number
  timeoutMs?: number
  /** got retries for one fetch (default 2, on network errors, 429 and 5xx). */
  retries?: number
  clock?: () => number
  /** Called after every fetch attempt (metrics/tests). Carries no key material. */
  onFetch?: (info: { appDefinitionId: string; reason: JwksFetchReason; ok: boolean; keyCount: number }) => void
  /** Replaces the HTTP fetch (tests). */
  fetchJwks?: (url: string) => Promise<unknown>
}

export class JwksCache implements KeySource {
  readonly url: string
  private keys: readonly VerificationKey[] | null = null
  // Stryker disable next-line UnaryOperator: equivalent, fetchedAt is read only while keys are set, and setting them sets it
  private fetchedAt = -Infinity
  private lastForcedAt = -Infinity
  private lastFailureAt = -Infinity
  private lastUsedAt = -Infinity
  // Stryker disable next-line UnaryOperator: equivalent, every fetch sets fetchStartedAt before a wait reads it
  private fetchStartedAt = -Infinity
  private inFlight: Promise<readonly VerificationKey[]> | null = null
  private timer: NodeJS.Timeout | null = null
  private readonly o: Required<Omit<JwksCacheOptions, 'onFetch' | 'fetchJwks'>> & Pick<JwksCacheOptions, 'onFetch' | 'fetchJwks'>

  constructor(options: JwksCacheOptions) {
    this.o = {
      maxAgeMs: 6 * 60 * 60 * 1000,
      refreshAheadMs: 30 * 60 * 1000,
      maxStaleMs: 60 * 60 * 1000,
      requestWaitMs: 800,
      minForcedRefetchMs: 60_000,
      failureBackoffMs: 10_000,
      timeoutMs: 5_000,
      retries: 2,
      clock: Date.now,
      ...options,
    }
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/apps/${encodeURIComponent(options.appDefinitionId)}/jwks`
  }

  get appDefinitionId(): string {
    return this.o.appDefinitionId
  }

  /** When the cached set was fetched (epoch ms), or null. */
  get cachedAt(): number | null {
    return this.keys ? this.fetchedAt : null
  }

  async getKeys(): Promise<readonly VerificationKey[]> {
    const now = this.o.clock()
    this.lastUsedAt = now
    const age = now - this.fetchedAt
    if (this.keys && age < this.o.maxAgeMs - this.o.refreshAheadMs) return this.keys
    if (this.keys && age < this.o.maxAgeMs + this.o.maxStaleMs) {
      // Warm but due (or failing to refresh): keep serving, refresh behind the delivery's back.
      this.refreshInBackground(age < this.o.maxAgeMs ? 'refresh_ahead' : 'expired')
      return this.keys
    }
    if (!this.inFlight && now - this.lastFailureAt < this.o.failureBackoffMs) {
      throw new JwksUnavailable(this.o.appDefinitionId, 'recent fetch failed; backing off', this.lastFailureAt + this.o.failureBackoffMs - now)
    }
    return this.bounded(this.inFlight ?? this.fetch(this.keys ? 'expired' : 'initial'))
  }

  async refreshAfterFailure(): Promise<readonly VerificationKey[] | null> {
    const now = this.o.clock()
    if (this.inFlight) return this.bounded(this.inFlight).catch(() => null)
    if (now - this.lastForcedAt < this.o.minForcedRefetchMs) return null
    if (now - this.lastFailureAt < this.o.failureBackoffMs) return null
    this.lastForcedAt = now
    return this.bounded(this.fetch('verification_failed')).catch(() => null)
  }

  /** Forgets the cached keys (e.g. when the connection's credentials change). */
  invalidate(): void {
    this.keys = null
    // Stryker disable next-line UnaryOperator: equivalent, fetchedAt is read only while keys are set, and setting them sets it
    this.fetchedAt = -Infinity
  }

  /** Stops the background refresh timer. */
  close(): void {
    // Stryker disable next-line ConditionalExpression: equivalent, clearTimeout(null) does nothing
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /**
   * The longest one fetch runs: every attempt's timeout and got's waits between them (its backoff, capped at
   * backoffLimit, plus up to 100 ms of noise). The fetch is aborted there, so a failure is recorded by then at the latest.
   */
  private get fetchBudgetMs(): number {
    let waits = 0
    for (let attempt = 1; attempt <= this.o.retries; attempt++) waits += Math.min(2 ** (attempt - 1) * 1000, JWKS_BACKOFF_LIMIT_MS) + 100
    return this.o.timeoutMs * (this.o.retries + 1) + waits
  }

  /**
   * A delivery waits for the vendor at most requestWaitMs; the fetch itself carries on and serves the retry. The
   * answer's retry time is when a retry is sure not to meet the back-off: the fetch's deadline plus the back-off that
   * follows should it fail (a retry after a success finds the keys sooner).
   */
  private bounded(p: Promise<readonly VerificationKey[]>): Promise<readonly VerificationKey[]> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const retryAt = this.fetchStartedAt + this.fetchBudgetMs + this.o.failureBackoffMs
        reject(new JwksUnavailable(this.o.appDefinitionId, 'fetch still running', retryAt - this.o.clock()))
      }, this.o.requestWaitMs)
    })
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
  }

  private refreshInBackground(reason: JwksFetchReason) {
    if (this.inFlight || this.o.clock() - this.lastFailureAt < this.o.failureBackoffMs) return
    this.fetch(reason).catch(() => {}) // the failure is recorded (lastFailureAt, onFetch); stale keys keep serving
  }

  /** After a fetch, the next refresh is planned before expiry, as long as the keys were used within their lifetime. */
  private schedule(delayMs: number) {
    this.close()
    this.timer = setTimeout(() => {
      this.timer = null
      if (this.o.clock() - this.lastUsedAt > this.o.maxAgeMs) return // idle app: fetch again on its next delivery
      this.refreshInBackground(this.keys ? 'refresh_ahead' : 'initial')
    }, Math.max(1_000, delayMs))
    // Stryker disable next-line all: unref only lets the process exit while a refresh is planned; no behaviour a test can see
    this.timer.unref()
  }

  private fetch(reason: JwksFetchReason): Promise<readonly VerificationKey[]> {
    this.fetchStartedAt = this.o.clock()
    const p = (async () => {
      await null // `inFlight` is set before this body can settle
      try {
        const doc = this.o.fetchJwks
          ? await this.o.fetchJwks(this.url)
          : await got(this.url, {
              agent: egressAgents(), // the vendor base URL is user-configured: same egress policy (core/http/egress.ts)
              timeout: { request: this.o.timeoutMs },
              retry: { limit: this.o.retries, methods: ['GET'], backoffLimit: JWKS_BACKOFF_LIMIT_MS },
              signal: AbortSignal.timeout(this.fetchBudgetMs), // the bound the 503's Retry-After counts on
              // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, got asks for application/json itself when the answer is read with .json()
              headers: { accept: 'application/json' },
            }).json()
        const keys = importJwks(doc)
        this.keys = keys
        this.fetchedAt = this.o.clock()
        this.o.onFetch?.({ appDefinitionId: this.o.appDefinitionId, reason, ok: true, keyCount: keys.length })
        this.schedule(this.o.maxAgeMs - this.o.refreshAheadMs)
        return keys
      } catch (err) {
        this.lastFailureAt = this.o.clock()
        this.o.onFetch?.({ appDefinitionId: this.o.appDefinitionId, reason, ok: false, keyCount: 0 })
        // Keys still within their stale bound: try again after the back-off rather than wait for a delivery.
        if (this.keys) this.schedule(this.o.failureBackoffMs + 1)
        // Only the error class/code travels on: got errors carry request options.
        const code = (err as { code?: string }).code ?? (err as Error).name ?? 'error'
        throw new JwksUnavailable(this.o.appDefinitionId, code, this.o.failureBackoffMs)
      } finally {
        this.inFlight = null
      }
    })()
    this.inFlight = p
    return p
  }
}

/** One long-lived JwksCache per (baseUrl, appDefinitionId); what the webhook gateway should hold. */
export class JwksCaches {
  private readonly caches = new Map<string, JwksCache>()
  constructor(private readonly defaults: Omit<JwksCacheOptions, 'baseUrl' | 'appDefinitionId'> = {}) {}

  forApp(baseUrl: string, appDefinitionId: string): JwksCache {
    const key = `${baseUrl.replace(/\/+$/, '')}\n${appDefinitionId}`
    let cache = this.caches.get(key)
    if (!cache) {
      cache = new JwksCache({ ...this.defaults, baseUrl, appDefinitionId })
      this.caches.set(key, cache)
    }
    return cache
  }
}

/** A fixed key set (tests, benchmarks): never re-fetches. */
export function staticKeySource(jwks: unknown): KeySource {
  const keys = importJwks(jwks)
  return { getKeys: async () => keys, refreshAfterFailure: async () => null }
}
