// Owns the admission of a twin's tool call against the agent limits that count calls: budget_tool_calls_month (per twin
// and UTC month), max_skill_runs_per_turn and the literature queries per turn (per run and turn). Each limit is a
// counter row in agent_limit_counters taken by the one statement that admits the call (`used < limit` in its UPDATE),
// so calls sent at once are admitted up to the limit and no further: a count read before acting let every call of a
// burst pass together. The takes of one call commit together or not at all, so a refused call consumes nothing.
//
// Counting: a call is counted when it is admitted; what the tool then answers (a result, a refusal of its own, a
// failure) does not give it back, since it ran. A call refused by a limit the tool checks itself (backpressure) is
// given back in the transaction that writes its refused trace (release).
import type { Db, AnyTx } from '../../../core/database'
import { asTx } from '../../../core/database'
import { counterRow, giveBackCounter, takeCounter } from './sql'

export type CounterScope = 'twin_month' | 'turn_skills' | 'turn_queries'

/** One counter to take: `limit` is the most `used` may reach. */
export interface Take { scope: CounterScope; subjectId: string; period: string; limit: number }

/** What an admitted call took, and how many of the twin's month that made. */
export interface Admission { organizationId: string; taken: readonly Take[]; used: ReadonlyMap<CounterScope, number> }

/** The UTC month a twin's budget counts ('2026-11'). */
export const monthPeriod = (now = new Date()) => now.toISOString().slice(0, 7)

export const monthTake = (twin: { id: string; budgetToolCallsMonth: number }, now = new Date()): Take =>
  ({ scope: 'twin_month', subjectId: twin.id, period: monthPeriod(now), limit: twin.budgetToolCallsMonth })

export const turnTake = (scope: 'turn_skills' | 'turn_queries', runId: string, turn: number, limit: number): Take =>
  ({ scope, subjectId: runId, period: String(turn), limit })

class Refused extends Error { constructor(readonly take: Take) { super(take.scope) } }

/**
 * Takes every counter of `takes`, in order (the month first, so two calls of one twin lock in the same order), in one
 * transaction. Answers the admission, or the first take that was at its limit (then nothing was taken).
 */
export async function admit(db: Db, organizationId: string, takes: readonly Take[]): Promise<{ admitted: Admission } | { refused: Take }> {
  try {
    const used = await db.$transaction(async (tx) => {
      const out = new Map<CounterScope, number>()
      for (const t of takes) {
        if (t.limit <= 0) throw new Refused(t)
        const row = await takeCounter(tx, organizationId, t)
        if (!row) throw new Refused(t)
        out.set(t.scope, row.used)
      }
      return out
    })
    return { admitted: { organizationId, taken: takes, used } }
  } catch (e) {
    if (e instanceof Refused) return { refused: e.take }
    throw e
  }
}

/** Gives an admitted call's takes back, in the caller's transaction (the one writing the call's refused trace). */
export async function release(q: AnyTx, admission: Admission): Promise<void> {
  const tx = asTx(q)
  for (const t of admission.taken) {
    await giveBackCounter(tx, admission.organizationId, t)
  }
}

/** A counter's value now (0 before the first take). */
export async function counterValue(q: AnyTx, organizationId: string, take: Pick<Take, 'scope' | 'subjectId' | 'period'>): Promise<number> {
  const row = await counterRow(q, organizationId, take)
  return row?.used ?? 0
}
