// Owns the plumbing words: what a person must never read in the console because it is the service's internals
// showing through (the R4 gate list's "plumbing-word copy test in the web check"). One list, used by the web checks
// (tests/helpers/web-checks.ts) on every screen's visible text, and by anything else that wants to refuse such text.
//
// It imports only the error catalogue (every refusal code) and core/text/copy.ts (the words the documents forbid and the
// phrases they fix), both free of imports themselves, so it could be bundled for the browser as is.
import { ERROR_CATALOGUE } from '../errors'
import * as copy from './copy'

export interface PlumbingWord {
  /** A short name for the rule, shown in a finding. */
  name: string
  pattern: RegExp
  /** Why a person must not read it. */
  why: string
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Codes the transport answers in `extensions.code` (Apollo's and ours); the catalogue's codes come from it. */
const TRANSPORT_CODES = [
  'UNAUTHENTICATED', 'FORBIDDEN', 'BAD_REQUEST', 'BAD_USER_INPUT', 'NOT_FOUND', 'INTERNAL_SERVER_ERROR', 'TIMEOUT',
  'SERVICE_UNAVAILABLE', 'SUBSCRIPTION_INTERRUPTED', 'SLOW_CONSUMER', 'TOO_MANY_SUBSCRIPTIONS', 'RATE_LIMITED',
  'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'PERSISTED_QUERY_NOT_SUPPORTED', 'SUBGRAPH_FETCH_FAILED',
]

/** Authors a draft must never be credited to: artifacts are agent-generated (twins document, item 8). */
const MACHINE_AUTHORS = String.raw`(?:the\s+|a\s+|an\s+)?(?:(?:large\s+)?language\s+model|model|vendor|AI|LLM|GPT[\w.-]*|ChatGPT|Claude|OpenAI|Anthropic|Gemini|Llama|Mistral)`

export const PLUMBING_WORDS: readonly PlumbingWord[] = [
  // Error codes: every code of the catalogue, its GraphQL type name, and the transport's codes. Case matters for the
  // type names (a 'NotFound' is a code, 'not found' is English); the snake_case codes read as codes in any case.
  ...Object.entries(ERROR_CATALOGUE).flatMap(([code, spec]) => [
    { name: `error code ${code}`, pattern: new RegExp(`(?<![\\w-])${escape(code)}(?![\\w-])`, /_/.test(code) ? 'i' : ''), why: 'a raw error code' },
    ...(spec.type !== code ? [{ name: `error type ${spec.type}`, pattern: new RegExp(`(?<![\\w-])${escape(spec.type)}(?![\\w-])`), why: 'a raw error type name' }] : []),
  ]),
  { name: 'transport error code', pattern: new RegExp(`(?<![\\w-])(?:${TRANSPORT_CODES.join('|')})(?![\\w-])`), why: 'a raw error code' },
  { name: 'snake_case identifier', pattern: /(?<![\w@./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w@-])/, why: 'a code, key or enum value (program_owner, approved_with_edits) instead of its words' },
  { name: 'SCREAMING_SNAKE identifier', pattern: /(?<![\w-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])/, why: 'a code or enum value instead of its words' },
  // Values that leaked from code.
  { name: 'null', pattern: /\bnull\b(?!\s+hypothes)/, why: 'a missing value printed as is' },
  { name: 'undefined', pattern: /\bundefined\b/, why: 'a missing value printed as is' },
  { name: 'NaN', pattern: /\bNaN\b/, why: 'a failed number printed as is' },
  { name: '[object Object]', pattern: /\[object \w+\]/, why: 'an object printed as is' },
  // The machinery's names.
  { name: 'GraphQL', pattern: /\bGraphQL\b/i, why: 'the transport' },
  { name: 'webhook', pattern: /\bweb-?hooks?\b/i, why: 'the transport' },
  { name: 'interrupt', pattern: /\binterrupts?\b/i, why: "the run machinery's name for a question to a person" },
  { name: 'JSON', pattern: /\bJSON\b/i, why: 'a data format' },
  { name: 'UUID', pattern: /\bUUIDs?\b/i, why: 'an identifier format' },
  { name: 'UUID-shaped id', pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i, why: 'a raw identifier' },
  // Developers' words and the skills' keys (issue 34, item 9): people read 'citation check', 'Maximum recommended
  // starting dose', 'first-in-human dose projection'. Lower case only: 'FIH' and 'HED' are how scientists write them.
  { name: 'lint', pattern: /\blint(?:s|ed|er|ing)?\b/i, why: "a developer's word for a check" },
  { name: 'skill key', pattern: /(?<![\w.-])(?:fih|mrsd|hed|nca|cl f|vz f|auclast|aucinf obs|lambda z)(?![\w-])/, why: "a skill's key or output key instead of its words" },
  // Time as the machine writes it; people read '26 November 2026, 10:00'.
  { name: 'unformatted timestamp', pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/, why: 'an ISO 8601 or database timestamp' },
  { name: 'unformatted date', pattern: /(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])/, why: 'an ISO 8601 date' },
  { name: 'epoch milliseconds', pattern: /(?<!\d)1\d{12}(?!\d)/, why: 'a timestamp in milliseconds' },
  // Stack traces.
  { name: 'JavaScript error name', pattern: /\b(?:Type|Reference|Syntax|Range|Internal|Aggregate|GraphQL|Prisma\w*)Error\b/, why: 'an exception' },
  { name: 'stack frame', pattern: /(?:^|\n)\s*at\s+(?:[\w$.<>[\] ]+\s+)?\(?(?:file:|https?:|node:|\/)[^\s)]*:\d+:\d+\)?/, why: 'a stack trace' },
  { name: 'source location', pattern: /\b[\w-]+\.(?:ts|tsx|js|mjs|cjs|jsx):\d+(?::\d+)?\b/, why: 'a stack trace' },
  // The specification's words. 'role' alone is the RBAC role; the persona's layer is always 'workbench role' in full
  // (memory document). The phrases the documents fix that say 'role' otherwise are masked before the scan.
  { name: "'role' for a workbench role", pattern: /(?<!\bworkbench[\s-]+)\broles?\b/i, why: "the term is always written in full, 'workbench role'" },
  { name: 'model or vendor as author', pattern: new RegExp(String.raw`\b(?:model|vendor|AI|LLM|GPT[\w.]*|machine)[- ](?:generated|written|authored|drafted)\b`, 'i'), why: 'artifacts are agent-generated, never model- or vendor-generated' },
  { name: 'model or vendor as author', pattern: new RegExp(String.raw`\b(?:generated|written|authored|drafted|produced|created)\s+(?:by|with|using)\s+${MACHINE_AUTHORS}\b`, 'i'), why: 'artifacts are agent-generated, never model- or vendor-generated' },
  // Whatever else the documents say is never written ('Requested by', ...).
  ...Object.entries(copy.NEVER_WRITTEN).map(([key, phrase]) => ({ name: `never written: ${phrase}`, pattern: new RegExp(`\\b${escape(phrase)}\\b`, 'i'), why: `the documents forbid it (${key})` })),
]

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}

