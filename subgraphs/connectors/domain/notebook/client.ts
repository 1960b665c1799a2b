// Outbound client for the notebook vendor API (v2): client-credentials token, entries, attachments, canvases, typed failures.
//
// - Tokens are cached in memory and refreshed 12 minutes into their 900 s life (earlier if the vendor grants less);
//   a 401 on an API call drops the token and retries once with a fresh one.
// - Every HTTP attempt (token and retries included) first awaits `beforeRequest` (the caller's budget draw) and every
//   answer's x-rate-limit-* headers are reported through `onRateHeaders`.
// - 429 → RateLimited (never retried here: the budget decides); 5xx, timeouts, network errors → VendorUnavailable
//   after `retries` attempts for idempotent calls.
// - Errors carry status codes and vendor messages only: no tokens, secrets, request options or got errors as `cause`.
// - Attachment bytes are refused at `maxAttachmentBytes` (25 MiB) from the metadata, before any byte is downloaded, and
//   the download is cut off if the vendor sends more than the metadata announced. The bearer token is only sent to a
//   download URL on the vendor's own origin (real vendors hand out pre-signed storage URLs).
import { createHash } from 'node:crypto'
import got, { RequestError, type Method, type PlainResponse } from 'got'
import { z } from 'zod'
import { PROVIDER_ID, type NotebookEntry } from './canonical'
import {
  VendorError as NotebookError, RateLimited, VendorUnavailable, VendorAuthFailed, VendorNotFound, VendorRequestRejected, VendorResponseInvalid, AttachmentTooLarge,
} from '../adapters/errors'
import { egressAgents, egressRefusal } from '../../../../core/egress'

export const TOKEN_REFRESH_AFTER_MS = 12 * 60 * 1000
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
export const MAX_PAGE_SIZE = 100
/** Canvas `data` must be a JSON string under 5 kB (UTF-8 bytes). */
export const CANVAS_DATA_MAX_BYTES = 5000

// ---------------------------------------------------------------------------------------------------------------
// Errors: shared by every provider, defined in the connector layer (adapters/errors.ts).

export {
  VendorError as NotebookError, RateLimited, VendorUnavailable, VendorAuthFailed, VendorNotFound, VendorRequestRejected,
  VendorResponseInvalid, AttachmentTooLarge,
} from '../adapters/errors'

// ---------------------------------------------------------------------------------------------------------------
// Shapes

export interface RateHeaders {
  limit: number | null
  remaining: number | null
  resetSeconds: number | null
}

const tokenSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().positive(),
})

const linkSchema = z.looseObject({ id: z.string(), type: z.string() })
const partSchema = z.looseObject({ type: z.string(), links: z.array(linkSchema).nullish() })
const entrySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  modifiedAt: z.string(),
  days: z.array(z.looseObject({ date: z.string(), notes: z.array(partSchema) })),
})
const entryListSchema = z.looseObject({ entries: z.array(entrySchema), nextToken: z.string().nullish() })

const attachmentMetaSchema = z.object({
  externalFile: z.looseObject({
    id: z.string(),
    size: z.number().int().nonnegative(),
    downloadURL: z.string().optional(),
    expiresAt: z.string().optional(),
    name: z.string().optional(),
    mimeType: z.string().optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  }),
})
export type AttachmentMetadata = z.infer<typeof attachmentMetaSchema>['externalFile']

const canvasSchema = z.looseObject({
  id: z.string(),
  featureId: z.string(),
  resourceId: z.string(),
  blocks: z.array(z.unknown()),
  enabled: z.boolean(),
  data: z.string().nullish(),
})
export type Canvas = z.infer<typeof canvasSchema>

export interface CanvasInput {
  appId?: string
  featureId: string
  resourceId: string
  blocks: unknown[]
  enabled?: boolean
  sessionId?: string
  /** A JSON string under CANVAS_DATA_MAX_BYTES. */
  data?: string
}

