// Issue 30 through the gateway: each of the seven items run as a skill the way a twin or a person
// runs it (runSkill over HTTP), with answers computed here independently of the skill.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { NCA_GOLDEN_INDOMETH as INDO, NCA_GOLDEN_THEOPH as THEO } from '../../domain/skills'

const stack = useStack()
let tenant: Tenant
beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
})

const RUN = `mutation($programId: ID!, $input: SkillRunInput!) {
  runSkill(programId: $programId, input: $input) {
    __typename
    ... on MutationRunSkillSuccess { skillResult { skillKey checkLogicVersion outputs warnings referenceRefs methodLine howComputed } }
    ... on Error { code message field }
  }
}`
type Out = Record<string, { value: any }>
const run = async (skillKey: string, inputs: Record<string, unknown>) => {
  const r = await gql(`${stack.current.gatewayUrl}/graphql`, RUN, { programId: tenant.program.id, input: { skillKey, inputs } }, await tenant.token('scientist'))
  expect(r.body.errors).toBeUndefined()
  const payload = r.body.data.runSkill
  return { ...payload, result: payload.skillResult } as { __typename: string; code?: string; field?: string; message?: string; result: { outputs: Out; warnings: string[]; checkLogicVersion: number; referenceRefs: any[]; methodLine: string; howComputed: any } }
}
const nca = (inputs: Record<string, unknown>) => run('tox.pk_parameter_extraction', { time_unit: 'h', conc_unit: 'mg/L', dose: { value: 100, unit: 'mg' }, ...inputs })

