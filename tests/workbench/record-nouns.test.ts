import { describe, expect, it } from 'vitest'
import { plural } from '../../domain/home'

describe("the role home's status lines", () => {
  it('count record nouns in English plurals', () => {
    expect(plural(3, 'hypothesis')).toBe('3 hypotheses')
    expect(plural(2, 'dependency')).toBe('2 dependencies')
    expect(plural(2, 'requirement_set')).toBe('2 requirement sets')
    expect(plural(1, 'hypothesis')).toBe('1 hypothesis')
    expect(plural(4, 'open_item')).toBe('4 open items')
    expect(plural(2, 'gap')).toBe('2 gaps')
  })
})
