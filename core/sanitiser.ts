// Owns what outside and agent-written text must pass before an agent reads it: unicode clean-up, the markup allow-list,
// the injection-pattern list, encoded payloads, exfiltration links, and (for memory) the tone lint. Pure functions.
// This is the one shared outside-content module: provider handlers (notebook entry text and program record bodies
// today, QMS SOP text and literature records as they land) and memory call it; nobody keeps a second copy.
//
// Stable API (keep these signatures; add, never change):
//   sanitiseOutsideText(text, { mentions? }): Sanitised
//       For provider handlers: outside content before an agent can read it. Never refuses (the vendor's text is what
//       it is): markup reduced to text, invisible characters and homoglyphs cleaned, links, delimiters and encoded
//       runs removed, and each line (or shortest run of up to four lines) that reads as an instruction replaced by
//       '[instruction-like text removed]'. `mentions: true` keeps a provider's `<type:id>` record links as `[type:id]`.
//       Answers { text, findings } (findings: what was neutralised, each once; empty when the text was clean).
//   checkMemorySummary(text, { people? }): MemorySummaryCheck
//       For memory summaries, run twice: when a note is proposed or kept, and when it is injected into a brief.
//       Answers { ok: true, summary, neutralised } (markup, links, invisible characters and homoglyphs may be
//       neutralised) or { ok: false, reasons } (delimiters, instructions, encoded payloads, judgements about people,
//       over MEMORY_SUMMARY_MAX characters, empty). `people`: member names for the tone lint.
//   isEvaluative(text, people?): boolean          the tone lint alone (judgements about people).
//   stripMarkup(text): string                     the markup allow-list alone (empty: text only).
//   Finding, Sanitised, MemorySummaryCheck        the answer types; MEMORY_SUMMARY_MAX (600);
//   INJECTION_PATTERNS, EVALUATIVE_PATTERNS       the pattern lists (ours), for reports and tests.
//
// The markup allow-list is sanitize-html's (allowedTags: [], scripts, styles and embedded documents dropped with their
// content); the injection-pattern list, the delimiter list and the tone lint are ours. A handler's tests run the shared
// injection fixture (tests/fixtures/injection.ts, `describeInjectionFixture`) through it with one line.

import sanitizeHtml from 'sanitize-html'

export const MEMORY_SUMMARY_MAX = 600

/** Why a text was refused (memory) or what was neutralised in it. */
export type Finding =
  | 'invisible_characters' // zero-width, bidi controls, tag characters, other format and control characters
  | 'homoglyphs' // letters of another script posing as Latin ones inside a word
  | 'markup' // tags, comments, script or style content, entities
  | 'exfiltration_link' // links and images, markdown or bare URLs
  | 'delimiter' // fake memory markers, chat-template and prompt delimiters
  | 'instruction_override' // instructions aimed at the agent (ignore previous, you are now, change rubric/citation...)
  | 'encoded_payload' // base64, hex, percent-encoded or escaped runs long enough to hide instructions
  | 'evaluative_language' // tone lint: judgements about people (memory never evaluates anyone)
  | 'too_long'
  | 'empty'

export interface Sanitised {
  /** The neutralised text. */
  text: string
  /** Everything found, in pipeline order, each once. */
  findings: Finding[]
}

// ---- unicode ------------------------------------------------------------------------------------------------------

// Zero-width and joiners, bidi embeddings/overrides/isolates and marks, word joiner and invisible operators, BOM,
// Mongolian vowel separator, variation selectors, the interlinear annotation characters, and Unicode tag characters.
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDDEF]/g
// Control characters other than tab and newline.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g

// Confusable letters from Cyrillic and Greek (and a few others) mapped to the Latin letter they imitate.
const CONFUSABLES: Record<string, string> = {
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ѕ: 's', і: 'i', ј: 'j', ԁ: 'd', ɡ: 'g', ո: 'n', ս: 'u',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', У: 'Y', Х: 'X', Ѕ: 'S', І: 'I', Ј: 'J',
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', ι: 'i', κ: 'k', τ: 't', υ: 'u', χ: 'x', ε: 'e',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
  ı: 'i', ℓ: 'l',
}
const CONFUSABLE_CLASS = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'u')

