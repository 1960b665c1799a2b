// Owns the clients of the four knowledge sources the Literature sources table lists beside the literature itself: the
// clinical trial registry (v2), drug safety reporting data, target and disease association data and the bioactivity
// database. Each goes through the shared SourceClient (got with timeouts and retries, its own SourceBudget: 3/s,
// 120,000 a day, 3/s, 3/s from the Limits table) and keeps its provenance scheme and snapshot stamp on every record
// (dataTimestamp, meta.last_updated, meta.dataVersion, <bioactivity>_db_version). A record without its source's stamp
// cannot be cited with provenance, so an answer that lacks it is VendorResponseInvalid (the step fails, never a crash).
//
// Outside text (titles, summaries) passes core/text/sanitiser.ts before anyone reads it. Query text never enters a query
// language unescaped: the trial registry and the drug safety search get quoted words (quotes and backslashes dropped),
// the target-disease GraphQL query gets the text only as a variable, the bioactivity search takes it as a plain URL
// parameter, and identifiers are checked against their scheme's pattern before they go into a filter or a path.
import { sanitiseOutsideText, type Finding } from '../../core/text'
import { InvalidInput } from '../../core/errors'
import { RateLimited, VendorResponseInvalid } from '../adapters'
import type { SourceBudget } from './budget'
import { SourceClient, obj, str } from './source-client'
import { platformKeys } from './config'
import { SOURCES, type SourceId } from './sources'

export const KNOWLEDGE_SOURCES = ['trial_registry', 'drug_safety', 'target_disease', 'bioactivity'] as const
export type KnowledgeSourceId = (typeof KNOWLEDGE_SOURCES)[number]

/** Identifier patterns per scheme (checked before an id goes into a path or a filter). */
export const SCHEME_PATTERNS = {
  NCT: /^NCT\d{8}$/,
  'report id': /^\d{1,12}$/,
  'gene id': /^ENSG\d{11}$/,
  'ontology term id': /^(EFO|MONDO|HP|Orphanet|DOID)_\d{1,10}$/,
  'compound id': /^CHEMBL\d{1,10}$/,
  InChIKey: /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/,
} as const

/** One knowledge source's view of one object: its ids in the source's own schemes and the source's snapshot stamp. */
export interface KnowledgeRecord {
  source: KnowledgeSourceId
  /** The primary scheme and id (NCT, report id, gene id / ontology term id, compound id). */
  scheme: string
  id: string
  ids: Record<string, string>
  title: string | null
  summary: string | null
  url: string | null
  snapshot: { field: string; value: string }
  /** What the sanitiser neutralised, per field. */
  sanitised: { field: string; findings: Finding[] }[]
}

