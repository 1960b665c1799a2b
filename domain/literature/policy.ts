// Owns the query policy (Literature connector behaviour item 3), run as visible steps: the European literature index
// first; the DOI metadata registry for DOI metadata; the citation-graph service for citations and open-access location;
// the archive's bucket metadata for license_code / open-access flag / is_manuscript; full text only for cc0, cc_by and
// cc_by_sa. A source that times out, answers 429, answers malformed JSON or changes its licence field leaves its step
// failed with a per-source status; the search returns what the others gave and never guesses a licence open. When the
// index cannot answer, the citation graph's plain-text search stands in. Titles, abstracts and full text pass the shared
// outside-content sanitiser (core/text/sanitiser.ts) before anyone, agent or person, reads them.
import { sanitiseOutsideText, type Finding } from '../../core/text'
import { InvalidInput } from '../../core/errors'
import { RateLimited, VendorError } from '../adapters'
import { clusterRecords, idKeys, type Cluster, type SourceRecord } from './clusters'
import type { LiteratureClients } from './clients'
import { platformKeys } from './config'
import { isOpen, mostRestrictive, renderForLicence, type Rendering } from './licence'
import { FULL_TEXT_PER_QUERY, POLICY_STEPS, RESULTS_PER_QUERY, type SourceId } from './sources'
import { KNOWLEDGE_SOURCES, type KnowledgeRecord, type KnowledgeSourceId } from './knowledge'

/** The optional step of each knowledge source (run only when the query asks for the source). */
const KNOWLEDGE_STEP: Record<KnowledgeSourceId, string> = {
  trial_registry: 'trials', drug_safety: 'drug_safety_reports', target_disease: 'targets_and_diseases', bioactivity: 'compounds',
}

export type StepStatus = 'ok' | 'failed' | 'rate_limited' | 'skipped' | 'not_configured'

/** One step of the policy as the run rail shows it. */
export interface PolicyStep {
  step: string
  source: SourceId
  label: string
  status: StepStatus
  /** Records (or items) the step brought; the failure or refusal text otherwise (RateLimited's rail phrase). */
  detail: string
  ms: number
}

export interface SourceStatus {
  source: SourceId
  status: StepStatus
  detail: string | null
  records: number
  retryAfterSeconds: number | null
}

export interface ClusterOut extends Cluster {
  rendering: Rendering
  /** What the sanitiser neutralised, per field. */
  sanitised: { field: string; findings: Finding[] }[]
  /** The index position after this cluster's last record (a cursor resumes after it). */
  position: number
}

export interface SearchOutcome {
  query: string
  hitCount: number
  clusters: ClusterOut[]
  steps: PolicyStep[]
  sources: SourceStatus[]
  /** The index's cursor of this page and of the next one (null on the last page). */
  cursorMark: string
  nextCursorMark: string | null
  /** The index did not answer and the citation graph's search stood in: no further pages. */
  fallback: boolean
  /** Records of the knowledge sources asked for (first page only), each with its scheme and snapshot stamp. */
  knowledge: KnowledgeRecord[]
}

export interface SearchArgs {
  query: string
  /** Clusters per page, at most 25 (the Limits table's results per query). */
  first: number
  cursorMark?: string | null
  /** Index records of this page already shown (a cursor taken from an edge). */
  skip?: number
  /** Knowledge sources the query asks for (optional steps after the literature ones; their records in `knowledge`). */
  include?: readonly KnowledgeSourceId[]
}

const label = (step: string) => POLICY_STEPS.find((s) => s.step === step)?.label ?? step

function failure(e: unknown): { status: StepStatus; detail: string; retry: number | null } {
  if (e instanceof RateLimited) return { status: 'rate_limited', detail: e.message, retry: e.retryAfterSeconds }
  if (e instanceof VendorError) return { status: 'failed', detail: e.message, retry: null }
  throw e
}

