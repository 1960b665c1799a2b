// Owns what outside and agent-written text must pass before an agent reads it: unicode clean-up, the markup allow-list,
// the injection-pattern list, encoded payloads, exfiltration links, and (for memory) the tone lint. Pure functions.
// This is the one shared outside-content module: provider handlers (notebook entry text and program record bodies
// today, QMS SOP text and literature records as they land), memory and the tool server (arguments and results) call
// it; nobody keeps a second copy. Outside content is neutralised (the spec's connector layer reads it as it is);
// memory notes and agent-written arguments are refused whole when hostile (the memory document: refused or
// neutralised; a note is never stored half-cleaned).
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
//   checkAgentText(text): AgentTextCheck
//       For text an agent wrote (every string of a tool call's arguments, in the tool server, after credentials were
//       redacted by core/text/redact.ts): { ok: true, text, neutralised } (unchanged, or markup, invisible characters,
//       homoglyphs, images and links carrying data neutralised; plain links and encoded runs that decode to nothing
//       instruction-like are kept) or { ok: false, reasons } (delimiter, instruction_override, encoded_payload): a
//       hostile text is refused whole, never kept partly rewritten.
//   sanitiseOutsideText(text, { links: 'keep', encoded: 'suspicious' }) is what the tool server runs on results.
//   isEvaluative(text, people?): boolean          the tone lint alone (judgements about people, named or not).
//   stripMarkup(text): string                     the markup allow-list alone (empty: text only).
//   Finding, Sanitised, MemorySummaryCheck        the answer types; MEMORY_SUMMARY_MAX (600);
//   INJECTION_PATTERNS, RAW_INJECTION_PATTERNS, EVALUATIVE_PATTERNS   the pattern lists (ours), for reports and tests.
//   injectionPatternsMatching(text): { folded, raw }   which entries of the pattern lists match (tests).
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

