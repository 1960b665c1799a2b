// Fake literature sources (illustrative): one HTTP server speaking the shapes of the sources the query policy calls
// (VENDORS.md, Literature), each under its own path: the European literature index (/literature-index: core search
// with cursor pages, PPR preprints with successors, full text XML), the DOI metadata registry (/doi-registry: works by
// DOI filter, mailto recorded, x-rate-limit-* headers), the citation-graph service (/citation-graph: works by DOI
// filter, X-RateLimit-* headers, a daily credit counter, 429 above its per-second rate) and the full-text archive's
// bucket metadata (/fulltext-archive/metadata/PMCxxxx.N.json). A control (in process, and /_control over HTTP) orders
// misbehaviour per source: slow answers, 429s, malformed JSON, a renamed licence field. Imports nothing of the connector.
import express from 'express'
import { fakeVendorApp, listenFake, type ListeningFake } from '../common/listen'
import { FixedWindowLimiter } from '../common/rate-window'
import { sleep } from '../common/faults'
import { CORPUS, type FakeWork } from './corpus'
import { mountKnowledgeSources } from './knowledge'

export type FakeSource = 'literature-index' | 'doi-registry' | 'citation-graph' | 'fulltext-archive'
  | 'trial-registry' | 'drug-safety' | 'target-disease' | 'bioactivity'
export const FAKE_SOURCES: readonly FakeSource[] = [
  'literature-index', 'doi-registry', 'citation-graph', 'fulltext-archive', 'trial-registry', 'drug-safety', 'target-disease', 'bioactivity',
]

export interface SourceFaults {
  delayMs: number
  /** The next N requests answer 429 (with Retry-After `retryAfterSeconds`). */
  rateLimitNext: number
  retryAfterSeconds: number
  /** The next N requests answer a body that is not JSON. */
  malformedNext: number
  /** Licence fields come under another name/shape from now on (the vendor changed its schema). */
  licenceFieldChanged: boolean
  /** Knowledge sources: answers come without their snapshot stamp from now on. */
  stampDropped: boolean
}

const NO_FAULTS: SourceFaults = { delayMs: 0, rateLimitNext: 0, retryAfterSeconds: 7, malformedNext: 0, licenceFieldChanged: false, stampDropped: false }

export interface RequestLogEntry { source: FakeSource; path: string; query: Record<string, string>; userAgent: string | null; at: number; body?: unknown }

export class FakeLiteratureControl {
  works: FakeWork[] = [...CORPUS]
  faults: Record<FakeSource, SourceFaults> = Object.fromEntries(FAKE_SOURCES.map((s) => [s, { ...NO_FAULTS }])) as never
  log: RequestLogEntry[] = []
  /** The citation graph's daily credits: limit, used, seconds to reset. */
  credits = { limit: 100_000, used: 0, resetSeconds: 43_200 }
  /** The citation graph answers 429 above this many requests per second (spec: 100). */
  readonly citationRate = new FixedWindowLimiter({ limit: 100, windowSeconds: 1 })
  /** What the DOI registry advertises in x-rate-limit-limit / x-rate-limit-interval. */
  doiRate = { limit: 3, interval: '1s' }

  setFaults(source: FakeSource, changes: Partial<SourceFaults>) { this.faults[source] = { ...this.faults[source], ...changes } }
  addWorks(works: FakeWork[]) { this.works.push(...works) }
  reset() {
    this.works = [...CORPUS]
    for (const s of FAKE_SOURCES) this.faults[s] = { ...NO_FAULTS }
    this.log = []
    this.credits = { limit: 100_000, used: 0, resetSeconds: 43_200 }
    this.citationRate.configure({ limit: 100, windowSeconds: 1 })
    this.doiRate = { limit: 3, interval: '1s' }
  }
  requests(source: FakeSource) { return this.log.filter((l) => l.source === source) }
}

const first = (v: unknown) => (Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? '' : String(v))

/** Terms of an index query: quoted phrases ("..."), field:"value" pairs kept as [field, value]. */
function parseIndexQuery(q: string): { terms: string[]; fields: [string, string][] } {
  const terms: string[] = []
  const fields: [string, string][] = []
  for (const m of q.matchAll(/(?:([A-Z_]+):)?"((?:[^"\\]|\\.)*)"/g)) {
    const value = m[2].replace(/\\(.)/g, '$1').toLowerCase()
    if (m[1]) fields.push([m[1], value])
    else terms.push(value)
  }
  // Unquoted words (a client that does not escape) are matched literally, operators included.
  const rest = q.replace(/(?:([A-Z_]+):)?"((?:[^"\\]|\\.)*)"/g, ' ').trim()
  for (const w of rest.split(/\s+/).filter(Boolean)) terms.push(w.toLowerCase())
  return { terms, fields }
}

