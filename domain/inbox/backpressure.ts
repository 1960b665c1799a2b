// Owns backpressure, the one definition (the design decisions (docs/contributors.md)): with 25 open decision items a person's twins stop filing
// proposals (refused by the tool server, admitFiling) and their runs wait, and the brief says so ('Filing paused: <N>
// decisions waiting'). twin_schedule
// (deferral), the event hook (deferral), the tool server's console.get_twin (the harness's N) and the brief all count
// with openDecisionCounts, so they agree on N.
import { asTx, type AnyTx, type Db, type TenantDb } from '../../core/database'
import { HarnessDenied } from '../../core/errors'
import { filingPaused as filingPausedPhrase } from '../../core/text'
import { lockFilingFor } from './sql'

/** the design decisions (docs/contributors.md): 25 open decision items for a person pauses filing. */
export const BACKPRESSURE_OPEN_DECISIONS = 25


/** Decisions waiting for each of `userIds` of the organisation across their programs (absent users count 0). */
export function openDecisionCounts(q: Db | TenantDb | AnyTx, userIds: readonly string[], organizationId: string): Promise<Map<string, number>> {
  return countOpenDecisions(q, userIds, organizationId)
}

/**
 * The same for a twin_schedule batch, which holds people of many organisations (each person's items are in their own
 * organisation): one grouped query, so a batch of thousands of schedules asks once.
 */
export function openDecisionCountsAcrossOrganisations(q: Db | AnyTx, userIds: readonly string[]): Promise<Map<string, number>> {
  return countOpenDecisions(q, userIds, null)
}

async function countOpenDecisions(q: Db | TenantDb | AnyTx, userIds: readonly string[], organizationId: string | null): Promise<Map<string, number>> {
  const counts = new Map<string, number>(userIds.map((u) => [u, 0]))
  if (userIds.length === 0) return counts
  const rows = await asTx(q).inboxItem.groupBy({
    by: ['userId'], _count: { _all: true },
    // A decision waiting is a decision item open or snoozed (snoozing one does not make room).
    where: { kind: 'decision', status: { in: ['open', 'snoozed'] }, userId: { in: [...userIds] }, ...(organizationId ? { organizationId } : {}) },
  })
  for (const r of rows) counts.set(r.userId, r._count._all)
  return counts
}

/** Decisions waiting for one person. */
export async function openDecisionCount(q: Db | TenantDb | AnyTx, userId: string, organizationId: string): Promise<number> {
  return (await openDecisionCounts(q, [userId], organizationId)).get(userId) ?? 0
}

/** True when the twin must not file (and its runs wait): the person has BACKPRESSURE_OPEN_DECISIONS or more decisions waiting. */
export const isFilingPaused = (openDecisions: number) => openDecisions >= BACKPRESSURE_OPEN_DECISIONS

/**
 * The brief's backpressure line: 'Filing paused: <N> decisions waiting' when filing is paused, otherwise null.
 * Pass the count (openDecisionCount) so the brief and the harness agree on N.
 */
export function filingPaused(openDecisions: number): string | null {
  return isFilingPaused(openDecisions) ? filingPausedPhrase(openDecisions) : null
}

/**
 * The tool server's side of backpressure, in the transaction that files a twin's proposal (and its decision item):
 * takes the person's filing lock until that transaction ends, then counts, so proposals sent at once are filed one
 * after the other, each counting the ones before it, and none past the threshold. Refused harness_denied with the
 * brief's line ('Filing paused: <N> decisions waiting'): the harness stops filing, a misbehaving one files nothing.
 */
export async function admitFiling(tx: AnyTx, userId: string, organizationId: string): Promise<void> {
  await lockFilingFor(tx, userId)
  const open = await openDecisionCount(tx, userId, organizationId)
  if (isFilingPaused(open)) throw new HarnessDenied(filingPausedPhrase(open))
}
