// Owns the scrubber's term source from program records (memory document, Scrubber): target names from the program's
// hypotheses (the hypothesis `target` field) and milestone names (milestone titles). Listed in the scrubber's
// SCRUB_TERM_SOURCES, so every promote scrubs them.
import type { TenantTx } from '../../core/database'

export type ScrubLabel = 'program' | 'compound' | 'batch' | 'target' | 'milestone' | 'partner' | 'person'
/** A term the scrubber removes, with what it names (scrubber.ts). */
export interface ScrubTerm { term: string; label: ScrubLabel }

export async function programRecordTerms(tx: TenantTx, programId: string): Promise<ScrubTerm[]> {
  const rows = await tx.programRecord.findMany({
    where: { programId, recordType: { in: ['evidence.hypotheses', 'progress.milestones'] } },
    select: { recordType: true, title: true, fields: true },
  })
  const terms: ScrubTerm[] = []
  for (const r of rows) {
    if (r.recordType === 'progress.milestones') terms.push({ term: r.title, label: 'milestone' })
    const target = (r.fields as { target?: unknown } | null)?.target
    if (r.recordType === 'evidence.hypotheses' && typeof target === 'string' && target.trim()) terms.push({ term: target, label: 'target' })
  }
  return terms
}