// Units scientists write whose compatibility fold (NFKC) would change them: the micro sign, degree Celsius and
// Fahrenheit, ohm, ångström and the trade mark sign stay as written.
const KEEP_AS_WRITTEN = new Set(['\u00B5', '\u2103', '\u2109', '\u2126', '\u212B', '\u2122'])
// What a fold must produce for it to be applied: a letter or a sign of markup, delimiters or links.
const FOLD_MATTERS = /[\p{L}<>[\]{}|\\/`:=#!?&%@_*]/u

/**
 * Compatibility characters folded (NFKC) where the fold spells a letter or a sign that matters (full-width and
 * mathematical letters, `＜`, ligatures, superscript letters); the rest stay as written, so `m²`, `10⁻⁶`, `½`, `…`
 * and `µg` are not rewritten to `m2`, `10-6`, `1⁄2`, `...` and `μg`. What is kept spells no letter and no such sign,
 * so no instruction or delimiter can hide behind it.
 */
function foldCompatibility(text: string): string {
  // Stryker disable next-line ConditionalExpression: equivalent, a text NFKC leaves alone maps every character to itself below
  if (text.normalize('NFKC') === text) return text
  return [...text].map((ch) => {
    const folded = ch.normalize('NFKC')
    // Stryker disable next-line ConditionalExpression: equivalent, a character NFKC leaves alone is itself either way
    return folded === ch || KEEP_AS_WRITTEN.has(ch) || !FOLD_MATTERS.test(folded) ? ch : folded
  }).join('')
}

/** Compatibility letters folded (foldCompatibility), then invisible and control characters removed. */
function cleanUnicode(text: string, found: Set<Finding>): string {
  let out = foldCompatibility(text)
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

// The element names of HTML (current and obsolete ones browsers still parse) and the two foreign roots. Only these
// start markup: a parser takes any `<` before a letter for a tag, and scientists write `<LLOQ at 24 h; dose <5 mg/kg
// and AUC>100`, which it would drop whole. An unknown `<word …>` is text to every reader of plain text (the console
// shows it escaped). Chat-template tags (`<system>`, `<tool_call>`) are markup as well (ROLE_TAGS).
const HTML_ELEMENTS = ('a abbr acronym address applet area article aside audio b base basefont bdi bdo bgsound big blink blockquote body '
  + 'br button canvas caption center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed fieldset '
  + 'figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe image img input ins '
  + 'isindex kbd keygen label legend li link listing main map mark marquee math menu menuitem meta meter multicol nav nextid nobr '
  + 'noembed noframes noscript object ol optgroup option output p param picture plaintext pre progress q rb rp rt rtc ruby s samp '
  + 'script search section select slot small source spacer span strike strong style sub summary sup svg table tbody td template '
  + 'textarea tfoot th thead time title tr track tt u ul var video wbr xmp').split(' ')
// The tags of chat templates and our memory markers: outside text loses them as it loses HTML (a memory note or an
// agent's text carrying one is refused, ROLE_MARKERS).
const ROLE_TAGS = 'system assistant developer user tool_call tool_result function_call instructions? im_start im_end memory'.split(' ')
// What starts markup: a comment, doctype or CDATA (`<!`), a processing instruction (`<?`), an HTML element's (or a
// custom element's, which has a hyphen) opening or closing tag, or a role tag. Every other `<` is a character of the text.
const TAG_START = new RegExp(
  `<(?=!|\\?|/?(?:(?:${HTML_ELEMENTS.join('|')}|[a-z][a-z0-9]*-[a-z0-9._-]*)(?:[\\s/>]|$)|(?:${ROLE_TAGS.join('|')})(?:[\\s/>:]|$)))`, 'gi')

/**
 * The markup allow-list (empty): text only. Entities are decoded first so encoded tags are stripped too (up to three
 * rounds, for double encoding); a tag becomes a space, so words on either side stay apart. Text without `<` never
 * reaches the parser; a `<` that starts no tag (TAG_START) reaches it escaped, so it stays text with what follows it.
 * The answer is plain text: sanitize-html's own escaping of `<`, `>`, `&` is decoded again.
 */
export function stripMarkup(text: string): string {
  let out = text
  for (let i = 0; i < 3; i++) {
    const before = out
    out = decodeEntities(out)
    if (out.includes('<')) out = decodeEntities(sanitizeHtml(escapeText(out), MARKUP_OPTIONS))
    // Stryker disable next-line ConditionalExpression: equivalent, a round that changes nothing changes nothing the next time either
    if (out === before) break
  }
  return out
}

/** `&` and every `<` that starts no tag escaped (what they are is text); a tag gets a space before it. */
function escapeText(text: string): string {
  const tags = new Set<number>()
  for (const m of text.matchAll(TAG_START)) tags.add(m.index)
  return text.replace(/[<&]/g, (ch, at: number) => (ch === '&' ? '&amp;' : tags.has(at) ? ' <' : '&lt;'))
}

// ---- links and images ---------------------------------------------------------------------------------------------

const MD_IMAGE = /!\[([^\]]*)\]\s*\(([^)]*)\)/g
const MD_LINK = /\[([^\]]*)\]\s*\(([^)]*)\)/g
const MD_REF = /^\s*\[[^\]]+\]:\s*\S+.*$/gm
const URL = /\b(?:(?:https?|ftp|wss?|file|data|javascript|vbscript|mailto):[^\s<>"')\]]*|www\.[^\s<>"')\]]+)/gi

// What in a link can leak when rendered or followed: an image (fetched on sight), a scheme other than the web's, or a
// query string (data riding to someone's server). Agent-written text keeps plain links (a DOI, a guideline's page).
const BEACON_URL = /\b(?:(?:file|data|javascript|vbscript):[^\s<>"')\]]*|(?:https?|ftp|wss?):\/\/[^\s<>"')\]?#]*[?#][^\s<>"')\]]*)/gi

