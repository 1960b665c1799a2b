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

// A one-compartment oral profile (ka 1/h, ke 0.1/h), Tmax at 2 h; each test changes one thing and reads back what a
// pharmacologist sees: the refusal on its field, the warning word for word, or the parameter it changes.
const ORAL = [0, 1, 2, 4, 8, 12, 24].map((t) => ({ time: t, conc: t === 0 ? 0 : 10 * Math.exp(-0.1 * t) - 10 * Math.exp(-1 * t) }))
const nca = (extra: Record<string, unknown> = {}) =>
  runSkillSync(KEY, { rows: ORAL, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 10, unit: 'mg' }, route: 'oral', ...extra })
const at = (t: number, row: Record<string, unknown>) => ORAL.map((r) => (r.time === t ? { time: t, ...row } : r))
const notEstimable = (why: string, cl = 'CL/F, Vz/F') => `lambda_z not estimable (${why}): half-life, AUCinf, AUC % extrapolated, AUMCinf, MRTinf, ${cl} not reported.`

describe('tox.pk_parameter_extraction: refusals on rows, doses and units', () => {
  it('refuses a dose per body surface area or per day: the clearance needs mg or mg/kg', () => {
    for (const unit of ['mg/m2', 'mg/kg/d']) {
      const e = expectSkillError(() => nca({ dose: { value: 10, unit } }), 'unit_mismatch', 'dose.unit')
      expect(e.message).toBe(`'${unit}': give the dose as a mass (mg) or per body weight (mg/kg)`)
    }
  })

  it('refuses a negative time, a repeated time and a negative concentration, naming the row', () => {
    const neg = expectSkillError(() => nca({ rows: [{ time: -1, conc: 0 }, ...ORAL.slice(1)] }), 'invalid_input', 'rows[0].time')
    expect(neg.message).toBe('rows[0].time must be a finite number >= 0 (dose at time 0)')
    const repeated = expectSkillError(() => nca({ rows: [ORAL[0], ORAL[1], { time: 1, conc: 5 }, ...ORAL.slice(3)] }), 'invalid_input', 'rows[2].time')
    expect(repeated.message).toBe('rows[2].time must be greater than rows[1].time (times strictly increasing)')
    const conc = expectSkillError(() => nca({ rows: at(1, { conc: -1 }) }), 'invalid_input', 'rows[1].conc')
    expect(conc.message).toBe('rows[1].conc must be a finite number >= 0')
  })

  it('tells the user to mark a missing concentration blq: true or remove the row', () => {
    const e = expectSkillError(() => nca({ rows: at(4, { conc: null }) }), 'invalid_input', 'rows[3].conc')
    expect(e.message).toBe('rows[3].conc is null: mark the row blq: true or remove it')
  })

  it('refuses a profile with no concentration above 0', () => {
    const e = expectSkillError(() => nca({ rows: ORAL.map((r) => ({ ...r, conc: 0 })) }), 'invalid_input', 'rows')
    expect(e.message).toBe('no quantifiable concentration above 0')
  })

  it('takes the first of two equal highest concentrations as Cmax and Tmax', () => {
    const r = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 5 }, { time: 2, conc: 5 }, { time: 4, conc: 3 }, { time: 8, conc: 1 }, { time: 12, conc: 0.4 }] })
    expect([r.outputs.cmax.value, r.outputs.tmax.value]).toEqual([5, 1])
  })
})

