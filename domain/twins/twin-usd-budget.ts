// Owns twin_definitions.budget_usd_month (nullable: no USD budget). What it counts: the cost in US dollars that the
// harness reports for each run of the twin (agent_runs.outcome.cost_usd, a number: the model and vendor charges of that
// run), summed over the twin's runs created in the current UTC month. The deterministic harness reports no cost; the
// model-backed harness (harness/model.ts) writes its running cost on the run after every model call, so runs still in
// flight count. Once the month's reported cost reaches the budget, the twin pauses with reason budget (audit
// twin.self_pause, once), checked before each run starts, before each tool call and before each model call.
import { systemActor } from '../../core/audit'
import { type AnyTx, type Db } from '../../core/db'
import { DomainError } from '../../core/errors'
import type { TwinDefinition } from '../../generated/prisma/client'
import { pauseTwin } from './twins'
import { usdSpentSince } from './sql'

/** The first instant of the UTC month of `now`. */
const monthStart = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))

/** The USD the twin's runs reported this UTC month (0 when none reported any). */
export async function usdSpentThisMonth(q: AnyTx | Db, twin: Pick<TwinDefinition, 'id' | 'organizationId'>, now = new Date()): Promise<number> {
  const spent = await usdSpentSince(q, twin.organizationId, twin.id, monthStart(now))
  return spent ? Number(spent) : 0
}

/** The month's spend against the budget when the budget is set and used up; null otherwise. */
export async function usdBudgetUsedUp(q: AnyTx | Db, twin: Pick<TwinDefinition, 'id' | 'organizationId' | 'budgetUsdMonth'>, now = new Date()) {
  if (twin.budgetUsdMonth === null || twin.budgetUsdMonth === undefined) return null
  const budget = Number(twin.budgetUsdMonth)
  const spent = await usdSpentThisMonth(q, twin, now)
  return spent >= budget ? { spent, budget } : null
}

/**
 * Pauses the twin with reason budget when its USD budget is used up, and answers whether it did (or found it used up).
 * Two callers racing pause it once; a twin paused meanwhile for another reason stays as it is.
 */
export async function pauseWhenUsdBudgetUsedUp(db: Db, twin: Pick<TwinDefinition, 'id' | 'organizationId' | 'budgetUsdMonth'>, actorName: string): Promise<{ spent: number; budget: number } | null> {
  const used = await usdBudgetUsedUp(db, twin)
  if (!used) return null
  await db.$transaction((tx) => pauseTwin(tx, twin, 'budget', {
    actor: systemActor(actorName), note: `the month's budget of ${used.budget.toFixed(2)} USD is used (${used.spent.toFixed(2)} USD reported by its runs)`,
  })).catch((e) => {
    if (!(e instanceof DomainError && e.code === 'invalid_transition')) throw e
  })
  return used
}
