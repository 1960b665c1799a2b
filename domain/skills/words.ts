// Owns how a skill result reads for people (issue 34, item 8): a label in words for every output and intermediate
// value, its unit as people write it (none for a pure number, never '1'), 'none given' for a value left out, and the
// skills' option keys ('linear_up_log_down') as words. Presentation only: no number is computed or rounded here; the
// values are the skills' own `display` texts (their rounding rules) with the unit written beside them.
import type { IntermediateValue, SkillValue } from './result'

const OUTPUT_LABELS: Record<string, string> = {
  // tox.fih_dose_projection
  mrsd: 'Maximum recommended starting dose',
  mrsd_for_human_body_weight: 'Maximum recommended starting dose for the human body weight',
  human_body_weight: 'Human body weight',
  human_km: 'Human body surface factor (km)',
  most_sensitive_species: 'Most sensitive species',
  selected_species: 'Species the dose is projected from',
  selection_rationale: 'Why another species was chosen',
  safety_factor: 'Safety factor',
  hed_method: 'How the human equivalent dose was scaled',
  species_count: 'Species given',
  // tox.pk_parameter_extraction
  route: 'Route',
  administration: 'Administration',
  dose: 'Dose',
  infusion_duration: 'Infusion duration',
  c0: 'Concentration at time zero (C0)',
  cmax: 'Peak concentration (Cmax)',
  tmax: 'Time of the peak (Tmax)',
  clast: 'Last measurable concentration (Clast)',
  tlast: 'Time of the last measurable concentration (Tlast)',
  auclast: 'Area under the curve to Tlast (AUClast)',
  aucinf_obs: 'Area under the curve to infinity (AUCinf, observed)',
  auc_pct_extrap: 'Share of AUCinf extrapolated',
  auc_pct_back_extrap: 'Share of AUCinf back-extrapolated to time zero',
  aumclast: 'Area under the moment curve to Tlast (AUMClast)',
  aumcinf_obs: 'Area under the moment curve to infinity (AUMCinf, observed)',
  mrtlast: 'Mean residence time to Tlast (MRTlast)',
  mrtinf_obs: 'Mean residence time to infinity (MRTinf, observed)',
  lambda_z: 'Terminal elimination rate constant (λz)',
  lambda_z_n_points: 'Points in the terminal fit',
  lambda_z_t_lower: 'Terminal fit starts at',
  lambda_z_t_upper: 'Terminal fit ends at',
  lambda_z_r2: 'Terminal fit R²',
  lambda_z_adj_r2: 'Terminal fit adjusted R²',
  lambda_z_intercept: 'Terminal fit intercept (natural log of concentration at time zero)',
  lambda_z_candidate_points: 'Points the terminal fit could use',
  lambda_z_per_h: 'Terminal elimination rate constant, per hour',
  lambda_z_rule: 'How the terminal fit was chosen',
  half_life: 'Terminal half-life',
  cl: 'Clearance (CL)',
  cl_f: 'Apparent clearance (CL/F)',
  vz: 'Volume of distribution, terminal (Vz)',
  vz_f: 'Apparent volume of distribution (Vz/F)',
  vss: 'Volume of distribution at steady state (Vss)',
  auc_method: 'How the area was summed',
  blq_rule: 'Samples below the limit of quantification',
  blq_rows_set_to_zero: 'Samples below the limit of quantification counted as zero',
  blq_rows_dropped: 'Samples below the limit of quantification left out',
  c_at_time_0: 'Concentration at time zero',
  auc_0_to_first_sample: 'Area from time zero to the first sample',
  auclast_if_zeros_marked_blq: 'AUClast if the measured zeros were marked below the limit',
  measured_zeros_where_blq_rule_applies: 'Measured zeros where the below-limit rule would apply',
  aucinf_obs_h_mg_per_L: 'AUCinf in hours times milligrams per litre',
}

/** Per-species intermediate values and outputs ('rat.hed', 'hed.rat'). */
const SPECIES_PARTS: Record<string, string> = {
  hed: 'Human equivalent dose', noael: 'NOAEL', noael_input: 'NOAEL as given', noael_mg_per_m2: 'NOAEL per body surface',
  km: 'Body surface factor (km)', km_ratio: 'Body surface factor ratio', body_weight: 'Body weight',
  hed_table1_divisor: 'Human equivalent dose divisor (FDA 2005 Table 1)', hed_body_weight_form: 'Human equivalent dose, body weight form',
}
const SPECIES_NAMES: Record<string, string> = { rat: 'rat', mouse: 'mouse', dog: 'dog', monkey: 'monkey', rabbit: 'rabbit', mini_pig: 'minipig', minipig: 'minipig', hamster: 'hamster', guinea_pig: 'guinea pig', human: 'human' }

