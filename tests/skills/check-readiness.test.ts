import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { check, requirementSet } from './fixtures/readiness'
import { expectSkillError } from './helpers'

const KEY = 'qa.check_readiness'
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x))

describe('qa.check_readiness', () => {
  it('lists each requirement as met or not met with its SOP anchor', () => {
    const r = runSkillSync(KEY, { check, requirement_set: requirementSet })
    const rows = r.tables.readiness.rows.map((x) => [x.requirement_id.value, x.status.value, x.sop_anchor.value])
    expect(rows).toEqual([
      ['R1', 'met', 'SOP-QA-012 v3.0 §5.2'],
      ['R2', 'not_met', 'SOP-QA-012 v3.0 §6.1'],
      ['R3', 'met', 'SOP-BA-031 v1.4 §4'],
    ])
    expect(r.tables.readiness.rows[1].reason.value).toMatch(/another kind \(accepted: review_signature\)/)
    expect(r.outputs.requirements_met.value).toBe(2)
    expect(r.outputs.requirements_not_met.value).toBe(1)
    expect(r.outputs.not_met_ids.value).toBe('R2')
    expect(r.outputs.ready.value).toBe(false)
    expect(r.outputs.summary.value).toBe('2 of 3 requirements met')
    expect(r.reference_refs.map((x) => x.key)).toEqual(['sop_binding_rule'])
    expect(r.method_line).toBe('Method: Check readiness (SOP binding rule v1, retrieved 2026-10-01), version 1')
  })

  it('is ready when every required requirement has its evidence', () => {
    const c = clone(check)
    c.evidence.push({ requirement_id: 'R2', kind: 'review_signature', ref: 'signature:77' })
    const r = runSkillSync(KEY, { check: c, requirement_set: requirementSet })
    expect(r.outputs.ready.value).toBe(true)
    expect(r.citations.map((x) => x.ref)).toContain('signature:77')
  })

  it('counts only the requirements the check lists and reports unused evidence', () => {
    const r = runSkillSync(KEY, { check: { ...check, requirement_ids: ['R1', 'R3'] }, requirement_set: requirementSet })
    expect(r.outputs.ready.value).toBe(true)
    expect(r.outputs.requirements_total.value).toBe(2)
    expect(r.warnings.some((w) => /check\.evidence\[1\]/.test(w))).toBe(true)
  })

  it('refuses a requirement anchored on a superseded SOP version: only effective versions bind', () => {
    for (const state of ['superseded', 'draft', 'in_review', 'obsolete', 'unmapped']) {
      const set = clone(requirementSet)
      set.requirements[1].sop.lifecycle_state = state
      const e = expectSkillError(() => runSkillSync(KEY, { check, requirement_set: set }), 'invalid_input', 'requirement_set.requirements[1].sop.lifecycle_state')
      expect(e.message).toMatch(/only effective SOP versions bind checks/)
    }
  })

  it('refuses a requirement set that is not accepted and a requirement the set does not hold', () => {
    expectSkillError(() => runSkillSync(KEY, { check, requirement_set: { ...requirementSet, accepted: false } }), 'invalid_input', 'requirement_set.accepted')
    expectSkillError(() => runSkillSync(KEY, { check: { ...check, requirement_ids: ['R9'] }, requirement_set: requirementSet }), 'invalid_input', 'check.requirement_ids[0]')
    const set = clone(requirementSet)
    set.requirements[2].id = 'R1'
    expectSkillError(() => runSkillSync(KEY, { check, requirement_set: set }), 'invalid_input', 'requirement_set.requirements[2].id')
  })
})
