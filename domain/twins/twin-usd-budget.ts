// Owns twin_definitions.budget_usd_month (nullable: no USD budget) and agent_runs.usd_reserved. What it counts: the cost
// in US dollars that the harness reports for each run of the twin (agent_runs.outcome.cost_usd, a number: the model and
// vendor charges of that run), summed over the twin's runs created in the current UTC month, plus the reservations of
// its runs still running. Before each model call the model-backed harness (harness/model.ts) reserves that call's worst
// case on its run (reserveModelCall: under a per-twin lock, admitted only when it fits the budget, as the tool-call
// budget's counter is taken by the statement that admits the call); after the call it settles (settleModelCall: the
// real cost written to outcome.cost_usd and the reservation given back, in one statement). So runs in flight together
// never spend past the budget: a call's price is unknown until it answers, its worst case is not. A reservation counts
// only while its run is running: a crashed run's stops counting when the run is ended (failed by its retry or the
// abandoned-run sweep). A call that does not fit is not made: its run ends with reason budget and the twin pauses with
// reason budget (audit twin.self_pause, once). The month's reported cost reaching the budget also pauses the twin,
// checked before each run starts and before each tool call.
import { systemActor } from '../../core/audit'
import { transactionFor, type AnyTx, type Db } from '../../core/database'
import { DomainError } from '../../core/errors'
import type { TwinDefinition } from '../../generated/prisma/client'
import { pauseTwin } from './twins'
import { reserveTwinUsd, settleTwinUsd, usdSpentSince } from './sql'

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
  await transactionFor(db, twin.organizationId, (tx) => pauseTwin(tx, twin, 'budget', {
    actor: systemActor(actorName), note: `the month's budget of ${used.budget.toFixed(2)} USD is used (${used.spent.toFixed(2)} USD reported by its runs)`,
  })).catch((e) => {
    if (!(e instanceof DomainError && e.code === 'invalid_transition')) throw e
  })
  return used
}

/** Why a model call was refused: the month's budget cannot take its worst case, or the twin or the run has stopped. */
export type ModelCallReservation = { reserved: true } | { reserved: false; why: 'budget' | 'stopped' }

/** Dollars rounded up to the microdollar (the reservation column's precision): a worst case is never rounded down. */
const microUp = (usd: number) => Math.ceil(usd * 1e6 - 1e-9) / 1e6

/**
 * Reserves a model call's worst-case cost on its run against the twin's month budget (it replaces the run's previous
 * reservation, which the last settle gave back). When it does not fit, nothing is reserved and the twin is paused with
 * reason budget (once, however many runs are refused together); a twin paused or retired meanwhile refuses every call.
 */
export async function reserveModelCall(
  db: Db, run: { id: string; organizationId: string }, twin: Pick<TwinDefinition, 'id' | 'organizationId'>, worstCaseUsd: number, actorName: string, now = new Date(),
): Promise<ModelCallReservation> {
  const amountUsd = microUp(Math.max(0, worstCaseUsd))
  const row = await transactionFor(db, run.organizationId, (tx) => reserveTwinUsd(tx, run.organizationId, { twinId: twin.id, runId: run.id, amountUsd, since: monthStart(now) }))
  if (row?.reserved) return { reserved: true }
  // A twin paused or retired meanwhile, or a run ended elsewhere (the abandoned-run sweep): no call, and no pause.
  if (!row || row.status !== 'active' || row.fits) return { reserved: false, why: 'stopped' }
  const budget = Number(row.budget)
  const counted = Number(row.counted)
  await transactionFor(db, twin.organizationId, (tx) => pauseTwin(tx, twin, 'budget', {
    actor: systemActor(actorName),
    note: `the month's budget of ${budget.toFixed(2)} USD cannot cover the next model call (up to ${amountUsd.toFixed(4)} USD) after ${counted.toFixed(4)} USD reported or reserved by its runs`,
  })).catch((e) => {
    if (!(e instanceof DomainError && e.code === 'invalid_transition')) throw e
  })
  return { reserved: false, why: 'budget' }
}

/** After a model call: the run's outcome (its real cost so far in cost_usd) written and its reservation given back. */
export async function settleModelCall(db: Db, run: { id: string; organizationId: string }, outcome: Record<string, unknown>): Promise<void> {
  await settleTwinUsd(db, run.organizationId, run.id, outcome)
}