function indexRecord(w: FakeWork, changed: boolean) {
  const source = w.ppr ? 'PPR' : w.pmid ? 'MED' : 'PMC'
  const rec: Record<string, unknown> = {
    id: w.ppr ?? w.pmid ?? w.pmcid, source, pmid: w.pmid ?? undefined, pmcid: w.pmcid ?? undefined, doi: w.doi ?? undefined,
    title: w.title, abstractText: w.abstract, journalInfo: { journal: { title: w.journal } }, pubYear: String(w.year),
    firstPublicationDate: `${w.year}-01-15`, isOpenAccess: w.openAccess.is_oa ? 'Y' : 'N', citedByCount: w.citedBy,
  }
  if (w.indexLicense !== undefined) {
    if (changed) rec.licence = { code: w.indexLicense } // renamed and reshaped: the client must not guess
    else rec.license = w.indexLicense
  }
  if (w.ppr && w.successor) {
    rec.commentCorrectionList = { commentCorrection: [{ id: w.successor.pmid, source: 'MED', type: 'Preprint of', reference: w.successor.doi }] }
  }
  return rec
}

function citationWork(w: FakeWork, changed: boolean) {
  const loc = (license: string | null) => (changed ? { licence_id: license, is_oa: w.openAccess.is_oa } : { license, is_oa: w.openAccess.is_oa, landing_page_url: `https://doi.org/${w.doi}` })
  return {
    id: `https://openalex.org/${w.wid}`, doi: w.doi ? `https://doi.org/${w.doi}` : null, title: w.title, publication_year: w.year,
    ids: { openalex: `https://openalex.org/${w.wid}`, doi: w.doi ? `https://doi.org/${w.doi}` : undefined, pmid: w.pmid ? `https://pubmed.ncbi.nlm.nih.gov/${w.pmid}` : undefined },
    primary_location: loc(w.primaryLicense),
    best_oa_location: w.bestOaLicense ? loc(w.bestOaLicense) : null,
    open_access: { ...w.openAccess, oa_url: w.openAccess.is_oa ? `https://illustrative.example/oa/${w.wid}` : null },
    cited_by_count: w.citedBy,
  }
}

