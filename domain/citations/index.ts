// Owns the grammar of a skill citation that names something of the program (issue 29, items 9 and 16): the strings
// documents.list_assets and documents.read_table_rows hand out, and what makes a skill result's citation a cited
// record of its program (domain/gate-evidence.ts resolves them). A skill still accepts any citation string (the
// skills contract: an opaque reference the caller resolves); only these forms can make a result stage-gate evidence.
//
//   document:<id>[@v<version>][#<locator>]   a mirrored document (a notebook entry), e.g. document:<id>@v3#table=0
//   attachment:<id>                            an attachment's metadata
//   eln_entry:<id>                             a notebook entry's source
//   sop_version:<id>                           an SOP version (connector or local)
//   record:<id>                                a program record
//   a DOI, pmid:<n>, pmcid:PMC<n> or a W-id    a literature cluster the organisation's searches found
// Pure: no I/O.

export const PROGRAM_CITATION_KINDS = ['document', 'attachment', 'eln_entry', 'sop_version', 'record', 'literature'] as const
export type ProgramCitationKind = (typeof PROGRAM_CITATION_KINDS)[number]

export interface ProgramCitation {
  kind: ProgramCitationKind
  /** The id (uuid), or for literature the cluster key as written. */
  id: string
  /** document:<id>@v<n>: the document version read. */
  version: number | null
  /** What follows '#': a table (table=<n>), a passage or an anchor. */
  locator: string | null
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
const OBJECT_REF = new RegExp(`^(document|attachment|eln_entry|sop_version|record):(${UUID})(?:@v(\\d{1,9}))?(?:#(.{1,300}))?$`, 'i')
const CLUSTER_KEY = /^(10\.\d{4,9}\/\S{1,300}|pmid:\d{1,10}|pmcid:PMC\d{1,10}|W\d{1,12})$/i

/** A citation string as a program citation, or null when it names nothing of a program (e.g. 'x', 'tox-report:rat'). */
export function parseProgramCitation(ref: string): ProgramCitation | null {
  const s = ref.trim()
  const m = OBJECT_REF.exec(s)
  if (m) {
    const kind = m[1].toLowerCase() as ProgramCitationKind
    // A version belongs to documents only.
    if (m[3] !== undefined && kind !== 'document') return null
    return { kind, id: m[2].toLowerCase(), version: m[3] !== undefined ? Number(m[3]) : null, locator: m[4] ?? null }
  }
  if (CLUSTER_KEY.test(s)) return { kind: 'literature', id: s, version: null, locator: null }
  return null
}

/** The reference of one version of a mirrored document. */
export const documentRef = (documentId: string, version: number) => `document:${documentId}@v${version}`

/** The citation of one table of one version of a mirrored document (what documents.read_table_rows answers). */
export const tableCitation = (documentId: string, version: number, table: number) => `${documentRef(documentId, version)}#table=${table}`

/** The table index a document citation's locator names, or null. */
export function citedTable(c: ProgramCitation): number | null {
  const m = /^table=(\d{1,4})$/.exec(c.locator ?? '')
  return m ? Number(m[1]) : null
}
