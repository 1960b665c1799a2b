// Issue 30, 'Skills a pharmacometrician could leave unattended': one block per item, each answer
// computed here independently (closed-form arithmetic or a separate plain implementation), never by
// calling the skill for the expected value.
import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { expectSkillError } from './helpers'

const NCA = 'tox.pk_parameter_extraction'
const FIH = 'tox.fih_dose_projection'
const EMT = 'tox.exposure_margin_table'

/** Plain least squares of ln(c) on t with adjusted R2, written independently of the skill. */
function fit(t: number[], c: number[]) {
  const n = t.length
  const y = c.map(Math.log)
  const mx = t.reduce((a, b) => a + b, 0) / n
  const my = y.reduce((a, b) => a + b, 0) / n
  let sxx = 0
  let sxy = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    sxx += (t[i] - mx) ** 2
    sxy += (t[i] - mx) * (y[i] - my)
    syy += (y[i] - my) ** 2
  }
  const r2 = (sxy * sxy) / (sxx * syy)
  return { n, slope: sxy / sxx, adj: 1 - ((1 - r2) * (n - 1)) / (n - 2) }
}

/** Linear trapezoidal AUC of (t, c) pairs, written independently of the skill. */
const trapezoid = (p: Array<[number, number]>) => p.slice(1).reduce((a, [t, c], i) => a + ((c + p[i][1]) / 2) * (t - p[i][0]), 0)

