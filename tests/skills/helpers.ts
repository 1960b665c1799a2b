import { expect } from 'vitest'
import { SkillInputError } from '../../domain/skills'

/** Expect `err` (what a call threw) to be a SkillInputError with this code and field. */
function expectCaught(err: unknown, code: string, field: string): SkillInputError {
  expect(err, `expected ${code} on ${field}`).toBeInstanceOf(SkillInputError)
  const e = err as SkillInputError
  expect({ code: e.code, field: e.field }).toEqual({ code, field })
  return e
}

/** Expect fn to throw a SkillInputError with this code and field. */
export function expectSkillError(fn: () => unknown, code: string, field: string): SkillInputError {
  let err: unknown
  try {
    fn()
  } catch (e) {
    err = e
  }
  const e = expectCaught(err, code, field)
  expect(e.message.length).toBeGreaterThan(10)
  return e
}

export async function expectSkillErrorAsync(fn: () => Promise<unknown>, code: string, field: string): Promise<SkillInputError> {
  let err: unknown
  try {
    await fn()
  } catch (e) {
    err = e
  }
  return expectCaught(err, code, field)
}

/** Agreement to `sig` significant figures. */
export function expectSig(actual: number | null | string | boolean, expected: number, sig = 4): void {
  expect(typeof actual).toBe('number')
  expect(Number((actual as number).toPrecision(sig))).toBe(Number(expected.toPrecision(sig)))
}
