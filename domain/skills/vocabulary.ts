// Vocabulary layer (specification, 'Skill result and references'): every skill input passes this
// module. Units are UCUM codes checked and converted by @lhncbc/ucum-lhc (no hand-written
// conversion tables); species carry the FDA 2005 Table 1 body weights and km factors; routes, dose
// forms, analytes and matrices are closed label sets.
//
// Error policy for a quantity field `x` (errors carry field `x.unit` or `x.value`):
// - unit missing or blank                                   -> unit_required
// - not a UCUM code, or a UCUM unit this skill cannot convert
//   (arbitrary units such as [IU]; molar <-> mass without a
//   molecular weight; a form this layer does not parse)     -> unit_unsupported
// - a valid UCUM unit of the wrong kind (an AUC given in a
//   concentration unit, 'MG' (megagauss) for a mass, ...)   -> unit_mismatch
// - value not a finite number, or out of range              -> invalid_input

import { createRequire } from 'node:module'
import { SkillInputError } from './errors'
import { normalise15 } from './numbers'
import { FDA_2005_KM_TABLE, type KmRow } from './references'

export { SkillInputError, isSkillInputError, fieldPath, SKILL_INPUT_ERROR_CODES } from './errors'
export type { SkillInputErrorCode } from './errors'

/** A quantity input: a number and its UCUM unit code. */
export interface Quantity {
  value: number
  unit: string
}

// ---------------------------------------------------------------------------------------------
// UCUM access
// ---------------------------------------------------------------------------------------------
interface UcumUtils {
  validateUnitString(
    u: string,
    suggest?: boolean,
  ): {
    status: 'valid' | 'invalid' | 'error'
    ucumCode: string | null
    unit?: { code: string; name: string }
    msg: string[]
    suggestions?: Array<{ units: Array<[string, string, string | null]> }>
  }
  convertUnitTo(
    from: string,
    value: number,
    to: string,
    options?: { molecularWeight?: number },
  ): { status: 'succeeded' | 'failed' | 'error'; toVal: number | null; msg: string[] }
}

let ucumInstance: UcumUtils | null = null
function ucum(): UcumUtils {
  if (!ucumInstance) {
    // ucum-lhc is CommonJS without type declarations; load it through require.
    const pkg = createRequire(import.meta.url)('@lhncbc/ucum-lhc') as { UcumLhcUtils: { getInstance(): UcumUtils } }
    ucumInstance = pkg.UcumLhcUtils.getInstance()
  }
  return ucumInstance
}

export interface UcumValidation {
  valid: boolean
  code: string
  name: string | null
  message: string
  suggestions: string[]
}

const validationCache = new Map<string, UcumValidation>()

const MOLAR_SHORTHAND: Record<string, string> = { M: 'mol/L', mM: 'mmol/L', uM: 'umol/L', nM: 'nmol/L', pM: 'pmol/L', fM: 'fmol/L', µM: 'umol/L', μM: 'umol/L' }

/** Validate a UCUM code (case-sensitive, no blanks). Never throws. */
export function validateUcum(code: string): UcumValidation {
  const hit = validationCache.get(code)
  if (hit) return hit
  let res: UcumValidation
  if (code.trim() === '') {
    res = { valid: false, code, name: null, message: 'no unit given', suggestions: [] }
  } else if (/\s/.test(code)) {
    res = { valid: false, code, name: null, message: `'${code}' contains blanks, which UCUM does not allow`, suggestions: [code.replace(/\s+/g, '')] }
  } else {
    let r: ReturnType<UcumUtils['validateUnitString']>
    try {
      r = ucum().validateUnitString(code, true)
    } catch (e) {
      r = { status: 'error', ucumCode: null, msg: [String((e as Error)?.message ?? e)] }
    }
    const suggestions: string[] = []
    if (MOLAR_SHORTHAND[code]) suggestions.push(MOLAR_SHORTHAND[code])
    for (const s of r.suggestions ?? []) for (const u of s.units.slice(0, 3)) if (!suggestions.includes(u[0])) suggestions.push(u[0])
    res =
      r.status === 'valid' && r.unit
        ? { valid: true, code, name: String(r.unit.name), message: '', suggestions: [] }
        : { valid: false, code, name: null, message: r.msg.join(' ') || `'${code}' is not a valid UCUM code`, suggestions }
  }
  validationCache.set(code, res)
  return res
}

type ConversionResult = { ok: true; value: number } | { ok: false; reason: 'needs_molecular_weight' | 'arbitrary' | 'incommensurable' | 'invalid'; message: string }

const factorCache = new Map<string, ConversionResult>()

