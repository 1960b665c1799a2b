// Fake notebook control: what a test, the demo seed or another process (over /_control) can order: rotate signing keys,
// expire tokens, misbehave (slow answers, 429s, 5xx) and change rate windows, read stats, and build or send signed
// webhooks. FakeNotebookControl is the state plus these operations.
import { randomBytes, randomUUID } from 'node:crypto'
import express, { type Request, type Response } from 'express'
import type { FaultSettings } from '../common/faults'
import { randomId } from '../common/ids'
import { derSignature, generateSigningKey, signDelivery, signingInput } from './signing'
import {
  BadControlInput, NotebookState, OVERSIZE_DEFAULT_BYTES, emptyStats, type AppState, type BuiltDelivery, type FakeNotebookStats,
  type WebhookEvent, type WebhookOptions, type WebhookResult,
} from './state'

export class FakeNotebookControl extends NotebookState {
  private lastDeliveryId: string | undefined

  // ----- keys and tokens -----------------------------------------------------------------------------------------

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

  /** Invalidates every issued token (the next API call answers 401). */
  expireTokens(): number {
    const n = this.tokens.size
    this.tokens.clear()
    return n
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
}

// ---------------------------------------------------------------------------------------------------------------
// Control HTTP API (/_control): the same operations as FakeNotebookControl for the demo and other processes.

export function controlRouter(c: FakeNotebookControl): express.Router {
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
