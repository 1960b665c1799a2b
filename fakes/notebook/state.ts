// Fake notebook state: what the vendor holds (apps, signing keys, clients, tokens, entries, attachments, canvases), its
// rate windows and planned faults, and what it counted. The vendor API reads and changes it; the control API drives it.
import { createHash } from 'node:crypto'
import { FaultPlan } from '../common/faults'
import { illustrative, randomId, randomSecret } from '../common/ids'
import { FixedWindowLimiter } from '../common/rate-window'
import { buildEntry, type Entry, type EntryInput } from './entries'
import { generateSigningKey, type PublicJwk, type SigningKey } from './signing'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 100
export const CANVAS_DATA_MAX_BYTES = 5000
export const TOKEN_LIFETIME_SECONDS = 900
/** Comfortably above the gateway's 1 MB limit whichever way a megabyte is counted. */
export const OVERSIZE_DEFAULT_BYTES = 1024 * 1024 + 1024

export const CANVAS_EVENTS = ['v2.canvas.created', 'v2.canvas.initialized', 'v2.canvas.userInteracted'] as const
export const ENTRY_EVENTS = ['v2.entry.created', 'v2.entry.updated.fields', 'v2.entry.updated.reviewRecord'] as const

// ---------------------------------------------------------------------------------------------------------------
// Options and public types

export interface FakeNotebookOptions {
  port?: number
  host?: string
  /** Clock for token expiry, modifiedAt, rate windows and webhook timestamps (epoch ms). */
  now?: () => number
  /** Per app definition: 300 per 30 s by default; per tenant across apps: 1000 per 30 s. */
  rateLimit?: { limit?: number; windowSeconds?: number; tenantLimit?: number }
  tokenLifetimeSeconds?: number
  /** How long sendWebhook waits for the receiver (default 10 s). */
  webhookTimeoutMs?: number
}

export interface RegisterAppInput {
  appDefinitionId?: string
  /** The installation id sent as envelope.app.id. */
  appId?: string
  tenantId?: string
  versionNumber?: string
  name?: string
  description?: string
  features?: Array<{ id?: string; name: string }>
  /** Message types in the manifest subscriptions (default: all canvas and entry events). */
  messageTypes?: string[]
  webhookUrl?: string
  /** Registers a client for the app (default true); give id/secret to pick them. */
  client?: { clientId?: string; clientSecret?: string } | boolean
}

export interface RegisteredApp {
  appDefinitionId: string
  appId: string
  tenantId: string
  versionNumber: string
  featureId: string
  features: Array<{ id: string; name: string; type: 'CANVAS' }>
  kid: string
  clientId?: string
  clientSecret?: string
}

export interface AttachmentInput {
  id?: string
  name?: string
  mimeType?: string
  /** Exact bytes; otherwise `size` deterministic bytes are generated when first downloaded. */
  content?: Buffer | string
  size?: number
  /** Size announced in the metadata when it should differ from the real one (a lying vendor). */
  declaredSize?: number
  /** Adds an external_file note part to the entry's last day (bumps modifiedAt). */
  appendToEntry?: boolean
}

export interface AttachmentInfo {
  id: string
  entryId: string
  name: string
  mimeType: string
  size: number
  sha256: string
}

/** Message fields; missing ones get defaults for the type (featureId = the app's first feature, etc.). */
export interface WebhookEvent {
  type: string
  [field: string]: unknown
}

