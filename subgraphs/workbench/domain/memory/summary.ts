// Owns the memory summary a role home shows (WorkbenchOut.memory_summary, at most 3): a person's own latest tier-1
// records in one program. Not an aggregate: no counts or scores, only the records themselves, newest first. The
// caller (the workbench home) decides whose summary it may show; this reads through the organisation column plus
// namespace check like every memory read.
import { forOrganization, type Db } from '../../../../core/db'
import { InvalidInput } from '../../../../core/errors'
import { isId } from '../../../../core/ids'
import type { MemoryKind, MemoryOrigin } from '../../../../generated/prisma/client'
import { assertOwnOrganisation, LIVE_STATUSES } from './store'

/** WorkbenchOut.memory_summary holds at most this many records (memory document, Limits). */
export const MEMORY_SUMMARY_LIMIT = 3

export interface MemorySummaryItem {
  id: string
  kind: MemoryKind
  origin: MemoryOrigin
  summary: string
  programId: string
  createdAt: Date
  updatedAt: Date
}

/**
 * The person's latest (at most 3) kept tier-1 records of the program, newest first. Forgotten, removed and expired
 * records never appear. `db` may be the root client: the query is scoped to `organizationId` here.
 */
export async function memorySummary(db: Db, who: { organizationId: string; programId: string; userId: string }): Promise<MemorySummaryItem[]> {
  for (const k of ['organizationId', 'programId', 'userId'] as const) if (!isId(who[k])) throw InvalidInput.of(k, 'not an id this service gave out')
  const rows = await forOrganization(db, who.organizationId).memoryRecord.findMany({
    where: { tier: 'individual', programId: who.programId, userId: who.userId, status: { in: [...LIVE_STATUSES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: MEMORY_SUMMARY_LIMIT,
  })
  assertOwnOrganisation({ session: { organizationId: who.organizationId } }, rows)
  return rows.map((r) => ({ id: r.id, kind: r.kind, origin: r.origin, summary: r.summary, programId: r.programId!, createdAt: r.createdAt, updatedAt: r.updatedAt }))
}