describe('issue 30 through the gateway', () => {
  it('1. reports lambda_z as not estimable when the best terminal fit rises, rather than a falling fit of poor adjusted R2', async () => {
    const rows = [[0, 0], [1, 8], [2, 10], [4, 7], [6, 5], [8, 3], [12, 1], [16, 1.5], [24, 3.375]].map(([time, conc]) => ({ time, conc }))
    // The last three points rise exactly log-linearly (1.5 = 1 x 1.5, 3.375 = 1.5 x 1.5^2): adjusted R2 1, slope ln(1.5)/4 > 0.
    const { result } = await nca({ rows, route: 'oral' })
    expect(result.outputs.half_life.value).toBeNull()
    expect(result.outputs.aucinf_obs.value).toBeNull()
    expect(result.outputs.cl_f.value).toBeNull()
    expect(result.outputs.vz_f.value).toBeNull()
    expect(result.warnings).toContainEqual(expect.stringMatching(/^lambda_z not estimable \(the best-fitting terminal regression \(3 points, 12 to 24 h, adjusted R2 1\.0000\) has a rising slope/))
    expect(result.checkLogicVersion).toBe(2)
  })

  it('2. takes the first row when rat and dog NOAELs in mg/m2 are equal, whichever comes first', async () => {
    // 23 mg/m2 is the first of the 161 whole numbers up to 1000 the old mg/kg round trip decided for the dog.
    for (const order of [['rat', 'dog'], ['dog', 'rat']]) {
      const { result } = await run('tox.fih_dose_projection', { route: 'oral', noael: order.map((species) => ({ species, dose: { value: 23, unit: 'mg/m2' }, citation: `tox:${species}` })) })
      expect(result.outputs.most_sensitive_species.value).toBe(order[0])
      expect(result.outputs['hed.rat'].value).toBe(23 / 37)
      expect(result.outputs['hed.dog'].value).toBe(23 / 37)
    }
  })

  it('3. warns when a BLQ sample written as 0 is used as a measured value, with AUClast both ways', async () => {
    const rows = [[0, 0], [0.5, 5], [1, 8], [2, 6], [4, 4], [8, 0], [12, 1.5], [24, 0.8]].map(([time, conc]) => ({ time, conc }))
    const { result } = await nca({ rows, route: 'oral', auc_method: 'linear' })
    // Linear trapezoids by hand: 1.25 + 3.25 + 7 + 10 + 8 + 3 + 13.8 = 46.3 as measured; 4 to 12 h as one interval
    // (4 + 1.5) / 2 x 8 = 22 instead of 8 + 3 when the zero is BLQ: 57.3.
    expect(result.outputs.auclast.value).toBeCloseTo(46.3, 10)
    expect(result.warnings).toContainEqual(expect.stringContaining('AUClast is 46.30 h·mg/L with it, 57.30 if marked blq: true (19.2 % lower as measured)'))
  })

  it('4. gives AUC % back-extrapolated, MRT and Vss for a bolus and runs an infusion given its duration', async () => {
    const rows = [0.5, 1, 2, 4, 8, 12, 24].map((time) => ({ time, conc: 10 * Math.exp(-0.2 * time) }))
    const bolus = (await nca({ rows, route: 'intravenous' })).result.outputs
    expect(bolus.auc_pct_back_extrap.value).toBeCloseTo(100 * (1 - Math.exp(-0.1)), 8)
    expect(bolus.mrtinf_obs.value).toBeCloseTo(1 / 0.2, 9)
    expect(bolus.vss.value).toBeCloseTo(100 / 10, 8)
    const infusion = (await nca({ rows, route: 'intravenous', infusion_duration: { value: 0.25, unit: 'h' } })).result.outputs
    expect(infusion.administration.value).toBe('intravenous infusion')
    expect(infusion.mrtinf_obs.value).toBeCloseTo(infusion.aumcinf_obs.value / infusion.aucinf_obs.value - 0.125, 12)
    const refused = await nca({ rows, route: 'oral', infusion_duration: { value: 0.25, unit: 'h' } })
    expect(refused).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'input.inputs.infusion_duration' })
  })

  it('5. takes the vocabulary route intravenous in the NCA skill as the dose projection does, and refuses an unknown one alike', async () => {
    const rows = [0.5, 1, 2, 4, 8].map((time) => ({ time, conc: 10 * Math.exp(-0.2 * time) }))
    expect((await nca({ rows, route: 'intravenous' })).result.outputs.route.value).toBe('intravenous')
    const fih = await run('tox.fih_dose_projection', { route: 'intravenous', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, route: 'iv', citation: 'x' }] })
    expect(fih.result.warnings.some((w) => /differs from the clinical route/.test(w))).toBe(false)
    const a = await nca({ rows, route: 'intra-arterial' })
    const b = await run('tox.fih_dose_projection', { route: 'intra-arterial', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'x' }] })
    expect(a).toMatchObject({ code: 'invalid_input', field: 'input.inputs.route' })
    expect(b).toMatchObject({ code: 'invalid_input', field: 'input.inputs.route', message: a.message })
  })

  it('6. carries the AUC interval with each exposure and warns when a 0-24 h animal AUC meets a 0-inf human AUC', async () => {
    const { result } = await run('tox.exposure_margin_table', {
      noael_exposure: [{ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, auc_interval: '0-24 h', citation: 'tk:rat' }],
      human_projection: { auc: { value: 250, unit: 'h.ng/mL' }, auc_interval: '0-inf', citation: 'pk:1' },
    })
    expect(result.outputs['margin.rat.auc'].value).toBe(10)
    expect(result.outputs['human.auc_interval'].value).toBe('0-inf')
    expect(result.warnings).toContain("rat: AUC interval 0-24 h differs from the human projection's 0-inf; the AUC margin compares different intervals.")
  })

  it('7. shows the Theoph and Indometh golden datasets beside its status as its validation record (not as references) and equals published WinNonlin on every subject', async () => {
    const list = await gql(`${stack.current.gatewayUrl}/graphql`, `{ skill(key: "tox.pk_parameter_extraction") { status references { key status } validation { key constantsSha256 goldenTest statusLine } } }`, {}, await tenant.token('viewer'))
    // Designed while R4_GATE_PASSED is false, as every skill; no guidance reference holds it back.
    const skill = list.body.data.skill
    expect({ status: skill.status, references: skill.references }).toEqual({ status: 'designed', references: [] })
    expect(skill.validation.map((v: any) => v.key)).toEqual(['nca_golden_theoph', 'nca_golden_indometh'])
    expect(skill.validation[0].statusLine).toBe('Validated against published data: Theoph (Boeckmann 1994), 12 subjects, Phoenix WinNonlin 6.3/7.0 results reproduced')
    expect(skill.validation[0].constantsSha256).toMatch(/^[0-9a-f]{64}$/)
    const close = (a: number, b: number) => Math.abs(a - b) <= 5e-7 + 1e-9 * Math.abs(b)
    const bad: string[] = []
    for (const [i, s] of THEO.subjects.entries()) {
      const { result } = await nca({ rows: s.rows.map(([time, conc]) => ({ time, conc })), dose: THEO.dose, route: 'oral' })
      for (const [k, v] of Object.entries(THEO.winnonlin.linear_up_log_down[i])) if (!close(result.outputs[k].value, v)) bad.push(`Theoph ${s.subject} ${k}`)
      if (i === 0) expect(result.referenceRefs).toEqual([])
    }
    for (const [i, s] of INDO.subjects.entries()) {
      const { result } = await nca({ rows: s.rows.map(([time, conc]) => ({ time, conc })), dose: INDO.dose, route: 'intravenous' })
      for (const [k, v] of Object.entries(INDO.winnonlin.bolus.linear_up_log_down[i])) if (!close(result.outputs[k].value, v)) bad.push(`Indometh ${s.subject} ${k}`)
    }
    expect(bad).toEqual([])
  })
})
