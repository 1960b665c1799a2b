// Notebook version identity: the canonical content of a v2 entry, its payload hash, external_version, target_ref and flattened text.
//
// What the payload hash covers (the specification's "entry content"):
//   { v: 1, name, days: [{ date, notes: [part…] }] } serialised with RFC 8785 (JCS) and hashed with sha256.
//   - days and notes keep the vendor's order; table cells are kept row-major (rows in order, cells in order);
//   - mentions (links) are expanded to "type:id" (webURL is dropped: it names a host, not content);
//   - attachments (external_file parts) become "id:sha256", the sha256 taken from the attachment metadata the caller
//     passes in `attachmentSha256` (the fake notebook serves it as `externalFile.sha256`). An attachment whose digest is
//     unknown is written "id:unknown", so the hash stays defined and changes once the digest becomes known;
//   - the entry name is included because the flattened document shows it as its title;
//   - metadata (modifiedAt, reviewRecord, authors, fields, URLs) is excluded: review state lives in
//     connector_objects.state and modifiedAt in external_version.
// Part types without a rule here keep their own fields except URLs and volatile `id`s, so unknown content still counts.
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'

export const PROVIDER_ID = 'eln_provider'
export const TARGET_REF_HASH_PREFIX = 12

// ---------------------------------------------------------------------------------------------------------------
// Vendor v2 entry shape (only what this service reads is typed; everything else passes through).

export interface NotebookLink {
  id: string
  type: string
  webURL?: string
}

export interface NotebookTableCell {
  text?: string | null
  link?: NotebookLink | null
}

export interface NotebookTable {
  name?: string | null
  columnLabels?: Array<string | null> | null
  rows: Array<{ cells: NotebookTableCell[] }>
}

export interface NotebookNotePart {
  type: string
  indentation?: number
  text?: string | null
  links?: NotebookLink[] | null
  checked?: boolean
  table?: NotebookTable | null
  externalFileId?: string
  appId?: string
  canvasId?: string
  featureId?: string
  [extra: string]: unknown
}

export interface NotebookDay {
  date: string
  notes: NotebookNotePart[]
}

export type ReviewStatus =
  | 'ACCEPTED'
  | 'NEEDS_REVIEW'
  | 'REJECTED'
  | 'RETRACTED'
  | 'ACCEPTANCE_SNAPSHOT_IN_PROGRESS'
  | 'REVIEW_SNAPSHOT_IN_PROGRESS'
  | 'IN_PROGRESS'
  | 'ACTION_REQUIRED'

export interface NotebookUserSummary {
  id: string
  handle?: string
  name?: string
}

export interface NotebookEntry {
  id: string
  displayId?: string
  name: string
  folderId?: string | null
  createdAt?: string
  modifiedAt: string
  creator?: NotebookUserSummary | null
  authors?: NotebookUserSummary[]
  assignedReviewers?: NotebookUserSummary[]
  archiveRecord?: { reason: string } | null
  fields?: Record<string, unknown>
  customFields?: Record<string, unknown>
  schema?: { id: string; name?: string } | null
  entryTemplateId?: string | null
  apiURL?: string
  webURL?: string
  reviewRecord?: { status: ReviewStatus | string; [extra: string]: unknown } | null
  days: NotebookDay[]
  [extra: string]: unknown
}

// ---------------------------------------------------------------------------------------------------------------
// Canonical content (also the content_json of the flattened document).

// The types are the generic documents' content_json (domain/document-content.ts); the notebook writes them.
export type { CanonicalEntryContent, CanonicalPart, CanonicalTable } from '../documents'
import type { CanonicalEntryContent, CanonicalPart } from '../documents'

export interface HashOptions {
  /** Attachment digests from the attachment metadata, keyed by externalFileId (lower-case sha256 hex). */
  attachmentSha256?: Readonly<Record<string, string | null | undefined>> | ReadonlyMap<string, string>
}

const SHA256_HEX = /^[0-9a-f]{64}$/

export const mention = (link: NotebookLink): string => `${link.type}:${link.id}`

function digestFor(fileId: string, digests: HashOptions['attachmentSha256']): string {
  const raw = digests instanceof Map ? digests.get(fileId) : (digests as Record<string, string | null | undefined> | undefined)?.[fileId]
  const value = typeof raw === 'string' ? raw.toLowerCase() : undefined
  return value && SHA256_HEX.test(value) ? value : 'unknown'
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const links = (ls: NotebookLink[] | null | undefined): string[] => (Array.isArray(ls) ? ls.map(mention) : [])

// Fields that identify a host or a rendering, not content.
const VOLATILE_KEYS = new Set(['webURL', 'apiURL', 'downloadURL', 'expiresAt'])

function stripVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripVolatile)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (VOLATILE_KEYS.has(k) || v === undefined) continue
      out[k] = stripVolatile(v)
    }
    return out
  }
  return value
}

function canonicalPart(part: NotebookNotePart, digests: HashOptions['attachmentSha256']): CanonicalPart {
  const indentation = Number.isInteger(part.indentation) ? (part.indentation as number) : 0
  const base = { type: part.type, indentation, text: str(part.text), links: links(part.links) }
  switch (part.type) {
    case 'text':
    case 'code':
    case 'list_bullet':
    case 'list_number':
      return base
    case 'list_checkbox':
      return { ...base, checked: part.checked === true }
    case 'table': {
      const t = part.table ?? { rows: [] }
      return {
        ...base,
        type: 'table',
        table: {
          name: str(t.name),
          columnLabels: (t.columnLabels ?? []).map(str),
          rows: (t.rows ?? []).map((row) =>
            (row.cells ?? []).map((cell) => (cell.link ? `${str(cell.text)} <${mention(cell.link)}>` : str(cell.text))),
          ),
        },
      }
    }
    case 'external_file': {
      const id = str(part.externalFileId)
      return { ...base, type: 'external_file', attachment: `${id}:${digestFor(id, digests)}` }
    }
    case 'app_canvas':
      // The canvas is this service's own surface; only which canvas sits where is content.
      return { type: 'app_canvas', indentation, canvas: `${str(part.appId)}/${str(part.featureId)}/${str(part.canvasId)}` }
    default: {
      const { type: _t, indentation: _i, text: _x, links: _l, ...rest } = part
      return { ...base, other: stripVolatile(rest) }
    }
  }
}

