import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { expectSkillError } from './helpers'

const KEY = 'tox.exposure_margin_table'
const human = { auc: { value: 250, unit: 'h.ng/mL' }, cmax: { value: 40, unit: 'ng/mL' }, citation: 'pk-projection:v2#table3' }
const run = (rows: unknown[], extra: Record<string, unknown> = {}) => runSkillSync(KEY, { noael_exposure: rows, human_projection: human, ...extra })

describe('tox.exposure_margin_table', () => {
  it('computes fold margins per species and endpoint after converting ug.h/mL and ug/mL to ng units', () => {
    const r = run([
      { species: 'rat', auc: { value: 2.5, unit: 'ug.h/mL' }, cmax: { value: 0.4, unit: 'ug/mL' }, citation: 'tk-rat#t2' },
      { species: 'dog', auc: { value: 1500, unit: 'ng.h/mL' }, cmax: { value: 120, unit: 'ng/mL' }, citation: 'tk-dog#t4' },
    ])
    expect(r.outputs['margin.rat.auc'].value).toBe(10)
    expect(r.outputs['margin.rat.cmax'].value).toBe(10)
    expect(r.outputs['margin.dog.auc'].value).toBe(6)
    expect(r.outputs['margin.dog.cmax'].value).toBe(3)
    expect(r.outputs['margin.dog.cmax'].display).toBe('3.00-fold')
    expect(r.outputs['margin.rat.auc'].unit_ucum).toBe('1')
    expect(r.outputs['lowest_margin.auc'].value).toBe(6)
    expect(r.outputs['lowest_margin.cmax.species'].value).toBe('dog')
    const rat = r.tables.margins.rows[0]
    expect(rat.auc.value).toBe(2500)
    expect(rat.auc.unit_ucum).toBe('h.ng/mL')
    expect(rat.auc.citation).toBe('tk-rat#t2')
    expect(r.citations.map((c) => c.field)).toEqual(['human_projection.citation', 'noael_exposure[0].citation', 'noael_exposure[1].citation'])
    expect(r.method_line).toBe('Method: Exposure margins at the NOAEL (fold) (ICH M3(R2), Step 4 2009, retrieved 2026-09-16), version 2')
  })

  it('accepts AUC units written time-first or time-last and in minutes', () => {
    const a = run([{ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' }])
    const b = run([{ species: 'rat', auc: { value: 2500, unit: 'ng.h/mL' }, citation: 'x' }])
    const c = run([{ species: 'rat', auc: { value: 150000, unit: 'min.ng/mL' }, citation: 'x' }])
    expect(a.outputs['margin.rat.auc'].value).toBe(10)
    expect(b.outputs['margin.rat.auc'].value).toBe(10)
    expect(c.outputs['margin.rat.auc'].value).toBe(10)
  })

  it('refuses an AUC given in a concentration unit, and a Cmax given in an AUC unit, with unit_mismatch', () => {
    const e = expectSkillError(() => run([{ species: 'rat', auc: { value: 2500, unit: 'ng/mL' }, citation: 'x' }]), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(e.message).toMatch(/concentration unit/)
    expectSkillError(() => run([{ species: 'rat', cmax: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' }]), 'unit_mismatch', 'noael_exposure[0].cmax.unit')
    expectSkillError(() => runSkillSync(KEY, { noael_exposure: [{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' }, citation: 'x' }], human_projection: { ...human, auc: { value: 1, unit: 'mg' } } }), 'unit_mismatch', 'human_projection.auc.unit')
  })

  it('refuses a missing unit with unit_required and a non-UCUM unit with unit_unsupported', () => {
    expectSkillError(() => run([{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' }, citation: 'x' }, { species: 'dog', cmax: { value: 1 }, citation: 'y' }]), 'unit_required', 'noael_exposure[1].cmax.unit')
    const e = expectSkillError(() => run([{ species: 'rat', cmax: { value: 1, unit: 'nM' }, citation: 'x' }]), 'unit_unsupported', 'noael_exposure[0].cmax.unit')
    expect(e.message).toMatch(/nmol\/L/)
  })

  it('needs a molecular weight to compare molar and mass units, and converts through UCUM when given', () => {
    const rows = [{ species: 'rat', auc: { value: 10, unit: 'h.umol/L' }, citation: 'x' }]
    expectSkillError(() => run(rows), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    const r = run(rows, { molecular_weight: { value: 250, unit: 'g/mol' } })
    expect(r.tables.margins.rows[0].auc.value).toBe(2500)
    expect(r.outputs['margin.rat.auc'].value).toBe(10)
  })

  it('refuses uncited rows, rows without any exposure and endpoints missing on the human side', () => {
    expectSkillError(() => run([{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' } }]), 'invalid_input', 'noael_exposure[0].citation')
    expectSkillError(() => run([{ species: 'rat', citation: 'x' }]), 'invalid_input', 'noael_exposure[0]')
    expectSkillError(
      () => runSkillSync(KEY, { noael_exposure: [{ species: 'rat', cmax: { value: 1, unit: 'ng/mL' }, citation: 'x' }], human_projection: { auc: human.auc, citation: 'h' } }),
      'invalid_input',
      'human_projection.cmax',
    )
  })

  it('warns when the animal and human matrices differ', () => {
    const r = run([{ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, matrix: 'serum', citation: 'x' }])
    expect(r.warnings.some((w) => /matrix serum differs/.test(w))).toBe(true)
  })

  it('keeps separate labelled rows for two sexes of one species', () => {
    const r = run([
      { species: 'rat', label: 'rat male', auc: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' },
      { species: 'rat', label: 'rat female', auc: { value: 5000, unit: 'h.ng/mL' }, citation: 'y' },
    ])
    expect(r.outputs['margin.rat_male.auc'].value).toBe(10)
    expect(r.outputs['margin.rat_female.auc'].value).toBe(20)
    expect(r.outputs['lowest_margin.auc.species'].value).toBe('rat male')
  })
})
