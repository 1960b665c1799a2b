// Owns what the tool server asks of a run's twin: may it call (active), how much of its monthly tool-call budget
// is used (the admission counter), pausing it with reason budget on exhaustion, and the summary console.get_twin returns.
import type { TenantDb, TenantTx } from '../../../core/database'
import type { DomainContext } from '../../../core/jobs'
import { DomainError } from '../../../core/errors'
import { systemActor } from '../../../core/audit'
import { openDecisionCount, filingPaused } from '../../../domain/inbox'
import { loadActiveTwin, pauseTwin } from '../../../domain/twins'
import type { ToolCallScope } from './tool'
import { counterValue, monthTake } from './admission'

/** The twin of a run, refused with twin_paused unless it is active (not_found when retired or absent). */
export const activeTwinOf = (q: TenantDb | TenantTx, organizationId: string, twinId: string) => loadActiveTwin(q, organizationId, twinId)

/** Tool calls admitted for a twin this UTC month (the budget's counter, admission.ts). */
export const toolCallsThisMonth = (q: TenantDb | TenantTx, twin: { id: string; organizationId: string; budgetToolCallsMonth: number }) => counterValue(q, twin.organizationId, monthTake(twin))

/**
 * Exhaustion: once the month's admitted calls reach budget_tool_calls_month the twin pauses with reason budget (its
 * twin_paused notification and audit come with pauseTwin). Calls of one twin racing to it pause it once.
 */
export async function pauseForBudget(ctx: DomainContext, twin: { id: string; budgetToolCallsMonth: number }): Promise<void> {
  await ctx.db.$transaction((tx) => pauseTwin(tx, { id: twin.id, organizationId: ctx.session.organizationId }, 'budget', {
    actor: systemActor('tool_server'), note: `the month's budget of ${twin.budgetToolCallsMonth} tool calls is used`,
  })).catch((e) => {
    // Paused meanwhile (another call of the same twin, or the person): the twin is paused either way.
    if (!(e instanceof DomainError && e.code === 'invalid_transition')) throw e
  })
}

/** console.get_twin. */
export async function twinSummary(q: TenantTx, scope: ToolCallScope) {
  const twin = await q.twinDefinition.findFirstOrThrow({ where: { id: scope.run.twinId } })
  const [used, openDecisions] = await Promise.all([toolCallsThisMonth(q, twin), openDecisionCount(q, twin.userId, twin.organizationId)])
  return {
    id: twin.id, programId: twin.programId, personaKey: twin.personaKey, agentKey: twin.agentKey, status: twin.status,
    pausedReason: twin.pausedReason, duties: twin.duties, expiryHours: twin.expiryHours,
    budget: { toolCallsMonth: twin.budgetToolCallsMonth, usedThisMonth: used },
    openDecisions, filingPaused: filingPaused(openDecisions),
  }
}
