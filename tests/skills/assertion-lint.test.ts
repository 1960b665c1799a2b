import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { classify, splitSentences } from '../../domain/skills'
import { ASSERTION_MODEL, getReference } from '../../domain/skills'
import { expectSkillError } from './helpers'

const KEY = 'evidence.assertion_lint'
const DRAFT = [
  'Exposure increased 3-fold between 10 and 30 mg/kg in rats.',
  'This suggests saturation of first-pass metabolism.',
  'The rise is consistent with CYP3A4 inhibition [1].',
  'Clearance fell with dose, e.g. at 30 mg/kg, which indicates nonlinear kinetics [@smith2020].',
  'We hypothesise that the metabolite is active.',
  'We recommend a food-effect arm.',
  'Could formulation explain part of it?',
  '',
  '- Small sample (n=3) limits the dose-proportionality claim.',
].join(' ')

describe('evidence.assertion_lint', () => {
  it('tags each sentence with its assertion kind and the rule that fired', () => {
    const r = runSkillSync(KEY, { text: DRAFT.replace(' - Small', '\n\n- Small') })
    const rows = r.tables.assertions.rows.map((x) => [x.kind.value, x.rule.value])
    expect(rows).toEqual([
      ['observation', 'O1'],
      ['interpretation', 'I1'],
      ['interpretation', 'I1'],
      ['interpretation', 'I1'],
      ['hypothesis', 'H1'],
      ['recommendation', 'R1'],
      ['question', 'Q1'],
      ['limitation', 'L1'],
    ])
    expect(r.outputs['count.interpretation'].value).toBe(3)
  })

  it('flags the interpretation without a citation marker and not the cited ones', () => {
    const r = runSkillSync(KEY, { text: DRAFT })
    expect(r.outputs.uncited_interpretations.value).toBe(1)
    expect(r.outputs.uncited_sentence_indexes.value).toBe('1')
    expect(r.outputs.lint_passed.value).toBe(false)
    expect(r.tables.assertions.rows[1].flag.value).toBe('uncited_interpretation')
    expect(r.warnings).toEqual(['1 interpretation(s) without a citation marker: sentence(s) 2.'])
  })

  it('recognises numeric, key, DOI, PMID and author-year citation markers', () => {
    for (const marker of ['[2]', '[1, 3-5]', '[@doe2019; @roe2021]', '(doi:10.1000/xyz.123)', 'https://doi.org/10.1000/abc', 'PMID: 12345678', '(Smith et al., 2020)']) {
      const r = runSkillSync(KEY, { text: `This suggests CYP3A4 inhibition ${marker}.` })
      expect(r.outputs.lint_passed.value, marker).toBe(true)
    }
  })

  it('passes a draft whose interpretations are all cited', () => {
    const r = runSkillSync(KEY, { text: 'AUC rose 3-fold. This indicates saturable absorption [1].' })
    expect(r.outputs.lint_passed.value).toBe(true)
    expect(r.warnings).toEqual([])
  })

  it('does not split sentences after abbreviations or inside decimals, and attaches a trailing marker', () => {
    const s = splitSentences('Values (approx. 2.5 mg/L) were seen, cf. Fig. 2. This implies accumulation. [3] Next, we measured urine.')
    expect(s.map((x) => x.text)).toEqual(['Values (approx. 2.5 mg/L) were seen, cf. Fig. 2.', 'This implies accumulation. [3]', 'Next, we measured urine.'])
    expect(s[1].start).toBeGreaterThan(s[0].end - 1)
  })

  it('prefers an interpretation cue over a hedge but reads a hedge alone as a hypothesis', () => {
    expect(classify('This suggests the compound may inhibit CYP3A4.').kind).toBe('interpretation')
    expect(classify('The compound may inhibit CYP3A4.').kind).toBe('hypothesis')
    expect(classify('Study 12 [4].').kind).toBe('observation')
    expect(classify('Background reading.').kind).toBe('statement')
  })

  it('lists its rules from the assertion_model reference, which is verified and hashed', () => {
    const r = runSkillSync(KEY, { text: 'AUC rose.' })
    for (const rule of ASSERTION_MODEL.kind_rules) expect(r.how_computed.rules_applied.some((x) => x.startsWith(`${rule.id} -> ${rule.kind}`))).toBe(true)
    const ref = getReference('assertion_model')!
    expect(ref.status).toBe('verified')
    expect(ref.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(r.method_line).toBe('Method: Assertion lint (assertion model v1, retrieved 2026-10-01), version 1')
  })

  it('refuses an empty draft with invalid_input on text', () => {
    expectSkillError(() => runSkillSync(KEY, { text: '' }), 'invalid_input', 'text')
  })
})