describe('tox.pk_parameter_extraction: measured zeros where the BLQ rule would apply', () => {
  it('warns about one measured zero after Tmax and quotes the AUClast the BLQ rule would give', () => {
    const r = nca({ rows: at(12, { conc: 0 }) })
    const asBlq = nca({ rows: at(12, { conc: null, blq: true }) })
    expect(asBlq.warnings).toEqual([])
    const withIt = (r.outputs.auclast.value as number).toPrecision(4)
    const ifBlq = (asBlq.outputs.auclast.value as number).toPrecision(4)
    expect([withIt, ifBlq]).toEqual(['58.33', '79.75'])
    expect(r.warnings).toEqual([
      `A measured zero concentration at t = 12 h (row 5) is used as measured; the BLQ rule 'zero_before_cmax_missing_after' would drop it (after Tmax). AUClast is ${withIt} h·mg/L with it, ${ifBlq} if marked blq: true (26.9 % lower as measured). Mark samples below the limit of quantification blq: true.`,
    ])
  })

  it('says AUClast is the same either way for zeros after the last positive concentration, in the plural for several', () => {
    const r = nca({ rows: [...ORAL, { time: 36, conc: 0 }, { time: 48, conc: 0 }] })
    expect(r.warnings).toEqual([
      "Measured zero concentrations at t = 36, t = 48 h (rows 7, 8) are used as measured; the BLQ rule 'zero_before_cmax_missing_after' would drop them (after Tmax). AUClast is the same either way. Mark samples below the limit of quantification blq: true.",
    ])
    expect(r.outputs.auclast.value).toBe(nca().outputs.auclast.value)
  })

  it("under 'missing' warns about a measured zero before Tmax but not about the pre-dose zero, which stays (0, 0)", () => {
    const r = nca({ rows: [ORAL[0], { time: 0.5, conc: 0 }, ...ORAL.slice(1)], blq_rule: 'missing' })
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/^A measured zero concentration at t = 0\.5 h \(row 1\) is used as measured; the BLQ rule 'missing' would drop it\. AUClast is 78\.42 h·mg\/L with it, 79\.76 if marked blq: true \(1\.7 % lower as measured\)\./)
    expect(nca({ blq_rule: 'missing' }).warnings).toEqual([])
  })

  it("raises no such warning under the 'zero' rule, which treats BLQ as a measured zero", () => {
    expect(nca({ rows: at(12, { conc: 0 }), blq_rule: 'zero' }).warnings).toEqual([])
  })
})

describe('tox.pk_parameter_extraction: why lambda_z is not estimated, and the fit warnings', () => {
  it('names a rising or flat best-fitting terminal slope, with its points, range and adjusted R2', () => {
    const rising = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 1 }, { time: 4, conc: 2 }, { time: 8, conc: 3 }, { time: 12, conc: 4 }] })
    expect(rising.warnings).toEqual([
      notEstimable('the best-fitting terminal regression (3 points, 4 to 12 h, adjusted R2 0.9809) has a rising slope, and no falling fit has an adjusted R2 within 0.0001 of it'),
    ])
    expect(rising.outputs.lambda_z.value).toBeNull()
    const flat = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 2 }, { time: 4, conc: 2 }, { time: 8, conc: 2 }] })
    expect(flat.warnings).toEqual([
      notEstimable('the best-fitting terminal regression (3 points, 2 to 8 h, adjusted R2 1.0000) has a flat slope, and no falling fit has an adjusted R2 within 0.0001 of it'),
    ])
  })

  it('names a rising or flat manual range, and lists Vss among what an intravenous run does not report', () => {
    const manual = { method: 'manual', start_time: 2 }
    const rising = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 1 }, { time: 4, conc: 2 }, { time: 8, conc: 3 }], lambda_z_rule: manual })
    expect(rising.warnings).toEqual([notEstimable('the manual range has a rising slope')])
    const flat = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 2 }, { time: 4, conc: 2 }, { time: 8, conc: 2 }], lambda_z_rule: manual })
    expect(flat.warnings).toEqual([notEstimable('the manual range has a flat slope')])
    const iv = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 2 }, { time: 4, conc: 2 }, { time: 8, conc: 2 }], route: 'intravenous', lambda_z_rule: manual })
    expect(iv.warnings).toEqual([notEstimable('the manual range has a flat slope', 'CL, Vz, Vss')])
  })

  it('warns when a manual range reaches back to Tmax, or into an infusion', () => {
    const fromTmax = nca({ lambda_z_rule: { method: 'manual', start_time: 1 } })
    expect(fromTmax.warnings).toEqual(['The manual lambda_z range includes Tmax or earlier points.'])
    expect(fromTmax.outputs.lambda_z_n_points.value).toBe(6)
    const infusion = nca({ route: 'intravenous', infusion_duration: { value: 6, unit: 'h' }, lambda_z_rule: { method: 'manual', start_time: 2.5 } })
    expect(infusion.warnings).toEqual(['The manual lambda_z range includes points during the infusion.'])
    expect(nca({ route: 'intravenous', infusion_duration: { value: 3, unit: 'h' }, lambda_z_rule: { method: 'manual', start_time: 2.5 } }).warnings).toEqual([])
  })

  it('warns when more than 20 % of AUCinf is extrapolated', () => {
    const r = nca({ rows: ORAL.slice(0, 6) })
    expect(r.warnings).toEqual(['AUC % extrapolated is 34.7 % (above 20 %): AUCinf and the parameters derived from it rest largely on extrapolation.'])
    expect(r.outputs.auc_pct_extrap.value as number).toBeGreaterThan(20)
    expect(nca().warnings).toEqual([])
  })

  it('warns when more than 20 % of an IV bolus AUCinf lies before the first sample', () => {
    const r = nca({ rows: [4, 8, 12, 24].map((t) => ({ time: t, conc: 10 * Math.exp(-0.1 * t) })), route: 'intravenous' })
    expect(r.warnings).toEqual([
      'AUC % back-extrapolated is 33.0 % (above 20 %): the area before the first sample rests on the back-extrapolated C0; sample earlier after the bolus.',
    ])
    // C0 = 10 mg/L back-extrapolated; 0-4 h is 10 (1 - e^-0.4) / 0.1 of an AUCinf of 10 / 0.1.
    expectSig(r.outputs.auc_pct_back_extrap.value, 100 * (1 - Math.exp(-0.4)), 6)
  })

  it('warns when the terminal fit has an adjusted R2 below 0.9', () => {
    const r = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 4 }, { time: 4, conc: 5 }, { time: 8, conc: 1 }, { time: 12, conc: 1.5 }, { time: 24, conc: 0.3 }] })
    expect(r.warnings).toEqual(['Adjusted R2 of the terminal fit is 0.8171 (below 0.9).'])
    expectSig(r.outputs.lambda_z_adj_r2.value, 0.8171, 4)
  })
})

