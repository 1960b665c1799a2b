// Vendor v2 entry objects for the fake notebook: defaults, note-part builders and illustrative sample content.
import { illustrative, randomId } from '../common/ids'

// The vendor's v2 shapes, declared again on purpose (domain/notebook/canonical.ts has the same):
// the fake stands for the vendor and must not import the connector code it tests.
export type ReviewStatus =
  | 'ACCEPTED'
  | 'NEEDS_REVIEW'
  | 'REJECTED'
  | 'RETRACTED'
  | 'ACCEPTANCE_SNAPSHOT_IN_PROGRESS'
  | 'REVIEW_SNAPSHOT_IN_PROGRESS'
  | 'IN_PROGRESS'
  | 'ACTION_REQUIRED'

export interface Link {
  id: string
  type: string
  webURL: string
}

export interface NotePart {
  type: string
  indentation: number
  [field: string]: unknown
}

export interface Day {
  date: string
  notes: NotePart[]
}

export interface UserSummary {
  id: string
  handle: string
  name: string
}

/** The vendor's v2 entry, plus `illustrative: true`. */
export interface Entry {
  id: string
  displayId: string
  name: string
  folderId: string
  createdAt: string
  modifiedAt: string
  creator: UserSummary
  authors: UserSummary[]
  assignedReviewers: UserSummary[]
  archiveRecord: { reason: string } | null
  fields: Record<string, unknown>
  customFields: Record<string, unknown>
  schema: { id: string; name: string } | null
  entryTemplateId: string | null
  apiURL: string
  webURL: string
  reviewRecord: { status: ReviewStatus; comment?: string }
  days: Day[]
  illustrative: true
}

/** What a test or the seed gives; everything else gets an illustrative default. */
export interface EntryInput {
  id?: string
  displayId?: string
  name?: string
  folderId?: string
  createdAt?: string
  creator?: UserSummary
  authors?: UserSummary[]
  assignedReviewers?: UserSummary[]
  archiveRecord?: { reason: string } | null
  fields?: Record<string, unknown>
  customFields?: Record<string, unknown>
  schema?: { id: string; name: string } | null
  entryTemplateId?: string | null
  reviewStatus?: ReviewStatus
  days?: Day[]
}

export const ILLUSTRATIVE_USER: UserSummary = { id: 'ent_illustrative_user', handle: 'illustrative.scientist', name: 'Illustrative Scientist' }
export const ILLUSTRATIVE_REVIEWER: UserSummary = { id: 'ent_illustrative_reviewer', handle: 'illustrative.reviewer', name: 'Illustrative Reviewer' }

let displayCounter = 0

export function buildEntry(input: EntryInput, { baseUrl, now }: { baseUrl: string; now: string }, previous?: Entry): Entry {
  const id = input.id ?? previous?.id ?? randomId('etr')
  return {
    id,
    displayId: input.displayId ?? previous?.displayId ?? `ILL${String(++displayCounter).padStart(4, '0')}`,
    name: illustrative(input.name ?? previous?.name ?? 'notebook entry'),
    folderId: input.folderId ?? previous?.folderId ?? 'lib_illustrative_folder',
    createdAt: input.createdAt ?? previous?.createdAt ?? now,
    modifiedAt: now,
    creator: input.creator ?? previous?.creator ?? ILLUSTRATIVE_USER,
    authors: input.authors ?? previous?.authors ?? [ILLUSTRATIVE_USER],
    assignedReviewers: input.assignedReviewers ?? previous?.assignedReviewers ?? [ILLUSTRATIVE_REVIEWER],
    archiveRecord: input.archiveRecord !== undefined ? input.archiveRecord : (previous?.archiveRecord ?? null),
    fields: input.fields ?? previous?.fields ?? {},
    customFields: input.customFields ?? previous?.customFields ?? {},
    schema: input.schema !== undefined ? input.schema : (previous?.schema ?? null),
    entryTemplateId: input.entryTemplateId !== undefined ? input.entryTemplateId : (previous?.entryTemplateId ?? null),
    apiURL: `${baseUrl}/api/v2/entries/${id}`,
    webURL: `${baseUrl}/illustrative/entries/${id}`,
    reviewRecord: { status: input.reviewStatus ?? previous?.reviewRecord.status ?? 'IN_PROGRESS' },
    days: structuredClone(input.days ?? previous?.days ?? []),
    illustrative: true,
  }
}

// ----- note-part builders ----------------------------------------------------------------------------------------

export const link = (type: string, id: string, baseUrl = 'http://illustrative.invalid'): Link => ({
  id,
  type,
  webURL: `${baseUrl}/illustrative/${type}/${id}`,
})

export const textPart = (text: string, links: Link[] = [], indentation = 0): NotePart => ({ type: 'text', indentation, text, links })
export const bulletPart = (text: string, links: Link[] = [], indentation = 0): NotePart => ({ type: 'list_bullet', indentation, text, links })
export const numberPart = (text: string, links: Link[] = [], indentation = 0): NotePart => ({ type: 'list_number', indentation, text, links })
export const checkboxPart = (text: string, checked = false, indentation = 0): NotePart => ({
  type: 'list_checkbox',
  indentation,
  text,
  links: [],
  checked,
})
export const codePart = (text: string): NotePart => ({ type: 'code', indentation: 0, text, links: [] })

export const tablePart = (
  caption: string,
  name: string,
  columnLabels: string[],
  rows: Array<Array<string | { text: string; link: Link }>>,
): NotePart => ({
  type: 'table',
  indentation: 0,
  text: caption,
  links: [],
  table: {
    name,
    columnLabels,
    rows: rows.map((cells) => ({ cells: cells.map((c) => (typeof c === 'string' ? { text: c } : c)) })),
  },
})

export const externalFilePart = (externalFileId: string, text = ''): NotePart => ({
  type: 'external_file',
  indentation: 0,
  text,
  links: [],
  externalFileId,
})

export const appCanvasPart = (appId: string, featureId: string, canvasId: string): NotePart => ({
  type: 'app_canvas',
  indentation: 0,
  appId,
  featureId,
  canvasId,
})

/** A plausible illustrative day of work, with a table, mentions and (optionally) an attachment. */
export function sampleDays(opts: { date?: string; attachmentId?: string; variant?: number } = {}): Day[] {
  const v = opts.variant ?? 1
  const notes: NotePart[] = [
    textPart(`Illustrative buffer preparation, run ${v}. Sample registered as @IllustrativeBatch-${v}.`, [
      link('batch', `bat_illustrative_${v}`),
      link('user', ILLUSTRATIVE_USER.id),
    ]),
    numberPart('Weigh illustrative reagent A (10.0 mg).'),
    numberPart('Dissolve in 10 mL illustrative buffer.'),
    checkboxPart('Balance calibration checked', true),
    tablePart('Illustrative readings', 'Readings', ['Sample', 'pH', 'Temperature (°C)'], [
      [{ text: `IllustrativeBatch-${v}`, link: link('batch', `bat_illustrative_${v}`) }, '7.2', '21.5'],
      ['Blank', '7.0', '21.4'],
    ]),
  ]
  if (opts.attachmentId) notes.push(externalFilePart(opts.attachmentId, 'Illustrative plate reader export'))
  return [{ date: opts.date ?? '2025-01-15', notes }]
}
