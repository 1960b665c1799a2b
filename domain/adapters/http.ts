// Owns outbound HTTP to vendors for every provider: got with timeouts, retries with back-off on 5xx / transport errors
// (and on short 429s when asked) that never retry earlier than the vendor's Retry-After, rate headers read and reported,
// an OAuth client-credentials token cache refreshed before expiry, typed vendor errors, and one place for egress policy.
//
// - Every HTTP attempt (token and retries included) first awaits `beforeRequest` (the caller's budget draw) and every
//   answer's rate headers are reported through `onRateHeaders`.
// - 429 → RateLimited with the vendor's delay; by default never retried here (the budget decides and the job is
//   rescheduled), unless `maxRateLimitWaitSeconds` allows waiting that long. 5xx, timeouts, network errors →
//   VendorUnavailable after `retries` extra attempts, for idempotent calls only.
// - A 401 on an authenticated call drops the token and retries once with a fresh one.
// - Errors carry status codes and the vendor's short message only: no tokens, secrets, request options or got errors
//   as `cause`; nothing here logs.
// - Egress: `dnsLookup` / `agent` apply to every request and download of the client (see gotOptions below), so an
//   SSRF guard that refuses private addresses is one option passed by the runtime.
import type { LookupFunction } from 'node:net'
import type { Agents, Method, PlainResponse } from 'got'
import got, { type RequestError } from 'got'
import { z } from 'zod'
import { DEFAULT_RATE_HEADER_NAMES, intHeader, readRateHeaders, type RateHeaderNames, type RateHeaders } from './rate-headers'
import { egressRefusal } from '../../core/http'
import { RateLimited, VendorAuthFailed, VendorError, VendorNotFound, VendorRequestRejected, VendorResponseInvalid, VendorUnavailable } from './errors'

/** Refresh 12 minutes into a token's life (the notebook grants 900 s), or at 80 % of a shorter one. */
export const TOKEN_REFRESH_AFTER_MS = 12 * 60 * 1000

export interface ClientCredentialsOptions {
  /** Token endpoint relative to the base URL (notebook: api/v2/token). */
  tokenPath: string
  clientId: string
  clientSecret: string
  /** basic: id and secret as Basic auth (default); body: as form fields. */
  style?: 'basic' | 'body'
  refreshAfterMs?: number
}

export interface VendorHttpOptions {
  baseUrl: string
  /** Names the source in RateLimited and the other vendor errors. */
  source: string
  clock?: () => number
  /** Per attempt (default 10 s). */
  timeoutMs?: number
  /** Extra attempts on 5xx / timeouts / network errors for idempotent calls (default 2). */
  retries?: number
  retryBaseDelayMs?: number
  /** A retry the vendor asks to delay longer than this (Retry-After on a 5xx) is not attempted (default 5 s). */
  maxRetryDelayMs?: number
  /** A 429 on an idempotent call whose delay is at most this many seconds is waited out and retried (default 0: never). */
  maxRateLimitWaitSeconds?: number
  /** Seconds to wait after a 429 that carries no Retry-After or reset header (default 30). */
  defaultRetryAfterSeconds?: number
  rateHeaderNames?: RateHeaderNames
  onRateHeaders?: (headers: RateHeaders) => void
  /** Awaited before every HTTP attempt; throw (e.g. RateLimited) to stop the call. */
  beforeRequest?: () => Promise<void>
  /** OAuth client credentials for authenticated calls. */
  clientCredentials?: ClientCredentialsOptions
  /** Egress policy: a DNS lookup (e.g. one that refuses private addresses) and/or agents, for every request. */
  dnsLookup?: LookupFunction
  agent?: Agents
}

export interface RawAnswer {
  status: number
  headers: PlainResponse['headers']
  body: string
}

export interface SendOptions {
  headers?: Record<string, string>
  searchParams?: Record<string, string>
  body?: string
  /** Safe to repeat after a lost answer (default: GET). Only idempotent calls are retried. */
  idempotent?: boolean
}