describe('tox.pk_parameter_extraction: the profile, C0 and the terminal fit as shown', () => {
  const ivValue = (r: ReturnType<typeof nca>, name: string) => r.how_computed.intermediate_values.find((v) => v.name === name)

  it('integrates an interval that falls to a measured zero with the linear trapezoid, and leaves the zero out of the fit', () => {
    const r = nca({ rows: at(12, { conc: 0 }) })
    const rows = r.tables.auc_intervals.rows.map((x) => [x.t1.value, x.t2.value, x.method.value])
    expect(rows).toEqual([
      [0, 1, 'linear'],
      [1, 2, 'linear'],
      [2, 4, 'log'],
      [4, 8, 'log'],
      [8, 12, 'linear'],
      [12, 24, 'linear'],
    ])
    expect(r.tables.auc_intervals.rows[4].area.value).toBeCloseTo(((ORAL[4].conc + 0) / 2) * 4, 12)
    expect([r.outputs.lambda_z_t_lower.value, r.outputs.lambda_z_t_upper.value, r.outputs.lambda_z_n_points.value]).toEqual([4, 24, 3])
    expect(r.tables.profile.rows.map((x) => x.in_lambda_z.value)).toEqual([false, false, false, true, true, false, true])
  })

  it('takes the concentration at the start of an infusion without a time-0 row as 0', () => {
    const r = nca({ rows: ORAL.slice(1), route: 'intravenous', infusion_duration: { value: 0.5, unit: 'h' } })
    expect(ivValue(r, 'c_at_time_0')).toEqual({ name: 'c_at_time_0', value: 0, unit_ucum: 'mg/L', note: 'no time-0 row: concentration at the start of the infusion taken as 0' })
  })

  it('takes the first concentration as C0 of a bolus whose first two samples do not decline', () => {
    const r = nca({ rows: [{ time: 0.5, conc: 5 }, { time: 1, conc: 8 }, { time: 2, conc: 6 }, { time: 4, conc: 4 }, { time: 8, conc: 2 }], route: 'intravenous' })
    expect(r.outputs.c0.value).toBe(5)
    expect(ivValue(r, 'c0')!.note).toBe('first two concentrations do not decline: C0 = first positive concentration')
  })

  it('uses a bolus concentration observed at time 0 as C0, with nothing back-extrapolated', () => {
    const r = nca({ rows: [{ time: 0, conc: 10 }, { time: 1, conc: 8 }, { time: 2, conc: 6 }, { time: 4, conc: 4 }, { time: 8, conc: 2 }], route: 'intravenous' })
    expect(r.outputs.c0.value).toBe(10)
    expect(r.outputs.auc_pct_back_extrap.value).toBe(0)
    expect(ivValue(r, 'auc_0_to_first_sample')).toEqual({ name: 'auc_0_to_first_sample', value: 0, unit_ucum: 'h.mg/L', note: 'C0 observed at time 0: nothing back-extrapolated' })
  })

  it('reports the back-extrapolated percentage, MRTinf and Vss of a bolus as not computed when lambda_z is not estimable', () => {
    const r = nca({ rows: [{ time: 1, conc: 8 }, { time: 2, conc: 6 }, { time: 4, conc: 7 }, { time: 8, conc: 9 }], route: 'intravenous' })
    expect(r.warnings).toEqual([notEstimable('fewer than 3 positive points from Tmax', 'CL, Vz, Vss')])
    for (const k of ['auc_pct_back_extrap', 'mrtinf_obs', 'vss', 'cl', 'aucinf_obs']) expect(r.outputs[k].display, k).toBe('not computed')
  })

  it("flags a measured zero at time 0 of a bolus under 'missing': dropping it would back-extrapolate C0", () => {
    const r = nca({ blq_rule: 'missing', route: 'intravenous' })
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/^A measured zero concentration at t = 0 h \(row 0\) is used as measured; the BLQ rule 'missing' would drop it\. /)
  })

  it('fits a manual range of exactly 3 points and shows it as the one fit kept, chosen and best', () => {
    const r = nca({ lambda_z_rule: { method: 'manual', start_time: 8 } })
    expect(r.outputs.lambda_z_n_points.value).toBe(3)
    expect(r.outputs.lambda_z_rule.value).toBe('manual (8 to Tlast h)')
    expect(r.tables.lambda_z_fits.rows.map((x) => [x.n_points.value, x.kept.value, x.chosen.value, x.best.value])).toEqual([[3, true, true, true]])
  })

  it('estimates lambda_z from exactly 3 points after Tmax, the minimum', () => {
    const r = nca({ rows: ORAL.slice(0, 6) })
    expect(ivValue(r, 'lambda_z_candidate_points')!.value).toBe(3)
    expect(r.outputs.lambda_z_n_points.value).toBe(3)
    expect([r.outputs.lambda_z_t_lower.value, r.outputs.lambda_z_t_upper.value]).toEqual([4, 12])
  })
})

