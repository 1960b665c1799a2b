// Owns what an agent may read of the mirrored content (issue 29, item 9): notebook entries (documents, with their
// tables from content_json and their attachments' metadata) and SOP versions, each with its source and version, every
// text through the shared outside-text sanitiser (documentTextForAgent) before it leaves. documents.list_assets and
// documents.read_table_rows (twins tools/documents.ts) and the NCA skill's table input read through here, so what a
// skill computes from is exactly what the tool showed. Every query names the organisation and the program.
import type { TenantTx } from '../../core/database'
import { InvalidInput } from '../../core/errors'
import type { Finding } from '../../core/text'
import { documentRef, parseProgramCitation, tableCitation } from '../citations'
import { documentTextForAgent } from './documents'

export interface Scope { organizationId: string; programId: string }

/**
 * What a table reader needs of a document's content_json (the mirrored entry content: days of notes, a table note
 * carrying its table). Read structurally and checked field by field: the generic layer imports no provider's types.
 */
interface TableContent {
  days?: Array<{ date?: unknown; notes?: Array<{ type?: unknown; table?: { name?: unknown; columnLabels?: unknown[]; rows?: unknown[] } }> }>
}

/** One table of an entry, in reading order across its days (the index is what citations name). */
export interface EntryTable { index: number; date: string; name: string; columns: string[]; rows: string[][] }

/** The tables of a notebook entry's content_json, numbered in reading order. */
export function entryTables(content: unknown): EntryTable[] {
  const days = (content as TableContent | null)?.days
  if (!Array.isArray(days)) return []
  const out: EntryTable[] = []
  for (const day of days) {
    for (const note of Array.isArray(day?.notes) ? day.notes : []) {
      if (note?.type !== 'table') continue
      const t = note.table
      if (!t) continue
      out.push({
        index: out.length, date: String(day.date ?? ''), name: String(t.name ?? ''),
        columns: Array.isArray(t.columnLabels) ? t.columnLabels.map(String) : [],
        rows: Array.isArray(t.rows) ? t.rows.map((r) => (Array.isArray(r) ? r.map(String) : [])) : [],
      })
    }
  }
  return out
}

/** Outside text as an agent reads it, its findings collected under `field`. */
export function agentText(text: string, field: string, findings: { field: string; finding: Finding }[]): string {
  const r = documentTextForAgent(text)
  for (const f of r.findings) findings.push({ field, finding: f })
  return r.text
}

/**
 * One table of a mirrored document, by a reference from documents.list_assets (`document:<id>` or
 * `document:<id>@v<n>`, a `#table=<n>` locator allowed) and a table index. A reference to a version the document has
 * moved on from is refused (the rows of older versions are not kept), so rows are never read from a version other
 * than the one cited. Refusals are invalid_input on `field`.
 */
export async function readDocumentTable(q: TenantTx, scope: Scope, ref: string, table: number | null, field = 'asset') {
  const c = parseProgramCitation(ref)
  if (!c || c.kind !== 'document') throw InvalidInput.of(field, 'Name a notebook entry as documents.list_assets gives it: document:<id>@v<version>.')
  const doc = await q.document.findFirst({
    where: { id: c.id, organizationId: scope.organizationId, programId: scope.programId },
    include: { source: { select: { sourceType: true, externalId: true, sourceSystem: true } } },
  })
  if (!doc) throw InvalidInput.of(field, 'No document of this program has that id.')
  if (c.version !== null && c.version !== doc.version) {
    throw InvalidInput.of(field, `The entry is at version ${doc.version} now, not ${c.version}; list it again (documents.list_assets) and read that version.`)
  }
  const located = /^table=(\d{1,4})$/.exec(c.locator ?? '')
  const index = table ?? (located ? Number(located[1]) : 0)
  const tables = entryTables(doc.contentJson)
  const t = tables[index]
  if (!t) throw InvalidInput.of(field === 'asset' ? 'table' : field, tables.length ? `The entry has ${tables.length} table(s), numbered from 0.` : 'The entry has no table.')
  return {
    document: doc, table: t,
    asset: documentRef(doc.id, doc.version),
    citation: tableCitation(doc.id, doc.version, index),
    source: sourceOf(doc),
  }
}

export const sourceOf = (doc: { sourceSystem: string; targetRef: string | null; externalVersion: string | null; source: { sourceType: string; externalId: string } }) => ({
  system: doc.sourceSystem, type: doc.source.sourceType, externalId: doc.source.externalId, targetRef: doc.targetRef, externalVersion: doc.externalVersion,
})