const IS_BEACON = new RegExp(BEACON_URL.source, 'i')

/** Agent-written text: images and reference definitions dropped, leaking links replaced; plain links kept. */
function neutraliseBeacons(text: string, found: Set<Finding>): string {
  const out = text
    .replace(MD_IMAGE, () => ' ')
    .replace(MD_REF, ' ')
    .replace(MD_LINK, (m, label: string, href: string) => (IS_BEACON.test(href) ? label : m))
    .replace(BEACON_URL, '[link removed]')
  if (out !== text) found.add('exfiltration_link')
  return out
}

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
  /(["']?)\brole\1\s*[:=]\s*["']?(?:system|assistant|developer|tool|function)\b["']?/gi, // role: system (YAML, JSON)
  /^\s*["']?(?:system_prompt|system|prompt|instructions?|persona|rules)["']?\s*:\s*[|>][-+]?\s*$/gim, // a YAML block scalar
  /\[(?:neutralised|neutralized)\]/gi, // what an earlier partial rewrite left: the rest of its sentence is suspect
]

// Role markers that only read as such before the markup allow-list turns them into nothing: a <system> or <tool_call>
// tag, a front-matter or YAML/JSON block naming a chat role (`role: system`, `"role": "assistant"`), a YAML block
// scalar under prompt or instructions. Looked for in the raw text; the markup pass removes the tags themselves.
const ROLE_MARKERS: RegExp[] = [
  /<\/?(?:system|assistant|developer|user|tool_call|tool_result|function_call|instructions?|im_start|im_end)\b[^>]*>/i,
  /(?:^|[\s{,\[-])["']?role["']?\s*[:=]\s*["']?(?:system|assistant|developer|tool|function)\b["']?\s*(?:$|[,}\n])/im,
  /^\s*["']?(?:system_prompt|system|prompt|instructions?|persona|rules)["']?\s*:\s*[|>][-+]?\s*$/im,
  /^\s*-{3}\s*\n(?:[^\n]*\n){0,6}?\s*(?:role|system|instructions?|persona|prompt)\s*:/im,
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

/**
 * Long encoded runs; what they decode to is also checked against the pattern list (`decoded`). `remove` (outside
 * text, memory) removes every run; `suspicious` (agent-written arguments and tool results, which carry our own
 * hashes, cursors and ids) removes, and reports, only a run that decodes to an instruction.
 */
// Stryker disable next-line StringLiteral: equivalent, any mode but 'suspicious' removes every run
function neutraliseEncoded(text: string, found: Set<Finding>, decoded: string[], mode: 'remove' | 'suspicious' = 'remove'): string {
  const handle = (m: string, decode: () => string) => {
    // Stryker disable next-line StringLiteral: equivalent, a run that does not decode is kept in 'suspicious' mode whatever d holds, and removed otherwise
    let d = ''
    try { d = decode() } catch { /* not text */ }
    if (mode === 'suspicious' && !(d && matchesInjection(cleanUnicode(d, new Set())))) return m
    found.add('encoded_payload')
    if (d) decoded.push(d)
    return ' '
  }
  let out = text.replace(ESCAPES, (m) => handle(m, () => decodeURIComponent(m.replace(/\\u([0-9a-f]{4})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\x/gi, '%'))))
  out = out.replace(BASE64_RUN, (m) => {
    // A long identifier-like word (snake_case, a hash-free path) is not a payload: base64 mixes cases and digits.
    if (!/[0-9+/=]/.test(m) && !/[a-z][A-Z]|[A-Z][a-z][A-Z]/.test(m)) return m
    return handle(m, () => Buffer.from(m.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'))
  })
  // Stryker disable next-line Regex: equivalent, a hex run holds an x only in its 0x prefix
  out = out.replace(HEX_RUN, (m) => handle(m, () => Buffer.from(m.replace(/^0x/i, ''), 'hex').toString('utf8')))
  return out
}

/**
 * Escape sequences written out as text (`\u0061pprove`, `\x69gnore`, `\151`, `%69`, a literal `\n` before a role
 * prefix): what the text spells once they are read, for the pattern list only (the text itself is not rewritten).
 */
function unescapeLiterals(text: string): string {
  return text
    // Stryker disable next-line StringLiteral: equivalent, the regex always captures a or b
    .replace(/\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})/gi, (_m, a: string | undefined, b: string | undefined) => safeChar(parseInt(a ?? b ?? '', 16)))
    .replace(/\\x([0-9a-f]{2})/gi, (_m, h: string) => safeChar(parseInt(h, 16)))
    .replace(/\\([0-7]{3})/g, (_m, o: string) => safeChar(parseInt(o, 8)))
    .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => safeChar(parseInt(h, 16)))
    .replace(/\\[nrt]/g, '\n')
    .replace(/\\e\[[0-9;]*[a-z]|\\033\[[0-9;]*[a-z]|\x1b\[[0-9;]*[a-z]/gi, ' ')
}
const safeChar = (code: number) => (code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ')
const HAS_LITERAL_ESCAPE = /\\(?:u\{?[0-9a-f]{4}|x[0-9a-f]{2}|[0-7]{3}|[nrt]|e\[|033\[)|%[0-9a-f]{2}/i

// ---- the injection-pattern list (ours) ----------------------------------------------------------------------------

// What a credential request names: a credential of the run, the twin, a connection or a person, never a word that
// only sounds like one ('the API key assay', a barcode 'token' on a vial). Matched on folded text (lower case, words).
const CREDENTIAL_NOUN = '(?:run token|bearer token|bearer|access token|refresh token|session token|auth token|id token|api token|'
  + 'authori[sz]ation header|api keys?|credentials?|passwords?|passphrases?|private keys?|client secrets?|secret keys?|signing secrets?|'
  + 'webhook secrets?|jwts?|(?:your|its|their|my|his|her|our|the twin s|the agent s|the run s|this run s|the connection s) (?:own )?(?:\\w+ )?(?:tokens?|secrets?)|'
  + '(?:the |a |any )?secrets? (?:of|from|for|behind) (?:the |this |that |a |your |its )?(?:\\w+ ){0,2}(?:connections?|notebook|qms|vendor|twin|run|accounts?|integrations?|providers?))'
// Words that make the noun a thing of science or the lab, not a credential.
const NOT_A_CREDENTIAL = '(?! (?:assays?|methods?|labels?|barcodes?|samples?|studies|study|models?|values?|counts?|binding|site|sites|residues?|genes?|proteins?|steps?|findings?|budgets?|limits?|usage|spend|costs?|windows?|lengths?|size|sizes))'
const CREDENTIAL = `${CREDENTIAL_NOUN}s?\\b${NOT_A_CREDENTIAL}`
const CREDENTIAL_VERBS = 'include|put|paste|copy|add|write|write out|insert|embed|append|attach|output|print|echo|send|share|post|log|store|'
  + 'save|leak|reveal|tell|give|type|spell|spell out|end|finish|close|sign|signed|follow|followed by|then|list|mention|quote|show|display|'
  + 'return|disclose|expose|transmit|upload|read out|dump|place|prefix|suffix|repeat|hand|pass|forward|email|mail|cc|provide|supply|report|'
  + 'tack|stamp|carrying|containing|including'

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
  // Imperatives only: 'the records do not mention the hold time' describes, 'do not cite' commands.
  /\b(?:never|don t|dont|stop) (?:cite|citing|refuse|refusing|flag|flagging|ask|asking|check|checking|mention|report)\b/,
  /\bdo not (?:cite|refuse|flag|ask)\b/,
  /\b(?:change|ignore|lower|relax|disable|skip|override|remove) (?:\w+ ){0,2}(?:rubric|refusals?|citations?|citation rules|safety|guardrails?)\b/,
  // 'released without review' is a finding; 'fine to proceed without review' is an instruction.
  /\b(?:fine|ok|okay|acceptable|allowed|go ahead|proceed|continue|answer|respond|reply|write|summari[sz]e|decide|act|file|send|approve|sign|publish|release it|do it|do this) (?:\w+ ){0,3}without (?:citations?|citing|sources|evidence|asking|approval|review|confirmation|checking|the person|a human|human review)\b/,
  /\b(?:execute|run|eval) (?:this|the following|code|command|script|shell)\b/,
  /\bmemory (?:override|instruction|command)\b/,
  /\b(?:mark|set|label|grade|treat|file|flag) (?:every|all|each|any)(?: \w+){0,3} as (?:verified|resolved|approved|complete|completed|final|passed|closed|accepted|done|true|signed)\b/,
  /\bassistant (?:must|should|will|shall)\b/,
  /\bthe (?:agent|twin|model|ai|assistant) (?:must|should|will|shall) (?:now|always|never|ignore|approve|send)\b/,
  // Personas that lift restrictions: a named character, a game, a mode, or restrictions lifted outright.
  /\b(?:you re|you are|you will be|youll be|become|play|be) (?:\w+ ){0,4}(?:ai|assistant|model|bot|persona|character|version of yourself|entity)\b(?: \w+){0,8} (?:no|without|free of|free from|unbound by|not bound by|beyond|never follows?|ignores?) (?:any |all |the |your |its )?(?:limits|limitations|restrictions|rules|filters|guidelines|guardrails|constraints|refusals|ethics|policies|censorship|boundaries)\b/,
  /\b(?:stay|remain|staying) in character\b/,
  /\b(?:let s|lets|we will|we ll) (?:play|do) (?:a )?(?:game|role ?play|pretend)\b/,
  /\bplay (?:the role|a role|the part|the character) of\b/,
  /\b(?:lift|lifts|lifted|remove|removes|disable|disables|suspend|suspends|turn off|switch off) (?:\w+ ){0,3}(?:restrictions|limitations|limits|filters|guardrails|safety rules|safety checks|content policy|refusals)\b/,
  /\b(?:no|without) (?:any )?(?:restrictions|limitations|filters|guardrails|content policy|ethical guidelines) (?:apply|applies|at all|whatsoever)\b/,
  /\b(?:unrestricted|unfiltered|uncensored|unaligned|amoral) (?:ai|assistant|model|bot|persona|mode|version|twin|agent)\b/,
  /\b(?:its|your|the twin s|the agent s|the model s|the assistant s|all|my) (?:restrictions|limits|filters|guardrails|rules|safety rules) (?:are |were |is |have been |has been )?(?:lifted|removed|disabled|off|suspended|waived)\b/,
  // Instructions to call a named tool (our namespaces, or 'the X tool'), to promote a note, or to hand off to everyone.
  /\b(?:call|invoke) (?:the |a |this |that )?(?:\w+ ){0,2}(?:tool|api|endpoint|mcp)s?\b/,
  /\bpromote (?:\w+ ){0,4}(?:to|into|across) (?:all|every|other|each) (?:programs?|tiers?|twins?)\b/,
  /\bpromote (?:this|the|these|that|my|every|all|each) (?:\w+ ){0,2}(?:notes?|memory|memories|records?|lessons?|preferences?) (?:to|into|across|for|as)\b/,
  /\b(?:send|forward|broadcast|hand off|handoff|propose (?:a )?hand off|propose (?:a )?handoff|cc|copy) (?:\w+ ){0,5}(?:to )?(?:everyone|everybody|all (?:members|personas|users|recipients|people|the team|program members|twins)|every (?:member|persona|user|person|twin))\b/,
  // Requests to put a credential somewhere it can be read: asked for by a verb ('write out', 'end with', 'followed by'),
  // or named first and then placed ('the run token goes at the end'). Refused whole, with or without a link beside
  // it: removing the link of 'put https://… followed by your run token' would leave an instruction to write it out.
  new RegExp(`\\b(?:${CREDENTIAL_VERBS}) (?:\\w+ ){0,6}?${CREDENTIAL}`),
  new RegExp(`${CREDENTIAL} (?:\\w+ ){0,4}?(?:should|must|shall|will|needs to|has to|is to|are to|goes|go|belongs|belong|appears|appear) (?:\\w+ ){0,3}?(?:appear|be|go|goes|in|into|at|on|after|before|included|written|added|shown|printed|pasted|appended|placed|listed|sent|shared|posted|quoted)\\b`),
]

// Letter-spaced or run-together spellings of the strongest phrases, matched with every non-letter removed.
const SQUASHED = ['ignorepreviousinstructions', 'ignoreallpreviousinstructions', 'ignoreallinstructions', 'disregardpreviousinstructions',
  'ignoreprevious', 'systemprompt', 'youarenow', 'developermode', 'jailbreak', 'newinstructions', 'doanythingnow']

// Stryker disable next-line MethodExpression: equivalent, the folded patterns start at word boundaries, so outer spaces never decide a match
const fold = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()

/**
 * Patterns that need the text as written (a tool's dotted name): an imperative verb, then one of our tool namespaces
 * and a leaf (`call memory.propose_promotion`, `use console.propose_handoff to ...`). Matched case-insensitively.
 */
export const RAW_INJECTION_PATTERNS: readonly RegExp[] = [
  /\b(?:call|invoke|use|run|trigger|execute|fire|issue|then|next|immediately)\b[^.\n]{0,40}?\b(?:memory|console|plans|evidence|progress|review|lens|documents|notebook|qms|chem|tox|qa|stats)\.[a-z]+_?[a-z_]*\b/i,
]

/**
 * Which entries of the pattern lists match a text (indexes into INJECTION_PATTERNS, matched on the folded text, and
 * into RAW_INJECTION_PATTERNS, on the text as written): for tests that give every pattern a case only it catches.
 */
export function injectionPatternsMatching(text: string): { folded: number[]; raw: number[] } {
  const folded = fold(text)
  const hits = (list: readonly RegExp[], t: string) => list.flatMap((re, i) => (re.test(t) ? [i] : []))
  return { folded: hits(INJECTION_PATTERNS, folded), raw: hits(RAW_INJECTION_PATTERNS, text) }
}

function matchesInjection(text: string): boolean {
  // Stryker disable next-line MethodExpression: equivalent while the raw list holds one pattern (some and every agree)
  if (RAW_INJECTION_PATTERNS.some((re) => re.test(text))) return true
  if (matchesFolded(text)) return true
  // Escapes written out as text are read as what they spell ('\u0061pprove all plans', '\n\nsystem: ...'): an
  // instruction, or a role marker that only exists once the escapes are read.
  // Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent, a text without escapes spells itself, which was read above
  if (!HAS_LITERAL_ESCAPE.test(text)) return false
  const spelled = unescapeLiterals(text)
  return matchesFolded(spelled) || RAW_INJECTION_PATTERNS.some((re) => re.test(spelled)) || ROLE_MARKERS.some((re) => re.test(spelled))
    || /(?:^|\n)\s*(?:system|assistant|developer)\s*:/i.test(spelled)
}

function matchesFolded(text: string): boolean {
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

// Words that judge a person whatever the subject is (nobody calls an assay dishonest), so 'Priya is careless' is caught
// without knowing Priya is a person. Words that also describe things (slow, poor, weak, useless) need a person subject.
const PERSON_ONLY_JUDGEMENT = '(?:lazy|incompetent|careless|sloppy|clueless|untrustworthy|dishonest|unprofessional|inept|negligent|arrogant|rude|stupid|dumb|annoying|idiot|an idiot|a slacker|overrated|underperform\\w*|not a team player|not good enough at (?:her|his|their) job)'
// Nouns that name people by occupation or standing, for 'a poor chemist', 'the best analyst'.
const PERSON_NOUN = '(?:scientist|chemist|biologist|pharmacologist|toxicologist|analyst|reviewer|writer|manager|lead|leader|colleague|employee|worker|person|performer|team player|statistician|researcher|hire|intern|postdoc|technician|engineer|director|boss|owner|specialist)s?'
const PERSON_JUDGEMENT = '(?:weak|poor|bad|terrible|awful|mediocre|lousy|sloppy|lazy|careless|incompetent|great|brilliant|excellent|outstanding|top|star|worst|best|weakest|strongest|useless|hopeless|unreliable)'

/** Judgements about people: memory holds methods and preferences, never assessments of anyone. */
export const EVALUATIVE_PATTERNS: readonly RegExp[] = [
  judged(PERSON),
  /\b(?:performance|competence|attitude|productivity|reliability|work ethic) (?:of|review|rating|score|problems?|issues?)\b/,
  /\b(?:his|her|their|[a-z]+ s) (?:performance|competence|attitude|productivity|work ethic|track record)\b/,
  /\b(?:rate|rank|score|grade|evaluate|assess|judge) (?:him|her|them|people|colleagues|the team|members|each person|everyone)\b/,
  /\b(?:should be|needs to be|ought to be) (?:fired|replaced|demoted|disciplined|let go|removed from the team)\b/,
  /\bnot a team player\b/,
  /\b(?:can t|cannot|can not) be trusted\b/,
  new RegExp(`\\b(?:is|are|was|were|seems?|seemed|has been|have been|acts?|acted|being) (?:\\w+ ){0,2}${PERSON_ONLY_JUDGEMENT}\\b`),
  new RegExp(`\\b(?:an?|the|our|my|their|his|her) (?:\\w+ )?${PERSON_JUDGEMENT} (?:\\w+ )?${PERSON_NOUN}\\b`),
  new RegExp(`\\b(?:dr|mr|mrs|ms|miss|prof|professor) [a-z]+ (?:is|was|seems?|seemed|has been) (?:\\w+ ){0,2}${JUDGEMENT}\\b`),
  /\b(?:never|rarely|doesn t|does not|didn t|did not|can t|cannot|won t) (?:\w+ ){0,2}(?:his|her|their) (?:own )?(?:numbers|work|calculations|data|analyses|analysis|results|reports|math|figures|homework|job|share|emails?)\b/,
  new RegExp(`\\b(?:his|her|their|[a-z]+ s) (?:work|writing|attitude|reviews|lab work|bench work|analyses) (?:is|are|was|were|has been|have been) (?:\\w+ ){0,2}${JUDGEMENT}\\b`),
  /\b(?:blame|blamed|fault of|is to blame|at fault)\b(?: \w+){0,3} (?:him|her|them|he|she|they|[a-z]+ s fault)\b/,
  /\b(?:trust|rely on) (?:him|her|them)\b/,
  /\b(?:rate|rank|score|grade|mark|flag|list) [a-z]+ as (?:an? )?(?:\w+ )?(?:underperform\w*|weak|poor|lazy|unreliable|incompetent|low performer|low performing|problem|liability)\b/,
  /\bis to blame\b/,
]

/** `people`: names of the program's members (and the person), so 'Dana is careless' is caught as well. */
export function isEvaluative(text: string, people: readonly string[] = []): boolean {
  const folded = fold(text)
  if (EVALUATIVE_PATTERNS.some((re) => re.test(folded))) return true
  const names = people.flatMap((n) => fold(n).split(' ')).filter((w) => w.length >= 3).map((w) => w.replace(/[^a-z0-9]/g, ''))
  if (!names.length) return false
  const re = judged(`(?:${[...new Set(names)].join('|')})`)
  // Stryker disable next-line StringLiteral: equivalent, EVALUATIVE_PATTERNS already judge any name's possessive ('x s performance')
  return re.test(folded) || new RegExp(`\\b(?:${names.join('|')}) s (?:performance|competence|attitude|productivity|work ethic|track record)\\b`).test(folded)
}

// ---- the pipeline -------------------------------------------------------------------------------------------------

interface PipelineOut { text: string; found: Set<Finding>; injection: boolean }

/**
 * What a caller keeps: outside text and memory remove every link and encoded run; agent-written arguments and tool
 * results keep links and encoded runs (our own URLs, hashes, cursors) unless a run decodes to an instruction.
 */
interface PipelineOptions { links?: 'remove' | 'beacons' | 'keep'; encoded?: 'remove' | 'suspicious' }

function pipeline(raw: string, opts: PipelineOptions = {}): PipelineOut {
  const found = new Set<Finding>()
  // Stryker disable next-line ArrayDeclaration: equivalent, a decoded text is only ever searched for instructions
  const decoded: string[] = []
  let text = cleanUnicode(raw, found)
  if (ROLE_MARKERS.some((re) => re.test(text) || re.test(decodeEntities(text)))) found.add('delimiter')
  const unmarked = stripMarkup(text)
  if (unmarked !== text) found.add('markup')
  // Instructions hidden in markup (a script body, an attribute, a comment) are looked for in the original too.
  const injectionBefore = matchesInjection(text) || matchesInjection(decodeEntities(text))
  text = opts.links === 'keep' ? unmarked : opts.links === 'beacons' ? neutraliseBeacons(unmarked, found) : neutraliseLinks(unmarked, found)
  text = neutraliseDelimiters(text, found)
  text = neutraliseEncoded(text, found, decoded, opts.encoded)
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
export function sanitiseOutsideText(raw: string, opts: { mentions?: boolean } & PipelineOptions = {}): Sanitised {
  // A provider's record links (the notebook's `<entry:etr_123>` mentions) are kept as plain `[type:id]` text, so the
  // markup allow-list does not take them for tags.
  const input = opts.mentions ? raw.replace(/<([a-z][a-z_]{0,40}):([A-Za-z0-9_-]{1,80})>/g, '[$1:$2]') : raw
  const { text, found, injection } = pipeline(input, opts)
  // Nothing reads as an instruction in the whole text, so no line or window of it can (the patterns match within it).
  // Stryker disable next-line ConditionalExpression: equivalent, without an instruction no line or window reads as one, so nothing below changes the text
  if (!injection) return { text, findings: [...found] }
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

// What agent-written text may be cleaned for and still be used; everything else refuses it whole.
const AGENT_HOSTILE: ReadonlySet<Finding> = new Set(['delimiter', 'instruction_override', 'encoded_payload'])

export type AgentTextCheck =
  | { ok: true; text: string; neutralised: Finding[] }
  | { ok: false; reasons: Finding[] }

/**
 * Text an agent wrote (a tool call's argument: a proposal draft, a record body, a note, a hand-off message), before
 * anything is stored or handed on. Refused whole when it carries a delimiter, an instruction or an encoded
 * instruction: never kept partly rewritten, so half an instruction cannot survive. Otherwise answered unchanged, or
 * with markup, invisible characters and homoglyphs neutralised. Links and encoded runs that decode to nothing
 * instruction-like (a DOI link, a checksum, a cursor) are the agent's own and are kept.
 */
export function checkAgentText(raw: string): AgentTextCheck {
  const { text, found } = pipeline(raw, { links: 'beacons', encoded: 'suspicious' })
  const reasons = [...found].filter((f) => AGENT_HOSTILE.has(f))
  if (reasons.length) return { ok: false, reasons }
  if (!found.size) return { ok: true, text: raw, neutralised: [] }
  return { ok: true, text, neutralised: [...found] }
}

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