describe('tox.pk_parameter_extraction: fields named in refusals, and which points are candidates for lambda_z', () => {
  it('names the field of a unit that is not UCUM, a zero dose and a zero or non-time infusion duration', () => {
    expectSkillError(() => nca({ time_unit: 'hour' }), 'unit_unsupported', 'time_unit')
    expectSkillError(() => nca({ dose: { value: 10, unit: 'mgs' } }), 'unit_unsupported', 'dose.unit')
    expectSkillError(() => nca({ dose: { value: 0, unit: 'mg' } }), 'invalid_input', 'dose.value')
    expectSkillError(() => nca({ route: 'intravenous', infusion_duration: { value: 0, unit: 'h' } }), 'invalid_input', 'infusion_duration.value')
    const e = expectSkillError(() => nca({ route: 'intravenous', infusion_duration: { value: 1, unit: 'mg' } }), 'unit_mismatch', 'infusion_duration.unit')
    expect(e.message).toBe("'mg' (milligram) is a mass unit, not a time (e.g. h) unit.")
  })

  it("drops a BLQ row before Tmax under 'missing' and sets it to 0 under the default rule", () => {
    const rows = [ORAL[0], { time: 0.5, conc: null, blq: true }, ...ORAL.slice(1)]
    const count = (r: ReturnType<typeof nca>) => ['blq_rows_set_to_zero', 'blq_rows_dropped'].map((n) => r.how_computed.intermediate_values.find((v) => v.name === n)!.value)
    const missing = nca({ rows, blq_rule: 'missing' })
    expect(count(missing)).toEqual([0, 1])
    expect(missing.tables.profile.rows.map((p) => p.time.value)).toEqual([0, 1, 2, 4, 8, 12, 24])
    const byDefault = nca({ rows })
    expect(count(byDefault)).toEqual([1, 0])
    expect(byDefault.tables.profile.rows[1]).toMatchObject({ time: { value: 0.5 }, conc: { value: 0 }, source: { value: 'blq_zero' } })
  })

  it('takes lambda_z candidates after Tmax and from the end of an infusion only', () => {
    const r = nca({ route: 'intravenous', infusion_duration: { value: 6, unit: 'h' } })
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'lambda_z_candidate_points')).toEqual({
      name: 'lambda_z_candidate_points',
      value: 3,
      note: 'positive observed points after Tmax and from the end of the infusion',
    })
    expect(r.outputs.lambda_z_t_lower.value).toBe(8)
  })

  it("leaves BLQ rows set to 0 under 'zero' and trailing measured zeros out of the lambda_z candidates", () => {
    const blq = nca({ rows: at(12, { conc: null, blq: true }), blq_rule: 'zero' })
    expect(blq.how_computed.intermediate_values.find((v) => v.name === 'lambda_z_candidate_points')!.value).toBe(3)
    expect([blq.outputs.lambda_z_t_lower.value, blq.outputs.lambda_z_t_upper.value]).toEqual([4, 24])
    const trailing = nca({ rows: [...ORAL, { time: 36, conc: 0 }, { time: 48, conc: 0 }] })
    expect(trailing.outputs.lambda_z.value).toBe(nca().outputs.lambda_z.value)
    expect(trailing.outputs.tlast.value).toBe(24)
  })
})

