// The fake's four knowledge sources (labelled illustrative), in the shapes their clients read: the clinical trial
// registry v2 (`/studies`, `/studies/{NCT}`, `/version` with dataTimestamp), drug safety reporting data
// (`/drug/event.json` with meta.last_updated; 404 NOT_FOUND when nothing matches), target and disease association data
// (POST `/graphql` with meta.dataVersion) and the bioactivity database (`/molecule/search.json`, `/molecule/{id}.json`,
// `/status.json` with its <bioactivity>_db_version). A small illustrative corpus on the illustrative program's topic.
// The per-source faults (slow answers, 429s, malformed JSON) are applied by server.ts before these routes.
import type { Express } from 'express'

const I = (t: string) => `Illustrative: ${t}`

export const FAKE_STAMPS = {
  dataTimestamp: '2026-11-20T09:00:00',
  lastUpdated: '2026-11-14',
  dataVersion: { year: '26', month: '09' },
  dbVersion: 'BIOACT_36',
}

export const TRIALS = [
  { nctId: 'NCT09000001', title: I('A phase 1 study of an allosteric kinase inhibitor in healthy volunteers'), summary: I('Single and multiple ascending doses; QT assessment for hERG liability.') },
  { nctId: 'NCT09000002', title: I('Allosteric kinase inhibitor in relapsed disease, dose expansion'), summary: I('Open-label expansion cohort; <b>hepatic</b> safety monitoring.') },
]
export const SAFETY_REPORTS = [
  { safetyreportid: '30000001', drug: 'ILLUSTRATIVINIB', ndc: '99999-001-01', reaction: 'Electrocardiogram QT prolonged' },
  { safetyreportid: '30000002', drug: 'ILLUSTRATIVINIB', ndc: '99999-001-01', reaction: 'Hepatic enzyme increased' },
]
export const TARGETS = [
  { id: 'ENSG00000999001', entity: 'target', name: 'ILK1', description: I('Illustrative kinase 1, the target of the series\' allosteric kinase inhibitor') },
  { id: 'EFO_0999001', entity: 'disease', name: I('kinase-driven disorder'), description: I('The illustrative program\'s indication') },
]
export const COMPOUNDS = [
  { molecule_chembl_id: 'CHEMBL9900001', pref_name: 'ILLUSTRATIVINIB', inchikey: 'AAAAAAAAAAAAAA-BBBBBBBBBB-N', description: I('allosteric kinase inhibitor, lead of the series') },
  { molecule_chembl_id: 'CHEMBL9900002', pref_name: 'ILLUSTRATIVINIB METABOLITE M1', inchikey: 'CCCCCCCCCCCCCC-DDDDDDDDDD-N', description: I('allosteric kinase inhibitor metabolite') },
]

export interface KnowledgeRequestSeen { source: string; query: string }

