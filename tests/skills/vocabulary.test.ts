import { describe, expect, it } from 'vitest'
import { SkillInputError } from '../../domain/skills'
import {
  convertUcum,
  displayUnit,
  HUMAN_KM,
  kindOf,
  readDose,
  readQuantity,
  resolveSpecies,
  SPECIES,
  validateUcum,
} from '../../domain/skills'
import { expectSkillError } from './helpers'

describe('vocabulary', () => {
  it('converts mass, concentration and AUC units through UCUM', () => {
    expect(convertUcum(1, 'ug/mL', 'mg/L')).toEqual({ ok: true, value: 1 })
    expect(convertUcum(1, 'ug.h/mL', 'h.ng/mL')).toEqual({ ok: true, value: 1000 })
    expect(convertUcum(2.5, 'h.ug/mL', 'h.ng/mL')).toEqual({ ok: true, value: 2500 })
    expect(convertUcum(60, 'min.ng/mL', 'h.ng/mL')).toEqual({ ok: true, value: 1 })
    expect(convertUcum(1, 'kg', 'mg')).toEqual({ ok: true, value: 1e6 })
    expect(convertUcum(1, 'umol/L', 'nmol/L')).toEqual({ ok: true, value: 1000 })
    expect(convertUcum(1, 'umol/L', 'ng/mL', 300)).toEqual({ ok: true, value: 300 })
  })

  it('normalises UCUM floating-point noise to 15 significant figures', () => {
    expect(convertUcum(1, 'mg/g', 'mg/kg')).toEqual({ ok: true, value: 1000 })
    expect(convertUcum(1, 'kg/mol', 'g/mol')).toEqual({ ok: true, value: 1000 })
  })

  it('refuses conversions UCUM refuses: mg/kg to mg/m2 needs a body weight, molar to mass a molecular weight', () => {
    expect(convertUcum(1, 'mg/kg', 'mg/m2').ok).toBe(false)
    const r = convertUcum(1, 'ug/mL', 'nmol/L')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toBe('needs_molecular_weight')
  })

  it('reads doses per kg, per m2 and per day in canonical units', () => {
    expect(readDose({ value: 500, unit: 'ug/kg' }, 'd')).toMatchObject({ basis: 'per_kg', per_day: false, value: 0.5, unit: 'mg/kg' })
    expect(readDose({ value: 1, unit: 'g/kg' }, 'd')).toMatchObject({ value: 1000, unit: 'mg/kg' })
    expect(readDose({ value: 100, unit: 'mg/m2' }, 'd')).toMatchObject({ basis: 'per_m2', value: 100, unit: 'mg/m2' })
    expect(readDose({ value: 1, unit: 'mg/cm2' }, 'd')).toMatchObject({ basis: 'per_m2', value: 10000 })
    expect(readDose({ value: 7, unit: 'mg/kg/wk' }, 'd')).toMatchObject({ per_day: true, value: 1, unit: 'mg/kg/d' })
  })

  it('classifies units by kind and tells an AUC from a concentration', () => {
    expect(kindOf('h.ng/mL')).toBe('auc_mass')
    expect(kindOf('ng/mL')).toBe('mass_concentration')
    expect(kindOf('nmol/L')).toBe('molar_concentration')
    expect(kindOf('h.nmol/L')).toBe('auc_molar')
    expect(kindOf('min')).toBe('time')
    expect(kindOf('MG')).toBeNull() // megagauss: UCUM is case-sensitive
  })

  it('raises unit_required, unit_unsupported, unit_mismatch and invalid_input with the field', () => {
    expectSkillError(() => readQuantity({ value: 1 }, 'human.auc', 'auc_mass'), 'unit_required', 'human.auc.unit')
    expectSkillError(() => readQuantity({ value: 1, unit: 'mcg' }, 'dose', 'mass'), 'unit_unsupported', 'dose.unit')
    expectSkillError(() => readQuantity({ value: 1, unit: 'MG' }, 'dose', 'mass'), 'unit_mismatch', 'dose.unit')
    expectSkillError(() => readQuantity({ value: 1, unit: 'ng/mL' }, 'x.auc', 'auc_mass'), 'unit_mismatch', 'x.auc.unit')
    expectSkillError(() => readQuantity({ value: Number.NaN, unit: 'mg' }, 'dose', 'mass'), 'invalid_input', 'dose.value')
    expectSkillError(() => readQuantity({ value: -1, unit: 'mg' }, 'dose', 'mass'), 'invalid_input', 'dose.value')
    expectSkillError(() => readDose({ value: 1, unit: 'mg/(kg.d)' }, 'noael[0].dose'), 'unit_unsupported', 'noael[0].dose.unit')
  })

  it('suggests UCUM codes for common non-UCUM spellings', () => {
    expect(validateUcum('mcg').suggestions[0]).toBe('ug')
    expect(validateUcum('nM').suggestions).toContain('nmol/L')
    expect(validateUcum('mg / kg').valid).toBe(false)
  })

  it('serialises SkillInputError as {code, field, message} with status 422', () => {
    const e = new SkillInputError('unit_mismatch', 'noael[1].dose.unit', 'm')
    expect(e.toJSON()).toEqual({ code: 'unit_mismatch', field: 'noael[1].dose.unit', message: 'm' })
    expect(e.status).toBe(422)
    expect(e).toBeInstanceOf(Error)
  })

  it('resolves species and aliases to FDA 2005 Table 1 rows with default body weights and km factors', () => {
    expect(resolveSpecies('Cynomolgus monkey', 'f').species).toBe('monkey')
    expect(resolveSpecies('Guinea pig', 'f')).toMatchObject({ km: 8, reference_body_weight_kg: 0.4 })
    expect(resolveSpecies('minipig', 'f')).toMatchObject({ km: 35, reference_body_weight_kg: 40 })
    expect(SPECIES.size).toBe(14)
    expect(HUMAN_KM).toBe(37)
    expectSkillError(() => resolveSpecies('cat', 'noael[2].species'), 'invalid_input', 'noael[2].species')
  })

  it('shows UCUM codes in display form', () => {
    expect(displayUnit('h.ng/mL')).toBe('h·ng/mL')
    expect(displayUnit('ug/kg')).toBe('µg/kg')
    expect(displayUnit('mg/m2')).toBe('mg/m²')
    expect(displayUnit('1')).toBe('fold')
  })
})
