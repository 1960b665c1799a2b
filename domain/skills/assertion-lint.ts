// evidence.assertion_lint (class A): tags the assertion kind of every sentence of a draft and flags
// interpretations without a citation marker. The model (kinds, ordered rules, citation markers,
// sentence rules) is the reference entry assertion_model (references.ts); this file only applies it.
// Runs before every evidence.propose_* (the caller wires that).

import { z } from 'zod'
import { ASSERTION_MODEL } from './references'
import type { SkillModule } from './skill'
import { boolValue, col, countValue, iv, textValue, type IntermediateValue, type SkillTable, type SkillValue } from './result'

export const MAX_DRAFT_CHARS = 100_000

const input = z.strictObject({
  text: z.string().min(1).max(MAX_DRAFT_CHARS).describe('draft text (Markdown or plain text)'),
  context: z.string().max(200).optional().describe('what the draft is for, e.g. evidence.propose_finding; recorded only'),
})
export type AssertionLintInput = z.output<typeof input>

export interface Sentence {
  index: number
  start: number
  end: number
  text: string
}

const compiledKindRules = ASSERTION_MODEL.kind_rules.map((r) => ({ ...r, re: new RegExp(r.pattern, r.flags) }))
const compiledMarkers = ASSERTION_MODEL.citation_markers.map((m) => ({ ...m, re: new RegExp(m.pattern, m.flags.includes('g') ? m.flags : m.flags + 'g') }))
const requiresCitation = new Set(ASSERTION_MODEL.kinds.filter((k) => k.requires_citation).map((k) => k.key))
const ABBREV = new Set(ASSERTION_MODEL.abbreviations)

function markersIn(text: string): Array<{ id: string; text: string }> {
  const out: Array<{ id: string; text: string }> = []
  for (const m of compiledMarkers) {
    m.re.lastIndex = 0
    for (const hit of text.matchAll(m.re)) out.push({ id: m.id, text: hit[0] })
  }
  return out
}

function onlyMarkers(text: string): boolean {
  let rest = text
  for (const m of compiledMarkers) rest = rest.replace(new RegExp(m.re.source, m.re.flags), '')
  return rest.replace(/[\s.,;:()]+/g, '') === '' && text.trim() !== ''
}

const stickyMarkers = compiledMarkers.map((m) => new RegExp(m.pattern, m.flags.replace('g', '') + 'y'))

/** Length of the citation markers (and blanks) at the start of `t`, 0 when it does not start with one. */
function leadingMarkerLength(t: string): number {
  let pos = 0
  let matched = false
  for (;;) {
    while (pos < t.length && /\s/.test(t[pos])) pos++
    let hit = false
    for (const re of stickyMarkers) {
      re.lastIndex = pos
      const m = re.exec(t)
      if (m && m[0].length > 0) {
        pos += m[0].length
        hit = matched = true
        break
      }
    }
    if (!hit) break
  }
  if (!matched) return 0
  while (pos < t.length && /[\s.,;:]/.test(t[pos])) pos++
  return pos
}

/** Split a draft into sentences with offsets (assertion_model.sentence_rules). */
export function splitSentences(text: string): Sentence[] {
  // Blocks: paragraphs and list items.
  const blocks: Array<{ start: number; end: number }> = []
  const lineRe = /[^\n]*(\n|$)/g
  let blockStart = -1
  let blockEnd = -1
  for (const m of text.matchAll(lineRe)) {
    if (m[0] === '') break
    const ls = m.index!
    const line = m[0].replace(/\n$/, '')
    const le = ls + line.length
    const blank = line.trim() === ''
    const listItem = /^\s*(?:[-*+]|\d+[.)])\s+/.test(line)
    if (blank) {
      if (blockStart >= 0) blocks.push({ start: blockStart, end: blockEnd })
      blockStart = -1
      continue
    }
    if (listItem && blockStart >= 0) {
      blocks.push({ start: blockStart, end: blockEnd })
      blockStart = -1
    }
    if (blockStart < 0) {
      const lead = listItem ? line.match(/^\s*(?:[-*+]|\d+[.)])\s+/)![0].length : line.length - line.trimStart().length
      blockStart = ls + lead
    }
    blockEnd = le
  }
  if (blockStart >= 0) blocks.push({ start: blockStart, end: blockEnd })

  const pieces: Array<{ start: number; end: number; block: number }> = []
  for (const [bi, b] of blocks.entries()) {
    const s = text.slice(b.start, b.end)
    const re = /[.!?]["')\]]*(?=\s+["'(\[A-Z0-9])/g
    let from = 0
    for (const m of s.matchAll(re)) {
      const endRel = m.index! + m[0].length
      if (s[m.index!] === '.') {
        const before = s.slice(from, m.index!)
        const word = (before.match(/([A-Za-z][A-Za-z.]*)$/)?.[1] ?? '').toLowerCase()
        if (ABBREV.has(word) || /\bet al$/i.test(before)) continue
      }
      pieces.push({ start: b.start + from, end: b.start + endRel, block: bi })
      from = endRel
      while (from < s.length && /\s/.test(s[from])) from++
    }
    if (from < s.length) pieces.push({ start: b.start + from, end: b.end, block: bi })
  }

  // Citation markers that open a fragment (after the previous sentence's full stop) belong to the
  // previous sentence; a fragment made only of markers is attached whole.
  const merged: Array<{ start: number; end: number; block: number }> = []
  for (const p of pieces) {
    const t = text.slice(p.start, p.end)
    const prev = merged[merged.length - 1]
    if (prev && prev.block === p.block && onlyMarkers(t)) {
      prev.end = p.end
      continue
    }
    const lead = prev && prev.block === p.block ? leadingMarkerLength(t) : 0
    if (lead > 0) {
      prev.end = p.start + lead
      if (p.start + lead < p.end) merged.push({ start: p.start + lead, end: p.end, block: p.block })
    } else merged.push({ ...p })
  }
  return merged
    .map((p) => ({ start: p.start, end: p.end, text: text.slice(p.start, p.end).replace(/\s+/g, ' ').trim() }))
    .filter((p) => p.text !== '')
    .map((p, index) => ({ index, ...p }))
}

