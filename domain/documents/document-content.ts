// Owns the shape of a mirrored document's content_json: days of parts (text, tables, files, canvases). A provider
// flattens its entries into it (the notebook: notebook/canonical.ts); generic code (document-reads.ts) reads it.

export type CanonicalPart =
  | { type: 'table'; indentation: number; text: string; links: string[]; table: CanonicalTable }
  | { type: 'external_file'; indentation: number; text: string; links: string[]; attachment: string }
  | { type: 'app_canvas'; indentation: number; canvas: string }
  | { type: string; indentation: number; text: string; links: string[]; checked?: boolean; other?: unknown }

export interface CanonicalTable {
  name: string
  columnLabels: string[]
  /** Row-major: rows in order, each the cells in order. A cell is its text, plus " <type:id>" when it links. */
  rows: string[][]
}

export interface CanonicalEntryContent {
  v: 1
  name: string
  days: Array<{ date: string; notes: CanonicalPart[] }>
}
