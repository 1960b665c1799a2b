// Owns calls to the QMS vault over the shared VendorHttpClient (got, retries, egress policy, rate headers to the
// budget): session authentication at POST /api/{version}/auth (its own one-minute budget window), the client id header
// on every call, re-authentication once when the vault says the session expired, the response-delay header honoured
// (the next request waits as long as the vault delayed the last one), the query language over ALLVERSIONS with paging,
// version text, streamed renditions (size-capped, a break mid-stream is a typed error) and document events.
import type { PlainResponse } from 'got'
import type { BudgetGate } from '../adapters'
import { intHeader } from '../adapters'
import { VendorHttpClient, type RawAnswer, type VendorHttpOptions } from '../adapters'
import { VendorAuthFailed, VendorNotFound, VendorRequestRejected, VendorResponseInvalid, VendorUnavailable } from '../adapters'

export const RESPONSE_DELAY_HEADER = 'x-vaultapi-responsedelay'
/** Renditions above this are not downloaded (the rendition is a viewable copy; the text endpoint is preferred). */
export const RENDITION_MAX_BYTES = 25 * 1024 * 1024

/**
 * Requests drawn from the budget row at a time: one locking statement per few requests instead of one per request.
 * At most this many minus one are counted and not sent when a sync ends; the gate refuses this many before the vault's
 * advertised remainder reaches its reserve.
 */
export const BUDGET_DRAW = 4

export interface QmsClientOptions {
  http: Omit<VendorHttpOptions, 'baseUrl'> & { baseUrl: string }
  /** The connection's burst budget (drawn BUDGET_DRAW requests at a time); without it, http.beforeRequest per request. */
  budget?: BudgetGate
  authGate?: BudgetGate
  apiVersion: string
  username: string
  password: string
  clientId: string
  clientIdHeader: string
}

export interface QmsSession { sessionId: string; vaultId: string; userId: string | null }

export interface QueryPage { rows: Record<string, unknown>[]; next: string | null; total: number | null }

interface VaultAnswer { responseStatus?: string; errors?: { type?: string; message?: string }[] }

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** A vault refusal (responseStatus FAILURE) with its type and message (never a secret). */
export class QmsFailure extends VendorRequestRejected {
  constructor(source: string, status: number, readonly vaultType: string, vaultMessage: string) {
    super(source, status, `${vaultType}: ${vaultMessage}`.slice(0, 300))
  }
}

export class QmsClient {
  private readonly main: VendorHttpClient
  private readonly authHttp: VendorHttpClient
  private session: QmsSession | null = null
  private sessionInFlight: Promise<QmsSession> | null = null
  private pauseUntil = 0
  /** Delayed answers seen and how long the client waited because of them (reported by the sync). */
  readonly delays = { count: 0, waitedMs: 0 }
  authentications = 0

  private allowance = 0

  constructor(private readonly o: QmsClientOptions) {
    this.main = new VendorHttpClient(o.budget ? { ...o.http, beforeRequest: () => this.draw() } : o.http)
    // The auth endpoint draws from its own one-minute window, not the burst window.
    this.authHttp = new VendorHttpClient({
      ...o.http, beforeRequest: o.authGate ? () => o.authGate!.take() : undefined,
      onRateHeaders: o.authGate ? (h) => o.authGate!.observe({ ...h, resetSeconds: h.resetSeconds ?? 60 }) : undefined,
    })
  }

  /** One request's share of the budget, drawn BUDGET_DRAW at a time. */
  private async draw() {
    if (this.allowance > 0) {
      this.allowance -= 1
      return
    }
    await this.o.budget!.take(BUDGET_DRAW)
    this.allowance += BUDGET_DRAW - 1
  }

  get source() {
    return this.main.source
  }

  private path(rest: string) {
    return `api/${this.o.apiVersion}/${rest}`
  }

  private headers(extra: Record<string, string> = {}) {
    return { [this.o.clientIdHeader]: this.o.clientId, accept: 'application/json', ...extra }
  }