/**
 * Convert with UCUM. Linear conversions are cached as factors; results are normalised to 15
 * significant figures (see numbers.normalise15). Never throws.
 */
export function convertUcum(value: number, from: string, to: string, molecularWeightGPerMol?: number): ConversionResult {
  if (from === to) return { ok: true, value }
  if (!validateUcum(from).valid || !validateUcum(to).valid) return { ok: false, reason: 'invalid', message: `cannot convert ${from} to ${to}` }
  const key = `${from}\u0000${to}\u0000${molecularWeightGPerMol ?? ''}`
  let f = factorCache.get(key)
  if (!f) {
    let r: ReturnType<UcumUtils['convertUnitTo']>
    try {
      r = ucum().convertUnitTo(from, 1, to, molecularWeightGPerMol ? { molecularWeight: molecularWeightGPerMol } : {})
    } catch (e) {
      r = { status: 'error', toVal: null, msg: [String((e as Error)?.message ?? e)] }
    }
    if (r.status === 'succeeded' && typeof r.toVal === 'number' && Number.isFinite(r.toVal)) {
      f = { ok: true, value: r.toVal }
    } else {
      const msg = r.msg.join(' ')
      const reason = /molecular weight/i.test(msg) ? 'needs_molecular_weight' : /arbitrary/i.test(msg) ? 'arbitrary' : 'incommensurable'
      f = { ok: false, reason, message: msg || `cannot convert ${from} to ${to}` }
    }
    factorCache.set(key, f)
  }
  if (!f.ok) return f
  return { ok: true, value: normalise15(value * f.value) }
}

export function isCommensurable(from: string, to: string): boolean {
  return convertUcum(1, from, to).ok
}

/** Display form of a UCUM code: '.' as a middle dot, micro as µ, m2 as m². Cosmetic only. */
export function displayUnit(code: string): string {
  if (code === '1') return 'fold'
  return code
    .replace(/\./g, '·')
    .replace(/(^|[^A-Za-z])u(?=[gLlmM])/g, '$1µ')
    .replace(/Ao2(?![0-9])/g, 'Å²')
    .replace(/m2(?![0-9])/g, 'm²')
}

// ---------------------------------------------------------------------------------------------
// Quantity kinds
// ---------------------------------------------------------------------------------------------
export type QuantityKind =
  | 'mass'
  | 'body_weight'
  | 'time'
  | 'volume'
  | 'mass_concentration'
  | 'molar_concentration'
  | 'auc_mass'
  | 'auc_molar'
  | 'molar_mass'
  | 'area'

export const CANONICAL_UNIT: Record<QuantityKind, string> = {
  mass: 'mg',
  body_weight: 'kg',
  time: 'h',
  volume: 'L',
  mass_concentration: 'ng/mL',
  molar_concentration: 'nmol/L',
  auc_mass: 'h.ng/mL',
  auc_molar: 'h.nmol/L',
  molar_mass: 'g/mol',
  area: 'm2',
}

const KIND_LABEL: Record<QuantityKind, string> = {
  mass: 'mass (e.g. mg)',
  body_weight: 'body weight (e.g. kg)',
  time: 'time (e.g. h)',
  volume: 'volume (e.g. L)',
  mass_concentration: 'mass concentration (e.g. ng/mL)',
  molar_concentration: 'molar concentration (e.g. nmol/L)',
  auc_mass: 'AUC, time x mass concentration (e.g. h.ng/mL)',
  auc_molar: 'AUC, time x molar concentration (e.g. h.nmol/L)',
  molar_mass: 'molar mass (e.g. g/mol)',
  area: 'area (e.g. m2)',
}

/** Which of the kinds a (valid) UCUM code belongs to, or null. */
export function kindOf(code: string): QuantityKind | null {
  if (!validateUcum(code).valid) return null
  for (const k of Object.keys(CANONICAL_UNIT) as QuantityKind[]) if (isCommensurable(code, CANONICAL_UNIT[k])) return k
  return null
}

function describe(code: string): string {
  const v = validateUcum(code)
  const k = kindOf(code)
  const what = k ? KIND_LABEL[k].replace(/ \(e\.g\..*\)$/, '') : null
  return `'${code}'${v.name ? ` (${v.name})` : ''}${what ? ` is a ${what} unit` : ''}`
}

