// The whole served result of each computing skill for reference cases that walk its branches (units converted,
// per-day and mg/m2 doses, body weights outside the working range, routes that differ, a person's species choice and
// safety factor, mixed mass and molar exposure units, intervals that differ, BLQ rules, infusions and bolus doses):
// values, display text, warnings, tables and the method text a reviewer reads. Each is compared byte for byte with the
// reviewed RFC 8785 JSON in tests/skills/fixtures/golden/; a change to any of them shows as a diff to review, then
// `npx vitest run tests/skills/golden-results.test.ts -u` records it. The other skill tests compute the expected
// numbers independently; this file pins the rest of what a person is shown.
import { describe, expect, it } from 'vitest'
import { runSkillSync, skillResultJson } from '../../domain/skills'
import { THEOPH_SUBJECT1_DOSE, THEOPH_SUBJECT1_ROWS } from './fixtures/theoph-subject1'

const noael = (species: string, value: number, unit = 'mg/kg', extra: Record<string, unknown> = {}) => ({ species, dose: { value, unit }, citation: `tox:${species}`, ...extra })
const exposure = (species: string, auc: number | null, cmax: number | null, extra: Record<string, unknown> = {}) => ({
  species,
  ...(auc === null ? {} : { auc: { value: auc, unit: 'h.ng/mL' } }),
  ...(cmax === null ? {} : { cmax: { value: cmax, unit: 'ng/mL' } }),
  citation: `tk:${species}`,
  ...extra,
})
const iv = [
  { time: 0.083, conc: 95 }, { time: 0.25, conc: 80 }, { time: 0.5, conc: 62 }, { time: 1, conc: 41 }, { time: 2, conc: 19.5 },
  { time: 4, conc: 5.1 }, { time: 6, conc: 1.4 }, { time: 8, conc: null, blq: true },
]

const CASES: Array<[string, string, Record<string, unknown>]> = [
  ['fih', 'three species, the most sensitive taken by default', { route: 'oral', noael: [noael('rat', 50), noael('dog', 10), noael('cynomolgus monkey', 30, 'mg/kg', { label: 'monkey' })] }],
  ['fih', 'per-day doses in ug/kg and g/kg, a heavy dog, another route, a chosen species and a lower safety factor', {
    route: 'iv', human_body_weight: { value: 70, unit: 'kg' }, safety_factor: 5, safety_factor_rationale: 'reversible finding, steep curve',
    noael: [noael('rat', 50_000, 'ug/kg/d', { route: 'oral' }), noael('dog', 0.01, 'g/kg/d', { body_weight: { value: 40, unit: 'kg' }, route: 'intravenous', study: 'D-1' })],
    selected_species: { label: 'rat', rationale: 'the rat is the pharmacologically relevant species' },
  }],
  ['fih', 'mg/m2 doses with equal HEDs, a higher safety factor', { route: 'oral', safety_factor: 20, noael: [noael('rat', 60, 'mg/m2'), noael('dog', 60, 'mg/m2'), noael('mouse', 1, 'mg/kg', { label: 'mouse-1' })] }],
  ['emt', 'AUC and Cmax margins for two species against one projection', {
    noael_exposure: [exposure('rat', 25_000, 3_000, { auc_interval: '0-24 h', sex: 'male', analyte: 'parent', noael_dose: { value: 50, unit: 'mg/kg/d' } }), exposure('dog', 8_000, null, { auc_interval: '0-24 h' })],
    human_projection: { auc: { value: 2.5, unit: 'h.ug/mL' }, cmax: { value: 400, unit: 'ng/mL' }, auc_interval: '0-1 d', dose: { value: 100, unit: 'mg' }, citation: 'proj:1' },
  }],
  ['emt', 'molar and mass units mixed with a molecular weight, intervals that differ or are missing, a label', {
    molecular_weight: { value: 450, unit: 'g/mol' },
    noael_exposure: [exposure('rat', 25_000, 3_000, { auc_interval: 'tau', label: 'rat-female', sex: 'female' }), { species: 'monkey', auc: { value: 40, unit: 'h.umol/L' }, cmax: { value: 5, unit: 'umol/L' }, citation: 'tk:monkey' }],
    human_projection: { auc: { value: 5_000, unit: 'h.nmol/L' }, cmax: { value: 800, unit: 'nmol/L' }, auc_interval: '0-inf', citation: 'proj:2' },
  }],
  ['nca', 'theophylline subject 1, oral, the default rules', { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral', subject: '1', analyte: 'theophylline', matrix: 'plasma', citation: 'theoph:1' }],
  ['nca', 'theophylline subject 1, linear trapezoids, BLQ as zero, lambda z from 5.1 h', {
    rows: [...THEOPH_SUBJECT1_ROWS.slice(0, -1), { time: 24.37, conc: null, blq: true }], time_unit: 'h', conc_unit: 'mg/L', dose: { value: 4.02, unit: 'mg/kg' }, route: 'po',
    auc_method: 'linear', blq_rule: 'zero', lambda_z_rule: { method: 'manual', start_time: 5.1 },
  }],
  ['nca', 'an intravenous bolus in minutes and ug/L with a BLQ tail', { rows: iv.map((r) => ({ ...r, time: r.time * 60 })), time_unit: 'min', conc_unit: 'ug/L', dose: { value: 5, unit: 'mg' }, route: 'iv' }],
  ['nca', 'a 15-minute infusion, missing BLQ values', { rows: iv, time_unit: 'h', conc_unit: 'ng/mL', dose: { value: 2, unit: 'mg' }, route: 'intravenous', infusion_duration: { value: 15, unit: 'min' }, blq_rule: 'missing' }],
]

const SKILL: Record<string, string> = { fih: 'tox.fih_dose_projection', emt: 'tox.exposure_margin_table', nca: 'tox.pk_parameter_extraction' }
const file = (skill: string, name: string) => `./fixtures/golden/${skill}-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase().replace(/^-|-$/g, '')}.json`

describe('the served result of each computing skill', () => {
  it.each(CASES)('serves exactly the reviewed %s result for %s', async (skill, name, inputs) => {
    const r = runSkillSync(SKILL[skill], inputs, ['memo:golden'])
    await expect(`${JSON.stringify(JSON.parse(skillResultJson(r)), null, 1)}\n`).toMatchFileSnapshot(file(skill, name))
  })
})
