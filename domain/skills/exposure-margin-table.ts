// tox.exposure_margin_table (class A): exposure margins at the NOAEL, per species and endpoint, as
// fold = animal exposure at the NOAEL / projected human exposure. Arithmetic only.
//
// Units: every AUC and Cmax passes UCUM. AUCs must be time x concentration (h.ng/mL, ng.h/mL,
// h.ug/mL, min.ng/mL, h.nmol/L, ...), Cmax a concentration; an AUC given in a concentration unit
// (or the reverse) is unit_mismatch. Values are converted to the canonical unit of the human
// projection's family (mass: h.ng/mL and ng/mL; molar: h.nmol/L and nmol/L); mixing mass and molar
// units needs molecular_weight (g/mol), otherwise unit_mismatch.
// AUC intervals (issue 30): every AUC carries its interval ('0-24 h', '0-inf', '0-tlast', 'tau'),
// parsed and normalised to hours; a margin whose animal and human intervals differ, or whose
// interval is not given, is computed and warned about (AUCtau at steady state against a single-dose
// AUCinf is a legitimate comparison under linear PK, so this warns rather than refuses).
// Display rounding: margins to 3 significant figures; values keep full precision.

import { z } from 'zod'
import { SkillInputError } from './errors'
import { citationSchema, quantitySchema } from './schema'
import type { SkillModule } from './skill'
import { col, countValue, iv, numberValue, textValue, type IntermediateValue, type SkillCitation, type SkillTable, type SkillValue } from './result'
import {
  CANONICAL_UNIT,
  convertUcum,
  MATRIX_KEYS,
  normaliseLabel,
  readQuantity,
  resolveSpecies,
  type QuantityKind,
  type ReadQuantity,
} from './vocabulary'

const DISPLAY_MARGIN = { sig: 3 } as const
const AUC_INTERVAL_DESCRIPTION = "AUC interval: '0-24 h' (start-end and a UCUM time unit), '0-inf', '0-tlast' or 'tau' (dosing interval at steady state)"

/** An AUC interval, normalised: finite bounds in hours, or an open end. */
export type AucInterval = { kind: 'finite'; start_h: number; end_h: number; label: string } | { kind: 'inf' | 'tlast' | 'tau'; label: string }

const OPEN_ENDS: Record<string, 'inf' | 'tlast' | 'tau'> = { inf: 'inf', infinity: 'inf', '\u221e': 'inf', tlast: 'tlast', last: 'tlast', t: 'tlast', tau: 'tau' }

/** Parse an AUC interval ('0-24 h', '0-24h', '0-1 d', '0-inf', '0-tlast', 'tau'). */
export function parseAucInterval(text: string, field: string): AucInterval {
  const t = text.trim().replace(/\u2013|\u2212/g, '-')
  const bare = t.toLowerCase()
  if (bare === 'tau' || bare === 'inf' || bare === 'infinity' || bare === 'tlast') return { kind: OPEN_ENDS[bare], label: OPEN_ENDS[bare] === 'inf' ? '0-inf' : OPEN_ENDS[bare] === 'tlast' ? '0-tlast' : 'tau' }
  const m = /^(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?|[a-z\u221e]+)\s*([A-Za-z][A-Za-z0-9.]*)?$/i.exec(t)
  if (!m) throw new SkillInputError('invalid_input', field, `AUC interval '${text}' not understood: write e.g. '0-24 h', '0-inf', '0-tlast' or 'tau'`)
  const [, a, b, unit] = m
  const open = OPEN_ENDS[b.toLowerCase()]
  if (open) {
    if (Number(a) !== 0) throw new SkillInputError('invalid_input', field, `AUC interval '${text}': an open interval starts at 0`)
    return { kind: open, label: open === 'inf' ? '0-inf' : open === 'tlast' ? '0-tlast' : 'tau' }
  }
  if (!/^\d/.test(b)) throw new SkillInputError('invalid_input', field, `AUC interval '${text}' not understood: write e.g. '0-24 h', '0-inf', '0-tlast' or 'tau'`)
  if (!unit) throw new SkillInputError('unit_required', field, `AUC interval '${text}' needs a time unit, e.g. '0-24 h'`)
  const q = readQuantity({ value: 1, unit }, field, 'time')
  const start = Number(a) * q.value
  const end = Number(b) * q.value
  if (!(end > start)) throw new SkillInputError('invalid_input', field, `AUC interval '${text}': the end must be after the start`)
  return { kind: 'finite', start_h: start, end_h: end, label: `${a}-${b} ${unit}` }
}

