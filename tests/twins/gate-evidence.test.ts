// What makes a skill result stage-gate evidence (issue 29, item 16), through the gateway: a scratch run with made-up
// inputs citing "x" no longer satisfies a gate's required FIH projection. A result counts when a person ran it and
// everything it cites is a record of the program; a twin's run, a foreign citation or another program's document
// does not, and the card says why.
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { connect, runningRun } from './tools-helpers'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
type Persona = Parameters<Tenant['token']>[0]

async function call(t: Tenant, persona: Persona, query: string, variables: Record<string, unknown> = {}) {
  const r = await gql(url(), query, variables, await t.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}
const SKILL = `mutation($p: ID!, $i: SkillRunInput!) { runSkill(programId: $p, input: $i) { __typename
  ... on MutationRunSkillSuccess { skillResult { artifactId citations } } ... on Error { code message field } } }`
const GATE = `query($id: ID!) { stageGate(id: $id) { card requiredRecords { present missing found } } }`
const fih = (citation: string) => ({ route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation }] })

/** A notebook entry of the program as the connector stores it (source and flattened document). */
async function entryOf(t: Tenant, title: string) {
  const source = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: `etr_${Date.now()}`, title } })
  return db().document.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceId: source.id, sourceSystem: 'eln_provider', classification: 'customer_internal', title, text: `${title}\n`, contentJson: { v: 1, name: title, days: [] }, contentHash: 'h' } })
}

async function gateRequiringFih(t: Tenant) {
  const [discovery, preclinical] = await Promise.all(['discovery', 'preclinical'].map((key, position) =>
    db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })))
  const d = await call(t, 'program_owner', `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { __typename ... on MutationOpenStageGateSuccess { gate { id } } } }`,
    { i: { programId: t.program.id, stageId: discovery.id, nextStageId: preclinical.id, requiredRecords: [{ kind: 'skill_result', skillKey: 'tox.fih_dose_projection', label: 'FIH dose projection run' }] } })
  return d.openStageGate.gate.id as string
}

describe('skill results as stage-gate evidence', () => {
  it('counts a projection a person ran citing records of the program, and not a scratch run citing "x", another program\'s document or a twin\'s run', async () => {
    const t = await createTenant(db(), 'Gate evidence')
    const other = await createTenant(db(), 'Gate evidence other')
    const gateId = await gateRequiringFih(t)
    const gate = async () => (await call(t, 'viewer', GATE, { id: gateId })).stageGate
    expect((await gate()).requiredRecords[0].missing).toBe('no skill result in this program')

    // The reported case: made-up inputs and a citation reading "x".
    const scratch = await call(t, 'scientist', SKILL, { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs: fih('x') } })
    expect(scratch.runSkill.__typename).toBe('MutationRunSkillSuccess')
    let g = await gate()
    expect(g.card).toBe('0 of 1 required records present')
    expect(g.requiredRecords[0]).toMatchObject({ present: false, found: [] })
    expect(g.requiredRecords[0].missing).toContain("cites 'x', which is no record of this program")

    // Another program's document is no record of this program (its row exists).
    const foreignDoc = await entryOf(other, 'Their rat study')
    await call(t, 'scientist', SKILL, { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs: fih(`document:${foreignDoc.id}@v1`) } })
    expect((await gate()).card).toBe('0 of 1 required records present')

    // A twin's run over MCP citing the program's own entry is its draft: it does not count.
    const doc = await entryOf(t, 'Rat 28-day GLP study report')
    const client = await connect(stack.current.toolsUrl, await runningRun(db(), t, 'scientist'))
    const byTwin: any = await client.call('tox.fih_dose_projection', { inputs: fih(`document:${doc.id}@v1`) })
    await client.close()
    expect(byTwin.ok).toBe(true)
    g = await gate()
    expect(g.card).toBe('0 of 1 required records present')
    expect(g.requiredRecords[0].missing).toContain('the newest is run by a twin (it counts once a person runs the skill)')

    // One uncited-by-the-program citation beside a real one keeps the result out.
    await call(t, 'scientist', SKILL, { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs: fih(`document:${doc.id}@v1`), citations: ['tox-report:rat#noael'] } })
    expect((await gate()).card).toBe('0 of 1 required records present')

    // A person's run citing the program's entry is evidence.
    const real = await call(t, 'scientist', SKILL, { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs: fih(`document:${doc.id}@v1`) } })
    g = await gate()
    expect(g.card).toBe('1 of 1 required records present')
    expect(g.requiredRecords[0]).toMatchObject({ present: true, missing: null, found: [real.runSkill.skillResult.artifactId] })
  })
})