/** Check presence and UCUM validity of a unit field. Returns the code. */
export function requireUnit(unit: unknown, field: string): string {
  if (unit === undefined || unit === null || (typeof unit === 'string' && unit.trim() === '')) {
    throw new SkillInputError('unit_required', field, `${field} is required: give a UCUM unit code`)
  }
  if (typeof unit !== 'string') throw new SkillInputError('invalid_input', field, `${field} must be a UCUM unit code (a string)`)
  const v = validateUcum(unit)
  if (!v.valid) {
    const hint = v.suggestions.length ? ` Did you mean ${v.suggestions.map((s) => `'${s}'`).join(' or ')}?` : ''
    throw new SkillInputError('unit_unsupported', field, `'${unit}' is not a valid UCUM unit code (UCUM is case-sensitive).${hint}`)
  }
  return unit
}

export function requireFiniteValue(value: unknown, field: string, opts: { positive?: boolean; nonNegative?: boolean } = {}): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new SkillInputError('invalid_input', field, `${field} must be a finite number`)
  if (opts.positive && !(value > 0)) throw new SkillInputError('invalid_input', field, `${field} must be greater than 0`)
  if (opts.nonNegative && value < 0) throw new SkillInputError('invalid_input', field, `${field} must not be negative`)
  return value
}

export interface ReadQuantity {
  /** Value in the canonical unit. */
  value: number
  unit: string
  kind: QuantityKind
  input_value: number
  input_unit: string
}

/**
 * Read a quantity of one of the allowed kinds and convert it to that kind's canonical unit.
 * `field` is the quantity's path (errors name `${field}.unit` / `${field}.value`).
 */
export function readQuantity(
  q: { value?: unknown; unit?: unknown } | undefined | null,
  field: string,
  kinds: QuantityKind | readonly QuantityKind[],
  opts: { positive?: boolean; nonNegative?: boolean } = { positive: true },
): ReadQuantity {
  if (!q || typeof q !== 'object') throw new SkillInputError('invalid_input', field, `${field} is required: give {value, unit}`)
  const unit = requireUnit(q.unit, `${field}.unit`)
  const value = requireFiniteValue(q.value, `${field}.value`, opts)
  const allowed = typeof kinds === 'string' ? [kinds] : kinds
  for (const k of allowed) {
    const c = convertUcum(value, unit, CANONICAL_UNIT[k])
    if (c.ok) return { value: c.value, unit: CANONICAL_UNIT[k], kind: k, input_value: value, input_unit: unit }
  }
  throw unitKindError(unit, `${field}.unit`, allowed)
}

function unitKindError(unit: string, field: string, allowed: readonly QuantityKind[]): SkillInputError {
  const expected = allowed.map((k) => KIND_LABEL[k]).join(' or ')
  for (const k of allowed) {
    const c = convertUcum(1, unit, CANONICAL_UNIT[k])
    if (!c.ok && c.reason === 'needs_molecular_weight')
      return new SkillInputError('unit_unsupported', field, `${describe(unit)}; converting it to a ${expected} unit needs a molecular weight, which this input does not take.`)
    if (!c.ok && c.reason === 'arbitrary') return new SkillInputError('unit_unsupported', field, `${describe(unit)}: arbitrary units cannot be converted; expected ${expected}.`)
  }
  return new SkillInputError('unit_mismatch', field, `${describe(unit)}, not a ${expected} unit.`)
}

// ---------------------------------------------------------------------------------------------
// Doses: per body weight (mg/kg) or per body surface area (mg/m2), optionally per day (mg/kg/d).
// UCUM treats mg/kg as dimensionless ('%' converts to it), so the code is also read structurally:
// <mass>/<mass> or <mass>/<area>, with an optional /<time>; each part is checked with UCUM.
// ---------------------------------------------------------------------------------------------
export type DoseBasis = 'per_kg' | 'per_m2'
export interface ReadDose {
  basis: DoseBasis
  per_day: boolean
  /** Value in mg/kg, mg/kg/d, mg/m2 or mg/m2/d (see `unit`). */
  value: number
  unit: 'mg/kg' | 'mg/kg/d' | 'mg/m2' | 'mg/m2/d'
  input_value: number
  input_unit: string
}

