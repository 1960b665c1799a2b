// tox.fih_dose_projection (class A): human equivalent dose per species by body-surface-area scaling
// and the maximum recommended starting dose, following FDA (2005) steps 1-4.
//
// Method (stated in every result):
// - HED = NOAEL (mg/kg) x (animal km / human km), with the km factors of FDA 2005 Table 1 and human
//   km 37. This is the exact km ratio; the guidance's 'divide by' column is the same ratio rounded
//   (37/6 = 6.17 -> 6.2 for the rat) and is listed beside it, never used. Rat 50 mg/kg:
//   50 x 6/37 = 8.108 mg/kg (the table divisor gives 8.06); both read 8.1 at 2 significant figures.
// - The body-weight form HED = dose x (Wa/Wh)^0.33 is not used; when an overridden animal body
//   weight falls outside the Table 1 working range (the case for which the guidance gives that form)
//   the value is listed as an intermediate with a warning.
// - mg/m2 doses convert to mg/kg by dividing by the species km (shown); their HED is mg/m2 / 37,
//   computed directly, so equal mg/m2 NOAELs give the same HED in every species.
// - MRSD = HED of the most sensitive species (lowest HED; ties, within a relative 1e-9: first row) / safety factor (10 by
//   default). Choosing another species needs selected_species.rationale; lowering the safety factor
//   below 10 needs safety_factor_rationale.
// - Display rounding: HED and MRSD to 2 significant figures; values keep full precision.

import { z } from 'zod'
import { SkillInputError } from './errors'
import { FDA_2005_KM_TABLE } from './references'
import { citationSchema, quantitySchema } from './schema'
import type { SkillModule } from './skill'
import {
  col,
  iv,
  numberValue,
  textValue,
  countValue,
  type IntermediateValue,
  type SkillCitation,
  type SkillTable,
  type SkillValue,
} from './result'
import {
  DOSE_FORM_KEYS,
  HUMAN_DEFAULT_BODY_WEIGHT_KG,
  HUMAN_KM,
  normaliseLabel,
  readDose,
  readQuantity,
  resolveRoute,
  resolveSpecies,
  ROUTE_INPUT_DESCRIPTION,
  type Species,
} from './vocabulary'

export const FIH_HEADER = 'Projection for your decision, not a starting dose'
export const FIH_FIXED_WARNINGS = ['PAD/MABEL not computed', 'exposure-based projection not computed'] as const
const DISPLAY = { sig: 2 } as const
/** Relative difference under which two HEDs are equal for the most-sensitive-species rule. */
export const HED_TIE_TOLERANCE = 1e-9

function sameWithin(a: number, b: number, rel: number): boolean {
  return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b))
}

const input = z.strictObject({
  noael: z
    .array(
      z.strictObject({
        species: z.string().min(1).describe('species key from FDA 2005 Table 1 (rat, dog, monkey, ...)'),
        label: z.string().min(1).max(60).optional().describe('row label, unique; defaults to the species key'),
        dose: quantitySchema.describe('NOAEL: mg/kg, ug/kg, g/kg, mg/m2 (optionally per day: mg/kg/d)'),
        body_weight: quantitySchema.optional().describe('animal body weight; default Table 1 reference weight'),
        route: z.string().min(1).max(40).optional().describe(ROUTE_INPUT_DESCRIPTION),
        study: z.string().max(200).optional().describe('study identifier, free text'),
        citation: citationSchema,
      }),
    )
    .min(1)
    .max(20),
  route: z.string().min(1).max(40).describe(`intended clinical route; ${ROUTE_INPUT_DESCRIPTION}`),
  dose_form: z.enum(DOSE_FORM_KEYS as [string, ...string[]]).optional(),
  human_body_weight: quantitySchema.optional().describe('default 60 kg'),
  safety_factor: z.number().min(1).max(1000).default(10),
  safety_factor_rationale: z.string().max(2000).optional(),
  selected_species: z
    .strictObject({
      label: z.string().min(1).describe('row label of the species chosen instead of the most sensitive one'),
      rationale: z.string().max(2000).optional().describe('required when the choice is not the most sensitive species'),
    })
    .optional(),
})
export type FihInput = z.output<typeof input>