/** NFKC (folds full-width and mathematical letters), then invisible and control characters removed. */
function cleanUnicode(text: string, found: Set<Finding>): string {
  let out = text.normalize('NFKC')
  const stripped = out.replace(INVISIBLE, '').replace(CONTROL, ' ')
  if (stripped !== out) found.add('invisible_characters')
  out = stripped
  // A word mixing Latin letters with look-alikes of another script is spelled in Latin; whole words of another
  // script (a Greek or Russian term) are left alone.
  out = out.replace(/[\p{L}\p{M}]+/gu, (word) => {
    if (!CONFUSABLE_CLASS.test(word) || !/[A-Za-z]/.test(word)) return word
    found.add('homoglyphs')
    return [...word].map((ch) => CONFUSABLES[ch] ?? ch).join('')
  })
  return out
}

// ---- markup -------------------------------------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', colon: ':', sol: '/', lpar: '(', rpar: ')', lsqb: '[', rsqb: ']', equals: '=' }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});?/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ''
    }
    return ENTITIES[e.toLowerCase()] ?? m
  })
}

// The markup allow-list is enforced by sanitize-html (a maintained HTML parser and sanitiser), never by our own tag
// patterns: no tag and no attribute is allowed, comments and CDATA go, and the elements below are dropped with their
// content (what a script, style or embedded document holds is never text a reader sees).
const MARKUP_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [],
  allowedAttributes: {},
  allowedSchemes: [],
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'template', 'svg', 'math', 'title', 'xmp', 'noembed', 'noframes', 'plaintext'],
}

/**
 * The markup allow-list (empty): text only. Entities are decoded first so encoded tags are stripped too (up to three
 * rounds, for double encoding); a tag becomes a space, so words on either side stay apart. Text without `<` never
 * reaches the parser. The answer is plain text: sanitize-html's own escaping of `<`, `>`, `&` is decoded again.
 */
export function stripMarkup(text: string): string {
  let out = text
  for (let i = 0; i < 3; i++) {
    const before = out
    out = decodeEntities(out)
    if (out.includes('<')) out = decodeEntities(sanitizeHtml(out.replace(/<(?=[a-z/!?])/gi, ' <'), MARKUP_OPTIONS))
    if (out === before) break
  }
  return out
}

// ---- links and images ---------------------------------------------------------------------------------------------