/**
 * The literal text of every phrase the documents fix (core/text/copy.ts), cut at its placeholders: the specification is
 * the authority on copy, so what it fixes ("My program in this role's terms", 'Suggest for the role') is never
 * plumbing. Longest first, so a phrase is masked before a part of it.
 */
export const FIXED_TEXT: readonly string[] = [...new Set(
  Object.entries(copy)
    .filter(([name, v]) => typeof v !== 'function' && name !== 'NEVER_WRITTEN')
    .flatMap(([, v]) => strings(v))
    .flatMap((p) => p.split(/<[^<>]+>/))
    .map((s) => s.trim())
    .filter((s) => s.length >= 4 && /\s/.test(s)),
)].sort((a, b) => b.length - a.length)

export interface PlumbingFinding {
  name: string
  why: string
  /** The text that matched. */
  match: string
  /** Some text either side, to find it on screen. */
  context: string
}

/** Every plumbing word in `text` (one finding per rule and match), after masking the fixed phrases. */
export function findPlumbingWords(text: string): PlumbingFinding[] {
  let masked = text
  for (const phrase of FIXED_TEXT) masked = masked.split(phrase).join(' '.repeat(phrase.length))
  const found: PlumbingFinding[] = []
  for (const rule of PLUMBING_WORDS) {
    const global = new RegExp(rule.pattern.source, rule.pattern.flags.includes('g') ? rule.pattern.flags : `${rule.pattern.flags}g`)
    for (const m of masked.matchAll(global)) {
      const at = m.index ?? 0
      const context = text.slice(Math.max(0, at - 30), at + m[0].length + 30).replace(/\s+/g, ' ').trim()
      found.push({ name: rule.name, why: rule.why, match: m[0].trim(), context })
    }
  }
  return found
}