describe('issue 30: skills a pharmacometrician could leave unattended', () => {
  describe('1. a rising terminal phase', () => {
    // Declines to 1 mg/L at 12 h, then rises exactly log-linearly (1, 1.5, 3.375 mg/L at 12, 16, 24 h).
    const times = [0, 1, 2, 4, 6, 8, 12, 16, 24]
    const conc = [0, 8, 10, 7, 5, 3, 1, 1.5, 3.375]
    const rows = times.map((time, i) => ({ time, conc: conc[i] }))

    it('reports no half-life, AUCinf, CL/F or Vz/F when the best-fitting terminal regression rises, even though poorer falling fits exist', () => {
      // Candidates: the points after Tmax (2 h). Every last-k fit, k >= 3, computed here.
      const ct = times.slice(3)
      const cc = conc.slice(3)
      const fits = [3, 4, 5, 6].map((k) => fit(ct.slice(-k), cc.slice(-k)))
      const best = fits.reduce((a, b) => (b.adj > a.adj ? b : a))
      expect(best).toMatchObject({ n: 3 })
      expect(best.slope).toBeGreaterThan(0)
      expect(fits.some((f) => f.slope < 0)).toBe(true) // a falling fit was there to be (wrongly) taken
      expect(fits.filter((f) => f.slope < 0).every((f) => best.adj - f.adj >= 1e-4)).toBe(true)

      const r = runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral' })
      for (const k of ['lambda_z', 'half_life', 'aucinf_obs', 'auc_pct_extrap', 'cl_f', 'vz_f', 'mrtinf_obs']) expect(r.outputs[k].value, k).toBeNull()
      expect(r.outputs.lambda_z_n_points.value).toBe(0)
      expect(r.warnings).toContainEqual(expect.stringMatching(/^lambda_z not estimable \(the best-fitting terminal regression \(3 points, 12 to 24 h, adjusted R2 1\.0000\) has a rising slope, and no falling fit has an adjusted R2 within 0\.0001 of it\): half-life, AUCinf/))
      const table = r.tables.lambda_z_fits.rows
      expect(table.filter((x) => x.best.value).map((x) => x.n_points.value)).toEqual([3])
      expect(table.filter((x) => x.chosen.value)).toEqual([])
      // AUClast does not depend on lambda_z: the linear-up/log-down sum computed here.
      let auc = 0
      for (let i = 1; i < times.length; i++) {
        const [t1, t2, c1, c2] = [times[i - 1], times[i], conc[i - 1], conc[i]]
        auc += c2 < c1 && c2 > 0 ? ((c1 - c2) / Math.log(c1 / c2)) * (t2 - t1) : ((c1 + c2) / 2) * (t2 - t1)
      }
      expect(r.outputs.auclast.value as number).toBeCloseTo(auc, 10)
    })

    it('states the rule chosen and which published implementation does which in the rules applied', () => {
      const r = runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral' })
      const rule = r.how_computed.rules_applied.find((x) => x.startsWith('lambda_z:'))!
      expect(rule).toMatch(/Rule chosen: the best adjusted R2 is taken over every fit, rising ones included/)
      expect(rule).toMatch(/PKNCA's rule/)
      expect(rule).toMatch(/Phoenix WinNonlin's best fit takes the largest adjusted R2 over the last >= 3 points excluding Cmax/)
    })

    it('still takes the falling fit with the most points within 1e-4 of the best when the tail declines', () => {
      // Exact mono-exponential after Tmax: every fit has adjusted R2 1, so all 5 candidate points are used.
      const t = [0, 1, 2, 3, 4, 6, 8]
      const c = t.map((x) => (x === 0 ? 0 : x === 1 ? 20 : 10 * Math.exp(-0.25 * (x - 2))))
      const r = runSkillSync(NCA, { rows: t.map((time, i) => ({ time, conc: c[i] })), time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral' })
      expect(r.outputs.lambda_z_n_points.value).toBe(5)
      expect(r.outputs.lambda_z.value as number).toBeCloseTo(0.25, 12)
      expect(r.outputs.half_life.value as number).toBeCloseTo(Math.LN2 / 0.25, 12)
    })
  })

  describe('2. ties in the most sensitive species', () => {
    it('takes the first row for equal rat and dog NOAELs in mg/m2, for every whole number from 1 to 1000, both orders', () => {
      const wrong: number[] = []
      for (let n = 1; n <= 1000; n++) {
        for (const order of [['rat', 'dog'], ['dog', 'rat']]) {
          const r = runSkillSync(FIH, { route: 'oral', noael: order.map((species) => ({ species, dose: { value: n, unit: 'mg/m2' }, citation: `tox:${species}` })) })
          // HED = NOAEL (mg/m2) / human km 37 (FDA 2005): the same for both species.
          if (r.outputs.most_sensitive_species.value !== order[0] || r.outputs['hed.rat'].value !== n / 37 || r.outputs['hed.dog'].value !== n / 37) wrong.push(n)
        }
      }
      expect(wrong).toEqual([])
    })

    it('treats mg/kg HEDs within a relative 1e-9 as a tie and takes the first row, while still telling apart HEDs that differ', () => {
      const r = runSkillSync(FIH, { route: 'oral', noael: [{ species: 'dog', dose: { value: 10, unit: 'mg/kg' }, citation: 'a' }, { species: 'rat', dose: { value: 30, unit: 'mg/kg' }, citation: 'b' }] })
      // dog 10 x 20/37 = 5.405..., rat 30 x 6/37 = 4.864...: the rat is more sensitive.
      expect(r.outputs.most_sensitive_species.value).toBe('rat')
      // dog 7 mg/kg x 20/37 and rat 70/3 mg/kg x 6/37 are both 140/37; in doubles the rat's is one
      // rounding step lower. Within the relative 1e-9 it is a tie, so the first row (dog) is taken.
      const hedDog = 7 * (20 / 37)
      const hedRat = (70 / 3) * (6 / 37)
      expect(hedRat).toBeLessThan(hedDog)
      expect(Math.abs(hedDog - hedRat) / hedDog).toBeLessThan(1e-9)
      const tie = runSkillSync(FIH, { route: 'oral', noael: [{ species: 'dog', dose: { value: 7, unit: 'mg/kg' }, citation: 'a' }, { species: 'rat', dose: { value: 70 / 3, unit: 'mg/kg' }, citation: 'b' }] })
      expect(tie.outputs.most_sensitive_species.value).toBe('dog')
    })
  })

  describe('3. BLQ written as 0', () => {
    const rows = [[0, 0], [0.5, 5], [1, 8], [2, 6], [4, 4], [8, 0], [12, 1.5], [24, 0.8]].map(([time, conc]) => ({ time, conc }))

    it('warns when a measured zero after Tmax is used where the BLQ rule would drop it, and gives AUClast both ways', () => {
      const asMeasured = trapezoid(rows.map((r) => [r.time, r.conc]))
      const asBlq = trapezoid(rows.filter((r) => r.time !== 8).map((r) => [r.time, r.conc]))
      expect([asMeasured, asBlq]).toEqual([46.3, 57.3].map((x) => expect.closeTo(x, 10)))
      const r = runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral', auc_method: 'linear' })
      expect(r.outputs.auclast.value as number).toBeCloseTo(asMeasured, 10)
      const pct = (100 * (asBlq - asMeasured)) / asBlq
      expect(r.warnings).toContain(
        `A measured zero concentration at t = 8 h (row 5) is used as measured; the BLQ rule 'zero_before_cmax_missing_after' would drop it (after Tmax). AUClast is 46.30 h·mg/L with it, 57.30 if marked blq: true (${pct.toFixed(1)} % lower as measured). Mark samples below the limit of quantification blq: true.`,
      )
      const ivs = Object.fromEntries(r.how_computed.intermediate_values.map((v) => [v.name, v.value]))
      expect(ivs.measured_zeros_where_blq_rule_applies).toBe(1)
      expect(ivs.auclast_if_zeros_marked_blq as number).toBeCloseTo(asBlq, 10)
      expect(r.how_computed.rules_applied.join('\n')).toMatch(/the result warns \(it does not refuse\)/)
    })

    it('says nothing of a pre-dose zero, which the BLQ rule would also count as 0, nor under the zero rule', () => {
      const clean = rows.filter((r) => r.time !== 8)
      const r = runSkillSync(NCA, { rows: clean, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral' })
      expect(r.warnings.some((w) => /measured zero/i.test(w))).toBe(false)
      const z = runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route: 'oral', blq_rule: 'zero' })
      expect(z.warnings.some((w) => /measured zero/i.test(w))).toBe(false)
    })
  })

  describe('4. intravenous bolus and infusion', () => {
    const C0 = 10
    const k = 0.2
    const dose = 100

    it('reports AUC % back-extrapolated, MRT and Vss for a bolus, equal to the closed form of a mono-exponential', () => {
      const times = [0.5, 1, 2, 4, 8, 12, 24]
      const rows = times.map((time) => ({ time, conc: C0 * Math.exp(-k * time) }))
      const o = runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: dose, unit: 'mg' }, route: 'intravenous' }).outputs
      // C(t) = C0 e^-kt: AUCinf = C0/k, AUMCinf = C0/k^2, MRT = 1/k, CL = dose k/C0, Vss = Vz = dose/C0.
      expect(o.c0.value as number).toBeCloseTo(C0, 10)
      expect(o.auc_pct_back_extrap.value as number).toBeCloseTo(100 * (1 - Math.exp(-k * 0.5)), 8)
      expect(o.aumcinf_obs.value as number).toBeCloseTo(C0 / k ** 2, 8)
      expect(o.mrtinf_obs.value as number).toBeCloseTo(1 / k, 9)
      expect(o.cl.value as number).toBeCloseTo((dose * k) / C0, 10)
      expect(o.vss.value as number).toBeCloseTo(dose / C0, 8)
      expect(o.vz.value as number).toBeCloseTo(dose / C0, 8)
      expect(o.administration.value).toBe('intravenous bolus')
    })

    it('flags AUC % back-extrapolated above 20 % and reports 0 when C0 is observed at time 0', () => {
      const late = [2, 4, 8, 12].map((time) => ({ time, conc: C0 * Math.exp(-k * time) }))
      const r = runSkillSync(NCA, { rows: late, time_unit: 'h', conc_unit: 'mg/L', dose: { value: dose, unit: 'mg' }, route: 'intravenous' })
      const pct = 100 * (1 - Math.exp(-k * 2))
      expect(pct).toBeGreaterThan(20)
      expect(r.warnings).toContainEqual(expect.stringMatching(new RegExp(`^AUC % back-extrapolated is ${pct.toFixed(1)} % \\(above 20 %\\)`)))
      const observed = runSkillSync(NCA, { rows: [{ time: 0, conc: C0 }, ...late], time_unit: 'h', conc_unit: 'mg/L', dose: { value: dose, unit: 'mg' }, route: 'intravenous' })
      expect(observed.outputs.auc_pct_back_extrap.value).toBe(0)
    })

    it('supports an infusion given its duration: no point during the infusion in lambda_z, MRT less half the duration, Vss near V', () => {
      // One compartment, V = 10 L, k = 0.2 /h, 100 mg over T = 1 h.
      const V = 10
      const T = 1
      const c = (t: number) => (t <= T ? (dose / T / (k * V)) * (1 - Math.exp(-k * t)) : (dose / T / (k * V)) * (1 - Math.exp(-k * T)) * Math.exp(-k * (t - T)))
      const times = [0.25, 0.5, 1, 2, 4, 8, 12, 24]
      const r = runSkillSync(NCA, { rows: times.map((time) => ({ time, conc: c(time) })), time_unit: 'h', conc_unit: 'mg/L', dose: { value: dose, unit: 'mg' }, route: 'intravenous', infusion_duration: { value: 60, unit: 'min' } })
      const o = r.outputs
      expect(o.administration.value).toBe('intravenous infusion')
      expect(o.infusion_duration.value).toBe(1)
      expect(o.lambda_z.value as number).toBeCloseTo(k, 10)
      expect(o.lambda_z_t_lower.value).toBe(2)
      // Closed form: AUCinf = dose/(kV), MRT = 1/k, Vss = V; only the rising part is trapezoidal.
      expect(Math.abs((o.aucinf_obs.value as number) / (dose / (k * V)) - 1)).toBeLessThan(0.002)
      expect(Math.abs((o.mrtinf_obs.value as number) * k - 1)).toBeLessThan(0.005)
      expect(Math.abs((o.vss.value as number) / V - 1)).toBeLessThan(0.005)
      // MRT = AUMC/AUC - T/2, from the skill's own AUC and AUMC.
      expect(o.mrtinf_obs.value as number).toBeCloseTo((o.aumcinf_obs.value as number) / (o.aucinf_obs.value as number) - T / 2, 12)
      expect(o.c0).toBeUndefined()
    })
  })

  describe('5. one route vocabulary', () => {
    const rows = [0.5, 1, 2, 4, 8].map((time) => ({ time, conc: 10 * Math.exp(-0.2 * time) }))
    const nca = (route: string) => runSkillSync(NCA, { rows, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, route })
    const fih = (route: string, noaelRoute?: string) => runSkillSync(FIH, { route, noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'x', ...(noaelRoute ? { route: noaelRoute } : {}) }] })

    it('accepts the vocabulary key intravenous and its aliases in the NCA skill and the dose projection alike', () => {
      for (const route of ['intravenous', 'iv', 'IV', 'iv_bolus']) {
        expect(nca(route).outputs.route.value, route).toBe('intravenous')
        expect(fih(route).warnings.some((w) => /differs from the clinical route/.test(w)), route).toBe(false)
      }
      expect(nca('po').outputs.administration.value).toBe('extravascular')
      expect(fih('oral', 'iv').warnings).toContain("rat: NOAEL route 'intravenous' differs from the clinical route 'oral'; body-surface-area scaling does not correct for route differences in exposure.")
      expect(fih('oral', 'PO').warnings.some((w) => /differs from the clinical route/.test(w))).toBe(false)
    })

    it('refuses the same unknown route the same way in every skill', () => {
      const a = expectSkillError(() => nca('banana'), 'invalid_input', 'route')
      const b = expectSkillError(() => fih('banana'), 'invalid_input', 'route')
      expect(a.message).toBe(b.message)
      expectSkillError(() => fih('oral', 'banana'), 'invalid_input', 'noael[0].route')
    })
  })

  describe('6. AUC intervals in exposure margins', () => {
    const human = (auc_interval?: string) => ({ auc: { value: 250, unit: 'h.ng/mL' }, citation: 'pk:1', ...(auc_interval ? { auc_interval } : {}) })
    const rat = (auc_interval?: string) => ({ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, citation: 'tk:rat', ...(auc_interval ? { auc_interval } : {}) })

    it('warns when a 0-24 h animal AUC meets a 0-inf human AUC, and carries each interval', () => {
      const r = runSkillSync(EMT, { noael_exposure: [rat('0-24h')], human_projection: human('0-inf') })
      expect(r.outputs['margin.rat.auc'].value).toBe(2500 / 250)
      expect(r.warnings).toContain("rat: AUC interval 0-24 h differs from the human projection's 0-inf; the AUC margin compares different intervals.")
      expect(r.tables.margins.rows[0].auc_interval.value).toBe('0-24 h')
      expect(r.outputs['human.auc_interval'].value).toBe('0-inf')
    })

    it('treats 0-1 d and 0-24 h as the same interval, and warns when an interval is not given', () => {
      const same = runSkillSync(EMT, { noael_exposure: [rat('0-1 d')], human_projection: human('0-24 h') })
      expect(same.warnings.filter((w) => /interval/.test(w))).toEqual([])
      const missing = runSkillSync(EMT, { noael_exposure: [rat()], human_projection: human('0-24 h') })
      expect(missing.warnings).toContain("rat: AUC interval not given; the AUC margin cannot be checked against the human projection's 0-24 h.")
      expectSkillError(() => runSkillSync(EMT, { noael_exposure: [rat('all day')], human_projection: human('0-24 h') }), 'invalid_input', 'noael_exposure[0].auc_interval')
      expectSkillError(() => runSkillSync(EMT, { noael_exposure: [rat('0-24')], human_projection: human('0-24 h') }), 'unit_required', 'noael_exposure[0].auc_interval')
    })
  })
})
