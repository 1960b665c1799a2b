// zod helpers: input schemas per skill, and the mapping of zod issues to SkillInputError.
import { z } from 'zod'
import { fieldPath, SkillInputError } from './errors'

/** {value, unit}: the unit is a UCUM code; it is checked and converted by vocabulary.ts. */
export const quantitySchema = z.strictObject({
  value: z.number().describe('numeric value'),
  unit: z.string().describe('UCUM unit code, case-sensitive (e.g. mg/kg, h.ng/mL, nmol/L)'),
})
export type QuantityIn = z.input<typeof quantitySchema>

/** A citation: an opaque reference the caller resolves (artifact id, document locator, DOI, ...). */
export const citationSchema = z.string().trim().min(1).max(500).describe('citation reference (document or record locator, DOI, PMID, ...)')

export const requestCitationsSchema = z.array(citationSchema).max(200)

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur: unknown = root
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<PropertyKey, unknown>)[p as never]
  }
  return cur
}

/** Parse inputs; the first zod issue becomes a SkillInputError with its field path. */
export function parseInputs<S extends z.ZodType>(schema: S, inputs: unknown, prefix: ReadonlyArray<string | number> = []): z.output<S> {
  const r = schema.safeParse(inputs)
  if (r.success) return r.data
  const issue = r.error.issues[0]
  const path = [...prefix, ...(issue.path as Array<string | number>)]
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys
    const f = fieldPath([...path, keys[0]])
    throw new SkillInputError('invalid_input', f, `${f} is not a known input field`)
  }
  const f = fieldPath(path) || 'inputs'
  const last = path[path.length - 1]
  if (last === 'unit' || (typeof last === 'string' && last.endsWith('_unit'))) {
    const v = valueAt(inputs, issue.path as Array<string | number>)
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
      throw new SkillInputError('unit_required', f, `${f} is required: give a UCUM unit code`)
    }
  }
  throw new SkillInputError('invalid_input', f, `${f}: ${issue.message}`)
}

/** JSON Schema (draft 2020-12) of what a caller sends: defaulted fields are optional. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
}
