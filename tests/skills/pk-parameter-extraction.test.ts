import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { bestFitLambdaZ } from '../../domain/skills'
import { PK_GOLDEN_SYNTHETIC } from '../../domain/skills'
import { THEOPH_SUBJECT1_DOSE, THEOPH_SUBJECT1_REFERENCE as REF, THEOPH_SUBJECT1_ROWS, THEOPH_SUBJECT1_SOURCE } from './fixtures/theoph-subject1'
import { expectSig, expectSkillError } from './helpers'

const KEY = 'tox.pk_parameter_extraction'
const theoph = (extra: Record<string, unknown> = {}) =>
  runSkillSync(KEY, {
    rows: THEOPH_SUBJECT1_ROWS,
    time_unit: 'h',
    conc_unit: 'mg/L',
    dose: THEOPH_SUBJECT1_DOSE,
    route: 'oral',
    citation: THEOPH_SUBJECT1_SOURCE,
    ...extra,
  })

describe('tox.pk_parameter_extraction', () => {
  for (const method of ['linear', 'linear_up_log_down'] as const) {
    it(`matches every Theoph subject-1 reference value to 4 significant figures with the ${method} method`, () => {
      const r = theoph({ auc_method: method })
      const o = r.outputs
      for (const [k, v] of Object.entries(REF.common)) expectSig(o[k].value, v, 4)
      for (const [k, v] of Object.entries(REF[method])) expectSig(o[k].value, v, 4)
      expect(o.lambda_z_n_points.value).toBe(3)
      expect(o.auc_method.value).toBe(method)
    })
  }

  it('selects lambda_z from the last 3 points (9.05 to 24.37 h) with adjusted R2 0.9999995', () => {
    const o = theoph().outputs
    expect([o.lambda_z_t_lower.value, o.lambda_z_t_upper.value]).toEqual([9.05, 24.37])
    expectSig(o.lambda_z_adj_r2.value, REF.common.lambda_z_adj_r2, 7)
    expectSig(o.lambda_z.value, 0.048457, 5)
  })

  it('reports UCUM units for every parameter', () => {
    const o = theoph().outputs
    expect(o.cmax.unit_ucum).toBe('mg/L')
    expect(o.tmax.unit_ucum).toBe('h')
    expect(o.auclast.unit_ucum).toBe('h.mg/L')
    expect(o.auclast.unit_display).toBe('h·mg/L')
    expect(o.aucinf_obs.unit_ucum).toBe('h.mg/L')
    expect(o.auc_pct_extrap.unit_ucum).toBe('%')
    expect(o.lambda_z.unit_ucum).toBe('1/h')
    expect(o.half_life.unit_ucum).toBe('h')
    expect(o.cl_f.unit_ucum).toBe('L/h')
    expect(o.vz_f.unit_ucum).toBe('L')
  })

  it('lists every terminal fit tried, every AUC interval and the rules applied', () => {
    const r = theoph()
    const fits = r.tables.lambda_z_fits.rows
    expect(fits.map((f) => f.n_points.value)).toEqual([3, 4, 5, 6, 7])
    expect(fits.filter((f) => f.chosen.value).map((f) => f.n_points.value)).toEqual([3])
    expect(r.tables.auc_intervals.rows).toHaveLength(10)
    expect(r.tables.auc_intervals.rows.filter((x) => x.method.value === 'log')).toHaveLength(7)
    expect(r.how_computed.rules_applied.join('\n')).toMatch(/falling fits whose adjusted R2 is within 0.0001 of that best/)
    expect(r.how_computed.rules_applied.join('\n')).toMatch(/BLQ before Tmax counts as 0, BLQ after Tmax is dropped/)
    expect(r.warnings.some((w) => /31\.\d % \(above 20 %\)/.test(w))).toBe(true)
  })

  it('gives the same results from the same data expressed in min and ug/mL', () => {
    const r = runSkillSync(KEY, {
      rows: THEOPH_SUBJECT1_ROWS.map((x) => ({ time: x.time * 60, conc: x.conc })),
      time_unit: 'min',
      conc_unit: 'ug/mL',
      dose: { value: 0.32, unit: 'g' },
      route: 'oral',
    })
    expectSig(r.outputs.cl_f.value, REF.linear_up_log_down.cl_f, 6)
    expectSig(r.outputs.vz_f.value, REF.linear_up_log_down.vz_f, 6)
    expectSig(r.outputs.half_life.value, REF.common.half_life * 60, 6)
    expect(r.outputs.auclast.unit_ucum).toBe('min.ug/mL')
  })

  it('returns CL/F per kg when the dose is given per body weight', () => {
    const r = runSkillSync(KEY, { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 4.02, unit: 'mg/kg' }, route: 'oral' })
    expect(r.outputs.cl_f.unit_ucum).toBe('L/h/kg')
    expect(r.outputs.cl_f.value).toBeCloseTo(4.02 / REF.linear_up_log_down.aucinf_obs, 6)
  })

  it('applies the default BLQ rule: zero before Cmax, missing after', () => {
    const rows = [{ time: 0, conc: null, blq: true }, ...THEOPH_SUBJECT1_ROWS.slice(1, 10), { time: 15, conc: null, blq: true }, THEOPH_SUBJECT1_ROWS[10], { time: 36, conc: null, blq: true }]
    const r = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral' })
    const ref = runSkillSync(KEY, { rows: [{ time: 0, conc: 0 }, ...THEOPH_SUBJECT1_ROWS.slice(1)], time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral' })
    expect(r.outputs.auclast.value).toBe(ref.outputs.auclast.value)
    expect(r.outputs.tlast.value).toBe(24.37)
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'blq_rows_set_to_zero')!.value).toBe(1)
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'blq_rows_dropped')!.value).toBe(2)
    expect(r.outputs.lambda_z.value).toBe(ref.outputs.lambda_z.value)
    // 'zero' keeps the BLQ row at 15 h as 0: the AUC dips to zero between 12.12 and 24.37 h.
    const zero = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral', blq_rule: 'zero' })
    expect(zero.outputs.tlast.value).toBe(24.37)
    expect(zero.outputs.auclast.value as number).toBeLessThan(ref.outputs.auclast.value as number)
    const missing = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral', blq_rule: 'missing' })
    expect(missing.outputs.auclast.value).toBe(ref.outputs.auclast.value)
  })

  it('starts an extravascular profile without a time-0 row at (0, 0)', () => {
    const rows = THEOPH_SUBJECT1_ROWS.slice(1)
    const r = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral', auc_method: 'linear' })
    const first = r.tables.profile.rows[0]
    expect([first.time.value, first.conc.value, first.source.value]).toEqual([0, 0, 'assumed_zero'])
    expect(r.outputs.auclast.value).toBeCloseTo(REF.linear.auclast - ((0.74 + 2.84) / 2) * 0.25 + (2.84 / 2) * 0.25, 9)
  })

  it('back-extrapolates C0 for an IV bolus and integrates a mono-exponential decline exactly', () => {
    const k = 0.2
    const rows = [0.5, 1, 2, 4, 8, 12].map((t) => ({ time: t, conc: 10 * Math.exp(-k * t) }))
    const r = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'iv_bolus' })
    expect(r.outputs.c0.value).toBeCloseTo(10, 10)
    expect(r.outputs.lambda_z.value).toBeCloseTo(k, 10)
    expect(r.outputs.aucinf_obs.value).toBeCloseTo(10 / k, 8)
    expect(r.outputs.cl.value).toBeCloseTo(100 / (10 / k), 8)
    expect(r.outputs.vz.value).toBeCloseTo(100 / 10, 8)
    expect(r.outputs.lambda_z_n_points.value).toBe(6)
  })

  it('recovers the elimination rate of the synthetic one-compartment profile, which is no longer its golden reference', () => {
    const g = PK_GOLDEN_SYNTHETIC
    const c = (t: number) => ((g.bioavailability * g.dose_mg * g.ka_per_h) / (g.volume_l * (g.ka_per_h - g.ke_per_h))) * (Math.exp(-g.ke_per_h * t) - Math.exp(-g.ka_per_h * t))
    const rows = g.times_h.map((t) => ({ time: t, conc: c(t) }))
    const r = runSkillSync(KEY, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: g.dose_mg, unit: 'mg' }, route: 'oral' })
    // Noise-free data: the 1e-4 adjusted-R2 tolerance admits late-absorption points, so lambda_z
    // is within 0.5 % of ke (not 4 significant figures); AUCinf within 1 % of F*Dose/(V*ke).
    expect(Math.abs((r.outputs.lambda_z.value as number) / g.ke_per_h - 1)).toBeLessThan(0.005)
    const aucinf = (g.bioavailability * g.dose_mg) / (g.volume_l * g.ke_per_h)
    expect(Math.abs((r.outputs.aucinf_obs.value as number) / aucinf - 1)).toBeLessThan(0.01)
    expect(r.warnings.some((w) => /to_verify/.test(w))).toBe(false)
  })

  it('uses a manual lambda_z range when asked', () => {
    const r = theoph({ lambda_z_rule: { method: 'manual', start_time: 5, end_time: 24.37 } })
    expect(r.outputs.lambda_z_n_points.value).toBe(5)
    expect(r.outputs.lambda_z_t_lower.value).toBe(5.1)
    expectSkillError(() => theoph({ lambda_z_rule: { method: 'manual', start_time: 12 } }), 'invalid_input', 'lambda_z_rule.start_time')
  })

  it('keeps only negative slopes and prefers more points within the adjusted R2 tolerance', () => {
    // Exact mono-exponential: every k has adjusted R2 = 1, so the most points win.
    const t = [1, 2, 3, 4, 5]
    const c = t.map((x) => Math.exp(-0.3 * x))
    expect(bestFitLambdaZ(t, c).chosen!.n_points).toBe(5)
    // Rising tail: no negative slope, no lambda_z.
    expect(bestFitLambdaZ([1, 2, 3], [1, 2, 3]).chosen).toBeNull()
  })

  it('reports lambda_z as not estimated when fewer than 3 points follow Tmax', () => {
    const r = runSkillSync(KEY, { rows: [{ time: 0, conc: 0 }, { time: 1, conc: 5 }, { time: 2, conc: 8 }, { time: 4, conc: 6 }, { time: 8, conc: 3 }], time_unit: 'h', conc_unit: 'mg/L', dose: { value: 10, unit: 'mg' }, route: 'oral' })
    expect(r.outputs.lambda_z.value).toBeNull()
    expect(r.outputs.aucinf_obs.value).toBeNull()
    expect(r.outputs.cl_f.display).toBe('not computed')
    expect(r.warnings.some((w) => /lambda_z not estimable \(fewer than 3 positive points after Tmax\)/.test(w))).toBe(true)
  })

  it('cites no guidance reference and names the two published golden datasets of its validation record in the method line', () => {
    const r = theoph()
    expect(r.reference_refs).toEqual([])
    expect(r.guidance_version).toBeNull()
    expect(r.method_line).toMatch(/^Method: Non-compartmental analysis \(PKNCA best-fit terminal-phase \(λz\) rule, .*Theoph \(Boeckmann 1994\) and Indometh \(Kwan 1976\).*\), version 2$/)
  })

  it('refuses bad rows and units with typed errors on their fields', () => {
    const base = { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: THEOPH_SUBJECT1_DOSE, route: 'oral' }
    const rows = THEOPH_SUBJECT1_ROWS.map((x) => ({ ...x })) as Array<{ time: number; conc: number | null }>
    rows[2] = { time: 0.57, conc: null }
    expectSkillError(() => runSkillSync(KEY, { ...base, rows }), 'invalid_input', 'rows[2].conc')
    const unsorted = THEOPH_SUBJECT1_ROWS.map((x) => ({ ...x }))
    unsorted[3] = { time: 0.5, conc: 10.5 }
    expectSkillError(() => runSkillSync(KEY, { ...base, rows: unsorted }), 'invalid_input', 'rows[3].time')
    const { time_unit: _t, ...noTimeUnit } = base
    expectSkillError(() => runSkillSync(KEY, noTimeUnit), 'unit_required', 'time_unit')
    expectSkillError(() => runSkillSync(KEY, { ...base, conc_unit: 'h.mg/L' }), 'unit_mismatch', 'conc_unit')
    expectSkillError(() => runSkillSync(KEY, { ...base, conc_unit: 'nmol/L' }), 'unit_unsupported', 'conc_unit')
    expectSkillError(() => runSkillSync(KEY, { ...base, conc_unit: 'mg/l ' }), 'unit_unsupported', 'conc_unit')
    expectSkillError(() => runSkillSync(KEY, { ...base, time_unit: 'mg' }), 'unit_mismatch', 'time_unit')
    expectSkillError(() => runSkillSync(KEY, { ...base, dose: { value: 320, unit: 'mL' } }), 'unit_mismatch', 'dose.unit')
    const e = expectSkillError(() => runSkillSync(KEY, { ...base, route: 'extravascular' }), 'invalid_input', 'route')
    expect(e.message).toMatch(/NCA class, not a route/)
    expectSkillError(() => runSkillSync(KEY, { ...base, infusion_duration: { value: 1, unit: 'h' } }), 'invalid_input', 'infusion_duration')
  })
})
