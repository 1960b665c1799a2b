import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql, startTestWorker } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let tenant: Tenant
let worker: Awaited<ReturnType<typeof startTestWorker>>
beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
  worker = await startTestWorker(stack.db)
})
afterAll(async () => { await worker?.close() })

const RUN = `mutation($programId: ID!, $input: SkillRunInput!) {
  runSkill(programId: $programId, input: $input) {
    __typename
    ... on MutationRunSkillSuccess { skillResult { artifactId skillKey checkLogicVersion inputsHash outputs warnings citations referenceRefs guidanceVersion retrievedOn methodLine header howComputed createdAt outputValues { name value unitUcum unitDisplay } } }
    ... on Error { code message field }
  }
}`
const fih = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] }
const run = async (persona: Parameters<Tenant['token']>[0], input: Record<string, unknown>) =>
  gql(`${stack.current.gatewayUrl}/graphql`, RUN, { programId: tenant.program.id, input }, await tenant.token(persona))

describe('skills through the gateway', () => {
  it('lists the six skills with every SkillOut field, all designed while the R4 gate has not passed', async () => {
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{ skills { key name product runRole permission skillClass checkLogicVersion inputSchema outputFields requiredCitations references { key version retrievedOn status } status release } }`, {}, await tenant.token('viewer'))
    expect(r.body.errors).toBeUndefined()
    const skills = r.body.data.skills as any[]
    expect(skills.map((s) => s.key).sort()).toEqual(['chem.sar_table_build', 'evidence.assertion_lint', 'qa.check_readiness', 'tox.exposure_margin_table', 'tox.fih_dose_projection', 'tox.pk_parameter_extraction'])
    expect(new Set(skills.map((s) => s.status))).toEqual(new Set(['designed']))
    const tox = skills.find((s) => s.key === 'tox.fih_dose_projection')
    expect(tox.references.map((x: any) => x.key)).toEqual(['fda_2005_mrsd', 'ema_2017_fih', 'ich_m3r2'])
    expect(tox.permission).toBe('evidence.agents.use')
    const one = await gql(`${stack.current.gatewayUrl}/graphql`, `{ skill(key: "chem.sar_table_build") { skillClass } reserved: skill(key: "chem.property_profile") { key } }`, {}, await tenant.token('viewer'))
    expect(one.body.data).toEqual({ skill: { skillClass: 'B' }, reserved: null })
  })

  it('says plainly, wherever a reference status is shown, that a verified guidance has no recorded document hash', async () => {
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, `{ skill(key: "tox.fih_dose_projection") { references { key status documentSha256 statusLine } } lint: skill(key: "evidence.assertion_lint") { references { key status documentSha256 statusLine } } }`, {}, await tenant.token('viewer'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.skill.references).toContainEqual({ key: 'fda_2005_mrsd', status: 'verified', documentSha256: null, statusLine: 'verified; document hash not recorded' })
    const model = r.body.data.lint.references.find((x: any) => x.key === 'assertion_model')
    expect(model.statusLine).toBe(`verified; document sha256 ${model.documentSha256}`)
    expect(model.documentSha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('runs the dose projection and returns the documented shape, stores the artifact, the tool call and the audit row', async () => {
    const r = await run('scientist', { skillKey: 'tox.fih_dose_projection', inputs: fih })
    expect(r.body.errors).toBeUndefined()
    const result = r.body.data.runSkill.skillResult
    expect(result.header).toBe('Projection for your decision, not a starting dose')
    expect(result.warnings).toEqual(expect.arrayContaining(['PAD/MABEL not computed', 'exposure-based projection not computed']))
    expect(result.outputs['hed.rat']).toMatchObject({ unit_ucum: 'mg/kg' })
    expect(Number(result.outputs['hed.rat'].value.toPrecision(2))).toBe(8.1)
    expect(result.methodLine).toMatch(/^Method: .+ \(.+, retrieved \d{4}-\d{2}-\d{2}\), version \d+$/)
    expect(result.inputsHash).toMatch(/^[0-9a-f]{64}$/)
    const artifact = await stack.db.db.artifact.findUniqueOrThrow({ where: { id: result.artifactId } })
    expect(artifact).toMatchObject({ kind: 'skill_result', runId: null, programId: tenant.program.id, agentGenerated: false })
    const call = await stack.db.db.toolCall.findFirstOrThrow({ where: { resultArtifactId: result.artifactId } })
    expect(call).toMatchObject({ tool: 'tox.fih_dose_projection', inputsHash: result.inputsHash, checkLogicVersion: result.checkLogicVersion, status: 'ok' })
    expect(Array.isArray(call.outputViolations)).toBe(true)
    const audit = await stack.db.db.auditEvent.findFirstOrThrow({ where: { action: 'skill_run.start', targetId: call.id } })
    expect(audit).toMatchObject({ actorUserId: tenant.users.scientist.id, programId: tenant.program.id })
  })

  it('gives byte-identical outputs and the same inputs_hash for the same inputs', async () => {
    const a = (await run('scientist', { skillKey: 'tox.fih_dose_projection', inputs: fih })).body.data.runSkill.skillResult
    const b = (await run('program_lead', { skillKey: 'tox.fih_dose_projection', inputs: fih })).body.data.runSkill.skillResult
    expect(b.inputsHash).toBe(a.inputsHash)
    expect(JSON.stringify(b.outputs)).toBe(JSON.stringify(a.outputs))
    expect(b.artifactId).not.toBe(a.artifactId)
  })

  it('answers a value without a unit with unit_required naming the field, and stores nothing', async () => {
    const before = await stack.db.db.toolCall.count()
    const r = await run('scientist', { skillKey: 'tox.fih_dose_projection', inputs: { route: 'oral', noael: [{ species: 'rat', dose: { value: 50 }, citation: 'x' }] } })
    expect(r.body.data.runSkill).toEqual({ __typename: 'UnitRequired', code: 'unit_required', field: 'input.inputs.noael.0.dose.unit', message: expect.any(String) })
    expect(await stack.db.db.toolCall.count()).toBe(before)
  })

  it('refuses a viewer, who does not hold evidence.agents.use, with FORBIDDEN', async () => {
    const r = await run('viewer', { skillKey: 'tox.fih_dose_projection', inputs: fih })
    expect(r.body.errors?.[0].extensions?.code).toBe('FORBIDDEN')
    expect(r.body.errors?.[0].extensions?.permission).toBe('evidence.agents.use')
  })

  it('runs the class B SAR table in the worker and awaits its result', async () => {
    const inputs = {
      core_smarts: '[*:1]c1ccc(cc1)C(=O)N[*:2]',
      compounds: [
        { id: 'BZ-1', smiles: 'Cc1ccc(cc1)C(=O)NC', source: 'chembl_34', licence: 'CC BY-SA 3.0' },
        { id: 'BZ-2', smiles: 'Clc1ccc(cc1)C(=O)NCC', source: 'eln:proj-7', licence: 'internal' },
      ],
      activities: [
        { compound_id: 'BZ-1', target: 'KDR', endpoint: 'IC50', value: { value: 120, unit: 'nmol/L' }, source: 'chembl_34', licence: 'CC BY-SA 3.0', citation: 'chembl:1' },
        { compound_id: 'BZ-2', target: 'KDR', endpoint: 'IC50', value: { value: 40, unit: 'nmol/L' }, source: 'eln:proj-7', licence: 'internal', citation: 'eln:2' },
      ],
    }
    const r = await run('scientist', { skillKey: 'chem.sar_table_build', inputs })
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.runSkill.__typename, JSON.stringify(r.body.data.runSkill)).toBe('MutationRunSkillSuccess')
    const result = r.body.data.runSkill.skillResult
    expect(result.skillKey).toBe('chem.sar_table_build')
    const call = await stack.db.db.toolCall.findFirstOrThrow({ where: { resultArtifactId: result.artifactId } })
    expect(call.status).toBe('ok')
    const bad = await run('scientist', { skillKey: 'chem.sar_table_build', inputs: { ...inputs, compounds: [{ ...inputs.compounds[0], smiles: 'C1CC(' }, inputs.compounds[1]] } })
    expect(bad.body.data.runSkill).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: expect.stringContaining('input.inputs.compounds.0') })
  })
})
