// Golden tests of tox.pk_parameter_extraction on the two published datasets it cites (issue 30):
// theophylline (Boeckmann, Sheiner and Beal 1994; R datasets::Theoph; 12 subjects, oral) and
// indomethacin (Kwan et al. 1976; R datasets::Indometh; 6 subjects, intravenous, as a bolus and as a
// 0.25 h infusion), against the published Phoenix WinNonlin 6.3/7.0 results (nca-golden.ts).
import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { NCA_GOLDEN_INDOMETH as INDO, NCA_GOLDEN_THEOPH as THEO, type GoldenResult, type GoldenSubject } from '../../domain/skills'
import { getReference, getValidationRecord } from '../../domain/skills'

const KEY = 'tox.pk_parameter_extraction'
const METHODS = ['linear', 'linear_up_log_down'] as const
const rowsOf = (s: GoldenSubject) => s.rows.map(([time, conc]) => ({ time, conc }))

/**
 * The report prints 7 decimals and at most 10 significant digits: agreement is within half a unit
 * of the last printed digit, plus 1e-9 relative (WinNonlin and this skill agree to about 1e-9 on Theoph).
 */
function expectPublished(actual: unknown, published: number, what: string): void {
  expect(typeof actual, what).toBe('number')
  const a = Math.abs(published)
  const intDigits = a >= 1 ? Math.floor(Math.log10(a)) + 1 : 0
  const half = 0.5 * 10 ** -Math.min(7, 10 - intDigits)
  expect(Math.abs((actual as number) - published), `${what}: ${actual} vs published ${published}`).toBeLessThanOrEqual(half + 1e-9 * a)
}

function expectAll(outputs: Record<string, { value: unknown }>, ref: GoldenResult, label: string): number {
  let n = 0
  for (const [k, v] of Object.entries(ref)) {
    expect(outputs[k], `${label} ${k} missing`).toBeDefined()
    expectPublished(outputs[k].value, v, `${label} ${k}`)
    n++
  }
  return n
}

describe('NCA golden references: Theoph and Indometh against published Phoenix WinNonlin results', () => {
  for (const method of METHODS) {
    it(`equals WinNonlin for all 12 theophylline subjects (oral, 320 mg) with the ${method} method, every reported parameter`, () => {
      let checked = 0
      THEO.subjects.forEach((s, i) => {
        const r = runSkillSync(KEY, { rows: rowsOf(s), time_unit: THEO.time_unit, conc_unit: THEO.conc_unit, dose: THEO.dose, route: THEO.route, auc_method: method, citation: 'datasets::Theoph' })
        checked += expectAll(r.outputs, THEO.winnonlin[method][i], `Theoph ${s.subject}`)
        expect(r.outputs.administration.value).toBe('extravascular')
      })
      expect(checked).toBe(12 * 20)
    })

    it(`equals WinNonlin for all 6 indomethacin subjects as an intravenous bolus (25 mg) with the ${method} method, C0, AUC % back-extrapolated, MRT and Vss included`, () => {
      let checked = 0
      INDO.subjects.forEach((s, i) => {
        const r = runSkillSync(KEY, { rows: rowsOf(s), time_unit: INDO.time_unit, conc_unit: INDO.conc_unit, dose: INDO.dose, route: INDO.route, auc_method: method })
        checked += expectAll(r.outputs, INDO.winnonlin.bolus[method][i], `Indometh bolus ${s.subject}`)
        expect(r.outputs.administration.value).toBe('intravenous bolus')
      })
      expect(checked).toBe(6 * 23)
    })

    it(`equals WinNonlin for all 6 indomethacin subjects as a 0.25 h intravenous infusion with the ${method} method`, () => {
      let checked = 0
      INDO.subjects.forEach((s, i) => {
        const r = runSkillSync(KEY, { rows: rowsOf(s), time_unit: INDO.time_unit, conc_unit: INDO.conc_unit, dose: INDO.dose, route: INDO.route, infusion_duration: INDO.infusion_duration, auc_method: method })
        checked += expectAll(r.outputs, INDO.winnonlin.infusion[method][i], `Indometh infusion ${s.subject}`)
        expect(r.outputs.administration.value).toBe('intravenous infusion')
        expect(r.outputs.c0).toBeUndefined()
      })
      expect(checked).toBe(6 * 21)
    })
  }

  it('flags AUC % back-extrapolated above 20 % for the 4 of the 6 bolus subjects the published results put above 20 %', () => {
    const flagged = INDO.subjects.filter((s) => {
      const r = runSkillSync(KEY, { rows: rowsOf(s), time_unit: 'h', conc_unit: 'mg/L', dose: INDO.dose, route: 'intravenous' })
      return r.warnings.some((w) => /^AUC % back-extrapolated is \d+\.\d % \(above 20 %\)/.test(w))
    })
    const published = INDO.winnonlin.bolus.linear_up_log_down.map((x, i) => [INDO.subjects[i].subject, x.auc_pct_back_extrap] as const).filter(([, p]) => p > 20)
    expect(flagged.map((s) => s.subject)).toEqual(published.map(([s]) => s))
    expect(flagged).toHaveLength(4)
  })

  it('keeps both datasets as the skill\'s validation record, whose constants are the data the golden tests run', () => {
    const t = getValidationRecord('nca_golden_theoph')!
    const i = getValidationRecord('nca_golden_indometh')!
    expect([getReference('nca_golden_theoph'), getReference('nca_golden_indometh')]).toEqual([undefined, undefined])
    expect(t.constants).toBe(THEO)
    expect(i.constants).toBe(INDO)
    expect(t.publisher).toMatch(/Boeckmann.*Sheiner.*Beal.*1994.*datasets::Theoph/)
    expect(i.publisher).toMatch(/Kwan.*1976.*datasets::Indometh/)
    // The transcription is pinned: a change to any value changes this hash.
    expect(t.constants_sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(THEO.subjects.map((s) => s.rows.length)).toEqual(Array(12).fill(11))
    expect(INDO.subjects.map((s) => s.rows.length)).toEqual(Array(6).fill(11))
  })
})
