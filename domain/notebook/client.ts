// Notebook vendor API (v2) for the eln_provider: entries, attachments and canvases over the shared VendorHttpClient
// (client-credentials token, retries, rate headers, typed vendor errors: adapters/http.ts and adapters/errors.ts).
//
// - Tokens come from POST api/v2/token (Basic auth) and are refreshed 12 minutes into their 900 s life.
// - Attachment bytes are refused at `maxAttachmentBytes` (25 MiB) from the metadata, before any byte is downloaded, and
//   the download is cut off if the vendor sends more than the metadata announced. The bearer token is only sent to a
//   download URL on the vendor's own origin (real vendors hand out pre-signed storage URLs).
import { createHash } from 'node:crypto'
import type { Method } from 'got'
import { z } from 'zod'
import { TOKEN_REFRESH_AFTER_MS, VendorHttpClient, type VendorHttpOptions } from '../adapters'
import { AttachmentTooLarge, VendorResponseInvalid } from '../adapters'
import { PROVIDER_ID, type NotebookEntry } from './canonical'

// The vendor errors are shared by every provider; re-exported for the notebook's callers.
export {
  RateLimited, VendorAuthFailed, VendorNotFound, VendorRequestRejected, VendorResponseInvalid, VendorUnavailable,
  VendorError as NotebookError,
} from '../adapters'
export { readRateHeaders, type RateHeaders } from '../adapters'
export { TOKEN_REFRESH_AFTER_MS }

export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
export const MAX_PAGE_SIZE = 100
/** Canvas `data` must be a JSON string under 5 kB (UTF-8 bytes). */
export const CANVAS_DATA_MAX_BYTES = 5000
export const TOKEN_PATH = 'api/v2/token'

export { AttachmentTooLarge } from '../adapters'

// ---------------------------------------------------------------------------------------------------------------
// Shapes

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

export interface NotebookClientOptions extends Omit<VendorHttpOptions, 'baseUrl' | 'source' | 'clientCredentials'> {
  baseUrl: string
  clientId: string
  clientSecret: string
  /** Names the source in RateLimited / errors (default 'eln_provider'). */
  source?: string
  tokenRefreshAfterMs?: number
  maxAttachmentBytes?: number
}

export class NotebookClient {
  readonly http: VendorHttpClient
  readonly source: string
  private readonly maxAttachmentBytes: number

  constructor({ clientId, clientSecret, tokenRefreshAfterMs, maxAttachmentBytes, ...options }: NotebookClientOptions) {
    this.source = options.source ?? PROVIDER_ID
    this.maxAttachmentBytes = maxAttachmentBytes ?? MAX_ATTACHMENT_BYTES
    this.http = new VendorHttpClient({
      ...options,
      source: this.source,
      clientCredentials: { tokenPath: TOKEN_PATH, clientId, clientSecret, refreshAfterMs: tokenRefreshAfterMs ?? TOKEN_REFRESH_AFTER_MS },
    })
  }

  /** A valid access token, from the cache unless it is due for refresh. */
  accessToken(): Promise<string> {
    return this.http.accessToken()
  }

  /** Health check: exchanges the credentials for a fresh token (throws VendorAuthFailed when they are wrong). */
  checkCredentials(): Promise<{ ok: true; expiresInSeconds: number }> {
    return this.http.checkCredentials()
  }

  // ----- entries -----------------------------------------------------------------------------------------------

  async getEntry(id: string): Promise<NotebookEntry> {
    const body = await this.http.requestJson('GET', `api/v2/entries/${encodeURIComponent(id)}`, { resource: `entry ${id}` })
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
    const body = await this.http.requestJson('GET', 'api/v2/entries', { searchParams, resource: 'entries' })
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
    const body = await this.http.requestJson('GET', path, { resource: `attachment ${fileId}` })
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
    const limit = this.maxAttachmentBytes
    if (metadata.size >= limit) throw new AttachmentTooLarge(fileId, metadata.size, limit, this.source)

    const url = metadata.downloadURL
      ? new URL(metadata.downloadURL, this.http.base)
      : new URL(`api/v2/entries/${encodeURIComponent(entryId)}/attachments/${encodeURIComponent(fileId)}`, this.http.base)
    // Streams the bytes, stopping as soon as more than the metadata announced arrive.
    const bytes = await this.http.download(url, {
      resource: `attachment ${fileId}`,
      maxBytes: metadata.size,
      tooMany: (n) => (n >= limit ? new AttachmentTooLarge(fileId, n, limit, this.source) : new VendorResponseInvalid(this.source, `attachment ${fileId} is larger than its metadata says`)),
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
    const body = await this.http.requestJson(method, path, { json, idempotent, resource: 'canvas' })
    const parsed = canvasSchema.safeParse(body)
    if (!parsed.success) throw new VendorResponseInvalid(this.source, 'canvas')
    return parsed.data
  }
}
