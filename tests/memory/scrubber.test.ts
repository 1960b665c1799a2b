// The scrubber run on promote, case by case (pure): what it removes, what it leaves, and how it counts. The promote
// route's tests (routes.test.ts, twin-memory.test.ts) read the same terms from the program, its members, its
// connections and its records.
import { describe, expect, it } from 'vitest'
import { scrub, type ScrubTerm } from '../../domain/memory'

const terms: ScrubTerm[] = [
  { term: 'Project Falcon', label: 'program' }, { term: 'falcon-kinase', label: 'program' },
  { term: 'Dana Whitfield', label: 'person' }, { term: 'Dana', label: 'person' }, { term: 'Whitfield', label: 'person' },
  { term: 'Northwind CRO', label: 'partner' }, { term: 'LRRK2', label: 'target' }, { term: 'Pilot tox readout', label: 'milestone' },
]

describe('the scrubber', () => {
  it('removes program name and slug, member names, partner, target and milestone names, in any case, and counts each removal', () => {
    expect(scrub('In project falcon (falcon-kinase) ask DANA WHITFIELD before the Pilot tox readout; lrrk2 data from Northwind CRO.', terms))
      .toEqual({ text: 'In [program] ([program]) ask [person] before the [milestone]; [target] data from [partner].', count: 6 })
  })

  it('removes compound and batch identifiers that no program row names', () => {
    expect(scrub('Order batch 2024-001 of ABC-1234 and lot A123; compare XYZ123456 with B-2024-07.', []))
      .toEqual({ text: 'Order [batch] of [compound] and [batch]; compare [compound] with [batch].', count: 5 })
  })

  it('prefers the longest term (a full name before its parts) and counts a repeated term each time', () => {
    expect(scrub('Dana Whitfield and Dana agree; Whitfield too.', terms)).toEqual({ text: '[person] and [person] agree; [person] too.', count: 3 })
  })

  it('leaves words that only contain a term, units, and ordinary method notes alone', () => {
    const text = 'Danazol doses in mg/kg; falconry is unrelated; HPLC at 254 nm, ICH Q1A shelf life 24 months.'
    expect(scrub(text, terms)).toEqual({ text, count: 0 })
  })

  it('answers a count of zero and the text unchanged when nothing names the program', () => {
    expect(scrub('Prefers tables sorted by dose, species first.', terms)).toEqual({ text: 'Prefers tables sorted by dose, species first.', count: 0 })
  })
})
