import { describe, expect, it } from 'vitest'
import {
  assertSkillKey,
  FORBIDDEN_VERB_CONFLICTS,
  FORBIDDEN_VERBS,
  getSkill,
  listSkills,
  MAX_SKILL_RUNS_PER_TURN,
  REFERENCES,
  referenceCheck,
  RESERVED_SKILL_KEYS,
  runSkillSync,
  SKILL_DEFINITIONS,
  skillKeyProblems,
  skillPermission,
  skillStatus,
  supersessionWarning,
  type ReferenceEntry,
} from '../../domain/skills'
import { expectSkillError } from './helpers'

const LIVE = ['tox.fih_dose_projection', 'tox.exposure_margin_table', 'tox.pk_parameter_extraction', 'chem.sar_table_build', 'evidence.assertion_lint', 'qa.check_readiness']

describe('skill registry', () => {
  it('serves the six R4 skills with every SkillOut field', () => {
    const skills = listSkills({ r4GatePassed: false })
    expect(skills.map((s) => s.key)).toEqual(LIVE)
    for (const s of skills) {
      expect(Object.keys(s)).toEqual(['key', 'name', 'product', 'run_role', 'permission', 'skill_class', 'check_logic_version', 'input_schema', 'output_fields', 'required_citations', 'references', 'validation', 'status', 'release'])
      expect(s.permission).toBe(`${s.product}.agents.use`)
      expect(s.release).toBe('R4')
      // Issue 30 changed the rules of the three tox skills (lambda_z, measured zeros, IV parameters,
      // routes, HED ties, AUC intervals): their check_logic_version moved to 2.
      expect(s.check_logic_version).toBe(s.key.startsWith('tox.') ? 2 : 1)
      expect(s.input_schema.type).toBe('object')
      expect(s.output_fields.length).toBeGreaterThan(0)
    }
    expect(getSkill('qa.check_readiness', { r4GatePassed: false })!.permission).toBe('review.agents.use')
    expect(skillPermission('tox.fih_dose_projection')).toBe('evidence.agents.use')
    expect(getSkill('chem.sar_table_build', { r4GatePassed: false })!.skill_class).toBe('B')
    expect(getSkill('tox.fih_dose_projection', { r4GatePassed: false })!.references.map((r) => r.key)).toEqual(['fda_2005_mrsd', 'ema_2017_fih', 'ich_m3r2'])
  })

  it('derives the input schema from the zod schema, with defaulted fields optional', () => {
    const s = getSkill('tox.fih_dose_projection', { r4GatePassed: false })!.input_schema as { required: string[]; properties: Record<string, unknown> }
    expect(s.required).toEqual(['noael', 'route'])
    expect(Object.keys(s.properties)).toContain('safety_factor')
  })

  it('serves every skill as designed while the R4 gate flag is false', () => {
    expect(listSkills({ r4GatePassed: false }).map((s) => s.status)).toEqual(LIVE.map(() => 'designed'))
  })

  it('moves every skill to preview when the gate passes, the NCA skill included now that its golden references are published and verified', () => {
    const st = Object.fromEntries(listSkills({ r4GatePassed: true }).map((s) => [s.key, s.status]))
    expect(st).toEqual({
      'tox.fih_dose_projection': 'preview',
      'tox.exposure_margin_table': 'preview',
      'tox.pk_parameter_extraction': 'preview',
      'chem.sar_table_build': 'preview',
      'evidence.assertion_lint': 'preview',
      'qa.check_readiness': 'preview',
    })
    expect(referenceCheck(listSkills({ r4GatePassed: true })).ok).toBe(true)
  })

  it('fails the reference check when a preview skill references a to_verify entry', () => {
    const nca = getSkill('tox.pk_parameter_extraction', { r4GatePassed: true })!
    // The NCA skill cites no guidance reference; its published datasets are its validation record.
    expect(nca.references).toEqual([])
    expect(nca.validation.map((v) => v.key)).toEqual(['nca_golden_theoph', 'nca_golden_indometh'])
    // The synthetic profile the NCA skill cited before issue 30 is still to_verify: citing it again fails.
    const forced = { ...nca, status: 'preview' as const, references: [{ key: 'pk_golden_synthetic_one_compartment' }] }
    const res = referenceCheck([forced])
    expect(res.ok).toBe(false)
    expect(res.problems).toEqual([
      {
        skill_key: 'tox.pk_parameter_extraction',
        reference_key: 'pk_golden_synthetic_one_compartment',
        reason: 'to_verify_reference',
        message: 'tox.pk_parameter_extraction is preview but references pk_golden_synthetic_one_compartment, which is still to_verify',
      },
    ])
    expect(referenceCheck([{ key: 'x.y', status: 'available', references: [{ key: 'ich_m10' }] }]).ok).toBe(false)
    expect(referenceCheck([{ key: 'x.y', status: 'designed', references: [{ key: 'ich_m10' }] }]).ok).toBe(true)
    expect(referenceCheck([{ key: 'x.y', status: 'preview', references: [{ key: 'nope' }] }]).problems[0].reason).toBe('unknown_reference')
  })

  it('holds the specification\'s 13 reference entries, 5 verified, with fixed ISO retrieval dates (the NCA datasets are a validation record, not references)', () => {
    expect(REFERENCES).toHaveLength(13)
    expect(REFERENCES.filter((r) => r.status === 'verified').map((r) => r.key)).toEqual(['fda_2005_mrsd', 'ema_2017_fih', 'ich_m3r2', 'assertion_model', 'sop_binding_rule'])
    expect(REFERENCES.filter((r) => r.status === 'to_verify').map((r) => r.key)).toEqual([
      'pk_golden_synthetic_one_compartment',
      'ich_m10',
      'ich_q1a_r2',
      'ich_q2_r2_q14',
      'ich_q9_r1_m4q_r1',
      'fda_oos_2022',
      'data_integrity_guidances',
      'cfr_312_23',
    ])
    for (const r of REFERENCES) {
      expect(r.retrieved_on).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      if (r.status === 'to_verify') expect(r.sha256).toBeNull()
    }
    const c = referenceCheck([])
    expect([c.verified_count, c.total_count]).toEqual([5, 13])
    expect(c.advisories).toEqual([
      'fda_2005_mrsd: verified, document sha256 not recorded yet',
      'ema_2017_fih: verified, document sha256 not recorded yet',
      'ich_m3r2: verified, document sha256 not recorded yet',
    ])
    expect(REFERENCES.map((r) => r.key)).not.toContain('nca_golden_theoph')
  })

  it('keeps a skill designed after the gate when one of its references is to_verify', () => {
    const fih = getSkill('tox.fih_dose_projection', { r4GatePassed: true })!
    const refs: ReferenceEntry[] = REFERENCES.map((r) => (r.key === 'ich_m3r2' ? { ...r, status: 'to_verify' } : r))
    expect(skillStatus(fih, { r4GatePassed: true }, refs)).toBe('designed')
    expect(skillStatus(fih, { r4GatePassed: true })).toBe('preview')
  })

  it('says so when a result was computed under a superseded reference', () => {
    const refs: ReferenceEntry[] = REFERENCES.map((r) => (r.key === 'fda_2005_mrsd' ? { ...r, supersession: { superseded_by: 'FDA guidance 2027 (hypothetical)', supersedes: null } } : r))
    const r = runSkillSync('tox.fih_dose_projection', { noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'x' }], route: 'oral' }, undefined, { references: refs })
    expect(r.warnings.some((w) => /superseded by FDA guidance 2027 \(hypothetical\)/.test(w))).toBe(true)
    expect(r.reference_refs[0].superseded_by).toBe('FDA guidance 2027 (hypothetical)')
    expect(supersessionWarning(REFERENCES[0])).toBeNull()
  })

  it('rejects a skill key whose leaf contains a forbidden verb, even inside another word', () => {
    expect(FORBIDDEN_VERBS).toEqual(['approve', 'sign', 'send'])
    expectSkillError(() => assertSkillKey('tox.study_design_review'), 'invalid_input', 'skill_key')
    expectSkillError(() => assertSkillKey('qa.approve_batch'), 'invalid_input', 'skill_key')
    expectSkillError(() => assertSkillKey('reg.send_package'), 'invalid_input', 'skill_key')
    expectSkillError(() => assertSkillKey('qa.co_signer_check'), 'invalid_input', 'skill_key')
    expectSkillError(() => assertSkillKey('nodot'), 'invalid_input', 'skill_key')
    expectSkillError(() => assertSkillKey('Tox.Upper'), 'invalid_input', 'skill_key')
    expect(skillKeyProblems('design.review_table')).toEqual([]) // only the leaf is tested
  })

  it('passes every live key through the forbidden-verb rule', () => {
    for (const d of SKILL_DEFINITIONS) expect(() => assertSkillKey(d.key)).not.toThrow()
  })

  it('keeps reserved R5 and R6 keys as data only, and names the one reserved key the forbidden-verb rule rejects', () => {
    expect(RESERVED_SKILL_KEYS.filter((r) => r.release === 'R5')).toHaveLength(23)
    expect(RESERVED_SKILL_KEYS.filter((r) => r.release === 'R6').map((r) => r.key)).toEqual(['stats.send_conformance_report', 'patent.mention_scan'])
    expect(FORBIDDEN_VERB_CONFLICTS).toEqual(['stats.send_conformance_report'])
    const live = listSkills({ r4GatePassed: true }).map((s) => s.key)
    for (const r of RESERVED_SKILL_KEYS) {
      expect(live).not.toContain(r.key)
      expect(getSkill(r.key, { r4GatePassed: true })).toBeNull()
    }
    const e = expectSkillError(() => runSkillSync('cmc.stability_study_plan', {}), 'invalid_input', 'skill_key')
    expect(e.message).toMatch(/reserved for R5/)
    expectSkillError(() => runSkillSync('tox.nothing', {}), 'invalid_input', 'skill_key')
  })

  it('limits skill runs per conversation turn to 4', () => {
    expect(MAX_SKILL_RUNS_PER_TURN).toBe(4)
  })

  it('ends every result with the no-qualification rule', () => {
    const r = runSkillSync('evidence.assertion_lint', { text: 'AUC rose.' })
    expect(r.how_computed.rules_applied.at(-1)).toBe('No qualification is claimed for this skill; the output feeds a decision that a person takes.')
  })
})
