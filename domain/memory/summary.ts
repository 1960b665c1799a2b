// Owns the memory summary of the role home (memory document, WorkbenchOut.memory_summary, "at most 3"): the latest
// tier-1 records a person keeps in one program. The home and the oversight read it; it never reads tier 2 (oversight
// excludes it) or another program.
import type { DomainContext } from '../../core/jobs'
import { LIVE_STATUSES, toOut, type MemoryRecordOut } from './store'

/** WorkbenchOut.memory_summary holds at most this many records. */
export const MEMORY_SUMMARY_LIMIT = 3

/**
 * The person's latest kept tier-1 records in the program, newest first, at most three. The caller decides whose
 * summary it may read (the role home passes the caller themself); the organisation and namespace check applies.
 */
export async function memorySummary(ctx: Pick<DomainContext, 'session' | 'tdb'>, args: { userId: string; programId: string }): Promise<MemoryRecordOut[]> {
  const rows = await ctx.tdb.memoryRecord.findMany({
    where: { userId: args.userId, programId: args.programId, tier: 'individual', status: { in: [...LIVE_STATUSES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: MEMORY_SUMMARY_LIMIT,
  })
  return toOut(ctx, rows, { withViews: false })
}