export async function runPolicy(clients: LiteratureClients, args: SearchArgs): Promise<SearchOutcome> {
  const query = args.query.trim()
  if (!query) throw InvalidInput.of('query', 'Give at least one word to search for.')
  if (query.length > 500) throw InvalidInput.of('query', 'At most 500 characters.')
  const first = Math.min(args.first, RESULTS_PER_QUERY)
  const skip = args.skip ?? 0
  const steps: PolicyStep[] = []
  const status = new Map<SourceId, SourceStatus>()
  const note = (source: SourceId, s: StepStatus, records: number, detail: string | null, retry: number | null = null) => {
    const prev = status.get(source)
    // A source used twice (index: search, full text) keeps its worst status.
    if (!prev || prev.status === 'ok' || prev.status === 'skipped') status.set(source, { source, status: s, detail, records: (prev?.records ?? 0) + records, retryAfterSeconds: retry })
    else prev.records += records
  }
  const step = async <T>(name: string, source: SourceId, run: () => Promise<{ value: T; count: number } | { skipped: string; status?: StepStatus }>): Promise<T | null> => {
    const t0 = Date.now()
    try {
      const r = await run()
      if ('skipped' in r) {
        steps.push({ step: name, source, label: label(name), status: r.status ?? 'skipped', detail: r.skipped, ms: Date.now() - t0 })
        if (!status.has(source)) note(source, r.status ?? 'skipped', 0, r.skipped)
        return null
      }
      steps.push({ step: name, source, label: label(name), status: 'ok', detail: `${r.count} records`, ms: Date.now() - t0 })
      note(source, 'ok', r.count, null)
      return r.value
    } catch (e) {
      const f = failure(e)
      steps.push({ step: name, source, label: label(name), status: f.status, detail: f.detail, ms: Date.now() - t0 })
      note(source, f.status, 0, f.detail, f.retry)
      return null
    }
  }

  // 1. The European literature index first.
  const page = await step('search', 'literature_index', async () => {
    const p = await clients.index.search(query, { pageSize: first + skip, cursorMark: args.cursorMark })
    return { value: p, count: p.records.length }
  })
  const records: (SourceRecord & { position?: number })[] = []
  let fallback = false
  if (page) {
    page.records.slice(skip).forEach((r, i) => records.push({ ...r, position: skip + i + 1 }))
  } else {
    // The index failed: the citation graph's plain-text search stands in (one page, no cursor).
    const found = await step('search_fallback', 'citation_graph', async () => {
      const rs = await clients.citations.search(query)
      return { value: rs, count: rs.length }
    })
    if (found) {
      fallback = true
      found.slice(0, first).forEach((r, i) => records.push({ ...r, position: i + 1 }))
    }
  }
  const dois = [...new Set(records.map((r) => idKeys(r.ids).doi).filter((d): d is string => !!d))]

  // 2. The DOI registry for DOI metadata (the contact address always sent; without one the step is not run).
  const contact = platformKeys().contact_email
  const doiRecords = await step('doi_metadata', 'doi_registry', async () => {
    if (!dois.length) return { skipped: 'no DOI to look up' }
    if (!contact) return { skipped: 'no contact address in the platform secret path', status: 'not_configured' as const }
    const rs = await clients.doi.works(dois, contact)
    return { value: rs, count: rs.length }
  })
  if (doiRecords) records.push(...doiRecords)

  // 3. The citation graph for citations and open-access location (already searched when it stood in for the index).
  if (!fallback) {
    const graph = await step('citations_and_oa', 'citation_graph', async () => {
      if (!dois.length) return { skipped: 'no DOI to look up' }
      const rs = await clients.citations.worksByDoi(dois)
      return { value: rs, count: rs.length }
    })
    if (graph) records.push(...graph)
  }

  const clusters = clusterRecords(records).map((c) => ({ ...c, position: 0 }))
  const positions = new Map<string, number>()
  for (const r of records) {
    if (!r.position) continue
    const k = idKeys(r.ids)
    for (const key of [k.doi, ...k.others]) if (key) positions.set(key, Math.max(positions.get(key) ?? 0, r.position))
  }
  for (const c of clusters) c.position = Math.max(0, ...[c.clusterKey, ...c.aliases].map((k) => positions.get(k) ?? 0))
  // Only clusters the search itself found (the registry and the graph add to them, never add works of their own).
  const found = clusters.filter((c) => c.position > 0).sort((a, b) => a.position - b.position)

  // 4. The archive's bucket metadata for the open candidates that have a PMCID.
  const pmcidOf = (c: Cluster) => c.aliases.find((a) => a.startsWith('pmcid:'))?.slice(6) ?? null
  const candidates = found.filter((c) => isOpen(c.licence) && pmcidOf(c)).slice(0, FULL_TEXT_PER_QUERY)
  const eligible = new Set<string>()
  await step('archive_licence', 'fulltext_archive', async () => {
    if (!candidates.length) return { skipped: 'no open-licence candidate with a PMCID' }
    let n = 0
    for (const c of candidates) {
      const reading = await clients.archive.metadata(pmcidOf(c)!)
      if (!reading) continue
      n++
      c.provenance.push({ provider: 'fulltext_archive', ids: { PMCID: pmcidOf(c)! }, snapshot: null, licence: reading })
      c.licence = mostRestrictive([c.licence, reading.licence])
      if (reading.fullTextEligible) eligible.add(c.clusterKey)
    }
    return { value: n, count: n }
  })

  // 5. Full text, only for cc0, cc_by and cc_by_sa, and only where the archive's metadata (when it has the version)
  // agrees; an unreadable archive answer makes it not eligible.
  const fullTexts = new Map<string, string>()
  await step('full_text', 'literature_index', async () => {
    const archiveSaid = (c: Cluster) => c.provenance.find((p) => p.provider === 'fulltext_archive')
    const take = candidates.filter((c) => isOpen(c.licence) && (!archiveSaid(c) || eligible.has(c.clusterKey)))
    if (!take.length) return { skipped: 'no work under cc0, cc_by or cc_by_sa' }
    for (const c of take) {
      const text = await clients.index.fullText(pmcidOf(c)!)
      if (text) fullTexts.set(c.clusterKey, text)
    }
    return { value: fullTexts.size, count: fullTexts.size }
  })

  const out: ClusterOut[] = found.slice(0, first).map((c) => {
    const sanitised: ClusterOut['sanitised'] = []
    const clean = (field: string, v: string | null) => {
      if (v === null) return null
      const s = sanitiseOutsideText(v)
      if (s.findings.length) sanitised.push({ field, findings: s.findings })
      return s.text
    }
    const title = clean('title', c.title)
    const abstract = clean('abstract', c.abstract)
    const fullText = clean('fullText', fullTexts.get(c.clusterKey) ?? null)
    return { ...c, title, abstract, rendering: renderForLicence(c.licence, fullText, c.url ?? c.oaUrl), sanitised }
  })

  // A licence field a source changed is read as unknown; its status says so (an operator should look).
  for (const r of records) {
    if (!r.licence?.unreadable) continue
    const s = status.get(r.source as SourceId)
    if (s && s.status === 'ok') s.detail = 'licence field unreadable (the source changed its shape); read as unknown'
  }
  for (const c of found) for (const p of c.provenance) {
    const s = status.get(p.provider as SourceId)
    if (p.licence?.unreadable && s && s.status === 'ok') s.detail = 'licence field unreadable (the source changed its shape); read as unknown'
  }
  // 6. Optional: the knowledge sources the query asks for (first page only; a later page is the literature's cursor).
  const knowledge: KnowledgeRecord[] = []
  const asked = KNOWLEDGE_SOURCES.filter((s) => args.include?.includes(s))
  if (asked.length && (args.cursorMark ?? '*') === '*' && !skip) {
    for (const source of asked) {
      const got = await step(KNOWLEDGE_STEP[source], source, async () => {
        const rs = await clients.knowledge[source].search(query, first)
        return { value: rs, count: rs.length }
      })
      if (got) knowledge.push(...got)
    }
  }

  const sources = [...status.values()]
  // An exhausted budget is never a silent empty result.
  if (!out.length && !knowledge.length) {
    const limited = sources.find((s) => s.status === 'rate_limited')
    if (limited) throw new RateLimited(limited.source, limited.retryAfterSeconds ?? 1)
  }
  return {
    query, hitCount: page?.hitCount ?? out.length, clusters: out, steps, sources,
    cursorMark: args.cursorMark || '*', nextCursorMark: page?.nextCursorMark ?? null, fallback, knowledge,
  }
}
