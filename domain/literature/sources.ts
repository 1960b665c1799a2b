// Owns the literature sources of the connector specification (Literature sources, Limits, Literature connector
// behaviour item 6): the eight sources by kind with their key, provenance schemes, snapshot stamp and rate rule, and
// the four excluded source kinds with their stated reasons. Data only; clients.ts and knowledge.ts call them.
import { EXCLUDED_LITERATURE_SOURCES } from '../adapters'

export const SOURCE_IDS = [
  'literature_index', 'doi_registry', 'citation_graph', 'fulltext_archive',
  'trial_registry', 'drug_safety', 'target_disease', 'bioactivity',
] as const
export type SourceId = (typeof SOURCE_IDS)[number]

/**
 * How a source's budget is kept: `self` a fixed window we keep ourselves; `headers` a window the vendor's headers set
 * (the DOI registry's x-rate-limit-limit per x-rate-limit-interval; the citation graph's X-RateLimit-* daily credits,
 * stopped at `stopAtFraction` of them).
 */
export interface RateRule {
  kind: 'self' | 'headers'
  limit: number
  windowSeconds: number
  /** Citation graph: refuse once this fraction of the daily credit budget is used (spec: stop at 90 %). */
  stopAtFraction?: number
  /** What the Limits table says, shown by describe. */
  text: string
}

export interface SourceSpec {
  id: SourceId
  /** The specification names sources by kind. */
  kind: string
  /** Which platform key it takes (null: none; the DOI registry takes the contact address, always sent). */
  key: 'none' | 'contact_email' | 'citation_graph_api_key' | 'fulltext_archive_api_key' | 'drug_safety_api_key'
  provenanceSchemes: readonly string[]
  /** Field of the source's answer that stamps its snapshot (null: the source has none). */
  snapshotStamp: string | null
  rate: RateRule
  /** Pinned API version (connections pin api_version; literature's default is per source). */
  apiVersion: string
  /** Path under LITERATURE_BASE_URL where the source is served (the fake serves every source under one origin). */
  path: string
  /** Public base URL used when LITERATURE_BASE_URL is not set. */
  publicBaseUrl: string
  /** Whether the query policy always calls it (false: an optional step, run when the query asks for the source). */
  calledByPolicy: boolean
}

