// Owns what the custom scalars accept: one parser per scalar, used by the subgraphs' Pothos scalars
// (subgraphs/shared/builder.ts) and by the gateway's edge, which checks variables and literals before planning
// (gateway/edge-scalars.ts), so a malformed value is the caller's error at the edge, never a subgraph's 400.
//
// JSON accepts any JSON value by definition: it has no parser here and nothing to refuse.

/** What a DateTime must look like, as the caller's error says it. */
export const DATE_TIME_EXPECTED = 'an ISO 8601 date-time such as 2026-12-01T09:00:00Z'

// A calendar date, or a date and a time with its offset: a time without an offset would depend on the server's zone.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2})))?$/

/** The instant a DateTime value names, or undefined when it is not an ISO 8601 date or date-time with an offset. */
export function parseDateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined
  const m = DATE_TIME.exec(value)
  if (!m) return undefined
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  // Date rolls 2026-02-30 over to 2 March: the calendar date must read back unchanged
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined
  if (m[4] !== undefined) {
    if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return undefined
    if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return undefined
  }
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/** A value a custom scalar refuses; the message says what the scalar expects. */
export class ScalarValueError extends TypeError {
  constructor(readonly scalar: string, readonly expected: string) {
    super(`${scalar} must be ${expected}.`)
  }
}

export interface ScalarFormat {
  /** the parsed value, or undefined when the value is not of the scalar's format */
  parse(value: unknown): unknown
  /** what the scalar expects, for the caller's error */
  expected: string
}

/** The custom scalars that refuse values, by name (JSON refuses none). */
export const SCALAR_FORMATS: Readonly<Record<string, ScalarFormat>> = {
  DateTime: { parse: parseDateTime, expected: DATE_TIME_EXPECTED },
}

/** The scalar's parsed value; throws ScalarValueError when the value is not of its format. */
export function parseScalar(scalar: keyof typeof SCALAR_FORMATS & string, value: unknown): unknown {
  const format = SCALAR_FORMATS[scalar]
  const parsed = format.parse(value)
  if (parsed === undefined) throw new ScalarValueError(scalar, format.expected)
  return parsed
}
