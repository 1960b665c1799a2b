// Owns the tool server's side of what crosses it, in one call path for every tool: the limits of a call's arguments
// (refused above them), every argument string's credentials redacted (core/text/redact.ts), agent-written text checked by
// the one sanitiser (core/text/sanitiser.ts checkAgentText: a hostile text refuses the call whole, it is never stored
// partly rewritten), and results passed through the same sanitiser's outside-text pass before an agent reads them
// (record text is written by people and vendors, so anything read through a tool is untrusted input to an agent).
// It keeps no pattern list of its own.
import { DomainError, InvalidInput, type InputIssue } from '../../../core/errors'
import { checkAgentText, sanitiseOutsideText, type Finding } from '../../../core/text'
import { redactSecretsDeep, type SecretFinding } from '../../../core/text'

/** Limits of one call's arguments (refused above them) and of one string in a result (truncated above it). */
export const LIMITS = Object.freeze({ argumentsBytes: 64 * 1024, inputString: 16 * 1024, outputString: 16 * 1024, depth: 12, listItems: 1000 })

/** What the sanitiser changed, stored on the tool_calls row (output_violations) and answered under `sanitised`. */
export interface Violation {
  field: string
  kind: 'injection_marker' | 'markup' | 'control_characters' | 'truncated' | 'secret'
  /** The shared sanitiser's finding (delimiter, instruction_override, ...), or what was truncated or redacted. */
  detail?: string
}

/** A finding of the shared sanitiser as the tool server reports it. */
export const asViolation = (field: string, f: Finding): Violation => ({
  field, kind: f === 'markup' ? 'markup' : f === 'invisible_characters' || f === 'homoglyphs' ? 'control_characters' : 'injection_marker', detail: f,
})

/**
 * How a tool refuses agent-written text that reads as an instruction: by default `invalid_input` on the field; a tool
 * may answer its own refusal instead (memory.propose_note answers memory_note_refused, the memory document's refusal).
 */
export type TextRefusal = (reasons: Finding[], field: string) => DomainError

export const refuseAsInvalidInput: TextRefusal = (reasons, field) => InvalidInput.of(field,
  `This text reads as an instruction to an agent (${reasons.join(', ')}); nothing was written. Write it as plain content.`)

/**
 * The memory brief's fixed prefix (memory.recall's `brief`: lines built by the service from summaries that passed the
 * memory sanitiser twice) is not markup. It is kept only in a field named `brief` and only in its exact form at the
 * start of a line; anywhere else `<memory:...>` is removed like any delimiter, so outside text cannot pose as memory.
 */
const MEMORY_MARKER = /^<<<memory:(?:(?:individual|person|role)\/[a-z_]+\/[0-9a-f-]{36}|none)>>>/
const isBriefField = (field: string) => field === 'brief' || field.endsWith('.brief')

/** One result string: the outside-text pass (links and our own encoded values kept), the brief's markers set aside. */
function sanitiseResultText(text: string, field: string, violations: Violation[], maxLength: number): string {
  const found = new Set<Finding>()
  const clean = (t: string) => {
    const r = sanitiseOutsideText(t, { links: 'keep', encoded: 'suspicious' })
    if (!r.findings.length) return t
    for (const f of r.findings) found.add(f)
    return r.text
  }
  let s = isBriefField(field)
    ? text.split('\n').map((line) => {
      const marker = MEMORY_MARKER.exec(line)?.[0]
      return marker ? `${marker}${clean(line.slice(marker.length))}` : clean(line)
    }).join('\n')
    : clean(text)
  for (const f of found) violations.push(asViolation(field, f))
  if (s.length > maxLength) { s = `${s.slice(0, maxLength)}… [truncated]`; violations.push({ field, kind: 'truncated', detail: `over ${maxLength} characters` }) }
  return s
}

/** Every string of a JSON value cleaned, keys kept; used on results before they leave the tool server. */
export function sanitiseValue(value: unknown, violations: Violation[], field = '', maxLength = LIMITS.outputString): unknown {
  if (typeof value === 'string') return sanitiseResultText(value, field || '(value)', violations, maxLength)
  if (Array.isArray(value)) return value.map((v, i) => sanitiseValue(v, violations, `${field}[${i}]`, maxLength))
  if (value && typeof value === 'object') {
    if (value instanceof Date) return value.toISOString()
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = sanitiseValue(v, violations, field ? `${field}.${k}` : k, maxLength)
    return out
  }
  return value
}

/**
 * A call's arguments, for every tool, before they are parsed, stored or handed to a tool: refused with invalid_input
 * (every problem, with its field) when over the limits; then every string's credentials redacted (a twin's run token
 * pasted into a draft is never stored); then every string checked as agent-written text by the one sanitiser, a
 * hostile one refusing the call whole (`refuse`, default invalid_input). Nothing is written for a refused call.
 */
export function sanitiseArguments(args: unknown, refuse: TextRefusal = refuseAsInvalidInput): { args: Record<string, unknown>; violations: Violation[] } {
  const issues: InputIssue[] = []
  const bytes = Buffer.byteLength(JSON.stringify(args ?? {}), 'utf8')
  if (bytes > LIMITS.argumentsBytes) issues.push({ field: null, message: `The arguments are ${bytes} bytes; at most ${LIMITS.argumentsBytes} are accepted.` })
  const walk = (v: unknown, field: string, depth: number) => {
    if (depth > LIMITS.depth) { issues.push({ field, message: `Nested deeper than ${LIMITS.depth} levels.` }); return }
    if (typeof v === 'string' && v.length > LIMITS.inputString) issues.push({ field, message: `At most ${LIMITS.inputString} characters.` })
    else if (Array.isArray(v)) {
      if (v.length > LIMITS.listItems) issues.push({ field, message: `At most ${LIMITS.listItems} items.` })
      else v.forEach((x, i) => walk(x, `${field}[${i}]`, depth + 1))
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, field ? `${field}.${k}` : k, depth + 1)
  }
  if (!issues.length) walk(args, '', 0)
  if (issues.length) throw new InvalidInput(issues.slice(0, 20))
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    if (args == null) return { args: {}, violations: [] }
    throw InvalidInput.of(null, 'The arguments must be an object.')
  }
  const secrets: SecretFinding[] = []
  const redacted = redactSecretsDeep(args, secrets) as Record<string, unknown>
  const violations: Violation[] = secrets.map((s) => ({ field: s.field, kind: 'secret', detail: `${s.count} redacted` }))
  const check = (v: unknown, field: string): unknown => {
    if (typeof v === 'string') {
      const r = checkAgentText(v)
      if (!r.ok) throw refuse(r.reasons, field || '(value)')
      for (const f of r.neutralised) violations.push(asViolation(field || '(value)', f))
      return r.text
    }
    if (Array.isArray(v)) return v.map((x, i) => check(x, `${field}[${i}]`))
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, check(x, field ? `${field}.${k}` : k)]))
    return v
  }
  return { args: check(redacted, '') as Record<string, unknown>, violations }
}