export function classify(sentence: string): { kind: string; rule: string } {
  // Citation markers are removed before classification so '[1]' does not read as a number.
  let bare = sentence
  for (const m of compiledMarkers) bare = bare.replace(new RegExp(m.re.source, m.re.flags), ' ')
  bare = bare.trim()
  for (const r of compiledKindRules) if (r.re.test(bare)) return { kind: r.kind!, rule: r.id }
  return { kind: ASSERTION_MODEL.fallback.kind, rule: ASSERTION_MODEL.fallback.id }
}

function compute(inp: AssertionLintInput) {
  const sentences = splitSentences(inp.text)
  const ivs: IntermediateValue[] = [iv('sentence_count', sentences.length), iv('assertion_model_version', ASSERTION_MODEL.version)]
  const counts: Record<string, number> = {}
  for (const k of ASSERTION_MODEL.kinds) counts[k.key] = 0
  const rows: SkillTable['rows'] = []
  const uncited: number[] = []
  for (const s of sentences) {
    const { kind, rule } = classify(s.text)
    const markers = markersIn(s.text)
    const cited = markers.length > 0
    const flagged = requiresCitation.has(kind) && !cited
    counts[kind] = (counts[kind] ?? 0) + 1
    if (flagged) uncited.push(s.index)
    rows.push({
      index: { value: s.index },
      start: { value: s.start },
      end: { value: s.end },
      kind: { value: kind },
      rule: { value: rule },
      cited: { value: cited },
      markers: { value: markers.map((m) => m.text).join(' ') },
      flag: { value: flagged ? 'uncited_interpretation' : null },
      text: { value: s.text },
    })
  }
  const warnings = uncited.length ? [`${uncited.length} interpretation(s) without a citation marker: sentence(s) ${uncited.map((i) => i + 1).join(', ')}.`] : []
  const outputs: Record<string, SkillValue> = {
    sentence_count: countValue(sentences.length),
  }
  for (const k of ASSERTION_MODEL.kinds) outputs[`count.${k.key}`] = countValue(counts[k.key])
  outputs.uncited_interpretations = countValue(uncited.length)
  outputs.uncited_sentence_indexes = textValue(uncited.join(','))
  outputs.lint_passed = boolValue(uncited.length === 0)
  outputs.assertion_model_version = textValue(ASSERTION_MODEL.version)

  return {
    outputs,
    citations: [],
    warnings,
    tables: {
      assertions: {
        title: 'Assertions by sentence',
        columns: [
          col('index', '#'),
          col('start', 'Start offset'),
          col('end', 'End offset'),
          col('kind', 'Kind'),
          col('rule', 'Rule'),
          col('cited', 'Cited'),
          col('markers', 'Citation markers'),
          col('flag', 'Flag'),
          col('text', 'Sentence'),
        ],
        rows,
      },
    },
    how_computed: {
      intermediate_values: ivs,
      rules_applied: [
        ...ASSERTION_MODEL.sentence_rules.map((r) => `Sentences: ${r}`),
        ...ASSERTION_MODEL.kind_rules.map((r) => `${r.id} -> ${r.kind}: ${r.description} /${r.pattern}/${r.flags}`),
        `${ASSERTION_MODEL.fallback.id} -> ${ASSERTION_MODEL.fallback.kind}: ${ASSERTION_MODEL.fallback.description}`,
        'Rules are tried in the order listed (citation markers removed first); the first match decides the kind.',
        ...ASSERTION_MODEL.citation_markers.map((m) => `${m.id} citation marker: ${m.description} /${m.pattern}/`),
        ASSERTION_MODEL.flag_rule,
      ],
    },
  }
}

export const assertionLint: SkillModule<typeof input> = {
  key: 'evidence.assertion_lint',
  name: 'Assertion lint',
  product: 'evidence',
  run_role: 'evidence',
  workbench_role: 'all',
  skill_class: 'A',
  check_logic_version: 1,
  release: 'R4',
  input,
  output_fields: [
    'sentence_count',
    ...ASSERTION_MODEL.kinds.map((k) => `count.${k.key}`),
    'uncited_interpretations',
    'uncited_sentence_indexes',
    'lint_passed',
    'assertion_model_version',
  ],
  required_citations: [],
  reference_keys: ['assertion_model'],
  primary_reference: 'assertion_model',
  method_name: 'Assertion lint',
  compute,
}