export interface StreamOptions {
  headers: Record<string, string>
  resource: string
  maxBytes: number
  /** The error for an answer over maxBytes: its announced size (announced) or the bytes received so far. */
  tooMany: (bytes: number, announced: boolean) => VendorError
  /** Sees every answer's headers (a vendor's delay hints). */
  onHeaders?: (headers: PlainResponse['headers']) => void
  /** The error for a status of 300 or more (default: throwForStatus on the answer's body). */
  statusError?: (status: number) => VendorError
  /** An answer shorter than its content-length is VendorUnavailable (network). */
  exactLength?: boolean
  /** A 401 answers 'unauthorized' (the caller authenticates again) instead of an error. */
  unauthorizedOn401?: boolean
}

export interface JsonRequest {
  searchParams?: Record<string, string>
  json?: unknown
  idempotent?: boolean
  /** Names the resource in VendorNotFound. */
  resource: string
}

interface CachedToken {
  accessToken: string
  refreshAt: number
  expiresAt: number
}

const tokenSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().positive(),
})

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** The vendor's own short message from a JSON error body, else the start of the body. */
export function vendorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const m = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.message ?? parsed.error)
    if (typeof m === 'string') return m.slice(0, 300)
  } catch {
    // not JSON
  }
  return body.slice(0, 120) || '(empty body)'
}

export class VendorHttpClient {
  readonly source: string
  readonly base: URL
  private token: CachedToken | null = null
  private tokenInFlight: Promise<CachedToken> | null = null
  private readonly o: Required<Pick<VendorHttpOptions,
    'clock' | 'timeoutMs' | 'retries' | 'retryBaseDelayMs' | 'maxRetryDelayMs' | 'maxRateLimitWaitSeconds' | 'defaultRetryAfterSeconds' | 'rateHeaderNames'>> & VendorHttpOptions

