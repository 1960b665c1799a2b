// Owns what a record may cite: source-system objects only, by reference (a notebook entry, a literature cluster, a
// document passage, an SOP version), checked to exist in the record's program (literature clusters: found by the
// organisation's literature searches, by cluster key or alias). Agent-origin text (artifacts, record
// versions a twin proposed, run output) has no citation kind, so it can never be cited (spec 001: agent-origin records
// are never citable as evidence; only the passage references they carry are).
import { z } from 'zod'
import type { TenantTx } from '../../core/database'
import type { InputIssue } from '../../core/errors'
import { isId } from '../../core/text'

export const CITATION_KINDS = ['eln_entry', 'literature_cluster', 'document_passage', 'sop_version'] as const
export type CitationKind = (typeof CITATION_KINDS)[number]

/** A citation as a caller gives it: `ref` is the source id (eln_entry, sop_version), the document id
 * (document_passage, with a locator) or the literature cluster key (a DOI, pmid:…, pmcid:PMC…, or a W-id). */
export interface CitationInput { kind: CitationKind; ref: string; locator?: string | null }

const CLUSTER_KEY = /^(10\.\d{4,9}\/\S{1,300}|pmid:\d{1,10}|pmcid:PMC\d{1,10}|W\d{1,12})$/i
const NOT_CITABLE = `agent-origin text is never citable; cite one of ${CITATION_KINDS.join(', ')}`

export const CitationSchema = z.object({
  kind: z.string().refine((k) => (CITATION_KINDS as readonly string[]).includes(k), NOT_CITABLE),
  ref: z.string().min(1, 'required').max(320),
  locator: z.string().trim().min(1).max(500).nullish(),
}).superRefine((c, ctx) => {
  if (c.kind === 'literature_cluster') {
    if (!CLUSTER_KEY.test(c.ref)) ctx.addIssue({ code: 'custom', path: ['ref'], message: 'a literature cluster key: a DOI, pmid:<n>, pmcid:PMC<n> or a W-id' })
  } else if (!isId(c.ref)) {
    ctx.addIssue({ code: 'custom', path: ['ref'], message: 'not an id this service gave out' })
  }
  if (c.kind === 'document_passage' && !c.locator) ctx.addIssue({ code: 'custom', path: ['locator'], message: 'a passage needs its locator (section, page or anchor)' })
}).transform((c) => c as CitationInput)

export const CitationsSchema = z.array(CitationSchema).max(100, 'at most 100 citations')

/** A citation as stored (record_citations) and as a version snapshot keeps it. */
export interface ResolvedCitation {
  kind: CitationKind
  ref: string
  locator: string | null
  sourceId: string | null
  documentId: string | null
  clusterKey: string | null
}

const KIND_SOURCE_TYPE: Partial<Record<CitationKind, string>> = { eln_entry: 'eln_entry', sop_version: 'sop_version' }
const NOUN: Record<CitationKind, string> = {
  eln_entry: 'notebook entry', sop_version: 'SOP version', document_passage: 'document', literature_cluster: 'literature cluster',
}

/**
 * Checks that every cited object exists in the program (anything else, another program's or organisation's included,
 * is an issue on `citations.<n>.ref`, never telling where it exists) and returns the rows to store.
 */
export async function resolveCitations(q: TenantTx, programId: string, citations: readonly CitationInput[]): Promise<{ rows: ResolvedCitation[]; issues: InputIssue[] }> {
  const issues: InputIssue[] = []
  const sourceIds = citations.filter((c) => KIND_SOURCE_TYPE[c.kind]).map((c) => c.ref)
  const documentIds = citations.filter((c) => c.kind === 'document_passage').map((c) => c.ref)
  const clusterRefs = citations.filter((c) => c.kind === 'literature_cluster').map((c) => canonicalClusterRef(c.ref))
  const [sources, documents, clusters] = await Promise.all([
    sourceIds.length ? q.source.findMany({ where: { id: { in: sourceIds }, programId }, select: { id: true, sourceType: true } }) : [],
    documentIds.length ? q.document.findMany({ where: { id: { in: documentIds }, programId }, select: { id: true } }) : [],
    // Literature clusters are the organisation's (the literature connector keeps what its searches found), by key or alias.
    clusterRefs.length ? q.literatureCluster.findMany({ where: { OR: [{ clusterKey: { in: clusterRefs } }, { aliases: { hasSome: clusterRefs } }] }, select: { clusterKey: true, aliases: true } }) : [],
  ])
  const sourceType = new Map(sources.map((s) => [s.id, s.sourceType]))
  const docs = new Set(documents.map((d) => d.id))
  const clusterOf = new Map<string, string>()
  for (const c of clusters) for (const k of [c.clusterKey, ...c.aliases]) clusterOf.set(k, c.clusterKey)
  const rows = citations.map((c, i): ResolvedCitation => {
    const cluster = c.kind === 'literature_cluster' ? clusterOf.get(canonicalClusterRef(c.ref)) ?? null : null
    const ok = c.kind === 'literature_cluster' ? cluster !== null : c.kind === 'document_passage' ? docs.has(c.ref) : sourceType.get(c.ref) === KIND_SOURCE_TYPE[c.kind]
    if (!ok) {
      issues.push({ field: `citations.${i}.ref`, message: c.kind === 'literature_cluster' ? 'no literature cluster your organisation has found has that key' : `no ${NOUN[c.kind]} of this program has that id` })
    }
    return {
      kind: c.kind, ref: c.ref, locator: c.locator ?? null,
      sourceId: KIND_SOURCE_TYPE[c.kind] ? c.ref : null,
      documentId: c.kind === 'document_passage' ? c.ref : null,
      clusterKey: cluster,
    }
  })
  return { rows, issues }
}

/** A cluster key as the literature connector writes it: DOIs lower case, pmcid:PMC<n>, ppr:PPR<n>, W<n>. */
function canonicalClusterRef(ref: string): string {
  if (/^10\./.test(ref)) return ref.toLowerCase()
  return ref.replace(/^pmid:/i, 'pmid:').replace(/^pmcid:pmc/i, 'pmcid:PMC').replace(/^ppr:ppr/i, 'ppr:PPR').replace(/^w(?=\d)/i, 'W')
}