export interface WebhookOptions {
  /** Explicit webhook-id (pass an earlier one to replay a delivery). */
  webhookId?: string
  /** Reuse the webhook-id of the previous delivery built for any app. */
  reuseLastId?: boolean
  /** Explicit webhook-timestamp (Unix seconds). */
  timestamp?: number
  /** Added to now, e.g. -360 for a delivery six minutes old. */
  timestampOffsetSeconds?: number
  /**
   * valid: every signing key of the app (two entries during a keep-old rotation); tampered: right key, other content;
   * unknown_key: a key that is not in the JWKS; garbage: not a DER signature; none: no webhook-signature header.
   */
  signature?: 'valid' | 'tampered' | 'unknown_key' | 'garbage' | 'none'
  /** Which signing keys sign a valid delivery (default all current signing keys). */
  signWith?: 'all' | 'newest' | 'oldest'
  omitHeaders?: Array<'webhook-id' | 'webhook-timestamp' | 'webhook-signature'>
  /** Pads the envelope to at least this many bytes (validly signed); true = OVERSIZE_DEFAULT_BYTES. */
  oversize?: boolean | number
  /** A truncated JSON body, validly signed. */
  malformedJson?: boolean
  /** Replaces message.type with an event type the vendor does not document. */
  unknownType?: boolean | string
  /** Send exactly these bytes (validly signed) instead of the envelope. */
  rawBody?: Buffer | string
  extraHeaders?: Record<string, string>
}

export interface BuiltDelivery {
  deliveryId: string
  timestamp: number
  headers: Record<string, string>
  rawBody: Buffer
  /** The envelope, when the body is one. */
  envelope?: Record<string, unknown>
}

export interface WebhookResult extends BuiltDelivery {
  status: number
  body: string
  json?: unknown
  responseHeaders: Record<string, string>
}

export interface FakeNotebookStats {
  requests: number
  tokensIssued: number
  tokenRejected: number
  rateLimited: number
  forcedServerErrors: number
  entryReads: number
  entryListRequests: number
  attachmentMetadataReads: number
  attachmentDownloads: number
  jwksRequests: number
  manifestRequests: number
  canvasWrites: number
  webhooksSent: number
}

export interface RequestLogItem {
  at: number
  method: string
  path: string
  status: number
  appDefinitionId?: string
}

// ---------------------------------------------------------------------------------------------------------------
// State

export interface AppState {
  id: string
  appId: string
  tenantId: string
  versionNumber: string
  name: string
  description: string
  features: Array<{ id: string; name: string; type: 'CANVAS' }>
  messageTypes: string[]
  webhookUrl: string
  /** Oldest first; `published` keys are in the JWKS, `signing` keys sign deliveries. */
  keys: Array<{ key: SigningKey; published: boolean; signing: boolean }>
}

export interface StoredAttachment {
  id: string
  entryId: string
  name: string
  mimeType: string
  content?: Buffer
  size: number
  declaredSize?: number
  sha256?: string
}

export interface Canvas {
  id: string
  appId: string
  featureId: string
  resourceId: string
  blocks: unknown[]
  enabled: boolean
  sessionId: string | null
  data: string | null
  archiveRecord: null
  illustrative: true
}

export interface TokenRecord {
  clientId: string
  appDefinitionId: string
  expiresAt: number
}

export const emptyStats = (): FakeNotebookStats => ({
  requests: 0,
  tokensIssued: 0,
  tokenRejected: 0,
  rateLimited: 0,
  forcedServerErrors: 0,
  entryReads: 0,
  entryListRequests: 0,
  attachmentMetadataReads: 0,
  attachmentDownloads: 0,
  jwksRequests: 0,
  manifestRequests: 0,
  canvasWrites: 0,
  webhooksSent: 0,
})

/** A control call that makes no sense (unknown app, no such entry): 400 on the control API. */
export class BadControlInput extends Error {}

