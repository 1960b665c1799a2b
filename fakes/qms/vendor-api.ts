// Fake QMS vendor API (/api/{version}): the vault's shapes (VENDORS.md): session auth, document metadata, the query
// language subset the connector uses (SELECT fields FROM ALLVERSIONS documents [WHERE field > 'value' [AND ...]]
// [ORDER BY field] with 1000-row pages and next_page), version text, renditions (streamed), document events, burst
// headers on every answer and delayed answers over the burst limit.
import express, { type NextFunction, type Request, type Response } from 'express'
import { sleep } from '../common/faults'
import { PAGE_SIZE, SUPPORTED_VERSIONS, type FakeQmsState } from './state'

const failure = (res: Response, status: number, type: string, message: string) =>
  res.status(status).json({ responseStatus: 'FAILURE', errors: [{ type, message }] })

const CLIENT_ID_HEADERS = ['x-vaultapi-clientid', 'x-qmsapi-clientid']

interface Query { fields: string[]; allVersions: boolean; where: { field: string; op: string; value: string }[]; orderBy: string | null }

/** Parses the subset of the query language the connector uses; throws a message naming what is wrong. */
export function parseQuery(q: string): Query {
  const m = /^\s*SELECT\s+(.+?)\s+FROM\s+(ALLVERSIONS\s+)?documents(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+ASC)?)?\s*$/is.exec(q)
  if (!m) throw new Error('Malformed query')
  const fields = m[1].split(',').map((f) => f.trim()).filter(Boolean)
  const where: Query['where'] = []
  if (m[3]) {
    for (const part of m[3].split(/\s+AND\s+/i)) {
      const c = /^(\w+)\s*(>=|<=|=|>|<)\s*'([^']*)'$/.exec(part.trim())
      if (!c) throw new Error(`Malformed condition [${part.trim()}]`)
      where.push({ field: c[1], op: c[2], value: c[3] })
    }
  }
  return { fields, allVersions: Boolean(m[2]), where, orderBy: m[4] ?? null }
}

const cmp = (a: unknown, op: string, b: string) => {
  const x = String(a ?? '')
  switch (op) {
    case '>': return x > b
    case '>=': return x >= b
    case '<': return x < b
    case '<=': return x <= b
    default: return x === b
  }
}

