// Owns the tool server's sanitiser: what a tool call may carry in (size limits, refused) and what crosses either way
// (control and invisible characters removed, markup outside the allow-list stripped, injection markers neutralised).
// Record text is written by people and vendors, so anything read through a tool is untrusted input to an agent.
import { InvalidInput, type InputIssue } from '../../../core/errors'

/** Limits of one call's arguments (refused above them) and of one string in a result (truncated above it). */
export const LIMITS = Object.freeze({ argumentsBytes: 64 * 1024, inputString: 16 * 1024, outputString: 16 * 1024, depth: 12, listItems: 1000 })

/**
 * Phrases and tokens that try to steer an agent instead of informing it. Matches are replaced by NEUTRALISED and
 * listed as violations; the surrounding text is kept so a person still sees what the record said.
 */
export const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+)?(previous|prior|above|earlier|preceding|system)\s+(instructions?|prompts?|rules?|messages?)/gi,
  /\byou\s+are\s+now\b/gi,
  /\b(new|updated|revised)\s+(system\s+)?instructions?\s*:/gi,
  /\bsystem\s+prompt\b/gi,
  /<\|[a-z_]{2,40}\|>/gi, // chat-template control tokens: <|im_start|>, <|endoftext|>
  /\[\/?(INST|SYS)\]/g,
  /<<\/?SYS>>/g,
  /^\s*(system|assistant|developer)\s*:/gim,
  /<\/?(system|assistant|developer|tool_call|function_call|instructions?)\b[^>]*>/gi,
]
export const NEUTRALISED = '[neutralised]'

/** Markup a record's text may keep (Markdown-friendly inline HTML); every other tag is stripped. */
const ALLOWED_TAGS = new Set(['b', 'i', 'em', 'strong', 'code', 'pre', 'p', 'br', 'ul', 'ol', 'li', 'sub', 'sup'])
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g
const TAG = /<\/?([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>/g
const SCRIPT_BLOCK = /<(script|style|iframe)\b[\s\S]*?<\/\1\s*>/gi

/**
 * The memory brief's fixed prefix (memory.recall's `brief`: lines built by the service from summaries that passed the
 * memory sanitiser twice) is not markup. It is kept only in a field named `brief` and only in its exact form at the
 * start of a line; anywhere else `<memory:...>` is stripped like any tag, so outside text cannot pose as memory.
 */
const MEMORY_MARKER = /^<<<memory:(?:(?:individual|person|role)\/[a-z_]+\/[0-9a-f-]{36}|none)>>>/
const isBriefField = (field: string) => field === 'brief' || field.endsWith('.brief')

export interface Violation { field: string; kind: 'injection_marker' | 'markup' | 'control_characters' | 'truncated'; detail?: string }

/** Cleans one string; what was changed is appended to `violations` under `field`. */
export function sanitiseText(text: string, field: string, violations: Violation[], maxLength = LIMITS.outputString): string {
  let s = text.normalize('NFC')
  const visible = s.replace(CONTROL, '')
  if (visible !== s) { s = visible; violations.push({ field, kind: 'control_characters' }) }
  const before = s
  let strippedTag: string | undefined
  s = s.replace(SCRIPT_BLOCK, (_block, name: string) => { strippedTag ??= name.toLowerCase(); return '' })
  s = s.replace(TAG, (tag, name: string, at: number, whole: string) => {
    if (ALLOWED_TAGS.has(name.toLowerCase())) return tag
    if (isBriefField(field) && name === 'memory' && (at === 2 || whole[at - 3] === '\n') && MEMORY_MARKER.test(whole.slice(at - 2))) return tag
    strippedTag ??= name.toLowerCase()
    return ''
  })
  if (s !== before) violations.push({ field, kind: 'markup', detail: `<${strippedTag}> removed` })
  for (const pattern of INJECTION_PATTERNS) {
    pattern.lastIndex = 0
    if (pattern.test(s)) {
      pattern.lastIndex = 0
      s = s.replace(pattern, NEUTRALISED)
      violations.push({ field, kind: 'injection_marker', detail: pattern.source.slice(0, 60) })
    }
  }
  if (s.length > maxLength) { s = `${s.slice(0, maxLength)}… [truncated]`; violations.push({ field, kind: 'truncated', detail: `over ${maxLength} characters` }) }
  return s
}

/** Every string of a JSON value cleaned, keys kept; used on results before they leave the tool server. */
export function sanitiseValue(value: unknown, violations: Violation[], field = '', maxLength = LIMITS.outputString): unknown {
  if (typeof value === 'string') return sanitiseText(value, field || '(value)', violations, maxLength)
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
 * A call's arguments: refused with invalid_input (every problem, with its field) when over the limits, otherwise
 * cleaned like any text. Nothing is written for a refused call.
 */
export function sanitiseArguments(args: unknown): { args: Record<string, unknown>; violations: Violation[] } {
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
  const violations: Violation[] = []
  const cleaned = sanitiseValue(args ?? {}, violations, '', LIMITS.inputString)
  if (!cleaned || typeof cleaned !== 'object' || Array.isArray(cleaned)) throw InvalidInput.of(null, 'The arguments must be an object.')
  return { args: cleaned as Record<string, unknown>, violations }
}
