// The skills' number helpers: values keep full precision, display strings never use exponent notation.
import { describe, expect, it } from 'vitest'
import { formatFixed, formatSig, normalise15, plainDecimal, sameToSig } from '../../domain/skills'

describe('display numbers', () => {
  it('writes significant figures without an exponent, for large and small values alike', () => {
    expect(formatSig(8.108108, 2)).toBe('8.1')
    expect(formatSig(123456, 2)).toBe('120000')
    expect(formatSig(0.000012345, 3)).toBe('0.0000123')
    expect(formatSig(-0.000012345, 2)).toBe('-0.000012')
    expect(formatSig(0, 3)).toBe('0')
    expect(formatSig(Number.POSITIVE_INFINITY, 3)).toBe('Infinity')
    expect(formatSig(Number.NaN, 3)).toBe('NaN')
  })

  it('writes fixed decimals, and never a negative zero', () => {
    expect(formatFixed(2.345, 1)).toBe('2.3')
    expect(formatFixed(-0.04, 1)).toBe('0.0')
    expect(formatFixed(-0.4, 0)).toBe('0')
    expect(formatFixed(-1.25, 1)).toBe('-1.3')
    expect(formatFixed(-0.05, 2)).toBe('-0.05')
    expect(formatFixed(Number.NEGATIVE_INFINITY, 2)).toBe('-Infinity')
  })

  it('writes any double as a plain decimal: the point moved left or right of the digits', () => {
    expect(plainDecimal(12.5)).toBe('12.5')
    expect(plainDecimal(1.5e-7)).toBe('0.00000015')
    expect(plainDecimal(-1.5e-7)).toBe('-0.00000015')
    expect(plainDecimal(1e-7)).toBe('0.0000001')
    expect(plainDecimal(1.25e21)).toBe('1250000000000000000000')
    expect(plainDecimal(-2e21)).toBe('-2000000000000000000000')
    expect(plainDecimal(1.2345678901234567e21)).toBe('1234567890123456800000')
  })

  it('normalises a converted value to 15 significant figures, leaving zero and non-finite values alone', () => {
    expect(normalise15(999.9999999999999)).toBe(1000)
    expect(normalise15(0.1 + 0.2)).toBe(0.3)
    expect(normalise15(0)).toBe(0)
    expect(Object.is(normalise15(-0), -0)).toBe(true)
    expect(normalise15(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY)
    expect(normalise15(Number.NaN)).toBeNaN()
  })

  it('compares two values at a number of significant figures', () => {
    expect(sameToSig(8.108, 8.06, 2)).toBe(true)
    expect(sameToSig(8.108, 8.06, 3)).toBe(false)
    expect(sameToSig(0.5, 0.5, 1)).toBe(true)
  })
})