export function readDose(q: { value?: unknown; unit?: unknown } | undefined | null, field: string): ReadDose {
  if (!q || typeof q !== 'object') throw new SkillInputError('invalid_input', field, `${field} is required: give {value, unit}`)
  const unitField = `${field}.unit`
  const unit = requireUnit(q.unit, unitField)
  const value = requireFiniteValue(q.value, `${field}.value`, { positive: true })
  const expected = 'a dose per body weight or per body surface area (mg/kg, ug/kg, g/kg, mg/m2, or per day: mg/kg/d)'
  const parts = unit.split('/')
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '' || /[()]/.test(p))) {
    const v = validateUcum(unit)
    // A valid dose unit in another UCUM spelling (mg/(kg.d), mg.kg-1): supported in its plain form.
    const doseLike = v.valid && ['mg/m2', 'mg/m2/d', 'mg/kg/d'].some((u) => isCommensurable(unit, u)) && /g/.test(unit)
    if (doseLike) throw new SkillInputError('unit_unsupported', unitField, `${describe(unit)}: write the dose unit in the plain form mass/kg[/time] or mass/m2[/time], e.g. mg/kg/d.`)
    throw new SkillInputError(v.valid ? 'unit_mismatch' : 'unit_unsupported', unitField, `${describe(unit)}; expected ${expected}.`)
  }
  const [num, den, per] = parts
  if (!validateUcum(num).valid || !isCommensurable(num, 'mg')) {
    const c = convertUcum(1, num, 'mg')
    const code = !c.ok && (c.reason === 'needs_molecular_weight' || c.reason === 'arbitrary') ? 'unit_unsupported' : 'unit_mismatch'
    throw new SkillInputError(code, unitField, `${describe(unit)}: the numerator '${num}' is not a mass unit; expected ${expected}.`)
  }
  let basis: DoseBasis
  if (validateUcum(den).valid && isCommensurable(den, 'kg')) basis = 'per_kg'
  else if (validateUcum(den).valid && isCommensurable(den, 'm2')) basis = 'per_m2'
  else throw new SkillInputError('unit_mismatch', unitField, `${describe(unit)}: '${den}' is neither a body weight nor a body surface area unit; expected ${expected}.`)
  const perDay = per !== undefined
  if (perDay && !(validateUcum(per).valid && isCommensurable(per, 'd')))
    throw new SkillInputError('unit_mismatch', unitField, `${describe(unit)}: '${per}' is not a time unit; expected ${expected}.`)
  const target = (basis === 'per_kg' ? 'mg/kg' : 'mg/m2') + (perDay ? '/d' : '')
  const c = convertUcum(value, unit, target)
  if (!c.ok) throw new SkillInputError('unit_unsupported', unitField, `${describe(unit)} cannot be converted to ${target}: ${c.message}`)
  return { basis, per_day: perDay, value: c.value, unit: target as ReadDose['unit'], input_value: value, input_unit: unit }
}

// ---------------------------------------------------------------------------------------------
// Species (FDA 2005 Table 1)
// ---------------------------------------------------------------------------------------------
export type Species = KmRow

export const SPECIES: ReadonlyMap<string, Species> = new Map(FDA_2005_KM_TABLE.map((r) => [r.species, r]))
export const SPECIES_KEYS: readonly string[] = FDA_2005_KM_TABLE.map((r) => r.species)
export const HUMAN_KM = 37
export const HUMAN_DEFAULT_BODY_WEIGHT_KG = 60

/** Accepted alternative spellings, each mapped to a Table 1 row. */
export const SPECIES_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  mice: 'mouse',
  rats: 'rat',
  dogs: 'dog',
  beagle: 'dog',
  beagle_dog: 'dog',
  cynomolgus: 'monkey',
  cynomolgus_monkey: 'monkey',
  cynomolgus_macaque: 'monkey',
  rhesus: 'monkey',
  rhesus_monkey: 'monkey',
  rhesus_macaque: 'monkey',
  stumptail: 'monkey',
  stumptail_macaque: 'monkey',
  nhp: 'monkey',
  minipig: 'mini_pig',
  gottingen_minipig: 'mini_pig',
  micropig: 'micro_pig',
  guineapig: 'guinea_pig',
})

export function normaliseLabel(s: string): string {
  return s.trim().toLowerCase().replace(/[\s\-]+/g, '_')
}

export function resolveSpecies(name: unknown, field: string): Species {
  if (typeof name !== 'string' || name.trim() === '') throw new SkillInputError('invalid_input', field, `${field} is required: give a species`)
  const n = normaliseLabel(name)
  const key = SPECIES.has(n) ? n : SPECIES_ALIASES[n]
  const s = key ? SPECIES.get(key) : undefined
  if (!s) throw new SkillInputError('invalid_input', field, `unknown species '${name}'; known: ${SPECIES_KEYS.join(', ')}`)
  return s
}