/** Free text as quoted words: nothing of the caller's syntax survives (quotes, backslashes, control characters). */
export function quotedWords(text: string, max = 8): string[] {
  const words = text.normalize('NFKC').replace(/[\u0000-\u001F\u007F"\\]/g, ' ').split(/\s+/).filter(Boolean).slice(0, max)
  if (!words.length) throw InvalidInput.of('query', 'Give at least one word to search for.')
  return words.map((w) => `"${w}"`)
}

function record(source: KnowledgeSourceId, scheme: string, id: string, ids: Record<string, string>, title: string | null, summary: string | null, url: string | null, stamp: string): KnowledgeRecord {
  const sanitised: KnowledgeRecord['sanitised'] = []
  const clean = (field: string, v: string | null) => {
    if (v === null) return null
    const s = sanitiseOutsideText(v)
    if (s.findings.length) sanitised.push({ field, findings: s.findings })
    return s.text
  }
  return { source, scheme, id, ids, title: clean('title', title), summary: clean('summary', summary), url, snapshot: { field: SOURCES[source].snapshotStamp!, value: stamp }, sanitised }
}

abstract class KnowledgeClient extends SourceClient {
  declare readonly source: KnowledgeSourceId
  /** The record's stamp, or VendorResponseInvalid naming the field the source left out. */
  protected stamp(v: unknown): string {
    const s = typeof v === 'number' ? String(v) : str(v)
    if (!s) throw new VendorResponseInvalid(this.source, `${SOURCES[this.source].snapshotStamp} missing`)
    return s
  }
  abstract search(text: string, limit: number): Promise<KnowledgeRecord[]>
  abstract byId(id: string): Promise<KnowledgeRecord | null>
}

/** Clinical trial registry (v2): studies by quoted terms; dataTimestamp from /version (one read per client). */
export class TrialRegistryClient extends KnowledgeClient {
  private stampValue: Promise<string> | null = null
  constructor(budget: SourceBudget) { super('trial_registry', budget) }

  private dataTimestamp(): Promise<string> {
    this.stampValue ??= this.getJson('version', {}, 'version').then((b) => this.stamp(obj(b).dataTimestamp))
    return this.stampValue.catch((e) => { this.stampValue = null; throw e })
  }

  private study(raw: unknown, stamp: string): KnowledgeRecord | null {
    const p = obj(obj(raw).protocolSection)
    const nct = str(obj(p.identificationModule).nctId)
    if (!nct || !SCHEME_PATTERNS.NCT.test(nct)) return null
    return record('trial_registry', 'NCT', nct, { NCT: nct }, str(obj(p.identificationModule).briefTitle), str(obj(p.descriptionModule).briefSummary),
      `https://clinicaltrials.gov/study/${nct}`, stamp)
  }

  async search(text: string, limit: number): Promise<KnowledgeRecord[]> {
    const term = quotedWords(text).join(' AND ')
    const body = obj(await this.getJson('studies', { 'query.term': term, pageSize: String(limit), format: 'json' }, 'studies'))
    if (!Array.isArray(body.studies)) throw new VendorResponseInvalid(this.source, 'studies is not a list')
    const stamp = await this.dataTimestamp()
    return body.studies.map((s) => this.study(s, stamp)).filter((r): r is KnowledgeRecord => !!r)
  }

  async byId(nct: string): Promise<KnowledgeRecord | null> {
    if (!SCHEME_PATTERNS.NCT.test(nct)) throw InvalidInput.of('externalId', 'A trial is named by its NCT number (NCT and eight digits).')
    const body = await this.getJson(`studies/${nct}`, { format: 'json' }, 'study')
    return body === null ? null : this.study(body, await this.dataTimestamp())
  }
}

/** Drug safety reporting data: adverse event reports; meta.last_updated on every answer; the api_key when configured. */
export class DrugSafetyClient extends KnowledgeClient {
  constructor(budget: SourceBudget) { super('drug_safety', budget) }

  private async events(search: string, limit: number): Promise<KnowledgeRecord[]> {
    const key = platformKeys().drug_safety_api_key
    const body = await this.getJson('drug/event.json', { search, limit: String(limit), ...(key ? { api_key: key } : {}) }, 'drug events')
    if (body === null) return [] // the source answers 404 NOT_FOUND when nothing matches
    const b = obj(body)
    if (!Array.isArray(b.results)) throw new VendorResponseInvalid(this.source, 'results is not a list')
    const stamp = this.stamp(obj(b.meta).last_updated)
    return b.results.map(obj).flatMap((r) => {
      const id = str(r.safetyreportid)
      if (!id) return []
      const patient = obj(r.patient)
      const drugs = Array.isArray(patient.drug) ? patient.drug.map(obj) : []
      const reactions = Array.isArray(patient.reaction) ? patient.reaction.map(obj) : []
      const ndc = drugs.flatMap((d) => { const n = obj(d.openfda).product_ndc; return Array.isArray(n) ? n.filter((x): x is string => typeof x === 'string') : [] })[0]
      const drugNames = drugs.map((d) => str(d.medicinalproduct)).filter(Boolean).join(', ')
      return [record('drug_safety', 'report id', id, { 'report id': id, ...(ndc ? { NDC: ndc } : {}) },
        drugNames || null, reactions.map((x) => str(x.reactionmeddrapt)).filter(Boolean).join('; ') || null, null, stamp)]
    })
  }

  /** Reports naming the drug: the words as one quoted phrase on the product name. */
  search(text: string, limit: number): Promise<KnowledgeRecord[]> {
    return this.events(`patient.drug.medicinalproduct:${quotedWords(text).join(' ').replace(/" "/g, ' ')}`, limit)
  }

  async byId(id: string): Promise<KnowledgeRecord | null> {
    if (!SCHEME_PATTERNS['report id'].test(id)) throw InvalidInput.of('externalId', 'A safety report is named by its report id (digits).')
    return (await this.events(`safetyreportid:"${id}"`, 1))[0] ?? null
  }
}

/** Target and disease association data (GraphQL): the text travels only as a variable; meta.dataVersion stamps. */
export class TargetDiseaseClient extends KnowledgeClient {
  constructor(budget: SourceBudget) { super('target_disease', budget) }

  private async graphql(query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
    let answer
    try {
      answer = await this.http.send('POST', 'graphql', {
        headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }), idempotent: true,
      })
    } catch (e) {
      if (e instanceof RateLimited) await this.budget.backOff(e.retryAfterSeconds)
      throw e
    }
    await this.budget.observe(answer.headers as Record<string, string>)
    this.http.throwForStatus(answer, 'graphql')
    const body = obj(this.http.parseJson(answer))
    if (Array.isArray(body.errors) && body.errors.length) throw new VendorResponseInvalid(this.source, 'the answer carries GraphQL errors')
    return obj(body.data)
  }

  private version(data: Record<string, unknown>): string {
    const v = obj(obj(data.meta).dataVersion)
    return this.stamp(v.year !== undefined && v.month !== undefined ? `${v.year}.${v.month}` : null)
  }

  async search(text: string, limit: number): Promise<KnowledgeRecord[]> {
    const q = text.normalize('NFKC').replace(/[\u0000-\u001F\u007F]/g, ' ').trim().slice(0, 200)
    if (!q) throw InvalidInput.of('query', 'Give at least one word to search for.')
    const data = await this.graphql(
      'query Search($q: String!, $size: Int!) { meta { dataVersion { year month } } search(queryString: $q, entityNames: ["target", "disease"], page: { index: 0, size: $size }) { hits { id entity name description } } }',
      { q, size: limit })
    const hits = obj(data.search).hits
    if (!Array.isArray(hits)) throw new VendorResponseInvalid(this.source, 'search.hits is not a list')
    const stamp = this.version(data)
    return hits.map(obj).flatMap((h) => {
      const id = str(h.id)
      const scheme = id && SCHEME_PATTERNS['gene id'].test(id) ? 'gene id' : id && SCHEME_PATTERNS['ontology term id'].test(id) ? 'ontology term id' : null
      if (!id || !scheme) return []
      return [record('target_disease', scheme, id, { [scheme]: id }, str(h.name), str(h.description), `https://platform.opentargets.org/${scheme === 'gene id' ? 'target' : 'disease'}/${id}`, stamp)]
    })
  }

  async byId(id: string): Promise<KnowledgeRecord | null> {
    const target = SCHEME_PATTERNS['gene id'].test(id)
    if (!target && !SCHEME_PATTERNS['ontology term id'].test(id)) throw InvalidInput.of('externalId', 'A target is named by its gene id (ENSG...), a disease by its ontology term id (EFO_..., MONDO_...).')
    const data = await this.graphql(target
      ? 'query Target($id: String!) { meta { dataVersion { year month } } target(ensemblId: $id) { id approvedSymbol approvedName } }'
      : 'query Disease($id: String!) { meta { dataVersion { year month } } disease(efoId: $id) { id name description } }', { id })
    const o = obj(target ? data.target : data.disease)
    if (!str(o.id)) return null
    const scheme = target ? 'gene id' : 'ontology term id'
    return record('target_disease', scheme, id, { [scheme]: id }, str(target ? o.approvedSymbol : o.name), str(target ? o.approvedName : o.description),
      `https://platform.opentargets.org/${target ? 'target' : 'disease'}/${id}`, this.version(data))
  }
}