export const SOURCES: Readonly<Record<SourceId, SourceSpec>> = Object.freeze({
  literature_index: {
    id: 'literature_index', kind: 'European literature index', key: 'none', provenanceSchemes: ['PMID', 'PMCID', 'DOI', 'PPR'],
    snapshotStamp: 'retrieved_at', apiVersion: 'rest 6.9', path: 'literature-index', publicBaseUrl: 'https://www.ebi.ac.uk/europepmc/webservices/rest',
    rate: { kind: 'self', limit: 5, windowSeconds: 1, text: 'self-cap 5 requests per second; bulk automated download forbidden, bulk full text comes from the open-access bucket' },
    calledByPolicy: true,
  },
  doi_registry: {
    id: 'doi_registry', kind: 'DOI metadata registry', key: 'contact_email', provenanceSchemes: ['DOI'], snapshotStamp: null,
    apiVersion: 'rest v1', path: 'doi-registry', publicBaseUrl: 'https://api.crossref.org',
    rate: { kind: 'headers', limit: 3, windowSeconds: 1, text: 'header-driven (x-rate-limit-limit 3 per x-rate-limit-interval 1 s observed live)' },
    calledByPolicy: true,
  },
  citation_graph: {
    id: 'citation_graph', kind: 'citation-graph service', key: 'citation_graph_api_key', provenanceSchemes: ['W-id', 'DOI'], snapshotStamp: null,
    apiVersion: 'works api', path: 'citation-graph', publicBaseUrl: 'https://api.openalex.org',
    // Our own window stays far under the vendor's 100 per second; the daily credits come from its headers.
    rate: { kind: 'headers', limit: 10, windowSeconds: 1, stopAtFraction: 0.9, text: 'header-driven on X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Credits-Used, X-RateLimit-Reset; 429 above 100 requests per second; daily credit budget, stop at 90 % of it' },
    calledByPolicy: true,
  },
  fulltext_archive: {
    id: 'fulltext_archive', kind: 'biomedical citation database and full-text archive', key: 'fulltext_archive_api_key', provenanceSchemes: ['PMID', 'PMCID'],
    snapshotStamp: null, apiVersion: 'open-access bucket metadata', path: 'fulltext-archive', publicBaseUrl: 'https://pmc-oa-opendata.s3.amazonaws.com',
    rate: { kind: 'self', limit: 8, windowSeconds: 1, text: '8 requests per second' },
    calledByPolicy: true,
  },
  trial_registry: {
    id: 'trial_registry', kind: 'clinical trial registry (v2)', key: 'none', provenanceSchemes: ['NCT'], snapshotStamp: 'dataTimestamp',
    apiVersion: 'v2', path: 'trial-registry', publicBaseUrl: 'https://clinicaltrials.gov/api/v2',
    rate: { kind: 'self', limit: 3, windowSeconds: 1, text: '3 requests per second' }, calledByPolicy: false,
  },
  drug_safety: {
    id: 'drug_safety', kind: 'drug safety reporting data', key: 'drug_safety_api_key', provenanceSchemes: ['report id', 'NDC'], snapshotStamp: 'meta.last_updated',
    apiVersion: 'v1', path: 'drug-safety', publicBaseUrl: 'https://api.fda.gov',
    rate: { kind: 'self', limit: 120_000, windowSeconds: 86_400, text: '120 000 requests per day' }, calledByPolicy: false,
  },
  target_disease: {
    id: 'target_disease', kind: 'target and disease association data', key: 'none', provenanceSchemes: ['ontology term id', 'gene id'], snapshotStamp: 'meta.dataVersion',
    apiVersion: 'v4', path: 'target-disease', publicBaseUrl: 'https://api.platform.opentargets.org/api/v4',
    rate: { kind: 'self', limit: 3, windowSeconds: 1, text: '3 requests per second' }, calledByPolicy: false,
  },
  bioactivity: {
    id: 'bioactivity', kind: 'bioactivity database', key: 'none', provenanceSchemes: ['compound id', 'InChIKey'], snapshotStamp: '<bioactivity>_db_version',
    apiVersion: 'data api', path: 'bioactivity', publicBaseUrl: 'https://www.ebi.ac.uk/chembl/api/data',
    rate: { kind: 'self', limit: 3, windowSeconds: 1, text: '3 requests per second' }, calledByPolicy: false,
  },
})

/** The four excluded source kinds with their stated reasons (kept with the provider registry). */
export const EXCLUDED_SOURCES = EXCLUDED_LITERATURE_SOURCES

/** Defaults of the Limits table: 25 results per query, three queries per turn (programs.settings.evidence_query_budget overrides). */
export const RESULTS_PER_QUERY = 25
export const QUERIES_PER_TURN_DEFAULT = 3
/** Full text is fetched for at most this many open clusters per query (the index's self-cap is 5 per second). */
export const FULL_TEXT_PER_QUERY = 3

/** The query policy's steps, in order (visible in the run rail). */
export const POLICY_STEPS = [
  { step: 'search', source: 'literature_index', label: 'search the European literature index first' },
  { step: 'doi_metadata', source: 'doi_registry', label: 'use the DOI metadata registry for DOI metadata' },
  { step: 'citations_and_oa', source: 'citation_graph', label: 'use the citation-graph service for citations and open-access location' },
  { step: 'archive_licence', source: 'fulltext_archive', label: 'read license_code, the open-access flag and is_manuscript from the archive bucket metadata' },
  { step: 'full_text', source: 'literature_index', label: 'fetch full text only for licences cc0, cc_by and cc_by_sa' },
  // Optional steps, run only when the query asks for the source (SearchArgs.include; knowledge.ts).
  { step: 'trials', source: 'trial_registry', label: 'search the clinical trial registry (asked for)' },
  { step: 'drug_safety_reports', source: 'drug_safety', label: 'search drug safety reporting data (asked for)' },
  { step: 'targets_and_diseases', source: 'target_disease', label: 'search target and disease association data (asked for)' },
  { step: 'compounds', source: 'bioactivity', label: 'search the bioactivity database (asked for)' },
] as const