/** Deterministic filler bytes for generated attachments. */
function generatedBytes(size: number, seed: string): Buffer {
  const block = Buffer.alloc(64 * 1024)
  let h = createHash('sha256').update(seed).digest()
  for (let off = 0; off < block.length; off += h.length) {
    h.copy(block, off)
    h = createHash('sha256').update(h).digest()
  }
  const out = Buffer.allocUnsafe(size)
  for (let off = 0; off < size; off += block.length) block.copy(out, off, 0, Math.min(block.length, size - off))
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// The vendor's state: apps and their keys, clients and tokens, entries, attachments, canvases, windows, faults, stats.

export class NotebookState {
  readonly apps = new Map<string, AppState>()
  readonly clients = new Map<string, { secret: string; appDefinitionId: string }>()
  readonly tokens = new Map<string, TokenRecord>()
  readonly entries = new Map<string, Entry>()
  readonly attachments = new Map<string, StoredAttachment>()
  readonly canvases = new Map<string, Canvas>()
  readonly faults = new FaultPlan()
  readonly appLimiter: FixedWindowLimiter
  readonly tenantLimiter: FixedWindowLimiter
  readonly tokenLifetimeSeconds: number
  readonly now: () => number
  readonly webhookTimeoutMs: number
  stats: FakeNotebookStats = emptyStats()
  readonly requestLog: RequestLogItem[] = []
  baseUrl = 'http://127.0.0.1'
  private lastModifiedMs = 0

  constructor(options: FakeNotebookOptions = {}) {
    this.now = options.now ?? Date.now
    const windowSeconds = options.rateLimit?.windowSeconds ?? 30
    this.appLimiter = new FixedWindowLimiter({ limit: options.rateLimit?.limit ?? 300, windowSeconds }, this.now)
    this.tenantLimiter = new FixedWindowLimiter({ limit: options.rateLimit?.tenantLimit ?? 1000, windowSeconds }, this.now)
    this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? TOKEN_LIFETIME_SECONDS
    this.webhookTimeoutMs = options.webhookTimeoutMs ?? 10_000
  }

  // ----- apps, clients, keys -------------------------------------------------------------------------------------

  registerApp(input: RegisterAppInput = {}): RegisteredApp {
    const id = input.appDefinitionId ?? randomId('appdef', 10)
    if (this.apps.has(id)) throw new BadControlInput(`app definition ${id} exists`)
    const features = (input.features ?? [{ name: 'Illustrative SOP check' }]).map((f) => ({
      id: f.id ?? randomId('feat', 10),
      name: illustrative(f.name),
      type: 'CANVAS' as const,
    }))
    if (!features.length) throw new BadControlInput('an app needs at least one canvas feature')
    const app: AppState = {
      id,
      appId: input.appId ?? randomId('app', 10),
      tenantId: input.tenantId ?? 'ten_illustrative',
      versionNumber: input.versionNumber ?? '1.0.0',
      name: illustrative(input.name ?? 'evidence workspace app'),
      description: input.description ?? 'Illustrative app definition served by the fake notebook.',
      features,
      messageTypes: input.messageTypes ?? [...CANVAS_EVENTS, ...ENTRY_EVENTS],
      webhookUrl: input.webhookUrl ?? '',
      keys: [{ key: generateSigningKey(this.now()), published: true, signing: true }],
    }
    this.apps.set(id, app)
    const out: RegisteredApp = {
      appDefinitionId: id,
      appId: app.appId,
      tenantId: app.tenantId,
      versionNumber: app.versionNumber,
      featureId: features[0].id,
      features,
      kid: app.keys[0].key.kid,
    }
    if (input.client !== false) {
      const c = this.registerClient({ appDefinitionId: id, ...(typeof input.client === 'object' ? input.client : {}) })
      out.clientId = c.clientId
      out.clientSecret = c.clientSecret
    }
    return out
  }

  registerClient({ appDefinitionId, clientId, clientSecret }: { appDefinitionId: string; clientId?: string; clientSecret?: string }) {
    this.app(appDefinitionId)
    const id = clientId ?? randomId('client', 16)
    const secret = clientSecret ?? randomSecret()
    this.clients.set(id, { secret, appDefinitionId })
    return { clientId: id, clientSecret: secret }
  }

  jwks(appDefinitionId: string): { keys: PublicJwk[] } {
    return { keys: this.app(appDefinitionId).keys.filter((k) => k.published).map((k) => ({ ...k.key.publicJwk })) }
  }

  /** The current signing keys, oldest first (for signDelivery in tests and benchmarks). */
  signingKeys(appDefinitionId: string): SigningKey[] {
    return this.app(appDefinitionId).keys.filter((k) => k.signing).map((k) => k.key)
  }

  manifest(appDefinitionId: string) {
    const app = this.app(appDefinitionId)
    return {
      manifestVersion: 1,
      info: { name: app.name, description: app.description, version: app.versionNumber },
      settings: { lifecycleManagement: 'AUTOMATIC', webhookUrl: app.webhookUrl },
      configuration: [],
      features: app.features.map((f) => ({ name: f.name, id: f.id, type: f.type })),
      subscriptions: { deliveryMethod: 'WEBHOOK', messages: app.messageTypes.map((type) => ({ type })) },
      illustrative: true,
    }
  }

  // ----- entries and attachments ---------------------------------------------------------------------------------

  /** Strictly increasing modifiedAt, even when the clock stands still. */
  private nextModifiedAt(): string {
    const ms = Math.max(this.now(), this.lastModifiedMs + 1)
    this.lastModifiedMs = ms
    return new Date(ms).toISOString()
  }

  upsertEntry(input: EntryInput = {}): Entry {
    const previous = input.id ? this.entries.get(input.id) : undefined
    const entry = buildEntry(input, { baseUrl: this.baseUrl, now: this.nextModifiedAt() }, previous)
    this.entries.set(entry.id, entry)
    return structuredClone(entry)
  }

  /** Changes an entry (fields, or a mutation of a copy) and bumps modifiedAt. */
  modifyEntry(id: string, change: EntryInput | ((entry: Entry) => void)): Entry {
    const current = this.entries.get(id)
    if (!current) throw new BadControlInput(`no entry ${id}`)
    let next: Entry
    if (typeof change === 'function') {
      next = structuredClone(current)
      change(next)
      next.modifiedAt = this.nextModifiedAt()
      next.illustrative = true
    } else {
      next = buildEntry({ ...change, id }, { baseUrl: this.baseUrl, now: this.nextModifiedAt() }, current)
    }
    this.entries.set(id, next)
    return structuredClone(next)
  }

  deleteEntry(id: string): boolean {
    for (const [k, a] of this.attachments) if (a.entryId === id) this.attachments.delete(k)
    return this.entries.delete(id)
  }

  getEntry(id: string): Entry | undefined {
    const e = this.entries.get(id)
    return e && structuredClone(e)
  }

  putAttachment(entryId: string, input: AttachmentInput = {}): AttachmentInfo {
    if (!this.entries.has(entryId)) throw new BadControlInput(`no entry ${entryId}`)
    const id = input.id ?? randomId('exf', 10)
    const content = input.content === undefined ? undefined : Buffer.isBuffer(input.content) ? input.content : Buffer.from(input.content, 'utf8')
    const size = content ? content.length : (input.size ?? 1024)
    if (!Number.isInteger(size) || size < 0) throw new BadControlInput('size must be a non-negative integer')
    const stored: StoredAttachment = {
      id,
      entryId,
      name: illustrative(input.name ?? 'attachment.csv'),
      mimeType: input.mimeType ?? 'text/csv',
      content,
      size,
      declaredSize: input.declaredSize,
    }
    this.attachments.set(`${entryId}/${id}`, stored)
    if (input.appendToEntry) {
      this.modifyEntry(entryId, (e) => {
        if (!e.days.length) e.days.push({ date: new Date(this.now()).toISOString().slice(0, 10), notes: [] })
        e.days[e.days.length - 1].notes.push({ type: 'external_file', indentation: 0, text: stored.name, links: [], externalFileId: id })
      })
    }
    return this.attachmentInfo(stored)
  }

  attachmentBytes(a: StoredAttachment): Buffer {
    // Generated content is made on first download only, so a 25 MB attachment costs nothing until someone reads it.
    a.content ??= generatedBytes(a.size, `${a.entryId}/${a.id}`)
    return a.content
  }

  attachmentInfo(a: StoredAttachment): AttachmentInfo {
    a.sha256 ??= createHash('sha256').update(this.attachmentBytes(a)).digest('hex')
    return { id: a.id, entryId: a.entryId, name: a.name, mimeType: a.mimeType, size: a.size, sha256: a.sha256 }
  }

  canvasList(): Canvas[] {
    return [...this.canvases.values()].map((c) => structuredClone(c))
  }

  app(appDefinitionId: string): AppState {
    const app = this.apps.get(appDefinitionId)
    if (!app) throw new BadControlInput(`no app definition ${appDefinitionId}`)
    return app
  }
}