  constructor(options: VendorHttpOptions) {
    this.source = options.source
    this.o = {
      clock: Date.now,
      timeoutMs: 10_000,
      retries: 2,
      retryBaseDelayMs: 250,
      maxRetryDelayMs: 5_000,
      maxRateLimitWaitSeconds: 0,
      defaultRetryAfterSeconds: 30,
      rateHeaderNames: DEFAULT_RATE_HEADER_NAMES,
      ...options,
    }
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`)
  }

  /** The one place every request's transport options are set (timeouts, no got retries or redirects, egress policy). */
  private gotOptions() {
    return {
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      timeout: { request: this.o.timeoutMs },
      ...(this.o.dnsLookup ? { dnsLookup: this.o.dnsLookup } : {}),
      ...(this.o.agent ? { agent: this.o.agent } : {}),
    } as const
  }

  // ----- token -------------------------------------------------------------------------------------------------

  /** A valid access token, from the cache unless it is due for refresh; concurrent callers share one token request. */
  async accessToken(): Promise<string> {
    const now = this.o.clock()
    if (this.token && now < this.token.refreshAt) return this.token.accessToken
    this.tokenInFlight ??= this.fetchToken().finally(() => {
      this.tokenInFlight = null
    })
    return (await this.tokenInFlight).accessToken
  }

  dropToken(): void {
    this.token = null
  }

  /** Exchanges the credentials for a fresh token (throws VendorAuthFailed when they are wrong). */
  async checkCredentials(): Promise<{ ok: true; expiresInSeconds: number }> {
    this.token = null
    await this.accessToken()
    return { ok: true, expiresInSeconds: Math.round((this.token!.expiresAt - this.o.clock()) / 1000) }
  }

  private async fetchToken(): Promise<CachedToken> {
    const cc = this.o.clientCredentials
    if (!cc) throw new VendorAuthFailed(this.source, 401)
    const form = new URLSearchParams({ grant_type: 'client_credentials' })
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
    if (cc.style === 'body') {
      form.set('client_id', cc.clientId)
      form.set('client_secret', cc.clientSecret)
    } else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(cc.clientId)}:${encodeURIComponent(cc.clientSecret)}`).toString('base64')}`
    }
    const answer = await this.send('POST', cc.tokenPath, { headers, body: form.toString(), idempotent: true })
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) throw new VendorAuthFailed(this.source, answer.status)
    this.throwForStatus(answer, 'token')
    const parsed = tokenSchema.safeParse(this.parseJson(answer))
    if (!parsed.success) throw new VendorResponseInvalid(this.source, 'token answer')
    const obtainedAt = this.o.clock()
    const lifeMs = parsed.data.expires_in * 1000
    const token = {
      accessToken: parsed.data.access_token,
      expiresAt: obtainedAt + lifeMs,
      refreshAt: obtainedAt + Math.min(cc.refreshAfterMs ?? TOKEN_REFRESH_AFTER_MS, lifeMs * 0.8),
    }
    this.token = token
    return token
  }

  /** Runs `call` with the cached token; on 'unauthorized' drops the token and tries once more with a new one. */
  async withAuthRetry<T>(useBearer: boolean, call: (bearer: string | null) => Promise<T | 'unauthorized'>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const result = await call(useBearer ? await this.accessToken() : null)
      if (result !== 'unauthorized') return result
      this.token = null
      if (attempt >= 1) throw new VendorAuthFailed(this.source, 401)
    }
  }

  // ----- requests ----------------------------------------------------------------------------------------------

  /** An authenticated JSON call: bearer token (renewed once on 401), typed failures, parsed body. */
  async requestJson(method: Method, path: string, { searchParams, json, idempotent = method === 'GET', resource }: JsonRequest): Promise<unknown> {
    const answer = await this.withAuthRetry(true, async (bearer) => {
      const a = await this.send(method, path, {
        headers: { authorization: `Bearer ${bearer}`, accept: 'application/json', ...(json !== undefined ? { 'content-type': 'application/json' } : {}) },
        searchParams,
        body: json !== undefined ? JSON.stringify(json) : undefined,
        idempotent,
      })
      return a.status === 401 ? 'unauthorized' : a
    })
    this.throwForStatus(answer, resource)
    return this.parseJson(answer)
  }

  /** One logical request: budget hook, HTTP, rate headers, retries on 5xx / transport errors (and short 429s) when idempotent. */
  async send(method: Method, path: string | URL, { headers = {}, searchParams, body, idempotent = method === 'GET' }: SendOptions = {}): Promise<RawAnswer> {
    const url = path instanceof URL ? path : new URL(path, this.base)
    const attempts = idempotent ? this.o.retries + 1 : 1
    let last: VendorError | undefined
    let delayMs = 0
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(Math.max(delayMs, this.o.retryBaseDelayMs * 2 ** (i - 1)))
      await this.o.beforeRequest?.()
      let answer: RawAnswer
      try {
        const res = await got(url, { ...this.gotOptions(), method, headers, searchParams, body, responseType: 'text' })
        answer = { status: res.statusCode, headers: res.headers, body: res.body }
      } catch (err) {
        // An address refused by the egress policy is final: retrying it only probes the network again.
        const refused = egressRefusal(err)
        if (refused) throw refused
        last = this.transportError(err)
        delayMs = 0
        continue
      }
      this.reportRate(answer.headers)
      const retryAfterMs = (intHeader(answer.headers['retry-after']) ?? 0) * 1000
      if (answer.status >= 500) {
        last = new VendorUnavailable(this.source, 'server_error', answer.status)
        // Never sooner than the vendor asked; not at all when it asks for longer than a request should wait.
        if (retryAfterMs > this.o.maxRetryDelayMs) break
        delayMs = retryAfterMs
        continue
      }
      if (answer.status === 429) {
        const limited = this.rateLimited(answer)
        if (!idempotent || limited.retryAfterSeconds > this.o.maxRateLimitWaitSeconds || i + 1 >= attempts) throw limited
        last = limited
        delayMs = limited.retryAfterSeconds * 1000
        continue
      }
      return answer
    }
    throw last!
  }

  /**
   * Downloads bytes (bearer only on the vendor's own origin: real vendors hand out pre-signed storage URLs), stopping
   * as soon as more than `maxBytes` arrive; never buffers more. `tooMany(n)` names the error for an oversized answer.
   */
  async download(url: URL, { resource, maxBytes, tooMany }: { resource: string; maxBytes: number; tooMany: (bytes: number) => VendorError }): Promise<Buffer> {
    const sameOrigin = url.origin === this.base.origin
    return this.withAuthRetry(sameOrigin, async (bearer) => {
      await this.o.beforeRequest?.()
      return this.streamOnce(url, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {}, unauthorizedOn401: !!bearer, resource, maxBytes, tooMany })
    })
  }

  /**
   * One capped download with the caller's own headers (vendors with their own session auth; the caller re-authenticates
   * on 'unauthorized'). The budget draw, timeouts, egress policy and rate headers are the client's, as for every request.
   */
  async downloadOnce(url: URL, options: StreamOptions): Promise<Buffer | 'unauthorized'> {
    await this.o.beforeRequest?.()
    return this.streamOnce(url, options)
  }

  private async streamOnce(url: URL, { headers, unauthorizedOn401, resource, maxBytes, tooMany, onHeaders, statusError, exactLength }: StreamOptions): Promise<Buffer | 'unauthorized'> {
    const stream = got.stream(url, { ...this.gotOptions(), headers })
    try {
      const response = await new Promise<PlainResponse>((resolve, reject) => {
        stream.once('response', resolve)
        stream.once('error', reject)
      })
      this.reportRate(response.headers)
      onHeaders?.(response.headers)
      if (response.statusCode === 401 && unauthorizedOn401) {
        stream.destroy()
        return 'unauthorized'
      }
      if (response.statusCode >= 300) {
        if (statusError) {
          stream.destroy()
          throw statusError(response.statusCode)
        }
        const chunks: Buffer[] = []
        for await (const c of stream) chunks.push(c as Buffer)
        this.throwForStatus({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8').slice(0, 2000) }, resource)
      }
      const contentLength = intHeader(response.headers['content-length'])
      if (contentLength !== null && contentLength > maxBytes) {
        stream.destroy()
        throw tooMany(contentLength, true)
      }
      const chunks: Buffer[] = []
      let received = 0
      for await (const c of stream) {
        received += (c as Buffer).length
        if (received > maxBytes) {
          stream.destroy()
          throw tooMany(received, false)
        }
        chunks.push(c as Buffer)
      }
      // A stream that ended before the announced length broke mid-way: nothing of it is used.
      if (exactLength && contentLength !== null && received !== contentLength) throw new VendorUnavailable(this.source, 'network')
      return Buffer.concat(chunks)
    } catch (err) {
      stream.destroy()
      if (err instanceof VendorError) throw err
      throw egressRefusal(err) ?? this.transportError(err)
    }
  }

  // ----- answers -----------------------------------------------------------------------------------------------

  private reportRate(headers: PlainResponse['headers']) {
    const rate = readRateHeaders(headers, this.o.rateHeaderNames)
    if (rate) this.o.onRateHeaders?.(rate)
  }

  rateLimited(answer: RawAnswer): RateLimited {
    const retryAfter = intHeader(answer.headers['retry-after']) ?? intHeader(answer.headers[this.o.rateHeaderNames.reset])
    return new RateLimited(this.source, Math.max(1, Math.ceil(retryAfter ?? this.o.defaultRetryAfterSeconds)))
  }

  private transportError(err: unknown): VendorUnavailable {
    const e = err as RequestError
    const timeout = e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT'
    return new VendorUnavailable(this.source, timeout ? 'timeout' : 'network')
  }

  throwForStatus(answer: RawAnswer, resource: string): void {
    const { status } = answer
    if (status >= 200 && status < 300) return
    if (status === 429) throw this.rateLimited(answer)
    if (status >= 500) throw new VendorUnavailable(this.source, 'server_error', status)
    if (status === 401) throw new VendorAuthFailed(this.source, status)
    if (status === 404) throw new VendorNotFound(this.source, resource)
    throw new VendorRequestRejected(this.source, status, vendorMessage(answer.body))
  }

  parseJson(answer: RawAnswer): unknown {
    try {
      return JSON.parse(answer.body)
    } catch {
      throw new VendorResponseInvalid(this.source, 'answer is not JSON')
    }
  }
}

