// Owns twin_triggers.plan_interrupt_id: the plan_approval interrupt through which a trigger's standing plan is
// approved. When a trigger is created, or its standing plan changes, a plan_approval interrupt asks the person to
// approve exactly that plan (question: the duty, the plan and its hash); approving answers it (approved, the hash, who,
// when), and a plan changed before approval answers the earlier one superseded. An interrupt needs a run: each plan
// approval has a plan_draft run of the twin (no trigger id, so it never collides with the trigger's queued cycle),
// moved queued -> running -> interrupted while it waits, then succeeded (approved) or cancelled (superseded). The
// trigger still fires only under standing_plan_approved_at; plan_interrupt_id points at the record of that approval.
import type { TwinDefinition, TwinTrigger } from '../../generated/prisma/client'
import type { TenantTx } from '../../core/database'
import { transition } from '../../core/states'
import { agentRunStatus } from '../../core/states'

export interface PlanApprovalQuestion {
  type: 'standing_plan'
  twinId: string
  triggerId: string
  dutyKey: string
  plan: unknown
  planHash: string | null
}

export interface PlanApprovalAnswer { outcome: 'approved' | 'superseded'; planHash: string | null; byUserId: string; at: string }

/** Opens the plan_approval interrupt for the trigger's current plan (superseding a pending one) and points the trigger at it. */
export async function openPlanApproval(tx: TenantTx, twin: Pick<TwinDefinition, 'id' | 'organizationId' | 'programId'>, trigger: TwinTrigger, byUserId: string): Promise<TwinTrigger> {
  if (trigger.planInterruptId) await answerPlanApproval(tx, trigger, 'superseded', byUserId)
  const now = new Date()
  const queued = await tx.agentRun.create({
    data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'plan_draft', initiatedBy: 'user', twinId: twin.id, startedByUserId: byUserId },
  })
  const running = await transition(tx, agentRunStatus, 'start', queued, { startedAt: now })
  await transition(tx, agentRunStatus, 'interrupt', running)
  const question: PlanApprovalQuestion = { type: 'standing_plan', twinId: twin.id, triggerId: trigger.id, dutyKey: trigger.dutyKey, plan: trigger.standingPlanJson, planHash: trigger.standingPlanHash }
  const interrupt = await tx.runInterrupt.create({
    data: { organizationId: twin.organizationId, runId: queued.id, kind: 'plan_approval', detached: false, question: question as object },
  })
  return tx.twinTrigger.update({ where: { id: trigger.id }, data: { planInterruptId: interrupt.id } })
}

/**
 * Answers the trigger's pending plan_approval (approved with the plan's hash, or superseded) and ends its run. A trigger
 * with none pending (written before plan approvals were recorded) gets one opened first, so an approval is always on
 * record. Answers the trigger as it is after.
 */
export async function answerPlanApproval(tx: TenantTx, trigger: TwinTrigger, outcome: PlanApprovalAnswer['outcome'], byUserId: string): Promise<TwinTrigger> {
  const pending = trigger.planInterruptId ? await tx.runInterrupt.findFirst({ where: { id: trigger.planInterruptId, answeredAt: null } }) : null
  if (!pending) {
    if (outcome === 'superseded') return trigger
    const twin = await tx.twinDefinition.findFirstOrThrow({ where: { id: trigger.twinId }, select: { id: true, organizationId: true, programId: true } })
    return answerPlanApproval(tx, await openPlanApproval(tx, twin, { ...trigger, planInterruptId: null }, byUserId), outcome, byUserId)
  }
  const now = new Date()
  const answer: PlanApprovalAnswer = { outcome, planHash: (pending.question as unknown as PlanApprovalQuestion).planHash, byUserId, at: now.toISOString() }
  await tx.runInterrupt.update({ where: { id: pending.id }, data: { answer: answer as object, answeredByUserId: byUserId, answeredAt: now } })
  const run = { id: pending.runId, organizationId: pending.organizationId }
  if (outcome === 'approved') {
    await transition(tx, agentRunStatus, 'resume', run)
    await transition(tx, agentRunStatus, 'succeed', run, { finishedAt: now, outcome: { plan_approved: true } })
  } else {
    await transition(tx, agentRunStatus, 'cancel', run, { finishedAt: now, error: 'standing plan changed before approval' })
  }
  return tx.twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })
}
