// Owns the table form of a skill's inputs (issue 29, item 9; skills table: tox.pk_parameter_extraction takes "table
// rows read through documents.read_table_rows, or typed rows"). Instead of `rows`, a caller (a person through
// runSkill, a twin through the tool) passes `table: { citation, time_column, conc_column, blq_markers? }` with the
// citation documents.read_table_rows answered; the service reads that table of that entry version again through the
// same read (connectors domain/document-reads.ts), turns its cells into rows, and runs the skill with the table's
// citation carried through as `citation`, so the result cites the entry version and table it was computed from. The
// recorded inputs (and inputs_hash) are the rows and the citation: the same table always hashes the same.
import { z } from 'zod'
import type { DomainContext } from '../../core/jobs'
import { InvalidInput } from '../../core/errors'
import { can } from '../../core/identity'
import { readDocumentTable } from '../documents'

/** The skills that take a table read through documents.read_table_rows. */
export const TABLE_INPUT_SKILLS: ReadonlySet<string> = new Set(['tox.pk_parameter_extraction'])
/** Cells read as below the limit of quantification (case-insensitive), besides any cell starting with '<' ('<0.5'). */
export const DEFAULT_BLQ_MARKERS = ['BLQ', 'BQL', 'LLOQ', '<LLOQ', 'NQ', 'ND'] as const

const Column = z.union([z.string().trim().min(1).max(200), z.number().int().min(0).max(999)])
export const TableInput = z.strictObject({
  citation: z.string().trim().min(1).max(400).describe('the citation documents.read_table_rows answered: document:<id>@v<version>#table=<n>'),
  time_column: Column.describe('the time column: its label or its index from 0'),
  conc_column: Column.describe('the concentration column: its label or its index from 0'),
  blq_markers: z.array(z.string().trim().min(1).max(40)).max(20).optional().describe(`cells read as BLQ (default ${DEFAULT_BLQ_MARKERS.join(', ')}, and any cell starting with '<')`),
})

/** The JSON Schema of a table-input skill's `inputs` in tools/list: typed rows, or the table form. */
export function tableInputJsonSchema(rowsForm: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, ...table } = z.toJSONSchema(z.strictObject({ table: TableInput }).catchall(z.unknown()), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return { anyOf: [rowsForm, { ...table, description: 'The other inputs as in the typed form, with table instead of rows.', required: ['table'] }] }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

function columnIndex(columns: string[], want: string | number, field: string): number {
  if (typeof want === 'number') {
    if (want < columns.length || columns.length === 0) return want
    throw InvalidInput.of(field, `The table has ${columns.length} columns, numbered from 0.`)
  }
  const i = columns.findIndex((c) => c.trim().toLowerCase() === want.toLowerCase())
  if (i < 0) throw InvalidInput.of(field, `No column is labelled '${want}'; the columns are ${columns.map((c) => `'${c}'`).join(', ') || 'unlabelled (give an index)'}.`)
  return i
}

/**
 * A table-input skill's inputs with `table` resolved into `rows` and `citation`; any other input is returned as it
 * is. Refusals are invalid_input on the field under `inputs.table`.
 */
export async function tableRowsAsInput<I extends { programId: string; skillKey: string; inputs: unknown }>(ctx: DomainContext, input: I): Promise<I> {
  const inputs = input.inputs
  if (!TABLE_INPUT_SKILLS.has(input.skillKey) || !inputs || typeof inputs !== 'object' || Array.isArray(inputs) || !('table' in inputs)) return input
  const { table, ...rest } = inputs as Record<string, unknown>
  if ('rows' in rest) throw InvalidInput.of('inputs.table', 'Give rows or table, not both.')
  const parsed = TableInput.safeParse(table)
  if (!parsed.success) {
    throw new InvalidInput(parsed.error.issues.slice(0, 5).map((i) => ({ field: ['inputs', 'table', ...i.path].join('.'), message: i.message })))
  }
  const ref = parsed.data
  const scope = { organizationId: ctx.session.organizationId, programId: input.programId }
  // The table is read as documents.read_table_rows reads it, under the same key.
  if (!can(ctx.session, 'program.documents.read', scope.programId)) throw InvalidInput.of('inputs.table.citation', 'No document of this program has that id.')
  const read = await readDocumentTable(ctx.tdb, scope, ref.citation, null, 'inputs.table.citation')
  if (read.citation !== ref.citation) {
    throw InvalidInput.of('inputs.table.citation', `Pass the citation documents.read_table_rows answered for the table (${read.citation}).`)
  }
  if (rest.citation !== undefined && rest.citation !== read.citation) {
    throw InvalidInput.of('inputs.citation', "The table's citation is carried through as the citation; leave inputs.citation out.")
  }
  const { columns, rows } = read.table
  const t = columnIndex(columns, ref.time_column, 'inputs.table.time_column')
  const c = columnIndex(columns, ref.conc_column, 'inputs.table.conc_column')
  const markers = new Set((ref.blq_markers ?? DEFAULT_BLQ_MARKERS).map((m) => m.toLowerCase()))
  // A cell may end with a notebook mention (' <entry:etr_1>'): the value is what precedes it.
  const value = (cell: string | undefined) => (cell ?? '').replace(/\s*<[a-z_]+:[^>]*>\s*$/i, '').trim()
  const out = rows.map((row, i) => {
    const time = value(row[t])
    if (!NUMBER.test(time)) throw InvalidInput.of('inputs.table.time_column', `Row ${i + 1}: the time '${time.slice(0, 40)}' is not a number.`)
    const conc = value(row[c])
    if (markers.has(conc.toLowerCase()) || conc.startsWith('<')) return { time: Number(time), conc: null, blq: true }
    if (!NUMBER.test(conc)) throw InvalidInput.of('inputs.table.conc_column', `Row ${i + 1}: the concentration '${conc.slice(0, 40)}' is not a number or a BLQ marker.`)
    return { time: Number(time), conc: Number(conc) }
  })
  return { ...input, inputs: { ...rest, rows: out, citation: read.citation } }
}