interface Row {
  index: number
  key: string
  label: string
  species: Species
  noael_input: string
  noael_mg_per_kg: number
  km_ratio: number
  hed: number
  hed_table1_divisor: number | null
  body_weight_kg: number
  body_weight_source: 'input' | 'table1_reference'
  citation: string
  route: string | null
}

function compute(inp: FihInput) {
  const ivs: IntermediateValue[] = []
  const warnings: string[] = [...FIH_FIXED_WARNINGS]
  const citations: SkillCitation[] = []

  const clinicalRoute = resolveRoute(inp.route, 'route')
  const humanBw = inp.human_body_weight ? readQuantity(inp.human_body_weight, 'human_body_weight', 'body_weight') : null
  const humanWeightKg = humanBw ? humanBw.value : HUMAN_DEFAULT_BODY_WEIGHT_KG
  ivs.push(iv('human_km', HUMAN_KM, 'kg/m2', 'FDA 2005 Table 1, adult human 60 kg'))
  ivs.push(iv('human_body_weight', humanWeightKg, 'kg', humanBw ? 'input' : 'FDA 2005 reference adult body weight'))

  const rows: Row[] = []
  const seen = new Map<string, number>()
  let perDay: boolean | null = null
  inp.noael.forEach((n, i) => {
    const f = `noael[${i}]`
    const species = resolveSpecies(n.species, `${f}.species`)
    if (species.species === 'human') throw new SkillInputError('invalid_input', `${f}.species`, 'a NOAEL row must be an animal species, not human')
    const label = n.label ?? species.species
    const key = normaliseLabel(label)
    if (!/^[a-z0-9_]+$/.test(key)) throw new SkillInputError('invalid_input', `${f}.label`, `label '${label}' may use letters, digits, blanks, '-' and '_' only`)
    if (seen.has(key)) throw new SkillInputError('invalid_input', n.label ? `${f}.label` : `${f}.species`, `two NOAEL rows are labelled '${key}' (rows ${seen.get(key)} and ${i}): give each row a distinct label`)
    seen.set(key, i)

    const dose = readDose(n.dose, `${f}.dose`)
    if (perDay === null) perDay = dose.per_day
    else if (perDay !== dose.per_day)
      throw new SkillInputError('unit_mismatch', `${f}.dose.unit`, `'${dose.input_unit}': all NOAEL doses must be on the same basis (all per day, e.g. mg/kg/d, or all per administration, e.g. mg/kg)`)
    let mgPerKg = dose.value
    const doseUnit = dose.per_day ? 'mg/kg/d' : 'mg/kg'
    ivs.push(iv(`${key}.noael_input`, dose.input_value, dose.input_unit, 'as given'))
    // mg/m2: the HED is the dose per m2 over the human km (FDA 2005: mg/m2 is the species-independent
    // scale), computed directly; going through mg/kg and back (x km / km) left rat and dog one
    // rounding step apart for equal doses, so ties were decided by floating-point noise.
    let hedPerM2: number | null = null
    if (dose.basis === 'per_m2') {
      mgPerKg = dose.value / species.km
      hedPerM2 = dose.value / HUMAN_KM
      ivs.push(iv(`${key}.noael_mg_per_m2`, dose.value, dose.unit, 'UCUM conversion to mg/m2'))
      ivs.push(iv(`${key}.noael`, mgPerKg, doseUnit, `mg/m2 / km (${species.km})`))
    } else {
      ivs.push(iv(`${key}.noael`, mgPerKg, doseUnit, dose.input_unit === dose.unit ? 'no conversion' : `UCUM conversion ${dose.input_unit} -> ${dose.unit}`))
    }

    let bwKg = species.reference_body_weight_kg
    let bwSource: Row['body_weight_source'] = 'table1_reference'
    if (n.body_weight) {
      bwKg = readQuantity(n.body_weight, `${f}.body_weight`, 'body_weight').value
      bwSource = 'input'
    }
    ivs.push(iv(`${key}.body_weight`, bwKg, 'kg', bwSource === 'input' ? 'input' : 'FDA 2005 Table 1 reference body weight'))
    const range = species.working_weight_range_kg
    if (bwSource === 'input' && range && (bwKg < range[0] || bwKg > range[1])) {
      const allometric = mgPerKg * Math.pow(bwKg / humanWeightKg, 0.33)
      ivs.push(iv(`${key}.hed_body_weight_form`, allometric, doseUnit, 'dose x (Wa/Wh)^0.33; listed for comparison, not used'))
      warnings.push(
        `${label}: body weight ${bwKg} kg is outside the FDA 2005 Table 1 working range (${range[0]} to ${range[1]} kg); the guidance gives HED = dose x (Wa/Wh)^0.33 for that case (listed in the intermediate values); this projection keeps the km ratio.`,
      )
    }

    const kmRatio = species.km / HUMAN_KM
    const hed = hedPerM2 ?? mgPerKg * kmRatio
    ivs.push(iv(`${key}.km`, species.km, 'kg/m2', 'FDA 2005 Table 1'))
    ivs.push(iv(`${key}.km_ratio`, kmRatio, '1', `animal km ${species.km} / human km ${HUMAN_KM}`))
    ivs.push(iv(`${key}.hed`, hed, doseUnit, hedPerM2 === null ? 'NOAEL x km ratio' : `NOAEL (mg/m2) / human km ${HUMAN_KM}`))
    const hedTable1 = species.table1_divide_by ? mgPerKg / species.table1_divide_by : null
    if (hedTable1 !== null) ivs.push(iv(`${key}.hed_table1_divisor`, hedTable1, doseUnit, `NOAEL / ${species.table1_divide_by} (Table 1 rounded divisor); comparison only, not used`))

    const noaelRoute = n.route === undefined ? null : resolveRoute(n.route, `${f}.route`)
    if (noaelRoute && noaelRoute !== clinicalRoute)
      warnings.push(`${label}: NOAEL route '${noaelRoute}' differs from the clinical route '${clinicalRoute}'; body-surface-area scaling does not correct for route differences in exposure.`)

    citations.push({ ref: n.citation, field: `${f}.citation` })
    rows.push({
      index: i,
      key,
      label,
      species,
      noael_input: `${dose.input_value} ${dose.input_unit}`,
      noael_mg_per_kg: mgPerKg,
      km_ratio: kmRatio,
      hed,
      hed_table1_divisor: hedTable1,
      body_weight_kg: bwKg,
      body_weight_source: bwSource,
      citation: n.citation,
      route: noaelRoute,
    })
  })
  const doseUnit = perDay ? 'mg/kg/d' : 'mg/kg'
  const totalUnit = perDay ? 'mg/d' : 'mg'

  // Most sensitive species: lowest HED, first row on ties. Equal within a relative 1e-9 is a tie:
  // the doses are transcribed to a few significant figures, so a smaller difference is arithmetic.
  let mostSensitive = rows[0]
  for (const r of rows) if (r.hed < mostSensitive.hed && !sameWithin(r.hed, mostSensitive.hed, HED_TIE_TOLERANCE)) mostSensitive = r
  ivs.push(iv('most_sensitive_species', mostSensitive.label, undefined, `lowest HED; first row on ties (relative difference below ${HED_TIE_TOLERANCE})`))

  let selected = mostSensitive
  let selectionRationale: string | null = null
  if (inp.selected_species) {
    const k = normaliseLabel(inp.selected_species.label)
    const found = rows.find((r) => r.key === k)
    if (!found) throw new SkillInputError('invalid_input', 'selected_species.label', `no NOAEL row is labelled '${inp.selected_species.label}'; labels: ${rows.map((r) => r.key).join(', ')}`)
    if (found !== mostSensitive) {
      const rationale = inp.selected_species.rationale?.trim() ?? ''
      if (rationale === '')
        throw new SkillInputError(
          'invalid_input',
          'selected_species.rationale',
          `choosing '${found.label}' instead of the most sensitive species '${mostSensitive.label}' needs a rationale`,
        )
      selectionRationale = rationale
      warnings.push(`Species selected by the person: ${found.label} instead of the most sensitive species ${mostSensitive.label}. Rationale recorded.`)
    }
    selected = found
  }
  ivs.push(iv('selected_species', selected.label, undefined, selectionRationale ? `human choice: ${selectionRationale}` : 'default: most sensitive species'))

  const sf = inp.safety_factor
  const sfRationale = inp.safety_factor_rationale?.trim() ?? ''
  if (sf < 10 && sfRationale === '')
    throw new SkillInputError('invalid_input', 'safety_factor_rationale', `a safety factor below the default of 10 (${sf}) needs a rationale`)
  if (sf !== 10) warnings.push(`Safety factor ${sf} instead of the default 10${sfRationale ? '; rationale recorded' : ''}.`)
  ivs.push(iv('safety_factor', sf, '1', sf === 10 ? 'default' : `input${sfRationale ? `: ${sfRationale}` : ''}`))

  const mrsd = selected.hed / sf
  const mrsdTotal = mrsd * humanWeightKg
  ivs.push(iv('mrsd', mrsd, doseUnit, `HED of ${selected.label} / safety factor`))
  ivs.push(iv('mrsd_for_human_body_weight', mrsdTotal, totalUnit, `MRSD x ${humanWeightKg} kg`))

  const outputs: Record<string, SkillValue> = {}
  for (const r of rows) outputs[`hed.${r.key}`] = numberValue(r.hed, doseUnit, DISPLAY)
  outputs.most_sensitive_species = textValue(mostSensitive.label)
  outputs.selected_species = textValue(selected.label)
  outputs.selection_rationale = textValue(selectionRationale)
  outputs.safety_factor = { value: sf, unit_ucum: '1', unit_display: '', display: String(sf) }
  outputs.mrsd = numberValue(mrsd, doseUnit, DISPLAY)
  outputs.mrsd_for_human_body_weight = numberValue(mrsdTotal, totalUnit, DISPLAY)
  outputs.human_body_weight = numberValue(humanWeightKg, 'kg', { sig: 3 })
  outputs.hed_method = textValue('body surface area scaling, km ratio (FDA 2005 Table 1): HED = NOAEL x animal km / human km')
  outputs.species_count = countValue(rows.length)

  const usedSpecies = new Set(rows.map((r) => r.species.species))
  const kmTable: SkillTable = {
    title: 'km factors used (FDA 2005 Table 1)',
    columns: [
      col('species', 'Species'),
      col('reference_body_weight', 'Reference body weight', 'kg'),
      col('working_weight_range', 'Working weight range (kg)'),
      col('body_surface_area', 'Body surface area', 'm2'),
      col('km', 'km', 'kg/m2'),
      col('km_ratio', 'Animal km / human km', '1'),
      col('table1_divide_by', 'Table 1 divisor (rounded 37/km, not used)'),
    ],
    rows: FDA_2005_KM_TABLE.filter((r) => r.species === 'human' || usedSpecies.has(r.species)).map((r) => ({
      species: { value: r.label },
      reference_body_weight: { value: r.reference_body_weight_kg, unit_ucum: 'kg' },
      working_weight_range: { value: r.working_weight_range_kg ? `${r.working_weight_range_kg[0]} to ${r.working_weight_range_kg[1]}` : null },
      body_surface_area: { value: r.body_surface_area_m2, unit_ucum: 'm2' },
      km: { value: r.km, unit_ucum: 'kg/m2' },
      km_ratio: { value: r.km / HUMAN_KM, unit_ucum: '1' },
      table1_divide_by: { value: r.table1_divide_by },
    })),
  }
  const hedTable: SkillTable = {
    title: 'Human equivalent dose per species',
    columns: [
      col('label', 'Row'),
      col('species', 'Species'),
      col('noael_input', 'NOAEL as given'),
      col('noael', 'NOAEL', doseUnit),
      col('km_ratio', 'km ratio', '1'),
      col('hed', 'HED', doseUnit),
      col('body_weight', 'Body weight', 'kg'),
      col('most_sensitive', 'Most sensitive'),
      col('selected', 'Selected'),
    ],
    rows: rows.map((r) => ({
      label: { value: r.label },
      species: { value: r.species.label },
      noael_input: { value: r.noael_input, citation: r.citation },
      noael: numberValue(r.noael_mg_per_kg, doseUnit, { sig: 3 }),
      km_ratio: { value: r.km_ratio, unit_ucum: '1' },
      hed: numberValue(r.hed, doseUnit, DISPLAY),
      body_weight: { value: r.body_weight_kg, unit_ucum: 'kg', display: r.body_weight_source === 'input' ? `${r.body_weight_kg} kg (input)` : `${r.body_weight_kg} kg (Table 1)` },
      most_sensitive: { value: r === mostSensitive },
      selected: { value: r === selected },
    })),
  }

  return {
    outputs,
    citations,
    warnings,
    header: FIH_HEADER,
    tables: { km_table: kmTable, hed_by_species: hedTable },
    how_computed: {
      intermediate_values: ivs,
      rules_applied: [
        'Vocabulary: NOAEL units are UCUM codes converted by ucum-lhc to mg/kg (or mg/kg/d); mg/m2 doses are divided by the species km (FDA 2005).',
        `HED method: body surface area scaling by the km ratio, HED = NOAEL x animal km / human km (${HUMAN_KM}), FDA 2005 Table 1; the Table 1 'divide by' column is the same ratio rounded and is listed for comparison only.`,
        'The body-weight form HED = dose x (Wa/Wh)^0.33 is not used; it is listed when an input body weight is outside the Table 1 working range.',
        `Most sensitive species: the row with the lowest HED; on ties (HEDs within a relative ${HED_TIE_TOLERANCE} of each other), the first row. A NOAEL in mg/m2 gives HED = NOAEL / ${HUMAN_KM} directly, so equal mg/m2 NOAELs give equal HEDs.`,
        'Routes: one vocabulary for every skill (oral, intravenous, subcutaneous, ...; aliases such as iv, po, sc); results name the route key.',
        'MRSD = HED of the selected species / safety factor; the selected species defaults to the most sensitive one; another choice needs a rationale.',
        `Safety factor: default 10 (FDA 2005); a lower factor needs a rationale.`,
        `MRSD for the human body weight = MRSD x human body weight (default ${HUMAN_DEFAULT_BODY_WEIGHT_KG} kg).`,
        'Not computed: pharmacologically active dose (PAD), minimal anticipated biological effect level (MABEL), exposure-based projection; exceptions of the guidance (e.g. proteins above 100 kDa scaled by mg/kg) are not applied.',
        'Display rounding: HED and MRSD to 2 significant figures, NOAEL to 3; values keep full double precision.',
      ],
    },
  }
}

export const fihDoseProjection: SkillModule<typeof input> = {
  key: 'tox.fih_dose_projection',
  name: 'First-in-human dose projection',
  product: 'evidence',
  run_role: 'evidence',
  workbench_role: 'dmpk_tox_scientist',
  skill_class: 'A',
  check_logic_version: 2,
  release: 'R4',
  input,
  output_fields: [
    'hed.<label>',
    'most_sensitive_species',
    'selected_species',
    'selection_rationale',
    'safety_factor',
    'mrsd',
    'mrsd_for_human_body_weight',
    'human_body_weight',
    'hed_method',
    'species_count',
  ],
  required_citations: ['noael[*].citation'],
  reference_keys: ['fda_2005_mrsd', 'ema_2017_fih', 'ich_m3r2'],
  primary_reference: 'fda_2005_mrsd',
  method_name: 'FIH dose projection, body surface area (km ratio)',
  compute,
}