/** The canonical content of an entry: what the payload hash covers and what content_json keeps. */
export function canonicalEntryContent(entry: NotebookEntry, options: HashOptions = {}): CanonicalEntryContent {
  return {
    v: 1,
    name: str(entry.name),
    days: (entry.days ?? []).map((day) => ({
      date: str(day.date),
      notes: (day.notes ?? []).map((p) => canonicalPart(p, options.attachmentSha256)),
    })),
  }
}

/** RFC 8785 serialisation of the canonical content. */
export function canonicalEntryJson(entry: NotebookEntry, options: HashOptions = {}): string {
  const json = canonicalize(canonicalEntryContent(entry, options))
  if (json === undefined) throw new Error('entry content has no JSON representation')
  return json
}

/** payload_hash: sha256 hex of the canonical JSON of the entry content. */
export function entryPayloadHash(entry: NotebookEntry, options: HashOptions = {}): string {
  return createHash('sha256').update(canonicalEntryJson(entry, options), 'utf8').digest('hex')
}

function assertHash(hash: string): void {
  if (!SHA256_HEX.test(hash)) throw new TypeError('payload hash must be 64 lower-case hex characters')
}

/** external_version: `<payload_hash>@<modifiedAt>` (modifiedAt exactly as the vendor sent it). */
export function externalVersion(hash: string, modifiedAt: string): string {
  assertHash(hash)
  if (!modifiedAt) throw new TypeError('modifiedAt is required')
  return `${hash}@${modifiedAt}`
}

/** target_ref: `eln_provider:entry:<id>@<first 12 hex of the payload hash>`. */
export function targetRef(entryId: string, hash: string): string {
  assertHash(hash)
  if (!entryId || /[@\s]/.test(entryId)) throw new TypeError('entry id must be non-empty without "@" or spaces')
  return `${PROVIDER_ID}:entry:${entryId}@${hash.slice(0, TARGET_REF_HASH_PREFIX)}`
}

const TARGET_REF = /^eln_provider:entry:([^@\s]+)@([0-9a-f]{12})$/

export function parseTargetRef(ref: string): { entryId: string; hashPrefix: string } | null {
  const m = TARGET_REF.exec(ref)
  return m ? { entryId: m[1], hashPrefix: m[2] } : null
}

// ---------------------------------------------------------------------------------------------------------------
// Flattening into the customer_internal document.

export interface FlattenedEntry {
  /** Plain text: title, then each day as a heading followed by its notes in order. */
  text: string
  /** The days structure, as canonicalEntryContent (days → notes, cells row-major, mentions as type:id). */
  content_json: CanonicalEntryContent
}

function partLines(part: CanonicalPart, listNumber: number): string[] {
  const pad = '  '.repeat(Math.max(0, part.indentation))
  const mentions = 'links' in part && part.links.length ? ` [${part.links.join(', ')}]` : ''
  switch (part.type) {
    case 'list_bullet':
      return [`${pad}- ${(part as { text: string }).text}${mentions}`]
    case 'list_number':
      return [`${pad}${listNumber}. ${(part as { text: string }).text}${mentions}`]
    case 'list_checkbox':
      return [`${pad}[${(part as { checked?: boolean }).checked ? 'x' : ' '}] ${(part as { text: string }).text}${mentions}`]
    case 'table': {
      const p = part as Extract<CanonicalPart, { type: 'table' }>
      const lines: string[] = []
      const caption = [p.table.name, p.text].filter(Boolean).join(': ')
      if (caption || mentions) lines.push(`${pad}${caption}${mentions}`)
      if (p.table.columnLabels.length) lines.push(`${pad}${p.table.columnLabels.join(' | ')}`)
      for (const row of p.table.rows) lines.push(`${pad}${row.join(' | ')}`)
      return lines
    }
    case 'external_file': {
      const p = part as Extract<CanonicalPart, { type: 'external_file' }>
      const id = p.attachment.slice(0, p.attachment.lastIndexOf(':'))
      return [`${pad}[attachment ${id}]${p.text ? ` ${p.text}` : ''}${mentions}`]
    }
    case 'app_canvas':
      return []
    default: {
      const text = (part as { text?: string }).text ?? ''
      return text || mentions ? text.split('\n').map((l, i) => `${pad}${l}${i === 0 ? mentions : ''}`) : []
    }
  }
}

/** Flattens an entry into document text plus content_json (days kept); see the header for what is included. */
export function flattenEntry(entry: NotebookEntry, options: HashOptions = {}): FlattenedEntry {
  const content = canonicalEntryContent(entry, options)
  const lines: string[] = [content.name]
  for (const day of content.days) {
    lines.push('', `## ${day.date}`)
    let n = 0
    for (const part of day.notes) {
      n = part.type === 'list_number' ? n + 1 : 0
      lines.push(...partLines(part, n))
    }
  }
  return { text: lines.join('\n').trim() + '\n', content_json: content }
}
