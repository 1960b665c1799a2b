// Issue 34 item 8 through the gateway: a skill result reads in words. Every output has a label in words and its unit
// as people write it (never '1'), a value left out reads 'none given', 'How this was computed' is in words, and no
// served text names an internal issue. The numbers are the skills' own (compared with the skill run directly).
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { runSkillSync } from '../../domain/skills'
import { THEOPH_SUBJECT1_ROWS } from '../skills/fixtures/theoph-subject1'

const stack = useStack()
const RUN = `mutation($p: ID!, $i: SkillRunInput!) { runSkill(programId: $p, input: $i) { __typename
  ... on MutationRunSkillSuccess { skillResult { outputValues { name label text unit display } steps { label text unit note } rulesApplied howComputed } }
  ... on Error { code message field } } }`

type Out = { name: string; label: string; text: string; unit: string | null; display: string | null }

describe('skill results in words', () => {
  it('labels every dose projection output in words with its unit, and says "none given" in words', async () => {
    const t = await createTenant(stack.db.db, 'Skill words')
    const inputs = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat' }] }
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, RUN, { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs } }, await t.token('scientist'))
    const result = r.body.data.runSkill.skillResult
    const byName = new Map<string, Out>(result.outputValues.map((o: Out) => [o.name, o]))
    expect(byName.get('mrsd')).toMatchObject({ label: 'Maximum recommended starting dose', text: '0.81', unit: 'mg/kg' })
    expect(byName.get('hed.rat')).toMatchObject({ label: 'Human equivalent dose, from the rat', text: '8.1', unit: 'mg/kg' })
    expect(byName.get('selection_rationale')).toMatchObject({ label: 'Why another species was chosen', text: 'none given', unit: null })
    expect(byName.get('safety_factor')).toMatchObject({ label: 'Safety factor', text: '10', unit: null })
    // The numbers are the skill's own display.
    const direct = runSkillSync('tox.fih_dose_projection', inputs)
    expect(byName.get('mrsd')!.display).toBe(direct.outputs.mrsd.display)
    for (const o of result.outputValues as Out[]) {
      expect(o.label).toMatch(/^[A-Z]/)
      expect(o.label).not.toMatch(/_|\bmrsd\b|\bhed\b/)
      expect(o.unit).not.toBe('1')
      expect(o.text).not.toBe('none')
    }
    for (const s of result.steps) expect(s.unit).not.toBe('1')
    expect(result.steps.map((s: { label: string }) => s.label)).toContain('Body surface factor (km), rat')
  })

  it('labels the NCA parameters in words, writes the option keys as words, and serves no internal issue number', async () => {
    const t = await createTenant(stack.db.db, 'NCA words')
    const inputs = { rows: THEOPH_SUBJECT1_ROWS, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 320, unit: 'mg' }, route: 'oral' }
    const r = await gql(`${stack.current.gatewayUrl}/graphql`, RUN, { p: t.program.id, i: { skillKey: 'tox.pk_parameter_extraction', inputs } }, await t.token('scientist'))
    const result = r.body.data.runSkill.skillResult
    const byName = new Map<string, Out>(result.outputValues.map((o: Out) => [o.name, o]))
    expect(byName.get('cl_f')).toMatchObject({ label: 'Apparent clearance (CL/F)', unit: 'L/h' })
    expect(byName.get('aumclast')).toMatchObject({ unit: 'h²·mg/L' })
    expect(byName.get('auc_method')).toMatchObject({ label: 'How the area was summed', text: 'linear up, log down' })
    const served = JSON.stringify(result)
    expect(served).not.toMatch(/issue \d+/i)
    expect(result.rulesApplied.join('\n')).not.toMatch(/linear_up_log_down/)
  })
})