// ---------------------------------------------------------------------------------------------
// Routes, dose forms, analytes, matrices
// ---------------------------------------------------------------------------------------------
export const ROUTES = Object.freeze({
  oral: { label: 'Oral', nca: 'extravascular' },
  intravenous: { label: 'Intravenous', nca: 'intravascular' },
  subcutaneous: { label: 'Subcutaneous', nca: 'extravascular' },
  intramuscular: { label: 'Intramuscular', nca: 'extravascular' },
  intraperitoneal: { label: 'Intraperitoneal', nca: 'extravascular' },
  inhalation: { label: 'Inhalation', nca: 'extravascular' },
  intranasal: { label: 'Intranasal', nca: 'extravascular' },
  dermal: { label: 'Dermal', nca: 'extravascular' },
  topical: { label: 'Topical', nca: 'extravascular' },
  sublingual: { label: 'Sublingual', nca: 'extravascular' },
  rectal: { label: 'Rectal', nca: 'extravascular' },
  intrathecal: { label: 'Intrathecal', nca: 'extravascular' },
  intravitreal: { label: 'Intravitreal', nca: 'extravascular' },
} as const)
export type Route = keyof typeof ROUTES
export const ROUTE_KEYS = Object.keys(ROUTES) as Route[]

/**
 * Spellings accepted for a route key (after normaliseLabel). One table for every skill, so a route
 * one skill takes is taken the same way by all of them. 'iv_bolus' was the NCA skill's own word
 * before issue 30; it stays an alias of intravenous (a bolus unless an infusion duration is given).
 */
export const ROUTE_ALIASES: Readonly<Record<string, Route>> = Object.freeze({
  iv: 'intravenous',
  'i.v.': 'intravenous',
  iv_bolus: 'intravenous',
  po: 'oral',
  'p.o.': 'oral',
  sc: 'subcutaneous',
  's.c.': 'subcutaneous',
  im: 'intramuscular',
  'i.m.': 'intramuscular',
  ip: 'intraperitoneal',
  'i.p.': 'intraperitoneal',
  inhaled: 'inhalation',
  nasal: 'intranasal',
})

/** NCA administration class of a route: how the profile starts and which parameters it gives. */
export type NcaRouteClass = (typeof ROUTES)[Route]['nca']

/** A route key from the vocabulary (or one of its aliases), refused with the list of keys otherwise. */
export function resolveRoute(name: unknown, field: string): Route {
  if (typeof name !== 'string' || name.trim() === '') throw new SkillInputError('invalid_input', field, `${field} is required: give a route (${ROUTE_KEYS.join(', ')})`)
  const n = normaliseLabel(name)
  if (n in ROUTES) return n as Route
  const alias = ROUTE_ALIASES[n]
  if (alias) return alias
  const hint = n === 'extravascular' ? " 'extravascular' is an NCA class, not a route: give the route itself (oral, subcutaneous, ...)." : ''
  throw new SkillInputError('invalid_input', field, `unknown route '${name}'; known: ${ROUTE_KEYS.join(', ')} (aliases: ${Object.keys(ROUTE_ALIASES).join(', ')}).${hint}`)
}

/** Zod schema of a route input: any string, resolved by resolveRoute in the skill (aliases allowed). */
export const ROUTE_INPUT_DESCRIPTION = `route key from the vocabulary: ${Object.keys(ROUTES).join(', ')}; aliases ${Object.keys(ROUTE_ALIASES).join(', ')}`

export const DOSE_FORMS = Object.freeze({
  solution: 'Solution',
  suspension: 'Suspension',
  emulsion: 'Emulsion',
  tablet: 'Tablet',
  capsule: 'Capsule',
  powder: 'Powder',
  lyophilisate_for_solution: 'Lyophilisate for solution',
  cream: 'Cream',
  ointment: 'Ointment',
  gel: 'Gel',
  transdermal_patch: 'Transdermal patch',
  aerosol: 'Aerosol',
  implant: 'Implant',
} as const)
export type DoseForm = keyof typeof DOSE_FORMS
export const DOSE_FORM_KEYS = Object.keys(DOSE_FORMS) as DoseForm[]

export const MATRICES = Object.freeze({
  plasma: 'Plasma',
  serum: 'Serum',
  whole_blood: 'Whole blood',
  urine: 'Urine',
  csf: 'Cerebrospinal fluid',
  tissue: 'Tissue homogenate',
} as const)
export type Matrix = keyof typeof MATRICES
export const MATRIX_KEYS = Object.keys(MATRICES) as Matrix[]

export const ANALYTE_KINDS = Object.freeze({
  parent: 'Parent compound',
  unbound_parent: 'Unbound parent compound',
  metabolite: 'Metabolite',
  total_drug_related: 'Total drug-related material',
} as const)
export type AnalyteKind = keyof typeof ANALYTE_KINDS
export const ANALYTE_KIND_KEYS = Object.keys(ANALYTE_KINDS) as AnalyteKind[]
