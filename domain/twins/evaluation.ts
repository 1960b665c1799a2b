// Owns twin evaluation (twin_evaluate, daily): per twin, never aggregated per person across twins, what its proposals
// became (filed, approved unchanged, edited, declined by reason, refused, expired) and the not_useful rate of each
// trigger; and the high_decline_rate pause (the design decisions (docs/contributors.md): 10 or more decided in 7 days with 60 % or more declined).
import { systemActor } from '../../core/audit'
import { forOrganization, type Db } from '../../core/database'
import { declineReasonsOf, feedbackByTriggerOf, proposalOutcomesOf, refusedCallsOf } from './sql'
import { clock } from './schedules'
import { pauseTwin } from './twins'
import { storeEvaluation, type TwinEvaluation } from './evaluation-store'

export const DECLINE_WINDOW_DAYS = 7
export const DECLINE_MIN_DECIDED = 10
export const DECLINE_RATE_PAUSE = 0.6

export type { TwinEvaluation } from './evaluation-store'

/**
 * Proposals are detached write_approval interrupts whose question names the proposing twin (domain/proposals.ts on
 * the decisions branch): question.type 'proposal', question.proposer.twinId, answer.outcome, answer.reason.code.
 */
export async function evaluateTwin(db: Db, twin: { id: string; organizationId: string }, now = clock.now()): Promise<TwinEvaluation> {
  const since = new Date(now.getTime() - DECLINE_WINDOW_DAYS * 86_400_000)
  const p = await proposalOutcomesOf(db, twin.organizationId, twin.id, since)
  const reasons = await declineReasonsOf(db, twin.organizationId, twin.id, since)
  const r = await refusedCallsOf(db, twin.organizationId, twin.id, since)
  const expired = await forOrganization(db, twin.organizationId).inboxItem.count({ where: { organizationId: twin.organizationId, twinId: twin.id, kind: 'decision', status: 'expired', updatedAt: { gte: since } } })
  const feedback = await feedbackByTriggerOf(db, twin.organizationId, twin.id)
  return {
    twinId: twin.id, windowStart: since, filed: p.filed, approvedUnchanged: p.approved, edited: p.edited, declined: p.declined,
    declinedByReason: Object.fromEntries(reasons.map((x) => [x.reason, x.n])), refused: r.refused, expired,
    notUseful: feedback.map((f) => ({ triggerId: f.trigger_id, rated: f.rated, notUseful: f.not_useful, rate: f.rated ? f.not_useful / f.rated : 0 })),
  }
}

/** Whether an evaluation pauses its twin: 10 or more decided in the window, 60 % or more of them declined. */
export function declineRateTooHigh(e: Pick<TwinEvaluation, 'approvedUnchanged' | 'edited' | 'declined'>): boolean {
  const decided = e.approvedUnchanged + e.edited + e.declined
  return decided >= DECLINE_MIN_DECIDED && e.declined / decided >= DECLINE_RATE_PAUSE
}

/**
 * twin_evaluate: evaluates every active or paused twin and stores each report (twin_evaluations, one per twin and day);
 * active twins over the decline rate pause (high_decline_rate).
 */
export async function evaluateTwins(db: Db, now = clock.now()) {
  const twins = await twinsToEvaluateAcrossOrganisations(db)
  const evaluations: TwinEvaluation[] = []
  let paused = 0
  for (const twin of twins) {
    const e = await evaluateTwin(db, twin, now)
    await storeEvaluation(db, twin, e, now)
    evaluations.push(e)
    if (twin.status === 'active' && declineRateTooHigh(e)) {
      await forOrganization(db, twin.organizationId).$transaction(async (tx) => {
        const current = await tx.twinDefinition.findUnique({ where: { id: twin.id } })
        if (current?.status !== 'active') return
        await pauseTwin(tx, twin, 'high_decline_rate', {
          actor: systemActor('twin_evaluate'), note: `${e.declined} of ${e.approvedUnchanged + e.edited + e.declined} decided proposals declined in ${DECLINE_WINDOW_DAYS} days`,
        })
        paused++
      })
    }
  }
  return { evaluated: evaluations.length, paused, evaluations }
}

/** twin_evaluate's sweep: every organisation's active or paused twins (each is then evaluated on its organisation's client). */
function twinsToEvaluateAcrossOrganisations(db: Db) {
  return db.twinDefinition.findMany({ where: { status: { in: ['active', 'paused'] } }, select: { id: true, organizationId: true, programId: true, status: true } })
}