export interface EntryPage {
  entries: NotebookEntry[]
  /** Pass back as `pageToken`; null on the last page. */
  nextPageToken: string | null
}

export interface NotebookClientOptions {
  baseUrl: string
  clientId: string
  clientSecret: string
  /** Names the source in RateLimited / errors (default 'eln_provider'). */
  source?: string
  clock?: () => number
  /** Per attempt (default 10 s). */
  timeoutMs?: number
  /** Extra attempts on 5xx / timeouts / network errors for idempotent calls (default 2). */
  retries?: number
  retryBaseDelayMs?: number
  tokenRefreshAfterMs?: number
  maxAttachmentBytes?: number
  /** Seconds to wait after a 429 that carries no reset header (default 30). */
  defaultRetryAfterSeconds?: number
  onRateHeaders?: (headers: RateHeaders) => void
  /** Awaited before every HTTP attempt; throw (e.g. RateLimited) to stop the call. */
  beforeRequest?: () => Promise<void>
}

interface CachedToken {
  accessToken: string
  refreshAt: number
  expiresAt: number
}

interface RawAnswer {
  status: number
  headers: PlainResponse['headers']
  body: string
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

function intHeader(v: string | string[] | undefined): number | null {
  const s = Array.isArray(v) ? v[0] : v
  if (s === undefined || s.trim() === '') return null
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

export function readRateHeaders(headers: PlainResponse['headers']): RateHeaders | null {
  const h = {
    limit: intHeader(headers['x-rate-limit-limit']),
    remaining: intHeader(headers['x-rate-limit-remaining']),
    resetSeconds: intHeader(headers['x-rate-limit-reset']),
  }
  return h.limit === null && h.remaining === null && h.resetSeconds === null ? null : h
}

function vendorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const m = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.message ?? parsed.error)
    if (typeof m === 'string') return m.slice(0, 300)
  } catch {
    // not JSON
  }
  return body.slice(0, 120) || '(empty body)'
}

export class NotebookClient {
  readonly source: string
  private readonly base: URL
  private token: CachedToken | null = null
  private tokenInFlight: Promise<CachedToken> | null = null
  private readonly o: Required<Omit<NotebookClientOptions, 'onRateHeaders' | 'beforeRequest' | 'source'>> &
    Pick<NotebookClientOptions, 'onRateHeaders' | 'beforeRequest'>