/** What people call a skill's option or key values. */
const VALUE_WORDS: Record<string, string> = {
  linear_up_log_down: 'linear up, log down', linear: 'linear', log: 'log', linear_log: 'linear, then log after the peak',
  zero_before_cmax_missing_after: 'zero before the peak, missing after it', extravascular: 'extravascular', iv_bolus: 'intravenous bolus',
  iv_infusion: 'intravenous infusion', best_fit_adjusted_r2: 'best fit by adjusted R²', mini_pig: 'minipig', observed: 'observed',
}

const sentenceCase = (s: string) => s.replace(/^./, (c) => c.toUpperCase())
const keyWords = (key: string) => key.replace(/[_.]+/g, ' ').trim()

/** A skill's option keys inside a text ('linear_up_log_down trapezoidal') as words; other text kept as it is. */
export function keysAsWords(text: string): string {
  return text
    .replace(/\blambda_z\b/g, 'λz')
    .replace(/\b(AUCinf|AUMCinf|MRTinf)_obs\b/g, '$1 (observed)')
    .replace(/\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g, (key) => VALUE_WORDS[key] ?? key.replace(/_/g, ' '))
}

/** The label in words of an output or an intermediate value: 'mrsd' reads 'Maximum recommended starting dose'. */
export function labelOf(name: string): string {
  if (OUTPUT_LABELS[name]) return OUTPUT_LABELS[name]
  const [a, ...rest] = name.split('.')
  const b = rest.join('.')
  // hed.<species> (outputs) and <species>.<part> (intermediate values)
  if (b && SPECIES_PARTS[a] && SPECIES_NAMES[b]) return `${SPECIES_PARTS[a]}, from the ${SPECIES_NAMES[b]}`
  if (b && SPECIES_NAMES[a] && SPECIES_PARTS[b]) return `${SPECIES_PARTS[b]}, ${SPECIES_NAMES[a]}`
  return sentenceCase(keyWords(name))
}

/** A unit as people read it: 'h.mg/L' reads 'h·mg/L', 'h2' reads 'h²'; none for a pure number ('1' or empty). */
export function unitWords(unitUcum: string | null | undefined, unitDisplay?: string | null): string | null {
  const unit = (unitDisplay && unitDisplay.trim()) || (unitUcum ?? '').trim()
  if (!unit || unit === '1') return null
  return unit.replace(/\./g, '·').replace(/([a-zA-Z])2\b/g, '$1²').replace(/([a-zA-Z])3\b/g, '$1³')
}

/** A value as people read it, without its unit: the skill's display text, 'none given' for a value left out. */
export function valueText(v: Pick<SkillValue, 'value' | 'display' | 'unit_display' | 'unit_ucum'>): string {
  if (v.value === null || v.value === undefined || (typeof v.value === 'number' && Number.isNaN(v.value))) return 'none given'
  if (typeof v.value === 'boolean') return v.value ? 'yes' : 'no'
  let text = v.display ?? String(v.value)
  const unit = (v.unit_display ?? '').trim()
  if (unit && text.endsWith(` ${unit}`)) text = text.slice(0, -unit.length - 1)
  if (typeof v.value === 'string') text = keysAsWords(text)
  return text
}

/** An output for people: its label, its value in words and its unit. */
export function outputInWords(name: string, v: SkillValue) {
  return { label: labelOf(name), text: valueText(v), unit: unitWords(v.unit_ucum, v.unit_display) }
}

const NUMBER = new Intl.NumberFormat('en-GB', { maximumSignificantDigits: 6 })

/** An intermediate value ('How this was computed') for people: label, value to 6 significant figures, unit, note. */
export function stepInWords(v: IntermediateValue) {
  const text = typeof v.value === 'number' ? NUMBER.format(v.value) : valueText({ value: v.value })
  return { label: labelOf(v.name), text, unit: v.value === null ? null : unitWords(v.unit_ucum), note: v.note ? keysAsWords(v.note) : null }
}
