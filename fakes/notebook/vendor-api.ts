// Fake notebook vendor API (/api): the notebook's v2 shapes (VENDORS.md): client-credentials tokens, entries with
// paging, attachments, app canvases, manifest and JWKS, with x-rate-limit-* headers on every answer, 429s over the app
// and tenant windows, and the faults the control ordered.
import express, { type NextFunction, type Request, type Response } from 'express'
import { sleep } from '../common/faults'
import { randomId, randomSecret } from '../common/ids'
import type { WindowDecision } from '../common/rate-window'
import type { Entry } from './entries'
import { CANVAS_DATA_MAX_BYTES, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type AppState, type Canvas, type NotebookState, type TokenRecord } from './state'

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

export function vendorApiRouter(c: NotebookState): express.Router {
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