/** The bioactivity database: molecules by plain-text search; its <bioactivity>_db_version from the status answer. */
export class BioactivityClient extends KnowledgeClient {
  private stampValue: Promise<string> | null = null
  constructor(budget: SourceBudget) { super('bioactivity', budget) }

  /** The status answer's `<name>_db_version` field (the spec names the database version field by that pattern). */
  private dbVersion(): Promise<string> {
    this.stampValue ??= this.getJson('status.json', {}, 'status').then((b) => {
      const o = obj(b)
      const k = Object.keys(o).find((x) => /^[a-z0-9]+_db_version$/i.test(x))
      return this.stamp(k ? o[k] : null)
    })
    return this.stampValue.catch((e) => { this.stampValue = null; throw e })
  }

  private molecule(raw: unknown, stamp: string): KnowledgeRecord | null {
    const m = obj(raw)
    const id = str(m.molecule_chembl_id)
    if (!id || !SCHEME_PATTERNS['compound id'].test(id)) return null
    const inchikey = str(obj(m.molecule_structures).standard_inchi_key)
    return record('bioactivity', 'compound id', id, { 'compound id': id, ...(inchikey ? { InChIKey: inchikey } : {}) }, str(m.pref_name),
      str(m.usan_stem_definition), `https://www.ebi.ac.uk/chembl/compound_report_card/${id}/`, stamp)
  }

