// Typed skill input errors (specification, Errors: unit_required, unit_unsupported, unit_mismatch,
// invalid_input). One envelope serves two callers: the POST skill-runs route answers 422 with
// {code, field, message}; the tool server turns the same object into a tool refusal. `field` is a
// JSON-path-ish name of the offending input (`noael[1].dose.unit`) so the UI can show the error
// beside the field.

export const SKILL_INPUT_ERROR_CODES = ['unit_required', 'unit_unsupported', 'unit_mismatch', 'invalid_input'] as const
export type SkillInputErrorCode = (typeof SKILL_INPUT_ERROR_CODES)[number]

export class SkillInputError extends Error {
  readonly code: SkillInputErrorCode
  readonly field: string
  /** HTTP status the REST shim should answer with. */
  readonly status = 422

  constructor(code: SkillInputErrorCode, field: string, message: string) {
    super(message)
    this.name = 'SkillInputError'
    this.code = code
    this.field = field
  }

  /** Plain envelope for a 422 body, a GraphQL typed error or a tool refusal. */
  toJSON(): { code: SkillInputErrorCode; field: string; message: string } {
    return { code: this.code, field: this.field, message: this.message }
  }
}

export function isSkillInputError(e: unknown): e is SkillInputError {
  return e instanceof SkillInputError
}

/** Path segments to `a[1].b.c`. */
export function fieldPath(segments: ReadonlyArray<string | number>): string {
  let out = ''
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`
    else out += out === '' ? s : `.${s}`
  }
  return out
}
