// Owns licence reading (connector specification, Licence reading): what each source's licence field says, normalised,
// and the one rule for full text (cc0, cc_by, cc_by_sa only). A field that is missing or has changed its shape reads
// `unknown`, never open; the citation graph's open_access field is never read.

export const LICENCES = ['cc0', 'cc_by', 'cc_by_sa', 'cc_by_nd', 'cc_by_nc', 'cc_by_nc_sa', 'cc_by_nc_nd', 'other', 'unknown'] as const
export type Licence = (typeof LICENCES)[number]

/** Full text is fetched and shown only for these (spec: licences cc0, cc_by and cc_by_sa). */
export const OPEN_LICENCES: ReadonlySet<Licence> = new Set(['cc0', 'cc_by', 'cc_by_sa'])
export const isOpen = (l: Licence) => OPEN_LICENCES.has(l)

/** From most permissive to most restrictive: a cluster takes the most restrictive licence its sources state. */
const RANK: Record<Licence, number> = { cc0: 0, cc_by: 1, cc_by_sa: 2, cc_by_nd: 3, cc_by_nc: 4, cc_by_nc_sa: 5, cc_by_nc_nd: 6, other: 7, unknown: -1 }

/**
 * A licence string as sources write it ("cc by", "CC BY-NC", "cc-by-4.0", "https://creativecommons.org/licenses/by-sa/4.0/",
 * "CC0", "TDM", ...) normalised. Anything not recognised is `other` (shown as metadata and a link); null or empty is `unknown`.
 */
export function normaliseLicence(raw: unknown): Licence {
  if (typeof raw !== 'string' || !raw.trim()) return 'unknown'
  let s = raw.trim().toLowerCase()
  const url = s.match(/creativecommons\.org\/(licenses|publicdomain)\/([a-z-]+)/)
  if (url) s = url[1] === 'publicdomain' ? (url[2] === 'zero' ? 'cc0' : 'other') : `cc-${url[2]}`
  s = s.replace(/[\s_.]+/g, '-').replace(/-\d+(-\d+)*$/, '').replace(/-+/g, '-')
  if (s === 'cc0' || s === 'cc-0' || s === 'cc-zero') return 'cc0'
  const table: Record<string, Licence> = {
    'cc-by': 'cc_by', 'cc-by-sa': 'cc_by_sa', 'cc-by-nd': 'cc_by_nd', 'cc-by-nc': 'cc_by_nc', 'cc-by-nc-sa': 'cc_by_nc_sa', 'cc-by-nc-nd': 'cc_by_nc_nd',
  }
  return table[s] ?? 'other'
}

/** One source's reading of one record's licence, with where it came from. */
export interface LicenceReading {
  source: string
  licence: Licence
  /** The field(s) read, e.g. license, primary_location.license. */
  field: string
  /** The field was present but not in the shape the source documents (a changed licence field). */
  unreadable?: boolean
}

const field = (obj: unknown, key: string): { present: boolean; value: unknown } => {
  if (!obj || typeof obj !== 'object' || !(key in obj)) return { present: false, value: undefined }
  return { present: true, value: (obj as Record<string, unknown>)[key] }
}

/** European literature index: the license field of a core-result record. */
export function readIndexLicence(record: unknown): LicenceReading {
  const f = field(record, 'license')
  if (f.present && f.value !== null && typeof f.value !== 'string') return { source: 'literature_index', licence: 'unknown', field: 'license', unreadable: true }
  // No license field but another licence-like one: the source changed its schema. Unknown, and said so.
  if (!f.present && record && typeof record === 'object' && Object.keys(record).some((k) => /^licen[cs]e/i.test(k))) {
    return { source: 'literature_index', licence: 'unknown', field: 'license', unreadable: true }
  }
  return { source: 'literature_index', licence: normaliseLicence(f.value), field: 'license' }
}

/**
 * Citation-graph service: primary_location.license and best_oa_location.license, never the open_access field. When
 * both state a licence the more restrictive one holds.
 */
export function readCitationGraphLicence(work: unknown): LicenceReading {
  const readings: Licence[] = []
  let unreadable = false
  for (const loc of ['primary_location', 'best_oa_location']) {
    const l = field(work, loc)
    if (!l.present || l.value === null) continue
    if (typeof l.value !== 'object') { unreadable = true; continue }
    const lic = field(l.value, 'license')
    if (lic.present && lic.value !== null && typeof lic.value !== 'string') { unreadable = true; continue }
    if (!lic.present && Object.keys(l.value as object).some((k) => /^licen[cs]e/i.test(k))) { unreadable = true; continue }
    readings.push(normaliseLicence(lic.value))
  }
  return { source: 'citation_graph', licence: mostRestrictive(readings), field: 'primary_location.license, best_oa_location.license', ...(unreadable ? { unreadable } : {}) }
}

/** Full-text archive bucket metadata (metadata/PMCxxxx.N.json): license_code, is_pmc_openaccess and is_manuscript. */
export interface ArchiveReading extends LicenceReading {
  /** Full text may be shown for the version: open-access flag set, not an author manuscript, no non-open licence code. */
  fullTextEligible: boolean
}

export function readArchiveLicence(meta: unknown): ArchiveReading {
  const code = field(meta, 'license_code')
  const oa = field(meta, 'is_pmc_openaccess')
  const manuscript = field(meta, 'is_manuscript')
  const shapeOk = code.present && (code.value === null || typeof code.value === 'string') && typeof oa.value === 'boolean' && typeof manuscript.value === 'boolean'
  if (!shapeOk) return { source: 'fulltext_archive', licence: 'unknown', field: 'license_code', unreadable: true, fullTextEligible: false }
  const licence = normaliseLicence(code.value)
  // A version without a licence code does not veto what the other sources state; a non-open code, a version outside
  // the open-access set or an author manuscript does.
  return { source: 'fulltext_archive', licence, field: 'license_code', fullTextEligible: oa.value === true && manuscript.value === false && (licence === 'unknown' || isOpen(licence)) }
}

/** The most restrictive of the licences stated; `unknown` when none is. */
export function mostRestrictive(licences: readonly Licence[]): Licence {
  let out: Licence = 'unknown'
  for (const l of licences) if (l !== 'unknown' && RANK[l] > RANK[out]) out = l
  return out
}

// ---- rendering (an R4 gate item) ----------------------------------------------------------------------------------

export const SHARE_ALIKE_NOTICE = 'Share-alike: this text is licensed CC BY-SA; anything made from it must carry the same licence.'

export interface Rendering {
  mode: 'full_text' | 'metadata'
  licence: Licence
  /** Full text, only for cc0, cc_by and cc_by_sa. */
  fullText: string | null
  /** Where the work can be read at its source (always given). */
  link: string | null
  notice: string | null
}

/** What may be shown of a work: full text only under an open licence, with the share-alike notice for cc_by_sa. */
export function renderForLicence(licence: Licence, fullText: string | null, link: string | null): Rendering {
  if (isOpen(licence) && fullText) {
    return { mode: 'full_text', licence, fullText, link, notice: licence === 'cc_by_sa' ? SHARE_ALIKE_NOTICE : null }
  }
  return { mode: 'metadata', licence, fullText: null, link, notice: null }
}