const words = (s: string) => s.toLowerCase().replace(/["\\]/g, ' ').split(/[\s()]+/).filter((w) => w && !['and', 'or'].includes(w) && !w.includes(':'))
const matches = (hay: string, q: string) => words(q).every((w) => hay.toLowerCase().includes(w))
const str = (v: unknown) => (Array.isArray(v) ? String(v[0] ?? '') : v === undefined ? '' : String(v))

export function mountKnowledgeSources(app: Express, opts: { stampsDropped: () => Record<string, boolean> }) {
  // ---- clinical trial registry (v2) ----
  const study = (t: (typeof TRIALS)[number]) => ({
    protocolSection: { identificationModule: { nctId: t.nctId, briefTitle: t.title }, descriptionModule: { briefSummary: t.summary } },
  })
  app.get('/trial-registry/version', (_req, res) => {
    res.json(opts.stampsDropped()['trial-registry'] ? { apiVersion: '2.0.3' } : { apiVersion: '2.0.3', dataTimestamp: FAKE_STAMPS.dataTimestamp })
  })
  app.get('/trial-registry/studies', (req, res) => {
    const size = Math.min(100, Number(str(req.query.pageSize)) || 10)
    const found = TRIALS.filter((t) => matches(`${t.title} ${t.summary}`, str(req.query['query.term']))).slice(0, size)
    res.json({ studies: found.map(study) })
  })
  app.get('/trial-registry/studies/:nct', (req, res) => {
    const t = TRIALS.find((x) => x.nctId === req.params.nct)
    if (!t) return res.status(404).json({ message: 'not found' })
    res.json(study(t))
  })

  // ---- drug safety reporting data ----
  app.get('/drug-safety/drug/event.json', (req, res) => {
    const search = str(req.query.search)
    const limit = Math.min(100, Number(str(req.query.limit)) || 10)
    const id = search.match(/^safetyreportid:"(\d+)"$/)?.[1]
    const found = SAFETY_REPORTS.filter((r) => (id ? r.safetyreportid === id : matches(`${r.drug} ${r.reaction}`, search))).slice(0, limit)
    if (!found.length) return res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No matches found!' } })
    const meta = opts.stampsDropped()['drug-safety'] ? { results: { skip: 0, limit, total: found.length } } : { last_updated: FAKE_STAMPS.lastUpdated, results: { skip: 0, limit, total: found.length } }
    res.json({
      meta,
      results: found.map((r) => ({
        safetyreportid: r.safetyreportid, receivedate: '20260101',
        patient: { drug: [{ medicinalproduct: r.drug, openfda: { product_ndc: [r.ndc] } }], reaction: [{ reactionmeddrapt: r.reaction }] },
      })),
    })
  })

  // ---- target and disease association data (GraphQL; the query text travels only as a variable) ----
  app.post('/target-disease/graphql', (req, res) => {
    const body = (req.body ?? {}) as { query?: string; variables?: Record<string, unknown> }
    const v = body.variables ?? {}
    const meta = opts.stampsDropped()['target-disease'] ? {} : { dataVersion: FAKE_STAMPS.dataVersion }
    if (typeof v.q === 'string') {
      const hits = TARGETS.filter((t) => matches(`${t.name} ${t.description}`, v.q as string)).slice(0, Number(v.size) || 10)
      return res.json({ data: { meta, search: { total: hits.length, hits } } })
    }
    const t = TARGETS.find((x) => x.id === v.id)
    if (String(body.query ?? '').includes('target(')) return res.json({ data: { meta, target: t?.entity === 'target' ? { id: t.id, approvedSymbol: t.name, approvedName: t.description } : null } })
    return res.json({ data: { meta, disease: t?.entity === 'disease' ? { id: t.id, name: t.name, description: t.description } : null } })
  })

  // ---- bioactivity database ----
  const molecule = (c: (typeof COMPOUNDS)[number]) => ({ molecule_chembl_id: c.molecule_chembl_id, pref_name: c.pref_name, molecule_structures: { standard_inchi_key: c.inchikey }, usan_stem_definition: c.description })
  app.get('/bioactivity/status.json', (_req, res) => {
    res.json(opts.stampsDropped().bioactivity ? { status: 'UP' } : { status: 'UP', bioact_db_version: FAKE_STAMPS.dbVersion, bioact_release_date: '2026-10-01' })
  })
  app.get('/bioactivity/molecule/search.json', (req, res) => {
    const found = COMPOUNDS.filter((c) => matches(`${c.pref_name} ${c.description}`, str(req.query.q))).slice(0, Number(str(req.query.limit)) || 10)
    res.json({ molecules: found.map(molecule), page_meta: { limit: 10, offset: 0, total_count: found.length, next: null } })
  })
  app.get('/bioactivity/molecule/:file', (req, res) => {
    const key = req.params.file.replace(/\.json$/, '')
    const c = COMPOUNDS.find((x) => x.molecule_chembl_id === key || x.inchikey === key)
    if (!c) return res.status(404).json({ error_message: 'not found' })
    res.json(molecule(c))
  })
}
