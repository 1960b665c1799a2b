// Owns one client per literature source the query policy calls, each over the shared VendorHttpClient (got with
// timeouts and retries) and its own SourceBudget: the European literature index (search with cursor pages, PPR
// successors, full text XML), the DOI metadata registry (always with the contact address), the citation-graph service
// (works by DOI or plain-text search, its api_key) and the full-text archive's bucket metadata (read anonymously);
// the four knowledge sources have theirs in knowledge.ts, over the same SourceClient.
//
// A query string never enters a source's query language unescaped: the index gets each word as a quoted term
// (quotes and backslashes dropped), identifiers are checked against their pattern before they are put in a filter or
// a path, and everything else travels as URL-encoded parameters.
import type { Db } from '../../core/database'
import { InvalidInput } from '../../core/errors'
import { VendorResponseInvalid } from '../adapters'
import { SourceBudget } from './budget'
import { SourceClient, obj, str } from './source-client'
import type { SourceRecord, WorkIds } from './clusters'
import { platformKeys } from './config'
import { readArchiveLicence, readCitationGraphLicence, readIndexLicence, type ArchiveReading } from './licence'
import type { SourceId } from './sources'
import { knowledgeClients } from './knowledge'

export const DOI_PATTERN = /^10\.\d{4,9}\/[^\s|,"\\]+$/
export const PMCID_PATTERN = /^PMC\d{1,10}$/

/** The index's query language from free text: each word a quoted term; nothing of the caller's syntax survives. */
export function indexQuery(text: string): string {
  const words = text.normalize('NFKC').replace(/[\u0000-\u001F\u007F"\\]/g, ' ').split(/\s+/).filter(Boolean).slice(0, 16)
  if (!words.length) throw InvalidInput.of('query', 'Give at least one word to search for.')
  return words.map((w) => `"${w}"`).join(' ')
}

export interface IndexPage { hitCount: number; nextCursorMark: string | null; records: SourceRecord[] }

export class LiteratureIndexClient extends SourceClient {
  constructor(budget: SourceBudget) { super('literature_index', budget) }

  /** One page of core results for free text (or a prepared identifier query), cursor `*` first. */
  async search(text: string, opts: { pageSize: number; cursorMark?: string | null; prepared?: string }): Promise<IndexPage> {
    const body = obj(await this.getJson('search', {
      query: opts.prepared ?? indexQuery(text), resultType: 'core', format: 'json', pageSize: String(opts.pageSize), cursorMark: opts.cursorMark || '*',
    }, 'search'))
    const list = obj(body.resultList).result
    if (!Array.isArray(list)) throw new VendorResponseInvalid(this.source, 'resultList.result is not a list')
    const retrievedAt = new Date().toISOString()
    return {
      hitCount: typeof body.hitCount === 'number' ? body.hitCount : list.length,
      nextCursorMark: str(body.nextCursorMark),
      records: list.map((raw) => this.record(obj(raw), retrievedAt)),
    }
  }

  /** A work by one of its identifiers (fetch_object): DOI, PMID, PMCID or PPR. */
  async byId(ids: WorkIds): Promise<SourceRecord | null> {
    const q = ids.doi && DOI_PATTERN.test(ids.doi) ? `DOI:"${ids.doi}"`
      : [ids.pmid, ids.pmcid, ids.ppr].find((x) => x && /^(\d{1,10}|PMC\d{1,10}|PPR\d{1,12})$/.test(x)) ? `EXT_ID:"${[ids.pmid, ids.pmcid, ids.ppr].find(Boolean)}"` : null
    if (!q) return null
    const page = await this.search('', { pageSize: 1, prepared: q })
    return page.records[0] ?? null
  }

  private record(r: Record<string, unknown>, retrievedAt: string): SourceRecord {
    const source = str(r.source)
    const ppr = source === 'PPR' ? str(r.id) : null
    let successor: WorkIds | null = null
    if (ppr) {
      const links = obj(r.commentCorrectionList).commentCorrection
      const published = Array.isArray(links) ? links.map(obj).find((l) => /preprint of|published as/i.test(String(l.type ?? ''))) : undefined
      if (published) successor = { pmid: source === 'PPR' && str(published.source) === 'MED' ? str(published.id) : null, doi: str(published.reference) }
    }
    const pmcid = str(r.pmcid)
    return {
      source: 'literature_index',
      ids: { doi: str(r.doi), pmid: str(r.pmid), pmcid, ppr },
      title: str(r.title), abstract: str(r.abstractText), year: Number(r.pubYear) || null,
      venue: str(obj(obj(r.journalInfo).journal).title),
      url: pmcid ? `https://europepmc.org/article/PMC/${pmcid}` : str(r.pmid) ? `https://europepmc.org/article/MED/${r.pmid}` : ppr ? `https://europepmc.org/article/PPR/${ppr}` : null,
      licence: readIndexLicence(r),
      snapshot: { field: 'retrieved_at', value: retrievedAt },
      successor,
      citedByCount: typeof r.citedByCount === 'number' ? r.citedByCount : null,
    }
  }

  /** Full text from /{PMCID}/fullTextXML, as plain text (the sanitiser cleans it again before anyone reads it). */
  async fullText(pmcid: string): Promise<string | null> {
    if (!PMCID_PATTERN.test(pmcid)) return null
    const answer = await this.get(`${pmcid}/fullTextXML`, {}, 'full text', 'application/xml')
    if (!answer) return null
    return answer.body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 50_000) || null
  }
}

export class DoiRegistryClient extends SourceClient {
  constructor(budget: SourceBudget) { super('doi_registry', budget) }

  /** DOI metadata for up to 25 DOIs in one request; the contact address (mailto) is always sent. */
  async works(dois: readonly string[], contact: string): Promise<SourceRecord[]> {
    const valid = dois.filter((d) => DOI_PATTERN.test(d))
    if (!valid.length) return []
    // The contact address travels as mailto (the polite pool) and in the User-Agent, which the registry also accepts.
    const body = obj(await this.getJson('works', { filter: valid.map((d) => `doi:${d}`).join(','), rows: String(valid.length), mailto: contact }, 'works',
      { 'user-agent': `evidence-workspace/1 (mailto:${contact})` }))
    const items = obj(body.message).items
    if (!Array.isArray(items)) throw new VendorResponseInvalid(this.source, 'message.items is not a list')
    return items.map(obj).map((w) => {
      const titles = Array.isArray(w.title) ? w.title : []
      const venue = Array.isArray(w['container-title']) ? w['container-title'] : []
      const parts = obj(w.published)['date-parts']
      const year = Array.isArray(parts) && Array.isArray(parts[0]) ? Number(parts[0][0]) || null : null
      return {
        source: 'doi_registry', ids: { doi: str(w.DOI) }, title: str(titles[0]), abstract: null, year, venue: str(venue[0]),
        url: str(w.URL), licence: null, snapshot: null,
      } satisfies SourceRecord
    })
  }
}

export class CitationGraphClient extends SourceClient {
  constructor(budget: SourceBudget) { super('citation_graph', budget) }

  private params(extra: Record<string, string>): Record<string, string> {
    const key = platformKeys().citation_graph_api_key
    return { ...extra, 'per-page': '25', ...(key ? { api_key: key } : {}) }
  }

  /** Works by DOI (citations, open-access location and the licences of primary_location and best_oa_location). */
  async worksByDoi(dois: readonly string[]): Promise<SourceRecord[]> {
    const valid = dois.filter((d) => DOI_PATTERN.test(d))
    if (!valid.length) return []
    return this.works(this.params({ filter: `doi:${valid.join('|')}` }))
  }

  /** Plain-text search (a URL parameter, no query language): the fallback when the index cannot answer. */
  async search(text: string): Promise<SourceRecord[]> {
    return this.works(this.params({ search: text.normalize('NFKC').replace(/[\u0000-\u001F\u007F]/g, ' ').slice(0, 500) }))
  }

  private async works(params: Record<string, string>): Promise<SourceRecord[]> {
    const body = obj(await this.getJson('works', params, 'works'))
    if (!Array.isArray(body.results)) throw new VendorResponseInvalid(this.source, 'results is not a list')
    return body.results.map(obj).map((w) => {
      const ids = obj(w.ids)
      const pmid = str(ids.pmid)?.replace(/^https?:\/\/pubmed\.ncbi\.nlm\.nih\.gov\//, '') ?? null
      return {
        source: 'citation_graph',
        ids: { wid: str(w.id), doi: str(w.doi), pmid },
        title: str(w.title) ?? str(w.display_name), abstract: null, year: typeof w.publication_year === 'number' ? w.publication_year : null, venue: null,
        url: str(w.id),
        licence: readCitationGraphLicence(w), // never the open_access field
        snapshot: null,
        citedByCount: typeof w.cited_by_count === 'number' ? w.cited_by_count : null,
        oaUrl: str(obj(w.best_oa_location).landing_page_url) ?? str(obj(w.open_access).oa_url),
      } satisfies SourceRecord
    })
  }
}

export class FulltextArchiveClient extends SourceClient {
  constructor(budget: SourceBudget) { super('fulltext_archive', budget) }

  /** The bucket's metadata of an article version (metadata/PMCxxxx.N.json), read anonymously; null when absent. */
  async metadata(pmcid: string, version = 1): Promise<ArchiveReading | null> {
    if (!PMCID_PATTERN.test(pmcid)) return null
    const body = await this.getJson(`metadata/${pmcid}.${version}.json`, {}, 'archive metadata')
    return body === null ? null : readArchiveLicence(body)
  }
}

/** The clients of one organisation's search, each drawing from its source's platform row and the organisation's share. */
export function literatureClients(db: Db, organizationId: string) {
  const b = (s: SourceId) => new SourceBudget(db, s, organizationId)
  return {
    index: new LiteratureIndexClient(b('literature_index')),
    doi: new DoiRegistryClient(b('doi_registry')),
    citations: new CitationGraphClient(b('citation_graph')),
    archive: new FulltextArchiveClient(b('fulltext_archive')),
    // The four knowledge sources (knowledge.ts): optional policy steps and fetch_object by their schemes.
    knowledge: knowledgeClients(b),
  }
}
export type LiteratureClients = ReturnType<typeof literatureClients>
