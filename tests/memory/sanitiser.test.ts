import { describe, expect, it } from 'vitest'
import { checkMemorySummary, isEvaluative, sanitiseOutsideText, stripMarkup, MEMORY_SUMMARY_MAX } from '../../core/sanitiser'
import { INJECTION_FIXTURES } from '../fixtures/injection'
import { flattenEntry } from '../../subgraphs/connectors/domain/notebook/canonical'

// What a neutralised text may never contain: markup, invisible or bidi characters, links, memory markers, an instruction.
function assertInert(text: string) {
  expect(text).not.toMatch(/<[a-z/!]/i)
  expect(text).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]|\uDB40[\uDC00-\uDDEF]/)
  expect(text).not.toMatch(/https?:|javascript:|data:|www\./i)
  expect(text).not.toMatch(/<<<|>>>/)
  expect(text.toLowerCase().replace(/[^a-z]/g, '')).not.toMatch(/ignorepreviousinstructions|systemprompt|youarenow/)
}

describe('the injection fixture set', () => {
  it('has at least 40 cases across every category', () => {
    expect(INJECTION_FIXTURES.length).toBeGreaterThanOrEqual(40)
    expect(new Set(INJECTION_FIXTURES.map((c) => c.category)).size).toBe(7)
  })

  for (const c of INJECTION_FIXTURES) {
    it(`refuses or neutralises as a memory summary: ${c.category} / ${c.name}`, () => {
      const r = checkMemorySummary(c.text)
      if (r.ok) {
        assertInert(r.summary)
        expect(r.neutralised.length).toBeGreaterThan(0)
      } else {
        expect(r.reasons.length).toBeGreaterThan(0)
      }
    })
    it(`neutralises as outside content read by an agent: ${c.category} / ${c.name}`, () => {
      const r = sanitiseOutsideText(c.text)
      assertInert(r.text)
      expect(r.findings.length).toBeGreaterThan(0)
    })
  }
})

describe('memory summaries', () => {
  it('keeps an ordinary note unchanged', () => {
    for (const text of ['Prefers doses in mg/kg with the species named first.', 'Vocabulary: "DRF" means dose-range finding.',
      'Rubric adjustment: flag any NOAEL without a study reference.', 'The HPLC method is slow; schedule stability pulls early.',
      'Uses ICH M3(R2) terms; MTD rather than maximum dose.']) {
      expect(checkMemorySummary(text)).toEqual({ ok: true, summary: text, neutralised: [] })
    }
  })

  it('refuses judgements about people, named members included (the tone lint)', () => {
    expect(checkMemorySummary('The lead is careless with citations.')).toEqual({ ok: false, reasons: ['evaluative_language'] })
    expect(checkMemorySummary('Her performance on the tox package was poor.').ok).toBe(false)
    expect(isEvaluative('Dana is really unreliable', ['Dana Whitfield'])).toBe(true)
    expect(isEvaluative('Dana prefers tables', ['Dana Whitfield'])).toBe(false)
    expect(isEvaluative('The assay is slow')).toBe(false)
  })

  it('reduces markup to text with sanitize-html: quoted > inside attributes, block tags, and text that only looks like markup', () => {
    expect(stripMarkup('<img alt="a>b" src=x onerror=alert(1)>Prefers tables').trim()).toBe('Prefers tables')
    expect(stripMarkup('<a href="javascript:alert(1)" title=\'x>y\'>glossary</a> first').replace(/\s+/g, ' ').trim()).toBe('glossary first')
    expect(stripMarkup('foo<br>bar')).toBe('foo bar')
    expect(stripMarkup('<p>Prefers</p><p>tables</p>').replace(/\s+/g, ' ').trim()).toBe('Prefers tables')
    // Comparisons and ampersands in scientific text are text, not markup: unchanged.
    expect(stripMarkup('Dose < 5 mg/kg & rising > 2')).toBe('Dose < 5 mg/kg & rising > 2')
    expect(checkMemorySummary('IC50 < 10 nM & selectivity > 100-fold')).toEqual({ ok: true, summary: 'IC50 < 10 nM & selectivity > 100-fold', neutralised: [] })
    // Double-encoded script is decoded and dropped with its content.
    expect(stripMarkup('Table &amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt; style').replace(/\s+/g, ' ').trim()).toBe('Table style')
  })

  it('refuses a summary over 600 characters and an empty one', () => {
    expect(checkMemorySummary('note '.repeat(MEMORY_SUMMARY_MAX / 5).trim()).ok).toBe(true)
    expect(checkMemorySummary('note '.repeat(MEMORY_SUMMARY_MAX / 5) + 'x')).toEqual({ ok: false, reasons: ['too_long'] })
    expect(checkMemorySummary(' \u200B ')).toMatchObject({ ok: false, reasons: ['empty'] })
  })

  it('gives the same answer the second time, when a kept summary is injected into a brief', () => {
    for (const c of INJECTION_FIXTURES) {
      const first = checkMemorySummary(c.text)
      if (first.ok) expect(checkMemorySummary(first.summary)).toEqual({ ok: true, summary: first.summary, neutralised: [] })
    }
  })
})

describe('the injection fixture through the notebook provider handler', () => {
  // Entry text as the notebook provider stores it (flattenEntry), then what an agent may read of it.
  const entry = (text: string) => flattenEntry({
    id: 'etr_fixture', name: 'Fixture entry', modifiedAt: '2026-11-23T10:00:00Z',
    days: [{ date: '2026-11-23', notes: [
      { type: 'text', text: 'Weighed 12 mg of the salt form.', links: [{ id: 'etr_other', type: 'entry' }] },
      { type: 'text', text: c_text },
    ] }],
  }).text
  let c_text = ''
  for (const c of INJECTION_FIXTURES) {
    it(`neutralises ${c.category} / ${c.name} in notebook entry text, keeping the record's own content and mentions`, () => {
      c_text = c.text
      const r = sanitiseOutsideText(entry(c.text), { mentions: true })
      assertInert(r.text)
      expect(r.findings.length).toBeGreaterThan(0)
      expect(r.text).toContain('Weighed 12 mg of the salt form. [entry:etr_other]')
    })
  }
})