describe('tox.pk_parameter_extraction: C0 of a bolus, manual ranges and the measured-zero effect', () => {
  const c0Of = (rows: unknown[]) => {
    const r = nca({ rows, route: 'intravenous' })
    return [r.outputs.c0.value, r.how_computed.intermediate_values.find((v) => v.name === 'c0')!.note]
  }

  it('notes that an extravascular profile without a time-0 row starts from a pre-dose concentration of 0', () => {
    const r = nca({ rows: ORAL.slice(1) })
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'c_at_time_0')!.note).toBe('no time-0 row: pre-dose concentration taken as 0')
  })

  it('back-extrapolates C0 of a bolus from the first two positive concentrations, skipping a measured zero, even with only two', () => {
    const [skipping, note] = c0Of([{ time: 0.5, conc: 0 }, { time: 1, conc: 8 }, { time: 2, conc: 4 }, { time: 4, conc: 1 }])
    // Halving from 1 to 2 h: C0 = 8 x 2 = 16 mg/L.
    expect(skipping).toBeCloseTo(16, 12)
    expect(note).toBe('log-linear back-extrapolation from t=1 and t=2')
    const [onlyTwo] = c0Of([{ time: 1, conc: 8 }, { time: 2, conc: 4 }, { time: 4, conc: null, blq: true }])
    expect(onlyTwo).toBeCloseTo(16, 12)
  })

  it('does not back-extrapolate from two equal first concentrations', () => {
    expect(c0Of([{ time: 1, conc: 8 }, { time: 2, conc: 8 }, { time: 4, conc: 4 }, { time: 8, conc: 1 }])).toEqual([
      8,
      'first two concentrations do not decline: C0 = first positive concentration',
    ])
  })

  it('says when a measured zero makes AUClast higher than marking it BLQ would, and notes how the alternative was computed', () => {
    const r = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 20 }, { time: 2, conc: 15 }, { time: 4, conc: 12 }, { time: 8, conc: 10 }, { time: 12, conc: 0 }, { time: 24, conc: 0.001 }] })
    expect(r.warnings[0]).toMatch(/AUClast is 118\.2 h·mg\/L with it, 115\.5 if marked blq: true \(2\.3 % higher as measured\)\./)
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'auclast_if_zeros_marked_blq')!.note).toBe(
      "the 1 measured zero(s) marked blq: true under 'zero_before_cmax_missing_after'",
    )
  })

  it('fits a manual range only on positive observed points up to its end time, and marks those points in the profile', () => {
    const r = nca({ rows: at(12, { conc: 0 }), lambda_z_rule: { method: 'manual', start_time: 4 } })
    expect([r.outputs.lambda_z_n_points.value, r.outputs.lambda_z_t_lower.value, r.outputs.lambda_z_t_upper.value]).toEqual([3, 4, 24])
    const toTwelve = nca({ lambda_z_rule: { method: 'manual', start_time: 2.5, end_time: 12 } })
    expect([toTwelve.outputs.lambda_z_n_points.value, toTwelve.outputs.lambda_z_t_upper.value]).toEqual([3, 12])
    expect(toTwelve.outputs.lambda_z_rule.value).toBe('manual (2.5 to 12 h)')
    expect(toTwelve.tables.profile.rows.map((p) => p.in_lambda_z.value)).toEqual([false, false, false, true, true, true, false])
  })

  it('shows a rising manual fit as neither kept nor chosen', () => {
    const r = nca({ rows: [{ time: 0, conc: 0 }, { time: 1, conc: 9 }, { time: 2, conc: 1 }, { time: 4, conc: 2 }, { time: 8, conc: 3 }], lambda_z_rule: { method: 'manual', start_time: 2 } })
    expect(r.tables.lambda_z_fits.rows.map((x) => [x.kept.value, x.chosen.value, x.best.value])).toEqual([[false, false, true]])
  })

  it('warns about a manual range that starts at Tmax itself, but not about one that starts at the end of the infusion', () => {
    expect(nca({ lambda_z_rule: { method: 'manual', start_time: 2 } }).warnings).toEqual(['The manual lambda_z range includes Tmax or earlier points.'])
    expect(nca({ route: 'intravenous', infusion_duration: { value: 4, unit: 'h' }, lambda_z_rule: { method: 'manual', start_time: 4 } }).warnings).toEqual([])
  })
})
