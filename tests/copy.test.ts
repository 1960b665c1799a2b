// Proves every fixed phrase in core/text/copy.ts (the text face's `phrases`) is the documents' own wording, and that each formatter fills its template.
// The specification documents live beside the checkout (../shared/spec), not in the repository: a clone on its own
// runs everything else and reports the comparisons with the documents as skipped, saying why.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { phrases as copy } from '../core/text'
import { ROOT_DIR } from '../core/config'

const SPEC_DIR = path.resolve(ROOT_DIR, '../shared/spec')
const NO_SPEC = !existsSync(SPEC_DIR)
const documents = NO_SPEC ? [] : readdirSync(SPEC_DIR)
  .filter((f) => /^\d{3}_.*\.txt$/.test(f))
  .map((f) => ({ file: f, text: readFileSync(path.join(SPEC_DIR, f), 'utf8') }))

function phrases(value: unknown, at: string): [string, string][] {
  if (typeof value === 'string') return [[at, value]]
  if (Array.isArray(value)) return value.flatMap((v, i) => phrases(v, `${at}[${i}]`))
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => phrases(v, `${at}.${k}`))
  return []
}

const ALL = Object.entries(copy)
  .filter(([, v]) => typeof v !== 'function')
  .flatMap(([name, v]) => phrases(v, name))

describe('fixed phrases', () => {
  it('holds a substantial set of phrases', () => {
    expect(ALL.length).toBeGreaterThan(50)
  })
})

describe.skipIf(NO_SPEC)(`fixed phrases against the specification documents${NO_SPEC ? ` (skipped: ${SPEC_DIR} is not beside this checkout)` : ''}`, () => {
  it('reads the three specification documents', () => {
    expect(documents.map((d) => d.file.slice(0, 3))).toEqual(['000', '001', '002'])
  })

  it.each(ALL)('writes %s exactly as a document does', (_where, phrase) => {
    expect(phrase.trim()).toBe(phrase)
    expect(documents.some((d) => d.text.includes(phrase))).toBe(true)
  })

  it('holds every row of the twins document Fixed phrases table', () => {
    const twins = documents.find((d) => d.file.startsWith('002'))!.text
    const table = twins.slice(twins.indexOf('## Fixed phrases'))
    const rows = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Phrase'))
      .map((l) => l.split('|')[1].trim())
    expect(rows).toHaveLength(10)
    expect(Object.values(copy.FIXED_PHRASES)).toEqual(rows)
  })

  it('holds every single-quoted sentence of the documents that ends with a full stop', () => {
    const quoted = documents.flatMap((d) => [...d.text.matchAll(/'([A-Z][^']*?\.)'/g)].map((m) => m[1]))
    const held = new Set(ALL.map(([, p]) => p))
    expect(quoted.length).toBeGreaterThan(10)
    for (const q of quoted) expect(held, q).toContain(q)
  })
})

describe('formatters', () => {
  it('shows the backpressure line with the number of decisions waiting', () => {
    expect(copy.filingPaused(3)).toBe('Filing paused: 3 decisions waiting')
  })

  it('shows the empty inbox with the time of the next pass', () => {
    expect(copy.nothingWaiting('14:00')).toBe("Nothing waiting. Your twin's next pass is at 14:00.")
  })

  it('names author and decider in the record footer', () => {
    expect(copy.proposedBy('Ana', 'Ben')).toBe("Proposed by Ana's twin (agent); decided by Ben")
    expect(copy.proposedByWorkingAs('Ana', 'Medicinal chemist', 'Ana')).toBe(
      "Proposed by Ana's twin (agent, working as Medicinal chemist); decided by Ana",
    )
  })

  it('counts required records on the stage gate card and names both signers on a closed gate', () => {
    expect(copy.requiredRecordsPresent(4, 6)).toBe('4 of 6 required records present')
    expect(copy.gateClosedBy('Quinn', 'Olga')).toBe('Stage gate reviewed by Quinn (reviewed) and closed by Olga (approved)')
  })

  it('shows who viewed a memory record, who set a workbench role, and who shares role memory', () => {
    expect(copy.viewedBy('Quinn', '3 May 2026')).toBe('Viewed by Quinn on 3 May 2026.')
    expect(copy.setBy('Lee', '3 May 2026')).toBe('Set by Lee on 3 May 2026. Change')
    expect(copy.sharedBy('medicinal chemists')).toBe('Shared by medicinal chemists')
  })

  it('names principal and delegate on a decision routed under delegation', () => {
    expect(copy.routedUnderDelegation('Ana', 'Ben')).toBe(
      'Routed under delegation from Ana; decided by Ben in their own right.',
    )
  })

  it('shows the run-rail budget line with the source and the retry delay in seconds', () => {
    expect(copy.budgetExhausted('citation-graph service', 12)).toBe(
      'budget exhausted for source citation-graph service, retry after 12 s',
    )
    expect(copy.CONNECTORS.budgetExhaustedTemplate.replace('source X', 'source S').replace('after N s', 'after 5 s')).toBe(
      copy.budgetExhausted('S', 5),
    )
  })

  it('writes the skill method line and the data integrity checklist output from their templates', () => {
    expect(copy.methodLine('Body surface area scaling', 'fda_2005_mrsd', '2026-01-15', 2)).toBe(
      'Method: Body surface area scaling (fda_2005_mrsd, retrieved 2026-01-15), version 2',
    )
    expect(copy.checkedAgainst('SOP-QA-014', '3.1')).toBe('checked against SOP-QA-014 3.1')
  })

  it('leaves no placeholder behind in any formatted phrase', () => {
    const outputs = [
      copy.filingPaused(1),
      copy.nothingWaiting('t'),
      copy.proposedBy('a', 'b'),
      copy.proposedByWorkingAs('a', 'w', 'b'),
      copy.requiredRecordsPresent(1, 2),
      copy.gateClosedBy('a', 'b'),
      copy.viewedBy('a', 'd'),
      copy.setBy('a', 'd'),
      copy.sharedBy('r'),
      copy.routedUnderDelegation('a', 'b'),
      copy.methodLine('m', 'g', 'd', 1),
      copy.checkedAgainst('d', 'v'),
    ]
    for (const o of outputs) expect(o).not.toMatch(/<[^>]+>/)
  })
})