  constructor(options: NotebookClientOptions) {
    this.source = options.source ?? PROVIDER_ID
    this.o = {
      clock: Date.now,
      timeoutMs: 10_000,
      retries: 2,
      retryBaseDelayMs: 250,
      tokenRefreshAfterMs: TOKEN_REFRESH_AFTER_MS,
      maxAttachmentBytes: MAX_ATTACHMENT_BYTES,
      defaultRetryAfterSeconds: 30,
      ...options,
    }
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`)
  }

  // ----- token -------------------------------------------------------------------------------------------------

  /** A valid access token, from the cache unless it is due for refresh. */
  async accessToken(): Promise<string> {
    const now = this.o.clock()
    if (this.token && now < this.token.refreshAt) return this.token.accessToken
    this.tokenInFlight ??= this.fetchToken().finally(() => {
      this.tokenInFlight = null
    })
    return (await this.tokenInFlight).accessToken
  }

  /** Health check: exchanges the credentials for a fresh token (throws VendorAuthFailed when they are wrong). */
  async checkCredentials(): Promise<{ ok: true; expiresInSeconds: number }> {
    this.token = null
    await this.accessToken()
    return { ok: true, expiresInSeconds: Math.round((this.token!.expiresAt - this.o.clock()) / 1000) }
  }

  private async fetchToken(): Promise<CachedToken> {
    const basic = Buffer.from(`${encodeURIComponent(this.o.clientId)}:${encodeURIComponent(this.o.clientSecret)}`).toString('base64')
    const answer = await this.send('POST', 'api/v2/token', {
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      idempotent: true,
    })
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      throw new VendorAuthFailed(this.source, answer.status)
    }
    this.throwForStatus(answer, 'token')
    const parsed = tokenSchema.safeParse(this.json(answer))
    if (!parsed.success) throw new VendorResponseInvalid(this.source, 'token answer')
    const obtainedAt = this.o.clock()
    const lifeMs = parsed.data.expires_in * 1000
    const token = {
      accessToken: parsed.data.access_token,
      expiresAt: obtainedAt + lifeMs,
      refreshAt: obtainedAt + Math.min(this.o.tokenRefreshAfterMs, lifeMs * 0.8),
    }
    this.token = token
    return token
  }

  // ----- entries -----------------------------------------------------------------------------------------------

  async getEntry(id: string): Promise<NotebookEntry> {
    const body = await this.apiJson('GET', `api/v2/entries/${encodeURIComponent(id)}`, { resource: `entry ${id}` })
    const entry = (body as { entry?: unknown })?.entry ?? body
    const parsed = entrySchema.safeParse(entry)
    if (!parsed.success) throw new VendorResponseInvalid(this.source, `entry ${id}`)
    return parsed.data as NotebookEntry
  }

  /**
   * One page of entries modified strictly after `modifiedAfter`, oldest first. Archived entries are included by default
   * (archiveReason=ANY) so a sync sees archiving as a change and can set connector_objects.deleted_at.
   */
  async listEntries({
    modifiedAfter,
    pageToken,
    pageSize = MAX_PAGE_SIZE,
    includeArchived = true,
  }: { modifiedAfter?: string; pageToken?: string | null; pageSize?: number; includeArchived?: boolean } = {}): Promise<EntryPage> {
    const searchParams: Record<string, string> = {
      pageSize: String(Math.min(Math.max(1, pageSize), MAX_PAGE_SIZE)),
      sort: 'modifiedAt:asc',
      archiveReason: includeArchived ? 'ANY' : 'NOT_ARCHIVED',
    }
    if (modifiedAfter) searchParams.modifiedAt = `> ${modifiedAfter}`
    if (pageToken) searchParams.nextToken = pageToken
    const body = await this.apiJson('GET', 'api/v2/entries', { searchParams, resource: 'entries' })
    const parsed = entryListSchema.safeParse(body)
    if (!parsed.success) throw new VendorResponseInvalid(this.source, 'entry list')
    return { entries: parsed.data.entries as NotebookEntry[], nextPageToken: parsed.data.nextToken || null }
  }

  /** Every entry modified after `modifiedAfter`, page by page. */
  async *iterateEntries({ modifiedAfter, pageSize }: { modifiedAfter?: string; pageSize?: number } = {}) {
    let pageToken: string | null = null
    do {
      const page: EntryPage = await this.listEntries({ modifiedAfter, pageToken, pageSize })
      yield* page.entries
      pageToken = page.nextPageToken
    } while (pageToken)
  }

  // ----- attachments -------------------------------------------------------------------------------------------

  async getAttachmentMetadata(entryId: string, fileId: string): Promise<AttachmentMetadata> {
    const path = `api/v2/entries/${encodeURIComponent(entryId)}/external-files/${encodeURIComponent(fileId)}`
    const body = await this.apiJson('GET', path, { resource: `attachment ${fileId}` })
    const parsed = attachmentMetaSchema.safeParse(body)
    if (!parsed.success) throw new VendorResponseInvalid(this.source, `attachment ${fileId} metadata`)
    return parsed.data.externalFile
  }

  /**
   * Metadata, then the bytes, only when the metadata says they are under the limit.
   * `sha256` is computed over the received bytes and checked against the metadata digest when one is given.
   */
  async getAttachment(entryId: string, fileId: string): Promise<{ metadata: AttachmentMetadata; bytes: Buffer; sha256: string }> {
    const metadata = await this.getAttachmentMetadata(entryId, fileId)
    const limit = this.o.maxAttachmentBytes
    if (metadata.size >= limit) throw new AttachmentTooLarge(fileId, metadata.size, limit)

    const url = metadata.downloadURL
      ? new URL(metadata.downloadURL, this.base)
      : new URL(`api/v2/entries/${encodeURIComponent(entryId)}/attachments/${encodeURIComponent(fileId)}`, this.base)
    const sameOrigin = url.origin === this.base.origin
    const bytes = await this.withAuthRetry(sameOrigin, async (bearer) => {
      await this.o.beforeRequest?.()
      return this.download(url, bearer, fileId, metadata.size)
    })
    if (bytes.length !== metadata.size) {
      throw new VendorResponseInvalid(this.source, `attachment ${fileId} has ${bytes.length} bytes, its metadata says ${metadata.size}`)
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    if (metadata.sha256 && metadata.sha256 !== sha256) {
      throw new VendorResponseInvalid(this.source, `attachment ${fileId} bytes do not match their sha256`)
    }
    return { metadata, bytes, sha256 }
  }

  /** Streams the bytes, stopping as soon as more than `announced` arrive (never buffers more than the metadata said). */
  private async download(url: URL, bearer: string | null, fileId: string, announced: number): Promise<Buffer | 'unauthorized'> {
    const stream = got.stream(url, {
      agent: egressAgents(), // private and reserved addresses are refused at connect time (core/egress.ts)
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: this.o.timeoutMs },
    })
    try {
      const response = await new Promise<PlainResponse>((resolve, reject) => {
        stream.once('response', resolve)
        stream.once('error', reject)
      })
      const rate = readRateHeaders(response.headers)
      if (rate) this.o.onRateHeaders?.(rate)
      if (response.statusCode === 401 && bearer) {
        stream.destroy()
        return 'unauthorized'
      }
      if (response.statusCode >= 300) {
        const chunks: Buffer[] = []
        for await (const c of stream) chunks.push(c as Buffer)
        this.throwForStatus({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8').slice(0, 2000) }, `attachment ${fileId}`)
      }
      const tooMany = (n: number) =>
        n >= this.o.maxAttachmentBytes
          ? new AttachmentTooLarge(fileId, n, this.o.maxAttachmentBytes)
          : new VendorResponseInvalid(this.source, `attachment ${fileId} is larger than its metadata says`)
      const contentLength = intHeader(response.headers['content-length'])
      if (contentLength !== null && contentLength > announced) {
        stream.destroy()
        throw tooMany(contentLength)
      }
      const chunks: Buffer[] = []
      let received = 0
      for await (const c of stream) {
        received += (c as Buffer).length
        if (received > announced) {
          stream.destroy()
          throw tooMany(received)
        }
        chunks.push(c as Buffer)
      }
      return Buffer.concat(chunks)
    } catch (err) {
      stream.destroy()
      if (err instanceof NotebookError) throw err
      throw egressRefusal(err) ?? this.transportError(err)
    }
  }

  // ----- canvases ----------------------------------------------------------------------------------------------

  async createCanvas(input: CanvasInput): Promise<Canvas> {
    // Not retried on 5xx: a retry after a lost answer could create a second canvas.
    return this.canvasCall('POST', 'api/v2/app-canvases', input, false)
  }

  async updateCanvas(canvasId: string, patch: Partial<Omit<CanvasInput, 'resourceId'>>): Promise<Canvas> {
    return this.canvasCall('PATCH', `api/v2/app-canvases/${encodeURIComponent(canvasId)}`, patch, true)
  }

  async getCanvas(canvasId: string): Promise<Canvas> {
    return this.canvasCall('GET', `api/v2/app-canvases/${encodeURIComponent(canvasId)}`, undefined, true)
  }

  private async canvasCall(method: Method, path: string, json: unknown, idempotent: boolean): Promise<Canvas> {
    const body = await this.apiJson(method, path, { json, idempotent, resource: 'canvas' })
    const parsed = canvasSchema.safeParse(body)
    if (!parsed.success) throw new VendorResponseInvalid(this.source, 'canvas')
    return parsed.data
  }

  // ----- plumbing ----------------------------------------------------------------------------------------------

  private async apiJson(
    method: Method,
    path: string,
    { searchParams, json, idempotent = method === 'GET', resource }: { searchParams?: Record<string, string>; json?: unknown; idempotent?: boolean; resource: string },
  ): Promise<unknown> {
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
    return this.json(answer)
  }

  /** Runs `call` with the cached token; on 'unauthorized' drops the token and tries once more with a new one. */
  private async withAuthRetry<T>(useBearer: boolean, call: (bearer: string | null) => Promise<T | 'unauthorized'>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const result = await call(useBearer ? await this.accessToken() : null)
      if (result !== 'unauthorized') return result
      this.token = null
      if (attempt >= 1) throw new VendorAuthFailed(this.source, 401)
    }
  }

  /** One logical request: budget hook, HTTP, rate headers, retries on 5xx/transport errors when idempotent. */
  private async send(
    method: Method,
    path: string,
    { headers, searchParams, body, idempotent }: { headers: Record<string, string>; searchParams?: Record<string, string>; body?: string; idempotent: boolean },
  ): Promise<RawAnswer> {
    const url = new URL(path, this.base)
    const attempts = idempotent ? this.o.retries + 1 : 1
    let last: NotebookError | undefined
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(this.o.retryBaseDelayMs * 2 ** (i - 1))
      await this.o.beforeRequest?.()
      try {
        const res = await got(url, {
          agent: egressAgents(), // private and reserved addresses are refused at connect time (core/egress.ts)
          method,
          headers,
          searchParams,
          body,
          throwHttpErrors: false,
          retry: { limit: 0 },
          followRedirect: false,
          timeout: { request: this.o.timeoutMs },
          responseType: 'text',
        })
        const rate = readRateHeaders(res.headers)
        if (rate) this.o.onRateHeaders?.(rate)
        const answer = { status: res.statusCode, headers: res.headers, body: res.body }
        if (res.statusCode >= 500) {
          last = new VendorUnavailable(this.source, 'server_error', res.statusCode)
          continue
        }
        if (res.statusCode === 429) throw this.rateLimited(answer)
        return answer
      } catch (err) {
        if (err instanceof NotebookError) throw err
        const refused = egressRefusal(err)
        if (refused) throw refused // not retried: the policy answers the same every time
        last = this.transportError(err)
      }
    }
    throw last!
  }

  private rateLimited(answer: RawAnswer): RateLimited {
    const retryAfter = intHeader(answer.headers['retry-after']) ?? intHeader(answer.headers['x-rate-limit-reset'])
    const seconds = Math.max(1, Math.ceil(retryAfter ?? this.o.defaultRetryAfterSeconds))
    return new RateLimited(this.source, seconds)
  }

  private transportError(err: unknown): VendorUnavailable {
    const e = err as RequestError
    const timeout = e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT'
    return new VendorUnavailable(this.source, timeout ? 'timeout' : 'network')
  }

  private throwForStatus(answer: RawAnswer, resource: string): void {
    const { status } = answer
    if (status >= 200 && status < 300) return
    if (status === 429) throw this.rateLimited(answer)
    if (status >= 500) throw new VendorUnavailable(this.source, 'server_error', status)
    if (status === 401) throw new VendorAuthFailed(this.source, status)
    if (status === 404) throw new VendorNotFound(this.source, resource)
    throw new VendorRequestRejected(this.source, status, vendorMessage(answer.body))
  }

  private json(answer: RawAnswer): unknown {
    try {
      return JSON.parse(answer.body)
    } catch {
      throw new VendorResponseInvalid(this.source, 'answer is not JSON')
    }
  }
}
