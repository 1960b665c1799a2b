import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { describe, expect, it } from 'vitest'
import { computeInputsHash, outputViolations, runSkillSync, skillResultJson } from '../../domain/skills'
import { THEOPH_SUBJECT1_DOSE, THEOPH_SUBJECT1_ROWS } from './fixtures/theoph-subject1'
import { check, requirementSet } from './fixtures/readiness'

const fih = { noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox:rat' }, { species: 'dog', dose: { value: 10, unit: 'mg/kg' }, citation: 'tox:dog' }], route: 'oral' }
const nca = { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral' }

const cases: Array<[string, Record<string, unknown>]> = [
  ['tox.fih_dose_projection', fih],
  ['tox.pk_parameter_extraction', nca],
  ['tox.exposure_margin_table', { noael_exposure: [{ species: 'rat', auc: { value: 2.5, unit: 'ug.h/mL' }, citation: 'x' }], human_projection: { auc: { value: 250, unit: 'h.ng/mL' }, citation: 'h' } }],
  ['evidence.assertion_lint', { text: 'AUC rose 3-fold. This suggests saturation.' }],
  ['qa.check_readiness', { check, requirement_set: requirementSet }],
]

describe('determinism', () => {
  it.each(cases)('gives byte-identical JSON and the same inputs_hash for the same inputs (%s)', (key, inputs) => {
    const a = runSkillSync(key, structuredClone(inputs), ['memo:1'])
    const b = runSkillSync(key, structuredClone(inputs), ['memo:1'])
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
    expect(skillResultJson(b)).toBe(skillResultJson(a))
    expect(b.inputs_hash).toBe(a.inputs_hash)
    expect(outputViolations(a)).toEqual([])
  })

  it('hashes the RFC 8785 canonical JSON of {skill_key, check_logic_version, inputs, citations}', () => {
    const r = runSkillSync('tox.fih_dose_projection', fih, ['memo:1'])
    const expected = createHash('sha256')
      .update(canonicalize({ skill_key: 'tox.fih_dose_projection', check_logic_version: 2, inputs: fih, citations: ['memo:1'] })!)
      .digest('hex')
    expect(r.inputs_hash).toBe(expected)
    expect(r.inputs_hash).toBe(computeInputsHash('tox.fih_dose_projection', 2, fih, ['memo:1']))
    expect(r.citations[0]).toEqual({ ref: 'memo:1', field: 'citations[0]' })
  })

  it('gives the same hash and output whatever the key order of the inputs', () => {
    const reordered = { route: 'oral', noael: fih.noael.map((n) => ({ citation: n.citation, dose: { unit: n.dose.unit, value: n.dose.value }, species: n.species })) }
    const a = runSkillSync('tox.fih_dose_projection', fih)
    const b = runSkillSync('tox.fih_dose_projection', reordered)
    expect(b.inputs_hash).toBe(a.inputs_hash)
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
  })

  it('gives a different hash for different inputs or citations', () => {
    const a = runSkillSync('tox.fih_dose_projection', fih)
    const changed = structuredClone(fih)
    changed.noael[0].dose.value = 51
    const b = runSkillSync('tox.fih_dose_projection', changed)
    const c = runSkillSync('tox.fih_dose_projection', fih, ['memo:2'])
    expect(b.inputs_hash).not.toBe(a.inputs_hash)
    expect(c.inputs_hash).not.toBe(a.inputs_hash)
    expect(JSON.stringify(b.outputs)).not.toBe(JSON.stringify(a.outputs))
  })

  it('reports output violations for undeclared outputs, non-finite numbers and non-UCUM units', () => {
    const r = runSkillSync('tox.fih_dose_projection', fih)
    const bad = { ...r, outputs: { ...r.outputs, surprise: { value: 1 }, mrsd: { ...r.outputs.mrsd, value: Number.NaN, unit_ucum: 'MGG' } } }
    expect(outputViolations(bad)).toEqual(['mrsd: value is not a finite number', "mrsd: unit 'MGG' is not valid UCUM", 'surprise: not a declared output field'])
  })

  it('keeps full precision in values and rounds only the display text', () => {
    const r = runSkillSync('tox.fih_dose_projection', fih)
    expect(r.outputs['hed.rat'].value).toBe((50 * 6) / 37)
    expect(r.outputs['hed.rat'].display).toBe('8.1 mg/kg')
  })
})
