// Owns what the tool server asks of a run's twin: may it call (active), how much of its monthly tool-call budget
// is used, pausing it with reason budget on exhaustion, and the summary console.get_twin returns.
import type { TenantDb, TenantTx } from '../../../core/db'
import type { DomainContext } from '../../../core/command'
import { DomainError } from '../../../core/errors'
import { systemActor } from '../../../core/audit'
import { openDecisionCount, filingPaused } from '../harness/backpressure'
import { loadActiveTwin, pauseTwin } from '../domain/twins'
import type { ToolCallScope } from './tool'

/** Calendar month in UTC: the window budget_tool_calls_month counts. */
export const monthStart = (now = new Date()) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))

/** Tool calls a twin made this month (every written tool_calls row counts, refused ones included). */
export function toolCallsThisMonth(q: TenantDb | TenantTx, twinId: string, now = new Date()) {
  return q.toolCall.count({ where: { twinId, createdAt: { gte: monthStart(now) } } })
}

/** The twin of a run, refused with twin_paused unless it is active (not_found when retired or absent). */
export const activeTwinOf = (q: TenantDb | TenantTx, organizationId: string, twinId: string) => loadActiveTwin(q, organizationId, twinId)

/**
 * Exhaustion: once the month's calls reach budget_tool_calls_month the twin pauses with reason budget (its
 * twin_paused notification and audit come with pauseTwin). Answers whether it paused.
 */
export async function pauseIfBudgetExhausted(ctx: DomainContext, twin: { id: string; budgetToolCallsMonth: number }): Promise<boolean> {
  const used = await toolCallsThisMonth(ctx.tdb, twin.id)
  if (used < twin.budgetToolCallsMonth) return false
  await ctx.db.$transaction((tx) => pauseTwin(tx, { id: twin.id, organizationId: ctx.session.organizationId }, 'budget', {
    actor: systemActor('tool_server'), note: `${used} tool calls this month; the budget is ${twin.budgetToolCallsMonth}`,
  })).catch((e) => {
    // Paused meanwhile (another call of the same twin, or the person): the twin is paused either way.
    if (!(e instanceof DomainError && e.code === 'invalid_transition')) throw e
  })
  return true
}

/** console.get_twin. */
export async function twinSummary(q: TenantTx, scope: ToolCallScope) {
  const twin = await q.twinDefinition.findFirstOrThrow({ where: { id: scope.run.twinId } })
  const [used, openDecisions] = await Promise.all([toolCallsThisMonth(q, twin.id), openDecisionCount(q, twin.userId)])
  return {
    id: twin.id, programId: twin.programId, personaKey: twin.personaKey, agentKey: twin.agentKey, status: twin.status,
    pausedReason: twin.pausedReason, duties: twin.duties, expiryHours: twin.expiryHours,
    budget: { toolCallsMonth: twin.budgetToolCallsMonth, usedThisMonth: used },
    openDecisions, filingPaused: filingPaused(openDecisions),
  }
}
