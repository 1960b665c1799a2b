import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { FDA_2005_KM_TABLE } from '../../domain/skills'
import { expectSkillError } from './helpers'

const KEY = 'tox.fih_dose_projection'
const noael = (species: string, value: number, unit = 'mg/kg', extra: Record<string, unknown> = {}) => ({
  species,
  dose: { value, unit },
  citation: `tox-report:${species}#noael`,
  ...extra,
})
const run = (inputs: Record<string, unknown>) => runSkillSync(KEY, { route: 'oral', ...inputs })

describe('tox.fih_dose_projection', () => {
  it('projects a human equivalent dose of 8.1 mg/kg from a rat NOAEL of 50 mg/kg', () => {
    const r = run({ noael: [noael('rat', 50)] })
    const hed = r.outputs['hed.rat']
    expect(hed.value).toBeCloseTo((50 * 6) / 37, 12)
    expect(Number((hed.value as number).toPrecision(2))).toBe(8.1)
    expect(hed.display).toBe('8.1 mg/kg')
    expect(hed.unit_ucum).toBe('mg/kg')
    // The Table 1 rounded divisor (6.2) is listed for comparison and gives 8.06, also 8.1 at 2 s.f.
    const t1 = r.how_computed.intermediate_values.find((v) => v.name === 'rat.hed_table1_divisor')!
    expect(t1.value).toBeCloseTo(50 / 6.2, 12)
    expect(Number((t1.value as number).toPrecision(2))).toBe(8.1)
  })

  it.each([
    ['mouse', 100, 8.1],
    ['hamster', 10, 1.4],
    ['rat', 50, 8.1],
    ['ferret', 10, 1.9],
    ['guinea_pig', 10, 2.2],
    ['rabbit', 10, 3.2],
    ['dog', 10, 5.4],
    ['monkey', 10, 3.2],
    ['marmoset', 10, 1.6],
    ['squirrel_monkey', 10, 1.9],
    ['baboon', 10, 5.4],
    ['micro_pig', 10, 7.3],
    ['mini_pig', 10, 9.5],
  ])('projects the Table 1 km-ratio HED for a %s NOAEL of %d mg/kg as %d mg/kg at 2 significant figures', (species, dose, expected) => {
    const r = run({ noael: [noael(species, dose)] })
    const km = FDA_2005_KM_TABLE.find((x) => x.species === species)!.km
    expect(r.outputs[`hed.${species}`].value).toBeCloseTo((dose * km) / 37, 12)
    expect(Number((r.outputs[`hed.${species}`].value as number).toPrecision(2))).toBe(expected)
  })

  it('uses the exact km ratio, not the rounded Table 1 divisor, so a dog NOAEL of 10 mg/kg gives 5.4 and not 5.6 mg/kg', () => {
    const r = run({ noael: [noael('dog', 10)] })
    expect(r.outputs['hed.dog'].display).toBe('5.4 mg/kg')
    const t1 = r.how_computed.intermediate_values.find((v) => v.name === 'dog.hed_table1_divisor')!
    expect(Number((t1.value as number).toPrecision(2))).toBe(5.6)
    expect(r.outputs.hed_method.value).toMatch(/km ratio/)
  })

  it('keeps the transcribed Table 1 consistent: km is body weight over surface area, and the rounded columns match 37/km', () => {
    for (const row of FDA_2005_KM_TABLE) {
      expect(Math.abs(row.reference_body_weight_kg / row.body_surface_area_m2 - row.km) / row.km).toBeLessThan(0.06)
      if (row.table1_divide_by !== null) expect(Math.abs(37 / row.km - row.table1_divide_by)).toBeLessThan(0.1)
      if (row.table1_multiply_by !== null) expect(Math.abs(row.km / 37 - row.table1_multiply_by)).toBeLessThan(0.01)
    }
    expect(FDA_2005_KM_TABLE.find((r) => r.species === 'human')!.km).toBe(37)
  })

  it('takes the most sensitive species by default and divides its HED by a safety factor of 10', () => {
    const r = run({ noael: [noael('rat', 50), noael('dog', 10), noael('cynomolgus monkey', 30, 'mg/kg', { label: 'monkey' })] })
    expect(r.outputs.most_sensitive_species.value).toBe('dog')
    expect(r.outputs.selected_species.value).toBe('dog')
    expect(r.outputs.safety_factor.value).toBe(10)
    expect(r.outputs.mrsd.value).toBeCloseTo((10 * 20) / 37 / 10, 12)
    expect(r.outputs.mrsd.display).toBe('0.54 mg/kg')
    expect(r.outputs.mrsd_for_human_body_weight.value).toBeCloseTo(((10 * 20) / 37 / 10) * 60, 10)
    expect(r.outputs.mrsd_for_human_body_weight.unit_ucum).toBe('mg')
  })

  it('states the header, the two fixed warnings and the three cited references', () => {
    const r = run({ noael: [noael('rat', 50)] })
    expect(r.header).toBe('Projection for your decision, not a starting dose')
    expect(r.warnings).toContain('PAD/MABEL not computed')
    expect(r.warnings).toContain('exposure-based projection not computed')
    expect(r.reference_refs.map((x) => x.key)).toEqual(['fda_2005_mrsd', 'ema_2017_fih', 'ich_m3r2'])
    expect(r.method_line).toBe('Method: FIH dose projection, body surface area (km ratio) (FDA 2005 MRSD guidance, July 2005, retrieved 2026-09-15), version 2')
    expect(r.guidance_version).toBe('July 2005 (Pharmacology and Toxicology)')
    expect(r.retrieved_on).toBe('2026-09-15')
    expect(r.citations).toEqual([{ ref: 'tox-report:rat#noael', field: 'noael[0].citation' }])
  })

  it('lists the km table used with human and each species given', () => {
    const r = run({ noael: [noael('rat', 50), noael('dog', 10)] })
    const t = r.tables.km_table
    expect(t.rows.map((x) => x.km.value)).toEqual([37, 6, 20])
    expect(t.rows[1].table1_divide_by.value).toBe(6.2)
  })

  it('lists every intermediate value from the input dose to the MRSD', () => {
    const r = run({ noael: [noael('rat', 50)] })
    const names = r.how_computed.intermediate_values.map((v) => v.name)
    for (const n of ['human_km', 'human_body_weight', 'rat.noael_input', 'rat.noael', 'rat.km', 'rat.km_ratio', 'rat.hed', 'most_sensitive_species', 'selected_species', 'safety_factor', 'mrsd', 'mrsd_for_human_body_weight'])
      expect(names).toContain(n)
    expect(r.how_computed.rules_applied.some((x) => /2 significant figures/.test(x))).toBe(true)
  })

  it('converts ug/kg and g/kg NOAELs to mg/kg through UCUM', () => {
    const a = run({ noael: [noael('rat', 50000, 'ug/kg')] })
    const b = run({ noael: [noael('rat', 0.05, 'g/kg')] })
    expect(a.outputs['hed.rat'].value).toBeCloseTo((50 * 6) / 37, 12)
    expect(b.outputs['hed.rat'].value).toBeCloseTo((50 * 6) / 37, 12)
  })

  it('converts a mg/m2 NOAEL to mg/kg by dividing by the species km', () => {
    const r = run({ noael: [noael('dog', 200, 'mg/m2')] })
    const mgPerKg = r.how_computed.intermediate_values.find((v) => v.name === 'dog.noael')!
    expect(mgPerKg.value).toBe(10)
    expect(r.outputs['hed.dog'].value).toBeCloseTo((10 * 20) / 37, 12)
  })

  it('keeps per-day NOAELs per day and refuses a mix of per-day and per-administration doses', () => {
    const r = run({ noael: [noael('rat', 50, 'mg/kg/d')] })
    expect(r.outputs['hed.rat'].unit_ucum).toBe('mg/kg/d')
    expect(r.outputs.mrsd_for_human_body_weight.unit_ucum).toBe('mg/d')
    expectSkillError(() => run({ noael: [noael('rat', 50, 'mg/kg/d'), noael('dog', 10)] }), 'unit_mismatch', 'noael[1].dose.unit')
  })

  it('requires a rationale when the person selects a species other than the most sensitive one', () => {
    const base = { noael: [noael('rat', 50), noael('dog', 10)] }
    expectSkillError(() => run({ ...base, selected_species: { label: 'rat' } }), 'invalid_input', 'selected_species.rationale')
    expectSkillError(() => run({ ...base, selected_species: { label: 'rat', rationale: '   ' } }), 'invalid_input', 'selected_species.rationale')
    const r = run({ ...base, selected_species: { label: 'rat', rationale: 'dog toxicity is species-specific (emesis)' } })
    expect(r.outputs.selected_species.value).toBe('rat')
    expect(r.outputs.most_sensitive_species.value).toBe('dog')
    expect(r.outputs.mrsd.value).toBeCloseTo((50 * 6) / 37 / 10, 12)
    expect(r.outputs.selection_rationale.value).toBe('dog toxicity is species-specific (emesis)')
  })

  it('accepts the most sensitive species as a selection without a rationale', () => {
    const r = run({ noael: [noael('rat', 50), noael('dog', 10)], selected_species: { label: 'dog' } })
    expect(r.outputs.selected_species.value).toBe('dog')
  })

  it('requires a rationale for a safety factor below 10 and records a larger one', () => {
    expectSkillError(() => run({ noael: [noael('rat', 50)], safety_factor: 5 }), 'invalid_input', 'safety_factor_rationale')
    expectSkillError(() => run({ noael: [noael('rat', 50)], safety_factor: 0.5, safety_factor_rationale: 'x' }), 'invalid_input', 'safety_factor')
    const r = run({ noael: [noael('rat', 50)], safety_factor: 20 })
    expect(r.outputs.mrsd.value).toBeCloseTo((50 * 6) / 37 / 20, 12)
    expect(r.warnings.some((w) => /Safety factor 20/.test(w))).toBe(true)
  })

  it('lists the body-weight form as an intermediate when an input body weight is outside the Table 1 range', () => {
    const r = run({ noael: [noael('rat', 50, 'mg/kg', { body_weight: { value: 450, unit: 'g' } })] })
    const alt = r.how_computed.intermediate_values.find((v) => v.name === 'rat.hed_body_weight_form')!
    expect(alt.value).toBeCloseTo(50 * Math.pow(0.45 / 60, 0.33), 12)
    expect(r.outputs['hed.rat'].value).toBeCloseTo((50 * 6) / 37, 12)
    expect(r.warnings.some((w) => /working range/.test(w))).toBe(true)
  })

  it('uses an overridden human body weight for the total starting dose', () => {
    const r = run({ noael: [noael('rat', 50)], human_body_weight: { value: 70, unit: 'kg' } })
    expect(r.outputs.mrsd_for_human_body_weight.value).toBeCloseTo(((50 * 6) / 37 / 10) * 70, 10)
  })

  it('refuses a NOAEL without a unit with unit_required on its field', () => {
    expectSkillError(() => run({ noael: [noael('rat', 50), { species: 'dog', dose: { value: 10 }, citation: 'x' }] }), 'unit_required', 'noael[1].dose.unit')
    expectSkillError(() => run({ noael: [noael('rat', 50), noael('dog', 10, '')] }), 'unit_required', 'noael[1].dose.unit')
  })

  it('refuses a non-UCUM unit with unit_unsupported and a dose in the wrong kind of unit with unit_mismatch', () => {
    const e = expectSkillError(() => run({ noael: [noael('rat', 50, 'mcg/kg')] }), 'unit_unsupported', 'noael[0].dose.unit')
    expect(e.message).toMatch(/ug/)
    expectSkillError(() => run({ noael: [noael('rat', 50, 'mg')] }), 'unit_mismatch', 'noael[0].dose.unit')
    expectSkillError(() => run({ noael: [noael('rat', 50, '%')] }), 'unit_mismatch', 'noael[0].dose.unit')
    expectSkillError(() => run({ noael: [noael('rat', 50, 'mg/L')] }), 'unit_mismatch', 'noael[0].dose.unit')
    expectSkillError(() => run({ noael: [noael('rat', 50, '[IU]/kg')] }), 'unit_unsupported', 'noael[0].dose.unit')
    expectSkillError(() => run({ noael: [noael('rat', 50, 'umol/kg')] }), 'unit_unsupported', 'noael[0].dose.unit')
  })

  it('refuses an uncited NOAEL, an unknown species, a duplicate row and an unknown input field with invalid_input', () => {
    expectSkillError(() => run({ noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' } }] }), 'invalid_input', 'noael[0].citation')
    expectSkillError(() => run({ noael: [noael('cat', 5)] }), 'invalid_input', 'noael[0].species')
    expectSkillError(() => run({ noael: [noael('rat', 50), noael('rat', 40)] }), 'invalid_input', 'noael[1].species')
    expectSkillError(() => run({ noael: [noael('rat', 50)], safty_factor: 3 }), 'invalid_input', 'safty_factor')
    expectSkillError(() => run({ noael: [noael('rat', -5)] }), 'invalid_input', 'noael[0].dose.value')
    expectSkillError(() => runSkillSync(KEY, { noael: [noael('rat', 50)] }), 'invalid_input', 'route')
  })

  it('warns when a NOAEL route differs from the clinical route', () => {
    const r = run({ noael: [noael('rat', 50, 'mg/kg', { route: 'intravenous' })] })
    expect(r.warnings.some((w) => /differs from the clinical route/.test(w))).toBe(true)
  })
})