export function createFakeLiterature(control = new FakeLiteratureControl()) {
  const app = fakeVendorApp()
  app.use(express.json())

  // Logging and per-source faults, before every vendor route.
  app.use('/:source', async (req, res, next) => {
    const source = req.params.source as FakeSource
    if (!FAKE_SOURCES.includes(source)) return next()
    control.log.push({ source, path: req.path, query: Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, first(v)])), userAgent: req.get('user-agent') ?? null, at: Date.now(), ...(req.method === 'POST' ? { body: req.body } : {}) })
    const f = control.faults[source]
    if (f.delayMs) await sleep(f.delayMs)
    if (res.destroyed) return
    if (f.rateLimitNext > 0) {
      f.rateLimitNext -= 1
      res.status(429).set('retry-after', String(f.retryAfterSeconds)).json({ error: 'Too many requests (illustrative)' })
      return
    }
    if (f.malformedNext > 0) {
      f.malformedNext -= 1
      res.status(200).type('application/json').send('{"resultList": {"result": [ {"id": "unterminated')
      return
    }
    next()
  })

  // ---- European literature index ----
  app.get('/literature-index/search', (req, res) => {
    const { terms, fields } = parseIndexQuery(first(req.query.query))
    const pageSize = Math.min(1000, Math.max(1, Number(first(req.query.pageSize)) || 25))
    const cursor = first(req.query.cursorMark) || '*'
    const offset = cursor === '*' ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8')) || 0
    const matches = control.works.filter((w) => {
      const hay = `${w.title} ${w.abstract}`.toLowerCase()
      if (!terms.every((t) => hay.includes(t))) return false
      return fields.every(([f, v]) => (f === 'DOI' ? w.doi?.toLowerCase() === v : f === 'EXT_ID' ? [w.pmid, w.pmcid, w.ppr].some((x) => x?.toLowerCase() === v) : false))
    })
    const page = matches.slice(offset, offset + pageSize)
    const next = offset + pageSize < matches.length ? Buffer.from(String(offset + pageSize)).toString('base64url') : undefined
    res.json({
      version: '6.9', hitCount: matches.length, ...(next ? { nextCursorMark: next } : {}), request: { queryString: first(req.query.query), cursorMark: cursor, pageSize },
      resultList: { result: page.map((w) => indexRecord(w, control.faults['literature-index'].licenceFieldChanged)) },
    })
  })
  app.get('/literature-index/:pmcid/fullTextXML', (req, res) => {
    const w = control.works.find((x) => x.pmcid === req.params.pmcid)
    if (!w?.fullText) return res.status(404).type('text/plain').send('not found')
    res.type('application/xml').send(`<article><front><article-meta><title-group><article-title>${w.title}</article-title></title-group></article-meta></front><body><sec><p>${w.fullText}</p></sec></body></article>`)
  })

  // ---- DOI metadata registry ----
  app.get('/doi-registry/works', (req, res) => {
    res.set('x-rate-limit-limit', String(control.doiRate.limit)).set('x-rate-limit-interval', control.doiRate.interval)
    const dois = first(req.query.filter).split(',').map((p) => p.replace(/^doi:/, '').toLowerCase()).filter(Boolean)
    const items = control.works.filter((w) => w.doi && dois.includes(w.doi.toLowerCase())).map((w) => ({
      DOI: w.doi, title: [w.title], 'container-title': [w.journal], published: { 'date-parts': [[w.year]] },
      type: w.ppr ? 'posted-content' : 'journal-article', 'is-referenced-by-count': w.citedBy, URL: `https://doi.org/${w.doi}`,
    }))
    res.json({ status: 'ok', 'message-type': 'work-list', message: { 'total-results': items.length, items } })
  })

  // ---- citation-graph service ----
  app.get('/citation-graph/works', (req, res) => {
    const window = control.citationRate.take('all')
    const c = control.credits
    const headers = () => res.set({
      'x-ratelimit-limit': String(c.limit), 'x-ratelimit-remaining': String(Math.max(0, c.limit - c.used)),
      'x-ratelimit-credits-used': '1', 'x-ratelimit-reset': String(c.resetSeconds),
    })
    if (!window.allowed) {
      headers()
      return res.status(429).set('retry-after', String(window.resetSeconds)).json({ error: 'Rate limit exceeded (more than 100 requests per second)' })
    }
    if (c.used >= c.limit) {
      headers()
      return res.status(429).set('retry-after', String(c.resetSeconds)).json({ error: 'Daily credit budget used up' })
    }
    c.used += 1
    headers()
    const dois = first(req.query.filter).replace(/^doi:/, '').split('|').map((d) => d.replace(/^https?:\/\/doi\.org\//, '').toLowerCase()).filter(Boolean)
    const search = first(req.query.search).toLowerCase().split(/\s+/).filter(Boolean)
    const results = control.works
      .filter((w) => (search.length ? search.every((t) => `${w.title} ${w.abstract}`.toLowerCase().includes(t)) : !!w.doi && dois.includes(w.doi.toLowerCase())))
      .slice(0, 25)
      .map((w) => citationWork(w, control.faults['citation-graph'].licenceFieldChanged))
    res.json({ meta: { count: results.length, page: 1, per_page: 25 }, results })
  })

  // ---- full-text archive bucket metadata (read anonymously, unsigned) ----
  app.get('/fulltext-archive/metadata/:file', (req, res) => {
    const m = req.params.file.match(/^(PMC\d+)\.(\d+)\.json$/)
    const w = m && control.works.find((x) => x.pmcid === m[1])
    if (!w?.archive) return res.status(404).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>')
    const meta = control.faults['fulltext-archive'].licenceFieldChanged
      ? { pmcid: w.pmcid, version: Number(m![2]), licence: w.archive.license_code, is_pmc_openaccess: w.archive.is_pmc_openaccess }
      : { pmcid: w.pmcid, version: Number(m![2]), license_code: w.archive.license_code, is_pmc_openaccess: w.archive.is_pmc_openaccess, is_manuscript: w.archive.is_manuscript }
    res.json(meta)
  })

  // ---- the four knowledge sources (knowledge.ts) ----
  mountKnowledgeSources(app, { stampsDropped: () => Object.fromEntries(FAKE_SOURCES.map((s) => [s, control.faults[s].stampDropped])) })

  // ---- control ----
  app.get('/_control/state', (_req, res) => res.json({ illustrative: true, works: control.works.length, faults: control.faults, credits: control.credits, requests: control.log.length }))
  app.post('/_control/faults/:source', (req, res) => {
    if (!FAKE_SOURCES.includes(req.params.source as FakeSource)) return res.status(404).json({ error: 'unknown source' })
    control.setFaults(req.params.source as FakeSource, req.body ?? {})
    res.json(control.faults[req.params.source as FakeSource])
  })
  app.post('/_control/credits', (req, res) => { Object.assign(control.credits, req.body ?? {}); res.json(control.credits) })
  app.post('/_control/reset', (_req, res) => { control.reset(); res.json({ ok: true }) })
  app.get('/', (_req, res) => res.json({ service: 'fake literature sources', illustrative: true, sources: FAKE_SOURCES.map((s) => `/${s}`), control: '/_control/state' }))
  return { app, control }
}

export interface FakeLiterature extends ListeningFake {
  control: FakeLiteratureControl
}

export async function startFakeLiterature(options: { port?: number; host?: string } = {}): Promise<FakeLiterature> {
  const { app, control } = createFakeLiterature()
  return { ...await listenFake(app, options), control }
}