function sameInterval(a: AucInterval, b: AucInterval): boolean {
  if (a.kind !== 'finite' || b.kind !== 'finite') return a.kind === b.kind
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y))
  return close(a.start_h, b.start_h) && close(a.end_h, b.end_h)
}
const matrixEnum = z.enum(MATRIX_KEYS as [string, ...string[]])

const input = z.strictObject({
  noael_exposure: z
    .array(
      z.strictObject({
        species: z.string().min(1),
        label: z.string().min(1).max(60).optional().describe('row label, unique; defaults to the species key'),
        auc: quantitySchema.optional().describe('AUC at the NOAEL, e.g. h.ng/mL'),
        cmax: quantitySchema.optional().describe('Cmax at the NOAEL, e.g. ng/mL'),
        auc_interval: z.string().max(40).optional().describe(AUC_INTERVAL_DESCRIPTION),
        noael_dose: quantitySchema.optional().describe('for display only'),
        sex: z.enum(['male', 'female', 'combined']).optional(),
        analyte: z.string().max(100).optional(),
        matrix: matrixEnum.default('plasma'),
        citation: citationSchema,
      }),
    )
    .min(1)
    .max(40),
  human_projection: z.strictObject({
    auc: quantitySchema.optional(),
    cmax: quantitySchema.optional(),
    auc_interval: z.string().max(40).optional().describe(AUC_INTERVAL_DESCRIPTION),
    dose: quantitySchema.optional().describe('projected clinical dose, for display only'),
    analyte: z.string().max(100).optional(),
    matrix: matrixEnum.default('plasma'),
    citation: citationSchema,
  }),
  molecular_weight: quantitySchema.optional().describe('g/mol; needed only when mass and molar units are mixed'),
})
export type ExposureMarginInput = z.output<typeof input>

type Endpoint = 'auc' | 'cmax'
const KINDS: Record<Endpoint, { mass: QuantityKind; molar: QuantityKind; label: string }> = {
  auc: { mass: 'auc_mass', molar: 'auc_molar', label: 'AUC' },
  cmax: { mass: 'mass_concentration', molar: 'molar_concentration', label: 'Cmax' },
}

function readEndpoint(q: { value: number; unit: string }, field: string, ep: Endpoint): ReadQuantity {
  const k = KINDS[ep]
  try {
    return readQuantity(q, field, [k.mass, k.molar])
  } catch (e) {
    if (e instanceof SkillInputError && e.code === 'unit_mismatch') {
      const other = ep === 'auc' ? KINDS.cmax : KINDS.auc
      const isOther = convertUcum(1, q.unit, CANONICAL_UNIT[other.mass]).ok || convertUcum(1, q.unit, CANONICAL_UNIT[other.molar]).ok
      if (isOther)
        throw new SkillInputError(
          'unit_mismatch',
          `${field}.unit`,
          ep === 'auc'
            ? `'${q.unit}' is a concentration unit; an AUC needs time x concentration, e.g. h.ng/mL`
            : `'${q.unit}' is an AUC unit; Cmax needs a concentration unit, e.g. ng/mL`,
        )
    }
    throw e
  }
}