  async search(text: string, limit: number): Promise<KnowledgeRecord[]> {
    const q = text.normalize('NFKC').replace(/[\u0000-\u001F\u007F]/g, ' ').trim().slice(0, 200)
    if (!q) throw InvalidInput.of('query', 'Give at least one word to search for.')
    const body = obj(await this.getJson('molecule/search.json', { q, limit: String(limit), format: 'json' }, 'molecule search'))
    if (!Array.isArray(body.molecules)) throw new VendorResponseInvalid(this.source, 'molecules is not a list')
    const stamp = await this.dbVersion()
    return body.molecules.map((m) => this.molecule(m, stamp)).filter((r): r is KnowledgeRecord => !!r)
  }

  async byId(id: string): Promise<KnowledgeRecord | null> {
    if (!SCHEME_PATTERNS['compound id'].test(id) && !SCHEME_PATTERNS.InChIKey.test(id)) throw InvalidInput.of('externalId', 'A compound is named by its compound id (CHEMBL...) or its InChIKey.')
    const body = await this.getJson(`molecule/${id}.json`, {}, 'molecule')
    return body === null ? null : this.molecule(body, await this.dbVersion())
  }
}

export function knowledgeClients(budget: (s: SourceId) => SourceBudget) {
  return {
    trial_registry: new TrialRegistryClient(budget('trial_registry')),
    drug_safety: new DrugSafetyClient(budget('drug_safety')),
    target_disease: new TargetDiseaseClient(budget('target_disease')),
    bioactivity: new BioactivityClient(budget('bioactivity')),
  }
}
export type KnowledgeClients = ReturnType<typeof knowledgeClients>

/** The `include` of a search: knowledge source ids only (anything else is invalid_input on include). */
export function checkInclude(include: readonly string[] | null | undefined): KnowledgeSourceId[] {
  const out: KnowledgeSourceId[] = []
  for (const s of include ?? []) {
    if (!(KNOWLEDGE_SOURCES as readonly string[]).includes(s)) throw InvalidInput.of('include', `Knowledge sources are ${KNOWLEDGE_SOURCES.join(', ')}.`)
    if (!out.includes(s as KnowledgeSourceId)) out.push(s as KnowledgeSourceId)
  }
  return out
}

/** fetch_object: an external type that names a knowledge source (or its scheme) and the id in that scheme. */
export function knowledgeSourceOf(externalType: string): KnowledgeSourceId | null {
  if ((KNOWLEDGE_SOURCES as readonly string[]).includes(externalType)) return externalType as KnowledgeSourceId
  for (const s of KNOWLEDGE_SOURCES) if (SOURCES[s].provenanceSchemes.includes(externalType)) return s
  return null
}