const MD_IMAGE = /!\[([^\]]*)\]\s*\(([^)]*)\)/g
const MD_LINK = /\[([^\]]*)\]\s*\(([^)]*)\)/g
const MD_REF = /^\s*\[[^\]]+\]:\s*\S+.*$/gm
const URL = /\b(?:(?:https?|ftp|wss?|file|data|javascript|vbscript|mailto):[^\s<>"')\]]*|www\.[^\s<>"')\]]+)/gi

/** Images are dropped, links keep their text, bare URLs are replaced: an agent never renders or follows them. */
function neutraliseLinks(text: string, found: Set<Finding>): string {
  const out = text
    .replace(MD_IMAGE, () => ' ')
    .replace(MD_LINK, (_m, label: string) => label)
    .replace(MD_REF, ' ')
    .replace(URL, '[link removed]')
  if (out !== text) found.add('exfiltration_link')
  return out
}

// ---- delimiters ---------------------------------------------------------------------------------------------------

// Markers that would let text pose as a boundary of the brief or of a chat template.
const DELIMITERS: RegExp[] = [
  /<{2,}|>{2,}/g, // <<<memory:...>>> and any run of angle brackets
  /\[\/?(?:INST|SYS|SYSTEM|ASSISTANT|USER)\]/gi,
  /<\|[^|]{0,40}\|>/g, // <|im_start|>, <|endoftext|>
  /<\/?s>/gi,
  /^\s*#{1,6}\s*(?:system|assistant|user|instructions?)\b\s*:?/gim,
  /^\s*(?:system|assistant|developer)\s*:/gim,
  /`{3,}\s*(?:system|instructions?|prompt)?/gi,
  /\b(?:BEGIN|END)\s+(?:SYSTEM|PROMPT|INSTRUCTIONS?|MEMORY)\b/gi,
]

function neutraliseDelimiters(text: string, found: Set<Finding>): string {
  let out = text
  for (const re of DELIMITERS) out = out.replace(re, () => { found.add('delimiter'); return ' ' })
  return out
}

// ---- encoded payloads ---------------------------------------------------------------------------------------------

const BASE64_RUN = /[A-Za-z0-9+/_-]{32,}={0,2}/g
const HEX_RUN = /\b(?:0x)?[0-9a-f]{40,}\b/gi
const ESCAPES = /(?:\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|%[0-9a-f]{2}){4,}/gi

/** Long encoded runs are removed; what they decode to is also checked against the pattern list (`decoded`). */
function neutraliseEncoded(text: string, found: Set<Finding>, decoded: string[]): string {
  let out = text.replace(ESCAPES, (m) => {
    found.add('encoded_payload')
    try { decoded.push(decodeURIComponent(m.replace(/\\u([0-9a-f]{4})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\x/gi, '%'))) } catch { /* not text */ }
    return ' '
  })
  out = out.replace(BASE64_RUN, (m) => {
    // A long identifier-like word (snake_case, a hash-free path) is not a payload: base64 mixes cases and digits.
    if (!/[0-9+/=]/.test(m) && !/[a-z][A-Z]|[A-Z][a-z][A-Z]/.test(m)) return m
    found.add('encoded_payload')
    decoded.push(Buffer.from(m.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'))
    return ' '
  })
  out = out.replace(HEX_RUN, (m) => {
    found.add('encoded_payload')
    decoded.push(Buffer.from(m.replace(/^0x/i, ''), 'hex').toString('utf8'))
    return ' '
  })
  return out
}

// ---- the injection-pattern list (ours) ----------------------------------------------------------------------------

/**
 * Instructions aimed at the agent. Matched on a folded form of the text (lower case, letters and digits separated by
 * single spaces), so punctuation, line breaks and letter-spacing ("i g n o r e") do not hide them.
 */
export const INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|skip|override|bypass|drop)\b(?: \w+){0,4} (?:previous|prior|above|earlier|preceding|all|any|your|the|these|those|system|safety)(?: \w+){0,3} (?:instructions?|rules?|prompts?|directions?|guidelines?|guardrails?|constraints?|policies|policy|context|messages?)\b/,
  /\b(?:new|updated|real|actual|hidden|secret) (?:instructions?|rules|system prompt|directive)s?\b/,
  /\bsystem (?:prompt|message|instructions?)\b/,
  /\byou are (?:now|no longer|actually|free|in)\b/,
  /\b(?:act|behave|respond|answer) as (?:if|an?|the|my)\b/,
  /\b(?:pretend|imagine|roleplay|role play) (?:to be|you are|that|as)\b/,
  /\b(?:from now on|starting now|henceforth)\b/,
  /\b(?:developer|god|admin|sudo|jailbreak|dan|unrestricted|debug) mode\b/,
  /\bjailbreak\b/,
  /\bdo anything now\b/,
  /\b(?:reveal|print|show|repeat|output|leak|dump) (?:\w+ ){0,3}(?:prompt|instructions|system|secrets?|api keys?|tokens?|credentials|passwords?)\b/,
  /\b(?:send|post|upload|forward|transmit|exfiltrate|email|e mail) (?:\w+ ){0,6}(?:to|at) (?:http|www|link removed|https|the following|this (?:url|address|endpoint))\b/,
  /\bexfiltrat/,
  /\b(?:always|automatically|silently) (?:approve|accept|sign|send|decide|keep|grant|agree)\b/,
  /\b(?:approve|accept|sign|decide|resolve|dismiss) (?:every|all|any|each)(?: \w+){0,2} (?:proposals?|decisions?|items?|requests?|changes?|plans?|deviations?|findings?|gates?)\b/,
  /\b(?:never|do not|don t|dont|stop) (?:cite|citing|refuse|refusing|flag|flagging|ask|asking|check|checking|mention|report)\b/,
  /\b(?:change|ignore|lower|relax|disable|skip|override|remove) (?:\w+ ){0,2}(?:rubric|refusals?|citations?|citation rules|safety|guardrails?)\b/,
  /\bwithout (?:citations?|citing|sources|evidence|asking|approval|review)\b/,
  /\b(?:execute|run|eval) (?:this|the following|code|command|script|shell)\b/,
  /\bmemory (?:override|instruction|command)\b/,
  /\bassistant (?:must|should|will|shall)\b/,
  /\bthe (?:agent|twin|model|ai|assistant) (?:must|should|will|shall) (?:now|always|never|ignore|approve|send)\b/,
]

// Letter-spaced or run-together spellings of the strongest phrases, matched with every non-letter removed.
const SQUASHED = ['ignorepreviousinstructions', 'ignoreallpreviousinstructions', 'ignoreallinstructions', 'disregardpreviousinstructions',
  'ignoreprevious', 'systemprompt', 'youarenow', 'developermode', 'jailbreak', 'newinstructions', 'doanythingnow']

const fold = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()

function matchesInjection(text: string): boolean {
  const folded = fold(text)
  if (INJECTION_PATTERNS.some((re) => re.test(folded))) return true
  const squashed = folded.replace(/ /g, '')
  return SQUASHED.some((s) => squashed.includes(s))
}

// ---- tone lint (memory only) --------------------------------------------------------------------------------------

const PERSON = '(?:he|she|they|him|her|them|his|their|the (?:scientist|lead|owner|reviewer|specialist|chemist|biologist|analyst|writer|manager|team|colleague|person|user|member)|my (?:colleague|manager|lead|boss|team)|(?:this|that) person|everyone|nobody)'
const JUDGEMENT = '(?:lazy|incompetent|careless|sloppy|unreliable|useless|stupid|dumb|slow|weak|bad|terrible|awful|poor|mediocre|difficult|hopeless|clueless|untrustworthy|dishonest|unprofessional|inept|negligent|annoying|arrogant|rude|brilliant|genius|a star|the best|the worst|underperform\\w*|overrated)'

const judged = (person: string) =>
  new RegExp(`\\b${person} (?:is|are|was|were|seems?|seemed|looks?|acts?|has been|have been) (?:\\w+ ){0,2}${JUDGEMENT}\\b`)

/** Judgements about people: memory holds methods and preferences, never assessments of anyone. */
export const EVALUATIVE_PATTERNS: readonly RegExp[] = [
  judged(PERSON),
  /\b(?:performance|competence|attitude|productivity|reliability|work ethic) (?:of|review|rating|score|problems?|issues?)\b/,
  /\b(?:his|her|their|[a-z]+ s) (?:performance|competence|attitude|productivity|work ethic|track record)\b/,
  /\b(?:rate|rank|score|grade|evaluate|assess|judge) (?:him|her|them|people|colleagues|the team|members|each person|everyone)\b/,
  /\b(?:should be|needs to be|ought to be) (?:fired|replaced|demoted|disciplined|let go|removed from the team)\b/,
  /\bnot a team player\b/,
  /\b(?:can t|cannot|can not) be trusted\b/,
]

/** `people`: names of the program's members (and the person), so 'Dana is careless' is caught as well. */
export function isEvaluative(text: string, people: readonly string[] = []): boolean {
  const folded = fold(text)
  if (EVALUATIVE_PATTERNS.some((re) => re.test(folded))) return true
  const names = people.flatMap((n) => fold(n).split(' ')).filter((w) => w.length >= 3).map((w) => w.replace(/[^a-z0-9]/g, ''))
  if (!names.length) return false
  const re = judged(`(?:${[...new Set(names)].join('|')})`)
  return re.test(folded) || new RegExp(`\\b(?:${names.join('|')}) s (?:performance|competence|attitude|productivity|work ethic|track record)\\b`).test(folded)
}

// ---- the pipeline -------------------------------------------------------------------------------------------------

interface PipelineOut { text: string; found: Set<Finding>; injection: boolean }

function pipeline(raw: string): PipelineOut {
  const found = new Set<Finding>()
  const decoded: string[] = []
  let text = cleanUnicode(raw, found)
  const unmarked = stripMarkup(text)
  if (unmarked !== text) found.add('markup')
  // Instructions hidden in markup (a script body, an attribute, a comment) are looked for in the original too.
  const injectionBefore = matchesInjection(text) || matchesInjection(decodeEntities(text))
  text = neutraliseLinks(unmarked, found)
  text = neutraliseDelimiters(text, found)
  text = neutraliseEncoded(text, found, decoded)
  text = text.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n').trim()
  // A right-to-left override displays text backwards: what it spells that way is checked too.
  const bidi = /[\u202E\u2067]/.test(raw) && matchesInjection(reversed(text))
  const injection = injectionBefore || bidi || matchesInjection(text) || decoded.some((d) => matchesInjection(cleanUnicode(d, new Set())))
  if (injection) found.add('instruction_override')
  return { text, found, injection }
}

/**
 * Outside content (a provider handler's text) before an agent can read it: markup reduced to text, invisible
 * characters and homoglyphs cleaned, links, delimiters and encoded runs removed, and instructions to the agent
 * fenced: the text is kept (it is the vendor's record) but each line that reads as an instruction is replaced.
 */
export function sanitiseOutsideText(raw: string, opts: { mentions?: boolean } = {}): Sanitised {
  // A provider's record links (the notebook's `<entry:etr_123>` mentions) are kept as plain `[type:id]` text, so the
  // markup allow-list does not take them for tags.
  const input = opts.mentions ? raw.replace(/<([a-z][a-z_]{0,40}):([A-Za-z0-9_-]{1,80})>/g, '[$1:$2]') : raw
  const { text, found } = pipeline(input)
  const REMOVED = '[instruction-like text removed]'
  const lines = text.split('\n')
  // A right-to-left override displays a line backwards: what it spells that way counts too.
  const bidi = /[\u202E\u2067]/.test(raw)
  const reads = (t: string) => matchesInjection(t) || (bidi && matchesInjection(reversed(t)))
  // An instruction may span up to four lines ("Ignore / the previous / instructions"): single lines first, then the
  // shortest window of lines that reads as one is replaced, so the rest of the record stays readable.
  for (let size = 1; size <= 4; size++) {
    for (let i = 0; i + size <= lines.length; i++) {
      const window = lines.slice(i, i + size)
      if (window.includes(REMOVED) || !reads(window.join(' '))) continue
      found.add('instruction_override')
      lines.splice(i, size, REMOVED)
    }
  }
  let out = lines.join('\n')
  // Text whose instruction only shows when read as a whole (spread over more than four lines) goes entirely.
  if (reads(out)) out = REMOVED
  return { text: out, findings: [...found] }
}

const reversed = (text: string) => [...text].reverse().join('')

// What a memory summary may be neutralised for and still be kept; everything else refuses it.
const NEUTRALISABLE: ReadonlySet<Finding> = new Set(['invisible_characters', 'homoglyphs', 'markup', 'exfiltration_link'])

export type MemorySummaryCheck =
  | { ok: true; summary: string; neutralised: Finding[] }
  | { ok: false; reasons: Finding[] }

/**
 * A memory summary, when proposed and again when injected into a brief: at most 600 characters, one paragraph, and
 * refused outright when it carries delimiters, instructions, encoded payloads or judgements about people (a note the
 * twin wrote is never stored half-cleaned: the person is asked about what will be kept, or nothing is kept).
 */
export function checkMemorySummary(raw: string, opts: { people?: readonly string[] } = {}): MemorySummaryCheck {
  const { text, found } = pipeline(raw)
  const summary = text.replace(/\s*\n\s*/g, ' ').replace(/\[link removed\]/g, '').replace(/\s{2,}/g, ' ').trim()
  const reasons = [...found].filter((f) => !NEUTRALISABLE.has(f))
  if (isEvaluative(summary, opts.people) || isEvaluative(raw, opts.people)) reasons.push('evaluative_language')
  if (!summary) reasons.push('empty')
  if ([...raw].length > MEMORY_SUMMARY_MAX || [...summary].length > MEMORY_SUMMARY_MAX) reasons.push('too_long')
  if (reasons.length) return { ok: false, reasons: [...new Set(reasons)] }
  return { ok: true, summary, neutralised: [...found] }
}