function compute(inp: ExposureMarginInput) {
  const ivs: IntermediateValue[] = []
  const warnings: string[] = []
  const citations: SkillCitation[] = []

  const mw = inp.molecular_weight ? readQuantity(inp.molecular_weight, 'molecular_weight', 'molar_mass') : null
  if (mw) ivs.push(iv('molecular_weight', mw.value, 'g/mol', 'input'))

  const h = inp.human_projection
  if (!h.auc && !h.cmax) throw new SkillInputError('invalid_input', 'human_projection', 'give the projected human AUC, Cmax or both')
  const human: Partial<Record<Endpoint, ReadQuantity>> = {}
  for (const ep of ['auc', 'cmax'] as const) {
    const q = h[ep]
    if (!q) continue
    human[ep] = readEndpoint(q, `human_projection.${ep}`, ep)
    ivs.push(iv(`human.${ep}`, human[ep]!.value, human[ep]!.unit, `${q.value} ${q.unit} as given`))
  }
  const humanInterval = h.auc_interval !== undefined ? parseAucInterval(h.auc_interval, 'human_projection.auc_interval') : null
  if (h.auc && !humanInterval) warnings.push('Human projection: AUC interval not given; the AUC margins cannot be checked for matching intervals (give auc_interval, e.g. 0-24 h or 0-inf).')
  if (humanInterval) ivs.push(iv('human.auc_interval', humanInterval.label, undefined, `'${h.auc_interval}' as given`))
  citations.push({ ref: h.citation, field: 'human_projection.citation' })

  /** Convert an animal value to the human value's unit (molar <-> mass via molecular weight). */
  function toHumanUnit(a: ReadQuantity, ep: Endpoint, field: string): number {
    const target = human[ep]!
    if (a.unit === target.unit) return a.value
    if (!mw)
      throw new SkillInputError(
        'unit_mismatch',
        `${field}.unit`,
        `'${a.input_unit}' is ${a.kind.endsWith('molar') || a.kind === 'molar_concentration' ? 'molar' : 'mass'}-based but the human ${KINDS[ep].label} ('${target.input_unit}') is not; give molecular_weight (g/mol) or use the same kind of unit`,
      )
    const c = convertUcum(a.value, a.unit, target.unit, mw.value)
    if (!c.ok) throw new SkillInputError('unit_mismatch', `${field}.unit`, `cannot convert '${a.input_unit}' to '${target.unit}': ${c.message}`)
    return c.value
  }

  const outputs: Record<string, SkillValue> = {}
  const tableRows: SkillTable['rows'] = []
  const seen = new Map<string, number>()
  const lowest: Partial<Record<Endpoint, { label: string; margin: number }>> = {}

  inp.noael_exposure.forEach((r, i) => {
    const f = `noael_exposure[${i}]`
    const species = resolveSpecies(r.species, `${f}.species`)
    const label = r.label ?? species.species
    const key = normaliseLabel(label)
    if (!/^[a-z0-9_]+$/.test(key)) throw new SkillInputError('invalid_input', `${f}.label`, `label '${label}' may use letters, digits, blanks, '-' and '_' only`)
    if (seen.has(key)) throw new SkillInputError('invalid_input', r.label ? `${f}.label` : `${f}.species`, `two rows are labelled '${key}' (rows ${seen.get(key)} and ${i}): give each row a distinct label`)
    seen.set(key, i)
    if (!r.auc && !r.cmax) throw new SkillInputError('invalid_input', f, `${f}: give the AUC, the Cmax or both at the NOAEL`)
    citations.push({ ref: r.citation, field: `${f}.citation` })
    if (r.matrix !== h.matrix) warnings.push(`${label}: matrix ${r.matrix} differs from the human projection's matrix ${h.matrix}; the margin compares different matrices.`)
    if (r.analyte && h.analyte && r.analyte.trim().toLowerCase() !== h.analyte.trim().toLowerCase())
      warnings.push(`${label}: analyte '${r.analyte}' differs from the human projection's analyte '${h.analyte}'.`)

    const interval = r.auc_interval !== undefined ? parseAucInterval(r.auc_interval, `${f}.auc_interval`) : null
    if (r.auc && h.auc) {
      if (!interval) warnings.push(`${label}: AUC interval not given; the AUC margin cannot be checked against the human projection's ${humanInterval ? humanInterval.label : 'interval'}.`)
      else if (humanInterval && !sameInterval(interval, humanInterval))
        warnings.push(`${label}: AUC interval ${interval.label} differs from the human projection's ${humanInterval.label}; the AUC margin compares different intervals.`)
    }
    if (interval) ivs.push(iv(`${key}.auc_interval`, interval.label, undefined, `'${r.auc_interval}' as given`))
    const row: Record<string, SkillValue & { citation?: string }> = {
      label: { value: label },
      species: { value: species.label },
      noael_dose: { value: r.noael_dose ? `${r.noael_dose.value} ${r.noael_dose.unit}` : null },
      auc_interval: { value: interval ? interval.label : null, display: interval ? interval.label : 'not given' },
    }
    for (const ep of ['auc', 'cmax'] as const) {
      const q = r[ep]
      if (!q) {
        row[ep] = { value: null, display: 'not given' }
        row[`margin_${ep}`] = { value: null, display: 'not computed' }
        continue
      }
      const a = readEndpoint(q, `${f}.${ep}`, ep)
      if (!human[ep]) throw new SkillInputError('invalid_input', `human_projection.${ep}`, `${f}.${ep} is given: give the projected human ${KINDS[ep].label} to compare with`)
      const v = toHumanUnit(a, ep, `${f}.${ep}`)
      const margin = v / human[ep]!.value
      ivs.push(iv(`${key}.${ep}`, v, human[ep]!.unit, `${q.value} ${q.unit} as given${a.unit !== human[ep]!.unit ? `, converted with molecular weight` : ''}`))
      ivs.push(iv(`${key}.margin_${ep}`, margin, '1', `${KINDS[ep].label} ${key} / human ${KINDS[ep].label}`))
      outputs[`margin.${key}.${ep}`] = numberValue(margin, '1', DISPLAY_MARGIN)
      row[ep] = { ...numberValue(v, human[ep]!.unit, { sig: 3 }), citation: r.citation }
      row[`margin_${ep}`] = numberValue(margin, '1', DISPLAY_MARGIN)
      const lo = lowest[ep]
      if (!lo || margin < lo.margin) lowest[ep] = { label, margin }
    }
    tableRows.push(row)
  })

  for (const ep of ['auc', 'cmax'] as const) {
    const lo = lowest[ep]
    outputs[`lowest_margin.${ep}`] = lo ? numberValue(lo.margin, '1', DISPLAY_MARGIN) : numberValue(null, '1', DISPLAY_MARGIN)
    outputs[`lowest_margin.${ep}.species`] = textValue(lo ? lo.label : null)
  }
  outputs.row_count = countValue(tableRows.length)
  for (const ep of ['auc', 'cmax'] as const) if (human[ep]) outputs[`human.${ep}`] = numberValue(human[ep]!.value, human[ep]!.unit, { sig: 3 })
  if (human.auc) outputs['human.auc_interval'] = textValue(humanInterval ? humanInterval.label : null)

  const aucUnit = human.auc?.unit
  const cmaxUnit = human.cmax?.unit
  const table: SkillTable = {
    title: 'Exposure margins at the NOAEL (fold over projected human exposure)',
    columns: [
      col('label', 'Row'),
      col('species', 'Species'),
      col('noael_dose', 'NOAEL dose'),
      col('auc', 'AUC at NOAEL', aucUnit),
      col('auc_interval', 'AUC interval'),
      col('margin_auc', 'AUC margin', '1'),
      col('cmax', 'Cmax at NOAEL', cmaxUnit),
      col('margin_cmax', 'Cmax margin', '1'),
    ],
    rows: tableRows,
  }

  return {
    outputs,
    citations,
    warnings,
    tables: { margins: table },
    how_computed: {
      intermediate_values: ivs,
      rules_applied: [
        'Units: every AUC and Cmax is checked and converted by UCUM (ucum-lhc) to the canonical unit of the human projection (mass: h.ng/mL and ng/mL; molar: h.nmol/L and nmol/L).',
        'An AUC must be time x concentration and a Cmax a concentration; otherwise unit_mismatch.',
        'Mass and molar units are mixed only with molecular_weight (g/mol), through UCUM.',
        'Margin (fold) = animal exposure at the NOAEL / projected human exposure, per species and endpoint; arithmetic only, no unbound-fraction or other correction.',
        'Lowest margin per endpoint: the smallest fold across rows; on ties, the first row.',
        "AUC intervals: each AUC carries its interval ('0-24 h', '0-inf', '0-tlast', 'tau'), finite bounds compared in hours; when an animal interval differs from the human one, or either is not given, the margin is computed and a warning says so (AUCtau at steady state against a single-dose AUCinf is a legitimate comparison under linear PK).",
        'Display rounding: margins and exposures to 3 significant figures; values keep full double precision.',
      ],
    },
  }
}

export const exposureMarginTable: SkillModule<typeof input> = {
  key: 'tox.exposure_margin_table',
  name: 'Exposure margin table',
  product: 'evidence',
  run_role: 'evidence',
  workbench_role: 'dmpk_tox_scientist',
  skill_class: 'A',
  check_logic_version: 2,
  release: 'R4',
  input,
  output_fields: ['margin.<label>.auc', 'margin.<label>.cmax', 'lowest_margin.auc', 'lowest_margin.auc.species', 'lowest_margin.cmax', 'lowest_margin.cmax.species', 'human.auc', 'human.auc_interval', 'human.cmax', 'row_count'],
  required_citations: ['noael_exposure[*].citation', 'human_projection.citation'],
  reference_keys: ['ich_m3r2'],
  primary_reference: 'ich_m3r2',
  method_name: 'Exposure margins at the NOAEL (fold)',
  compute,
}
