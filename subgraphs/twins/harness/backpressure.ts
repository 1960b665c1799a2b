// Owns backpressure: with 25 open decision items a person's twins stop filing proposals, and the brief says so
// ('Filing paused: <N> decisions waiting'). The inbox's brief and the harness read it from here.
import type { TenantDb, TenantTx } from '../../../core/db'
import { filingPaused as filingPausedPhrase } from '../../../core/copy'

/** DESIGN.md §11: 25 open decision items for a person pauses filing. */
export const BACKPRESSURE_OPEN_DECISIONS = 25

/** Decision items waiting for the person (open or snoozed), across the person's programs. */
export function openDecisionCount(q: TenantDb | TenantTx, userId: string): Promise<number> {
  return q.inboxItem.count({ where: { userId, kind: 'decision', status: { in: ['open', 'snoozed'] } } })
}

/** True when the twin must not file: the person has BACKPRESSURE_OPEN_DECISIONS or more decisions waiting. */
export const isFilingPaused = (openDecisions: number) => openDecisions >= BACKPRESSURE_OPEN_DECISIONS

/**
 * The brief's backpressure line: 'Filing paused: <N> decisions waiting' when filing is paused, otherwise null.
 * Pass the count (openDecisionCount) so the brief and the harness agree on N.
 */
export function filingPaused(openDecisions: number): string | null {
  return isFilingPaused(openDecisions) ? filingPausedPhrase(openDecisions) : null
}

/** Reads the count and answers the line in one call (for the inbox helper's brief). */
export async function filingPausedFor(q: TenantDb | TenantTx, userId: string): Promise<{ openDecisions: number; line: string | null }> {
  const openDecisions = await openDecisionCount(q, userId)
  return { openDecisions, line: filingPaused(openDecisions) }
}
