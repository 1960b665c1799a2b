// Fake notebook (ELN) vendor: a real HTTP server speaking the vendor's v2 shapes (VENDORS.md), with a control API to seed
// content, rotate signing keys, misbehave and send signed webhooks. Everything it serves is labelled illustrative.
// createFakeNotebook() has no side effects; startFakeNotebook() listens (port 0 in tests); main.ts runs the demo on 8190.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import express, { type NextFunction, type Request, type Response } from 'express'
import { FaultPlan, sleep, type FaultSettings } from '../common/faults'
import { illustrative, randomId, randomSecret } from '../common/ids'
import { listen } from '../common/listen'
import { FixedWindowLimiter, type WindowDecision } from '../common/rate-window'
import { buildEntry, type Entry, type EntryInput } from './entries'
import { derSignature, generateSigningKey, signDelivery, signingInput, type PublicJwk, type SigningKey } from './signing'

export { signDelivery, generateSigningKey, type SigningKey, type SignedDelivery } from './signing'

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

interface AppState {
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

interface StoredAttachment {
  id: string
  entryId: string
  name: string
  mimeType: string
  content?: Buffer
  size: number
  declaredSize?: number
  sha256?: string
}

interface Canvas {
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

interface TokenRecord {
  clientId: string
  appDefinitionId: string
  expiresAt: number
}

const emptyStats = (): FakeNotebookStats => ({
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

class BadControlInput extends Error {}

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
// Control: everything a test, the demo seed or the /_control HTTP API can do.

export class FakeNotebookControl {
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
  private lastDeliveryId: string | undefined

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

  /** New signing key. keepOld: the old key stays in the JWKS and keeps signing (two signature entries); otherwise it is dropped. */
  rotateSigningKey(appDefinitionId: string, { keepOld = true }: { keepOld?: boolean } = {}): { kid: string; publishedKids: string[] } {
    const app = this.app(appDefinitionId)
    if (!keepOld) app.keys = []
    app.keys.push({ key: generateSigningKey(this.now()), published: true, signing: true })
    return { kid: app.keys[app.keys.length - 1].key.kid, publishedKids: this.jwks(appDefinitionId).keys.map((k) => k.kid) }
  }

  /** Ends a keep-old rotation: only the newest key stays published and signing. */
  retireOldKeys(appDefinitionId: string): { publishedKids: string[] } {
    const app = this.app(appDefinitionId)
    app.keys = app.keys.slice(-1)
    return { publishedKids: app.keys.map((k) => k.key.kid) }
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

  /** Invalidates every issued token (the next API call answers 401). */
  expireTokens(): number {
    const n = this.tokens.size
    this.tokens.clear()
    return n
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

  // ----- misbehaviour, limits, stats -----------------------------------------------------------------------------

  /** Slow answers, forced 429s / 5xx (optionally only under a path prefix). Merges into the current plan. */
  misbehave(settings: Partial<FaultSettings>): FaultSettings {
    return this.faults.set(settings)
  }

  behave(): void {
    this.faults.clear()
  }

  setRateLimit({ limit, windowSeconds, tenantLimit }: { limit?: number; windowSeconds?: number; tenantLimit?: number }): void {
    this.appLimiter.configure({ ...(limit !== undefined ? { limit } : {}), ...(windowSeconds !== undefined ? { windowSeconds } : {}) })
    this.tenantLimiter.configure({
      ...(tenantLimit !== undefined ? { limit: tenantLimit } : {}),
      ...(windowSeconds !== undefined ? { windowSeconds } : {}),
    })
  }

  getStats(): FakeNotebookStats {
    return { ...this.stats }
  }

  resetStats(): void {
    this.stats = emptyStats()
    this.requestLog.length = 0
  }

  canvasList(): Canvas[] {
    return [...this.canvases.values()].map((c) => structuredClone(c))
  }

  // ----- webhooks ------------------------------------------------------------------------------------------------

  private message(app: AppState, event: WebhookEvent): Record<string, unknown> {
    const featureId = app.features[0].id
    const userId = 'ent_illustrative_user'
    let defaults: Record<string, unknown>
    switch (event.type) {
      case 'v2.canvas.initialized':
        defaults = { featureId, resourceId: undefined, userId }
        break
      case 'v2.canvas.created':
        defaults = { canvasId: undefined, featureId, userId }
        break
      case 'v2.canvas.userInteracted':
        defaults = { buttonId: undefined, canvasId: undefined, featureId, userId }
        break
      default:
        defaults = event.type.startsWith('v2.entry.')
          ? { id: randomId('evt', 12), createdAt: new Date(this.now()).toISOString(), resourceId: undefined, schema: { id: 'ts_illustrative' } }
          : {}
    }
    const { type, ...fields } = event
    return { type, ...defaults, ...fields, deprecated: event.deprecated ?? false }
  }

  /** A signed delivery as the vendor would send it, without sending it. */
  buildDelivery(appDefinitionId: string, event: WebhookEvent, options: WebhookOptions = {}): BuiltDelivery {
    const app = this.app(appDefinitionId)
    const message = this.message(app, event)
    if (options.unknownType) message.type = typeof options.unknownType === 'string' ? options.unknownType : 'v2.illustrative.undocumented'
    const type = String(message.type)
    const envelope: Record<string, unknown> = {
      version: '0',
      baseURL: this.baseUrl,
      tenantId: app.tenantId,
      app: { id: app.appId },
      appDefinition: { id: app.id, versionNumber: app.versionNumber },
      channel: type.startsWith('v2.canvas.') ? 'app_signals' : 'events',
      message,
    }
    let body: Buffer
    if (options.rawBody !== undefined) {
      body = Buffer.isBuffer(options.rawBody) ? options.rawBody : Buffer.from(options.rawBody, 'utf8')
    } else {
      let json = JSON.stringify(envelope)
      const target = options.oversize === true ? OVERSIZE_DEFAULT_BYTES : typeof options.oversize === 'number' ? options.oversize : 0
      if (Buffer.byteLength(json) < target) {
        envelope.illustrativePadding = 'x'.repeat(target - Buffer.byteLength(json) + 32)
        json = JSON.stringify(envelope)
      }
      if (options.malformedJson) json = `${json.slice(0, Math.max(1, json.length - 7))},"`
      body = Buffer.from(json, 'utf8')
    }

    const id = options.webhookId ?? (options.reuseLastId ? this.lastDeliveryId : undefined) ?? `msg_${randomUUID()}`
    this.lastDeliveryId = id
    const timestamp = options.timestamp ?? Math.floor(this.now() / 1000) + (options.timestampOffsetSeconds ?? 0)
    const signing = this.signingKeys(appDefinitionId)
    const keys = options.signWith === 'newest' ? signing.slice(-1) : options.signWith === 'oldest' ? signing.slice(0, 1) : signing
    const signed = signDelivery({ id, timestamp, body, keys })
    const headers: Record<string, string> = { ...signed.headers }
    const data = signingInput(id, String(timestamp), body)
    switch (options.signature ?? 'valid') {
      case 'tampered':
        headers['webhook-signature'] = keys.map((k) => `v1der,${derSignature(k, Buffer.concat([data, Buffer.from(' ')]))}`).join(' ')
        break
      case 'unknown_key':
        headers['webhook-signature'] = `v1der,${derSignature(generateSigningKey(), data)}`
        break
      case 'garbage':
        headers['webhook-signature'] = `v1der,${randomBytes(70).toString('base64')}`
        break
      case 'none':
        delete headers['webhook-signature']
        break
    }
    for (const h of options.omitHeaders ?? []) delete headers[h]
    Object.assign(headers, options.extraHeaders)
    return {
      deliveryId: id,
      timestamp,
      headers,
      rawBody: body,
      ...(options.rawBody === undefined && !options.malformedJson ? { envelope } : {}),
    }
  }

  /** Builds, signs and POSTs a delivery to `url`; answers what the receiver answered. Throws on network failure. */
  async sendWebhook({
    url,
    appDefinitionId,
    event,
    ...options
  }: { url: string; appDefinitionId: string; event: WebhookEvent } & WebhookOptions): Promise<WebhookResult> {
    const delivery = this.buildDelivery(appDefinitionId, event, options)
    this.stats.webhooksSent += 1
    const res = await fetch(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.rawBody,
      signal: AbortSignal.timeout(this.webhookTimeoutMs),
    })
    const body = await res.text()
    let json: unknown
    try {
      json = body ? JSON.parse(body) : undefined
    } catch {
      json = undefined
    }
    return { ...delivery, status: res.status, body, json, responseHeaders: Object.fromEntries(res.headers) }
  }

  app(appDefinitionId: string): AppState {
    const app = this.apps.get(appDefinitionId)
    if (!app) throw new BadControlInput(`no app definition ${appDefinitionId}`)
    return app
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Vendor API

function vendorError(res: Response, status: number, message: string) {
  res.status(status).json({ error: { message, type: 'invalid_request_error' } })
}

function setRateHeaders(res: Response, d: Pick<WindowDecision, 'limit' | 'remaining' | 'resetSeconds'>) {
  res.setHeader('x-rate-limit-limit', String(d.limit))
  res.setHeader('x-rate-limit-remaining', String(d.remaining))
  res.setHeader('x-rate-limit-reset', String(d.resetSeconds))
}

interface Identity {
  appDefinitionId?: string
  tenantId?: string
  token?: TokenRecord
}

function clientCredentials(req: Request): { clientId?: string; clientSecret?: string } {
  const auth = req.headers.authorization
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8')
    const i = decoded.indexOf(':')
    if (i > 0) {
      const dec = (s: string) => {
        try {
          return decodeURIComponent(s)
        } catch {
          return s
        }
      }
      return { clientId: dec(decoded.slice(0, i)), clientSecret: dec(decoded.slice(i + 1)) }
    }
  }
  const body = (req.body ?? {}) as Record<string, unknown>
  return {
    clientId: typeof body.client_id === 'string' ? body.client_id : undefined,
    clientSecret: typeof body.client_secret === 'string' ? body.client_secret : undefined,
  }
}

interface EntryCursor {
  m: number
  i: string
}

function encodeCursor(c: EntryCursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url')
}

function decodeCursor(s: string): EntryCursor | null {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as EntryCursor
    return typeof c.m === 'number' && typeof c.i === 'string' ? c : null
  } catch {
    return null
  }
}

const first = (v: unknown): string | undefined => (Array.isArray(v) ? (typeof v[0] === 'string' ? v[0] : undefined) : typeof v === 'string' ? v : undefined)

function validateCanvasFields(body: Record<string, unknown>, app: AppState, creating: boolean): string | null {
  if (creating || body.featureId !== undefined) {
    if (typeof body.featureId !== 'string' || !app.features.some((f) => f.id === body.featureId)) return 'featureId is not a feature of this app'
  }
  if (creating && (typeof body.resourceId !== 'string' || !body.resourceId)) return 'resourceId is required'
  if (creating || body.blocks !== undefined) {
    if (!Array.isArray(body.blocks)) return 'blocks must be an array'
    if (!body.blocks.every((b) => b && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string')) return 'every block needs a type'
  }
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') return 'enabled must be a boolean'
  if (body.sessionId !== undefined && body.sessionId !== null && typeof body.sessionId !== 'string') return 'sessionId must be a string'
  if (body.data !== undefined && body.data !== null) {
    if (typeof body.data !== 'string') return 'data must be a JSON string'
    if (Buffer.byteLength(body.data, 'utf8') >= CANVAS_DATA_MAX_BYTES) return `data must be under ${CANVAS_DATA_MAX_BYTES} bytes`
    try {
      JSON.parse(body.data)
    } catch {
      return 'data must be a JSON string'
    }
  }
  return null
}

function apiRouter(c: FakeNotebookControl): express.Router {
  const r = express.Router()
  r.use(express.urlencoded({ extended: false, limit: '16kb' }))
  r.use(express.json({ limit: '1mb' }))

  // Who is calling: decides the rate-limit window; authorisation is checked per route.
  r.use((req, res, next) => {
    const id: Identity = {}
    const auth = req.headers.authorization
    if (auth?.startsWith('Bearer ')) {
      const t = c.tokens.get(auth.slice(7))
      if (t && t.expiresAt > c.now()) id.token = t
      if (t) id.appDefinitionId = t.appDefinitionId
    } else if (req.path === '/v2/token') {
      const { clientId } = clientCredentials(req)
      const client = clientId ? c.clients.get(clientId) : undefined
      if (client) id.appDefinitionId = client.appDefinitionId
    }
    const m = /^\/v1\/apps\/([^/]+)\//.exec(req.path)
    if (m && c.apps.has(decodeURIComponent(m[1]))) id.appDefinitionId = decodeURIComponent(m[1])
    if (id.appDefinitionId) id.tenantId = c.apps.get(id.appDefinitionId)?.tenantId
    res.locals.identity = id
    c.stats.requests += 1
    res.on('finish', () => {
      c.requestLog.push({ at: c.now(), method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, appDefinitionId: id.appDefinitionId })
      if (c.requestLog.length > 1000) c.requestLog.splice(0, c.requestLog.length - 1000)
    })
    next()
  })

  // Misbehaviour and rate limits; every answer carries the x-rate-limit-* headers.
  r.use(async (req, res, next) => {
    const id = res.locals.identity as Identity
    const appKey = id.appDefinitionId ? `app:${id.appDefinitionId}` : `anonymous:${req.ip}`
    const fault = c.faults.next(`/api${req.path}`)
    if (fault.delayMs > 0) await sleep(fault.delayMs)
    if (fault.kind === 'server_error') {
      c.stats.forcedServerErrors += 1
      setRateHeaders(res, c.appLimiter.peek(appKey))
      return vendorError(res, fault.status, 'Illustrative upstream failure.')
    }
    if (fault.kind === 'rate_limit') {
      c.stats.rateLimited += 1
      setRateHeaders(res, { limit: c.appLimiter.settings.limit, remaining: 0, resetSeconds: fault.resetSeconds })
      return vendorError(res, 429, 'Rate limit exceeded.')
    }
    // The headers describe the app's window; an exhausted tenant window shows as remaining 0 with the tenant's reset.
    const tenantKey = id.tenantId ? `tenant:${id.tenantId}` : undefined
    const tenant = tenantKey ? c.tenantLimiter.peek(tenantKey) : undefined
    let decision: WindowDecision
    if (tenant && !tenant.allowed) {
      decision = { ...c.appLimiter.peek(appKey), allowed: false, remaining: 0, resetSeconds: tenant.resetSeconds }
    } else {
      decision = c.appLimiter.take(appKey)
      if (decision.allowed && tenantKey) c.tenantLimiter.take(tenantKey)
    }
    setRateHeaders(res, decision)
    if (!decision.allowed) {
      c.stats.rateLimited += 1
      return vendorError(res, 429, 'Rate limit exceeded.')
    }
    next()
  })

  const bearer = (req: Request, res: Response, next: NextFunction) => {
    if (!(res.locals.identity as Identity).token) return vendorError(res, 401, 'Invalid or expired access token.')
    next()
  }

  r.post('/v2/token', (req, res) => {
    const { clientId, clientSecret } = clientCredentials(req)
    const grant = first((req.body as Record<string, unknown> | undefined)?.grant_type)
    if (grant !== 'client_credentials') return vendorError(res, 400, 'grant_type must be client_credentials.')
    const client = clientId ? c.clients.get(clientId) : undefined
    if (!client || client.secret !== clientSecret) {
      c.stats.tokenRejected += 1
      return vendorError(res, 401, 'Invalid client credentials.')
    }
    const token = randomSecret(32)
    c.tokens.set(token, { clientId: clientId!, appDefinitionId: client.appDefinitionId, expiresAt: c.now() + c.tokenLifetimeSeconds * 1000 })
    c.stats.tokensIssued += 1
    res.json({ access_token: token, token_type: 'Bearer', expires_in: c.tokenLifetimeSeconds })
  })

  r.get('/v2/entries', bearer, (req, res) => {
    c.stats.entryListRequests += 1
    const pageSizeRaw = first(req.query.pageSize)
    const pageSize = pageSizeRaw === undefined ? DEFAULT_PAGE_SIZE : Number(pageSizeRaw)
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      return vendorError(res, 400, `pageSize must be an integer between 1 and ${MAX_PAGE_SIZE}.`)
    }
    const sort = first(req.query.sort) ?? 'modifiedAt:desc'
    if (!['modifiedAt', 'modifiedAt:asc', 'modifiedAt:desc'].includes(sort)) return vendorError(res, 400, 'Unsupported sort.')
    const asc = sort === 'modifiedAt:asc'
    let filter: ((ms: number) => boolean) | undefined
    const modifiedAt = first(req.query.modifiedAt)
    if (modifiedAt) {
      const m = /^\s*(>=|<=|>|<)?\s*(\S+)\s*$/.exec(modifiedAt)
      const at = m ? Date.parse(m[2]) : NaN
      if (!m || Number.isNaN(at)) return vendorError(res, 400, 'modifiedAt must be an RFC 3339 date with an optional operator.')
      const op = m[1] ?? '>'
      filter = op === '>' ? (x) => x > at : op === '>=' ? (x) => x >= at : op === '<' ? (x) => x < at : (x) => x <= at
    }
    const archive = first(req.query.archiveReason) ?? 'NOT_ARCHIVED'
    let cursor: EntryCursor | null = null
    const nextToken = first(req.query.nextToken)
    if (nextToken) {
      cursor = decodeCursor(nextToken)
      if (!cursor) return vendorError(res, 400, 'Invalid nextToken.')
    }
    const key = (e: Entry) => ({ m: Date.parse(e.modifiedAt), i: e.id })
    const cmp = (a: EntryCursor, b: EntryCursor) => (a.m - b.m || (a.i < b.i ? -1 : a.i > b.i ? 1 : 0)) * (asc ? 1 : -1)
    const all = [...c.entries.values()]
      .filter((e) => (archive === 'ANY' ? true : archive === 'NOT_ARCHIVED' ? !e.archiveRecord : e.archiveRecord?.reason === archive))
      .filter((e) => !filter || filter(Date.parse(e.modifiedAt)))
      .filter((e) => !cursor || cmp(key(e), cursor) > 0)
      .sort((a, b) => cmp(key(a), key(b)))
    const page = all.slice(0, pageSize)
    const more = all.length > pageSize
    res.json({ entries: page, nextToken: more ? encodeCursor(key(page[page.length - 1])) : '' })
  })

  r.get('/v2/entries/:id', bearer, (req, res) => {
    c.stats.entryReads += 1
    const entry = c.entries.get(req.params.id as string)
    if (!entry) return vendorError(res, 404, 'Entry not found.')
    res.json({ entry })
  })

  const attachmentOf = (req: Request) => c.attachments.get(`${req.params.id}/${req.params.fileId}`)

  r.get('/v2/entries/:id/external-files/:fileId', bearer, (req, res) => {
    c.stats.attachmentMetadataReads += 1
    const a = attachmentOf(req)
    if (!a) return vendorError(res, 404, 'External file not found.')
    const info = c.attachmentInfo(a)
    res.json({
      externalFile: {
        id: a.id,
        size: a.declaredSize ?? a.size,
        downloadURL: `${c.baseUrl}/api/v2/entries/${encodeURIComponent(a.entryId)}/attachments/${encodeURIComponent(a.id)}`,
        expiresAt: new Date(c.now() + 10 * 60_000).toISOString(),
        name: a.name,
        mimeType: a.mimeType,
        sha256: info.sha256,
        illustrative: true,
      },
    })
  })

  // GET (and HEAD, which express routes through the same handler) answer the bytes with their size and digest.
  r.get('/v2/entries/:id/attachments/:fileId', bearer, (req, res) => {
    const a = attachmentOf(req)
    if (!a) return vendorError(res, 404, 'External file not found.')
    const info = c.attachmentInfo(a)
    if (req.method === 'GET') c.stats.attachmentDownloads += 1
    res.setHeader('content-type', a.mimeType)
    res.setHeader('x-file-size', String(a.declaredSize ?? a.size))
    res.setHeader('x-file-sha256', info.sha256)
    res.setHeader('content-disposition', `attachment; filename="${a.name.replace(/"/g, '')}"`)
    const bytes = c.attachmentBytes(a)
    res.setHeader('content-length', String(bytes.length))
    res.end(req.method === 'HEAD' ? undefined : bytes)
  })

  r.get('/v1/apps/:appDefinitionId/manifest', (req, res) => {
    c.stats.manifestRequests += 1
    if (!c.apps.has(req.params.appDefinitionId as string)) return vendorError(res, 404, 'App definition not found.')
    res.json(c.manifest(req.params.appDefinitionId as string))
  })

  r.get('/v1/apps/:appDefinitionId/jwks', (req, res) => {
    c.stats.jwksRequests += 1
    if (!c.apps.has(req.params.appDefinitionId as string)) return vendorError(res, 404, 'App definition not found.')
    res.setHeader('cache-control', 'public, max-age=300')
    res.json(c.jwks(req.params.appDefinitionId as string))
  })

  const ownCanvas = (req: Request, res: Response): Canvas | undefined => {
    const app = c.apps.get((res.locals.identity as Identity).appDefinitionId!)!
    const canvas = c.canvases.get(req.params.canvasId as string)
    return canvas && canvas.appId === app.appId ? canvas : undefined
  }

  r.post('/v2/app-canvases', bearer, (req, res) => {
    const app = c.apps.get((res.locals.identity as Identity).appDefinitionId!)!
    const body = (req.body ?? {}) as Record<string, unknown>
    const problem = validateCanvasFields(body, app, true)
    if (problem) return vendorError(res, 400, problem)
    if (body.appId !== undefined && body.appId !== app.appId) return vendorError(res, 400, 'appId does not match the token.')
    const canvas: Canvas = {
      id: randomId('cnvs', 12),
      appId: app.appId,
      featureId: body.featureId as string,
      resourceId: body.resourceId as string,
      blocks: body.blocks as unknown[],
      enabled: (body.enabled as boolean | undefined) ?? true,
      sessionId: (body.sessionId as string | undefined) ?? null,
      data: (body.data as string | undefined) ?? null,
      archiveRecord: null,
      illustrative: true,
    }
    c.canvases.set(canvas.id, canvas)
    c.stats.canvasWrites += 1
    res.status(201).json(canvas)
  })

  r.patch('/v2/app-canvases/:canvasId', bearer, (req, res) => {
    const canvas = ownCanvas(req, res)
    if (!canvas) return vendorError(res, 404, 'Canvas not found.')
    const app = c.apps.get((res.locals.identity as Identity).appDefinitionId!)!
    const body = (req.body ?? {}) as Record<string, unknown>
    const problem = validateCanvasFields(body, app, false)
    if (problem) return vendorError(res, 400, problem)
    for (const k of ['featureId', 'blocks', 'enabled', 'sessionId', 'data'] as const) {
      if (body[k] !== undefined) (canvas as unknown as Record<string, unknown>)[k] = body[k]
    }
    c.stats.canvasWrites += 1
    res.json(canvas)
  })

  r.get('/v2/app-canvases/:canvasId', bearer, (req, res) => {
    const canvas = ownCanvas(req, res)
    if (!canvas) return vendorError(res, 404, 'Canvas not found.')
    res.json(canvas)
  })

  r.use((_req, res) => vendorError(res, 404, 'Not found.'))
  // Body-parser failures (bad JSON, too large) in the vendor's error shape.
  r.use((err: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status >= 400 && err.status < 600 ? err.status : 500
    vendorError(res, status, status === 500 ? 'Internal error.' : (err.message ?? 'Bad request.'))
  })
  return r
}

// ---------------------------------------------------------------------------------------------------------------
// Control HTTP API (/_control): the same operations as FakeNotebookControl for the demo and other processes.

function controlRouter(c: FakeNotebookControl): express.Router {
  const r = express.Router()
  r.use(express.json({ limit: '64mb' }))
  const body = (req: Request) => (req.body ?? {}) as Record<string, any>
  const wrap = (fn: (req: Request) => unknown | Promise<unknown>) => async (req: Request, res: Response) => {
    try {
      const out = await fn(req)
      res.status(req.method === 'POST' ? 201 : 200).json(out ?? { ok: true })
    } catch (err) {
      if (err instanceof BadControlInput) return res.status(400).json({ error: { message: err.message } })
      res.status(502).json({ error: { message: (err as Error).message } })
    }
  }
  const param = (req: Request, name: string) => req.params[name] as string

  r.get('/state', wrap(() => ({
    url: c.baseUrl,
    apps: [...c.apps.values()].map((a) => ({ appDefinitionId: a.id, appId: a.appId, tenantId: a.tenantId, features: a.features, kids: a.keys.map((k) => k.key.kid) })),
    clients: [...c.clients.entries()].map(([clientId, v]) => ({ clientId, appDefinitionId: v.appDefinitionId })),
    entries: [...c.entries.values()].map((e) => ({ id: e.id, name: e.name, modifiedAt: e.modifiedAt, status: e.reviewRecord.status })),
    faults: c.faults.current,
    rateLimit: { app: c.appLimiter.settings, tenant: c.tenantLimiter.settings },
  })))
  r.post('/apps', wrap((req) => c.registerApp(body(req))))
  r.post('/clients', wrap((req) => c.registerClient(body(req) as { appDefinitionId: string })))
  r.post('/apps/:appDefinitionId/rotate-key', wrap((req) => c.rotateSigningKey(param(req, 'appDefinitionId'), body(req))))
  r.post('/apps/:appDefinitionId/retire-keys', wrap((req) => c.retireOldKeys(param(req, 'appDefinitionId'))))
  r.get('/entries/:id', wrap((req) => c.getEntry(param(req, 'id')) ?? Promise.reject(new BadControlInput('no such entry'))))
  r.put('/entries/:id', wrap((req) => c.upsertEntry({ ...body(req), id: param(req, 'id') })))
  r.post('/entries', wrap((req) => c.upsertEntry(body(req))))
  r.patch('/entries/:id', wrap((req) => c.modifyEntry(param(req, 'id'), body(req))))
  r.delete('/entries/:id', wrap((req) => ({ deleted: c.deleteEntry(param(req, 'id')) })))
  r.put('/entries/:id/attachments/:fileId', wrap((req) => {
    const { contentBase64, ...rest } = body(req)
    return c.putAttachment(param(req, 'id'), {
      ...rest,
      id: param(req, 'fileId'),
      ...(typeof contentBase64 === 'string' ? { content: Buffer.from(contentBase64, 'base64') } : {}),
    })
  }))
  r.post('/webhooks', wrap(async (req) => {
    const b = body(req)
    const { rawBody, ...result } = await c.sendWebhook(b as Parameters<FakeNotebookControl['sendWebhook']>[0])
    return { ...result, rawBodyBytes: rawBody.length }
  }))
  r.post('/faults', wrap((req) => c.misbehave(body(req))))
  r.delete('/faults', wrap(() => c.behave()))
  r.put('/rate-limit', wrap((req) => c.setRateLimit(body(req))))
  r.post('/tokens/expire', wrap(() => ({ expired: c.expireTokens() })))
  r.get('/stats', wrap(() => c.getStats()))
  r.delete('/stats', wrap(() => c.resetStats()))
  r.get('/requests', wrap(() => c.requestLog))
  r.get('/canvases', wrap(() => c.canvasList()))
  return r
}

// ---------------------------------------------------------------------------------------------------------------
// Assembly

export interface FakeNotebook {
  url: string
  port: number
  control: FakeNotebookControl
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** The express app and its control, without listening. Set `control.baseUrl` once the address is known. */
export function createFakeNotebook(options: FakeNotebookOptions = {}) {
  const control = new FakeNotebookControl(options)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use('/_control', controlRouter(control))
  app.use('/api', apiRouter(control))
  app.get('/', (_req, res) => {
    res.json({ service: 'fake notebook (ELN)', illustrative: true, api: '/api/v2', control: '/_control/state' })
  })
  return { app, control }
}

export async function startFakeNotebook(options: FakeNotebookOptions = {}): Promise<FakeNotebook> {
  const { app, control } = createFakeNotebook(options)
  const listening = await listen(app, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' })
  control.baseUrl = listening.url
  return {
    url: listening.url,
    port: listening.port,
    control,
    close: listening.close,
    [Symbol.asyncDispose]: listening.close,
  }
}
