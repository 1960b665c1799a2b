// Owns the scrubber run on promote (memory document, Scrubber): a tier-2 copy travels to every program of the person,
// so it loses the program slug and name, compound and batch identifiers, target names of the program's hypotheses,
// milestone names, partner names from connection metadata and member names. Counts what it removed.
import type { TenantTx } from '../../core/database'
import { programRecordTerms } from './record-terms'

export type { ScrubLabel, ScrubTerm } from './record-terms'
import type { ScrubLabel, ScrubTerm } from './record-terms'

/**
 * Identifier shapes removed even when no program row names them: compound codes (ABC-1234, XYZ123456), batch and lot
 * numbers (batch 2024-001, lot A123, B-2024-07). Ordinary words and units never match (a letter block plus digits).
 */
export const IDENTIFIER_PATTERNS: readonly { re: RegExp; label: ScrubLabel }[] = [
  { re: /\b(?:batch|lot)\s*(?:no\.?|number|#)?\s*[A-Z0-9][A-Z0-9-]{2,}\b/gi, label: 'batch' },
  { re: /\bB-\d{4}-\d{1,4}\b/g, label: 'batch' },
  { re: /\b[A-Z]{2,5}-?\d{3,7}(?:-[A-Z0-9]{1,4})?\b/g, label: 'compound' },
]

/**
 * Program-specific sources of terms beyond the program's own rows (hypotheses' targets and milestones of program
 * records, record-terms.ts): promote scrubs whatever each answers. A new source is one more entry here.
 */
export type ScrubTermSource = (tx: TenantTx, programId: string) => Promise<ScrubTerm[]>
export const SCRUB_TERM_SOURCES: readonly ScrubTermSource[] = [programRecordTerms]

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Removes every term (longest first, whole words, any case) and identifier shape; `count` is the number of removals. */
export function scrub(text: string, terms: readonly ScrubTerm[]): { text: string; count: number } {
  let count = 0
  let out = text
  const sorted = [...new Map(terms.filter((t) => t.term.trim().length >= 2).map((t) => [t.term.trim().toLowerCase(), t])).values()]
    .sort((a, b) => b.term.length - a.term.length)
  for (const { term, label } of sorted) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${escape(term.trim())}(?![\\p{L}\\p{N}])`, 'giu')
    out = out.replace(re, () => { count++; return `[${label}]` })
  }
  for (const { re, label } of IDENTIFIER_PATTERNS) {
    out = out.replace(re, (m) => (m === `[${label}]` ? m : (count++, `[${label}]`)))
  }
  return { text: out.replace(/\s{2,}/g, ' ').trim(), count }
}

const PARTNER_KEYS = new Set(['partner', 'partnername', 'partner_name', 'organization', 'organisation', 'tenant', 'company', 'vendororganization', 'cro'])

function partnerStrings(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 4 || value === null || typeof value !== 'object') return out
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' && PARTNER_KEYS.has(k.toLowerCase())) out.push(v)
    else partnerStrings(v, out, depth + 1)
  }
  return out
}

/** Everything the scrubber removes for a program: its own rows, its members, its connections, and the listed sources. */
export async function scrubTermsFor(tx: TenantTx, programId: string): Promise<ScrubTerm[]> {
  const program = await tx.program.findFirstOrThrow({ where: { id: programId }, select: { slug: true, name: true } })
  const terms: ScrubTerm[] = [{ term: program.slug, label: 'program' }, { term: program.name, label: 'program' }]
  const members = await tx.programMembership.findMany({ where: { programId }, select: { user: { select: { name: true } } } })
  for (const m of members) {
    terms.push({ term: m.user.name, label: 'person' })
    // Each part of a name too ("Dana" alone still names Dana Whitfield), but not initials.
    for (const part of m.user.name.split(/\s+/)) if (part.length >= 3) terms.push({ term: part, label: 'person' })
  }
  const connections = await tx.connection.findMany({ where: { programId }, select: { name: true, baseUrl: true, scopeRules: true, health: true } })
  for (const c of connections) {
    terms.push({ term: c.name, label: 'partner' })
    for (const s of partnerStrings({ scopeRules: c.scopeRules, health: c.health })) terms.push({ term: s, label: 'partner' })
    const host = c.baseUrl ? safeHost(c.baseUrl) : null
    if (host && !/^[\d.:[\]]+$/.test(host) && host !== 'localhost') {
      const label = host.split('.').filter((p) => !['www', 'api', 'app', 'eln', 'qms'].includes(p)).slice(-2, -1)[0]
      if (label && label.length >= 3) terms.push({ term: label, label: 'partner' })
    }
  }
  for (const source of SCRUB_TERM_SOURCES) terms.push(...await source(tx, programId))
  return terms
}

function safeHost(url: string): string | null {
  try { return new URL(url).hostname } catch { return null }
}
