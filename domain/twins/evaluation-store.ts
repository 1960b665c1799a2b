// Owns the stored twin_evaluate reports (twin_evaluations): one row per twin and UTC day, replaced by a rerun that
// day, and the reads of them. A report is per twin; no read here sums reports across one person's twins, and nothing
// here reads memory or feedback per person (memory document: "No endpoint aggregates memory or feedback per person").
import type { TwinDefinition, TwinEvaluation as TwinEvaluationRow } from '../../generated/prisma/client'
import type { AnyTx } from '../../core/database'
import { asTx } from '../../core/database'
import type { DomainContext } from '../../core/jobs'
import { can } from '../../core/identity'

/** One twin's evaluation over its window (evaluation.ts computes it; stored here). */
export interface TwinEvaluation {
  twinId: string
  windowStart: Date
  filed: number
  approvedUnchanged: number
  edited: number
  declined: number
  declinedByReason: Record<string, number>
  refused: number
  expired: number
  /** Per trigger: items with feedback, those marked not_useful, and the rate. */
  notUseful: { triggerId: string; rated: number; notUseful: number; rate: number }[]
}

/** The UTC day an evaluation at `now` belongs to. */
const dayOf = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))

/** Stores (or replaces, for the same twin and day) one report. */
export async function storeEvaluation(anyTx: AnyTx, twin: Pick<TwinDefinition, 'id' | 'organizationId' | 'programId'>, e: TwinEvaluation, now: Date): Promise<TwinEvaluationRow> {
  const evaluatedOn = dayOf(now)
  const data = {
    periodStart: e.windowStart, periodEnd: now, filed: e.filed, approvedUnchanged: e.approvedUnchanged, edited: e.edited,
    declined: e.declined, declinedByReason: e.declinedByReason, refused: e.refused, expired: e.expired, notUsefulByTrigger: e.notUseful,
  }
  return asTx(anyTx).twinEvaluation.upsert({
    where: { twinId_evaluatedOn: { twinId: twin.id, evaluatedOn } },
    create: { organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, evaluatedOn, ...data },
    update: data,
  })
}

/**
 * Stored reports of one twin, newest period first (at most `last`, 1 to 365), for oversight: owners, leads and quality
 * reviewers (program.twins.read in the twin's program); null for anyone else, the twin's own person included (they
 * read the live Twin.evaluation).
 */
export async function storedEvaluations(ctx: Pick<DomainContext, 'tdb' | 'session'>, twin: Pick<TwinDefinition, 'id' | 'programId'>, last = 30): Promise<TwinEvaluationRow[] | null> {
  if (!twin.programId || !can(ctx.session, 'program.twins.read', twin.programId)) return null
  const take = Math.min(Math.max(Math.trunc(last) || 1, 1), 365)
  return ctx.tdb.twinEvaluation.findMany({ where: { twinId: twin.id }, orderBy: [{ periodEnd: 'desc' }, { id: 'desc' }], take })
}
