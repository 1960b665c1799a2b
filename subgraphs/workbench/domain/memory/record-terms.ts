// Owns the scrubber's term source from program records (memory document, Scrubber): target names from the program's
// hypotheses (the hypothesis `target` field) and milestone names (milestone titles). Registered once on load; the
// promote path imports this module, so every promote scrubs them.
import { registerScrubTermSource, type ScrubTerm } from './scrubber'

registerScrubTermSource('program_records', async (tx, programId) => {
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
})