  /** The vault delayed an answer: wait as long before the next request (honouring the response-delay header). */
  private noteDelay(headers: PlainResponse['headers']) {
    const ms = intHeader(headers[RESPONSE_DELAY_HEADER])
    if (ms !== null && ms > 0) {
      this.delays.count += 1
      this.pauseUntil = Math.max(this.pauseUntil, Date.now() + ms)
    }
  }

  private async pace() {
    const wait = this.pauseUntil - Date.now()
    if (wait > 0) {
      this.delays.waitedMs += wait
      await sleep(wait)
    }
  }

  // ----- session -------------------------------------------------------------------------------------------------

  /** A fresh session (session id and the vault's instance id); wrong credentials are VendorAuthFailed. */
  async authenticate(): Promise<QmsSession> {
    this.session = null
    this.sessionInFlight ??= this.fetchSession().finally(() => { this.sessionInFlight = null })
    return this.sessionInFlight
  }

  private async fetchSession(): Promise<QmsSession> {
    await this.pace()
    const body = new URLSearchParams({ username: this.o.username, password: this.o.password }).toString()
    const a = await this.authHttp.send('POST', this.path('auth'), { headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }), body, idempotent: true })
    this.noteDelay(a.headers)
    this.authentications += 1
    if (a.status === 401 || a.status === 403) throw new VendorAuthFailed(this.source, a.status)
    const parsed = this.json(a, 'auth') as VaultAnswer & { sessionId?: unknown; vaultId?: unknown; userId?: unknown }
    if (parsed.responseStatus !== 'SUCCESS') throw new VendorAuthFailed(this.source, a.status === 200 ? 401 : a.status)
    if (typeof parsed.sessionId !== 'string' || parsed.vaultId === undefined) throw new VendorResponseInvalid(this.source, 'auth answer')
    this.session = { sessionId: parsed.sessionId, vaultId: String(parsed.vaultId), userId: parsed.userId === undefined ? null : String(parsed.userId) }
    return this.session
  }

  private async sessionId(): Promise<string> {
    if (this.session) return this.session.sessionId
    return (await (this.sessionInFlight ?? this.authenticate())).sessionId
  }

  private static expired(a: RawAnswer): boolean {
    if (a.status === 401) return true
    try {
      const p = JSON.parse(a.body) as VaultAnswer
      return p.responseStatus === 'FAILURE' && p.errors?.[0]?.type === 'INVALID_SESSION_ID'
    } catch {
      return false
    }
  }

  /** One authenticated call; an expired session is renewed once, a second expiry is VendorAuthFailed. */
  private async call(method: 'GET' | 'POST', rest: string | URL, opts: { form?: Record<string, string>; resource: string; extraHeaders?: Record<string, string> }): Promise<RawAnswer> {
    for (let attempt = 0; ; attempt++) {
      const sid = await this.sessionId()
      await this.pace()
      const a = await this.main.send(method, typeof rest === 'string' ? this.path(rest) : rest, {
        headers: this.headers({ authorization: sid, ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...opts.extraHeaders }),
        body: opts.form ? new URLSearchParams(opts.form).toString() : undefined,
        // Queries are reads: safe to repeat after a lost answer.
        idempotent: true,
      })
      this.noteDelay(a.headers)
      if (QmsClient.expired(a)) {
        this.session = null
        if (attempt >= 1) throw new VendorAuthFailed(this.source, 401)
        await this.authenticate()
        continue
      }
      return a
    }
  }

  private json(a: RawAnswer, resource: string): unknown {
    if (a.status === 404) throw new VendorNotFound(this.source, resource)
    this.main.throwForStatus(a, resource)
    return this.main.parseJson(a)
  }

  /** A vault answer with responseStatus SUCCESS, else QmsFailure naming the vault's error type and message. */
  private success<T>(a: RawAnswer, resource: string): T {
    const p = this.json(a, resource) as VaultAnswer
    if (p.responseStatus !== 'SUCCESS') {
      const e = p.errors?.[0] ?? {}
      throw new QmsFailure(this.source, a.status, e.type ?? 'FAILURE', e.message ?? 'the vault refused the request')
    }
    return p as T
  }

  // ----- reads ---------------------------------------------------------------------------------------------------

  async documentFields(): Promise<Set<string>> {
    const a = this.success<{ properties?: { name?: string }[] }>(await this.call('GET', 'metadata/objects/documents/properties', { resource: 'document properties' }), 'document properties')
    return new Set((a.properties ?? []).map((p) => p.name).filter((n): n is string => typeof n === 'string'))
  }

  async lifecycleLabels(): Promise<string[]> {
    const a = this.success<{ lifecycles?: { states?: { label?: string }[] }[] }>(await this.call('GET', 'metadata/objects/documents/lifecycles', { resource: 'lifecycles' }), 'lifecycles')
    return [...new Set((a.lifecycles ?? []).flatMap((l) => (l.states ?? []).map((s) => s.label)).filter((x): x is string => typeof x === 'string'))]
  }

  /** The first page of a query (or the page `next` points to). */
  async query(q: string | { next: string }): Promise<QueryPage> {
    const a = typeof q === 'string'
      ? await this.call('POST', 'query', { form: { q }, resource: 'query' })
      : await this.call('GET', new URL(q.next.replace(/^\//, ''), this.main.base), { resource: 'query page' })
    const p = this.success<{ data?: unknown; responseDetails?: { next_page?: string; total?: number } }>(a, 'query')
    if (!Array.isArray(p.data)) throw new VendorResponseInvalid(this.source, 'query answer without data')
    return { rows: p.data as Record<string, unknown>[], next: p.responseDetails?.next_page ?? null, total: p.responseDetails?.total ?? null }
  }

  /** The version text (text/plain), or null when the vault has none for it (then the rendition is parsed). */
  async versionText(documentId: string, major: number, minor: number): Promise<string | null> {
    const a = await this.call('GET', `objects/documents/${encodeURIComponent(documentId)}/versions/${major}/${minor}/text`, { resource: 'version text', extraHeaders: { accept: 'text/plain' } })
    if (a.status === 404) return null
    this.main.throwForStatus(a, 'version text')
    return a.body
  }

  async events(documentId: string): Promise<{ name: string; properties: Record<string, unknown> }[]> {
    const a = this.success<{ events?: { name?: string; properties?: Record<string, unknown> }[] }>(
      await this.call('GET', `objects/documents/${encodeURIComponent(documentId)}/events`, { resource: 'document events' }), 'document events')
    return (a.events ?? []).map((e) => ({ name: String(e.name ?? ''), properties: e.properties ?? {} }))
  }

  /**
   * Streams a rendition, capped at RENDITION_MAX_BYTES; a stream that ends early (fewer bytes than announced) or
   * breaks is VendorUnavailable, so the caller writes nothing of that version.
   */
  async rendition(documentId: string, major: number, minor: number, type: string): Promise<Buffer> {
    const url = new URL(this.path(`objects/documents/${encodeURIComponent(documentId)}/versions/${major}/${minor}/renditions/${encodeURIComponent(type)}`), this.main.base)
    for (let attempt = 0; ; attempt++) {
      const sid = await this.sessionId()
      await this.pace()
      const bytes = await this.main.downloadOnce(url, {
        headers: this.headers({ authorization: sid, accept: '*/*' }), resource: 'rendition', maxBytes: RENDITION_MAX_BYTES, unauthorizedOn401: true, exactLength: true,
        onHeaders: (h) => this.noteDelay(h),
        tooMany: (n, announced) => new VendorRequestRejected(this.source, 413, announced ? `rendition of ${n} bytes is over the ${RENDITION_MAX_BYTES}-byte cap` : `rendition is over the ${RENDITION_MAX_BYTES}-byte cap`),
        statusError: (status) => status === 404 ? new VendorNotFound(this.source, 'rendition')
          : status >= 500 ? new VendorUnavailable(this.source, 'server_error', status) : new VendorRequestRejected(this.source, status, 'rendition refused'),
      })
      if (bytes !== 'unauthorized') return bytes
      this.session = null
      if (attempt >= 1) throw new VendorAuthFailed(this.source, 401)
      await this.authenticate()
    }
  }
}