export function vendorApiRouter(state: FakeQmsState) {
  const r = express.Router()
  r.use(express.urlencoded({ extended: false }))

  // Log, burst headers, delay over the limit (or when ordered), version check.
  r.use('/:version', async (req: Request, res: Response, next: NextFunction) => {
    const clientId = CLIENT_ID_HEADERS.map((h) => req.headers[h]).find((v) => typeof v === 'string') as string | undefined
    state.log.push({ at: state.clock(), method: req.method, path: req.path, clientId: clientId ?? null })
    if (!(SUPPORTED_VERSIONS as readonly string[]).includes(String(req.params.version))) {
      failure(res, 404, 'API_VERSION_NOT_SUPPORTED', `API version ${req.params.version} is not supported`)
      return
    }
    if (clientId !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(clientId)) {
      failure(res, 400, 'INVALID_DATA', 'Invalid client id')
      return
    }
    const auth = req.path === '/auth'
    const burst = state.takeBurst(auth)
    res.setHeader('X-VaultAPI-BurstLimit', String(burst.limit))
    res.setHeader('X-VaultAPI-BurstLimitRemaining', String(burst.remaining))
    const delay = state.faults.responseDelayMs || (burst.remaining === 0 ? 500 : 0)
    if (delay > 0) {
      res.setHeader('X-VaultAPI-ResponseDelay', String(delay))
      await sleep(delay)
    }
    next()
  })

  r.post('/:version/auth', (req, res) => {
    const { username, password } = (req.body ?? {}) as Record<string, string>
    if (state.faults.authBroken || !username || state.users.get(username) !== password) {
      failure(res, 200, 'USERNAME_OR_PASSWORD_INCORRECT', 'Authentication failed for user')
      return
    }
    const sessionId = state.newSession(username)
    res.json({
      responseStatus: 'SUCCESS', sessionId, userId: 61000 + [...state.users.keys()].indexOf(username), vaultId: state.vaultId,
      vaultIds: [{ id: state.vaultId, name: state.vaultName, url: `${req.protocol}://${req.get('host')}/api` }],
    })
  })

  // Everything else needs a live session.
  r.use('/:version', (req: Request, res: Response, next: NextFunction) => {
    const sid = req.headers.authorization ?? ''
    if (state.faults.expireSessionsNext > 0) {
      state.faults.expireSessionsNext -= 1
      state.sessions.delete(sid)
    }
    if (!state.sessions.has(sid)) {
      failure(res, 401, 'INVALID_SESSION_ID', 'Invalid or expired session ID.')
      return
    }
    next()
  })

  r.get('/:version/metadata/objects/documents/properties', (_req, res) => {
    res.json({ responseStatus: 'SUCCESS', properties: [...state.fields].map((name) => ({ name, queryable: true })) })
  })

  r.get('/:version/metadata/objects/documents/lifecycles', (_req, res) => {
    res.json({ responseStatus: 'SUCCESS', lifecycles: [{ name: 'general_lifecycle__c', label: 'Illustrative SOP lifecycle', states: state.lifecycleLabels.map((label) => ({ label })) }] })
  })

  const runQuery = (req: Request, res: Response, q: string, offset: number, pageSize: number) => {
    let parsed: Query
    try {
      parsed = parseQuery(q)
    } catch (e) {
      failure(res, 200, 'MALFORMED_URL', (e as Error).message)
      return
    }
    for (const f of [...parsed.fields, ...parsed.where.map((w) => w.field), ...(parsed.orderBy ? [parsed.orderBy] : [])]) {
      if (!state.fields.has(f)) {
        failure(res, 200, 'INVALID_DATA', `No such field [${f}]`)
        return
      }
    }
    if (parsed.allVersions && state.faults.allVersionsUnavailable) {
      failure(res, 200, 'INSUFFICIENT_ACCESS', 'ALLVERSIONS queries are not available to this user')
      return
    }
    let rows = parsed.allVersions ? state.allRows() : state.allRows().filter((r) => {
      const doc = state.doc(String(r.id))
      const latest = doc.versions.filter((v) => !v.deleted).at(-1)
      return latest && latest.major === r.major_version_number__v && latest.minor === r.minor_version_number__v
    })
    rows = rows.filter((row) => parsed.where.every((w) => cmp(row[w.field], w.op, w.value)))
    const key = parsed.orderBy ?? 'id'
    rows.sort((a, b) => String(a[key]).localeCompare(String(b[key])) || Number(a.id) - Number(b.id) || Number(a.major_version_number__v) - Number(b.major_version_number__v) || Number(a.minor_version_number__v) - Number(b.minor_version_number__v))
    const page = rows.slice(offset, offset + pageSize).map((row) => Object.fromEntries(parsed.fields.map((f) => [f, row[f]])))
    const nextOffset = offset + pageSize < rows.length ? offset + pageSize : null
    res.json({
      responseStatus: 'SUCCESS',
      responseDetails: {
        pagesize: pageSize, pageoffset: offset, size: page.length, total: rows.length,
        ...(nextOffset !== null ? { next_page: `/api/${req.params.version}/query/${Buffer.from(JSON.stringify({ q, o: nextOffset, s: pageSize })).toString('base64url')}` } : {}),
      },
      data: page,
    })
  }

  r.post('/:version/query', (req, res) => {
    const q = String((req.body ?? {}).q ?? '')
    runQuery(req, res, q, 0, Math.min(PAGE_SIZE, state.pageSize))
  })

  r.get('/:version/query/:token', (req, res) => {
    let t: { q: string; o: number; s: number }
    try {
      t = JSON.parse(Buffer.from(req.params.token, 'base64url').toString('utf8'))
    } catch {
      failure(res, 400, 'MALFORMED_URL', 'Bad page token')
      return
    }
    runQuery(req, res, t.q, t.o, t.s)
  })

  const versionOf = (req: Request, res: Response) => {
    const doc = state.documents.get(req.params.id as string)
    const v = doc?.versions.find((x) => x.major === Number(req.params.major) && x.minor === Number(req.params.minor))
    if (!doc || !v || v.deleted) {
      failure(res, 404, 'INVALID_DATA', 'Document version not found')
      return null
    }
    return v
  }

  r.get('/:version/objects/documents/:id/versions/:major/:minor/text', (req, res) => {
    const v = versionOf(req, res)
    if (!v) return
    if (state.faults.textUnavailableNext > 0) {
      state.faults.textUnavailableNext -= 1
      failure(res, 404, 'NOT_FOUND', 'No text for this version')
      return
    }
    res.type('text/plain; charset=utf-8').send(v.text)
  })

  r.get('/:version/objects/documents/:id/versions/:major/:minor/renditions/:type', (req, res) => {
    const v = versionOf(req, res)
    if (!v) return
    res.setHeader('content-type', 'application/octet-stream')
    res.setHeader('content-length', String(v.rendition.length))
    const broken = state.faults.renditionBreakFor === `${req.params.id}/${req.params.major}/${req.params.minor}`
    if (broken || state.faults.renditionBreakNext > 0) {
      if (!broken) state.faults.renditionBreakNext -= 1
      res.flushHeaders()
      res.write(v.rendition.subarray(0, Math.floor(v.rendition.length / 2)))
      setTimeout(() => res.destroy(), 20)
      return
    }
    res.end(v.rendition)
  })

  r.get('/:version/objects/documents/:id/events', (req, res) => {
    const doc = state.documents.get(String(req.params.id))
    if (!doc) {
      failure(res, 404, 'INVALID_DATA', 'Document not found')
      return
    }
    res.json({ responseStatus: 'SUCCESS', events: doc.events })
  })

  return r
}
