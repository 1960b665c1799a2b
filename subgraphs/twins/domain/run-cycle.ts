// Owns executing one queued twin run (the twin_cycle job): refuse a paused or retired twin, start the run, hand it to
// the harness registered for its trigger, finish it. Retried jobs never leave a run stuck running: a run a retry finds
// `running` was cut off by a crash part-way, and is failed rather than run again (a second pass could file twice).
import type { AgentRun } from '../../../generated/prisma/client'
import { contextForUser } from '../../../core/command'
import type { Db } from '../../../core/db'
import { DomainError } from '../../../core/errors'
import { log } from '../../../core/log'
import { getHarness, harnessKeyFor, type RunContext } from '../harness/interface'
import { finishRun, interruptRun, runFooter, startRun } from './runs'

export const CRASHED_RUN_ERROR = 'The worker stopped during this run; it was marked failed rather than run twice.'

export type CycleResult =
  | { ran: false; why: 'missing' | 'finished' | 'waiting' | 'crashed' | 'twin_paused' | 'twin_retired' | 'no_harness' }
  | { ran: true; status: AgentRun['status'] }

/** Runs `runId` once; safe to call again (a finished run is left alone). */
export async function runTwinCycle(db: Db, runId: string): Promise<CycleResult> {
  const run = await db.agentRun.findUnique({ where: { id: runId } })
  if (!run || !run.twinId) return { ran: false, why: 'missing' }
  if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') return { ran: false, why: 'finished' }
  if (run.status === 'interrupted') return { ran: false, why: 'waiting' }
  if (run.status === 'running') {
    await finishRun(db, run, 'failed', { error: CRASHED_RUN_ERROR })
    return { ran: false, why: 'crashed' }
  }
  const twin = await db.twinDefinition.findFirst({ where: { id: run.twinId, organizationId: run.organizationId } })
  if (!twin || twin.status !== 'active') {
    const why = !twin || twin.status === 'retired' ? 'twin_retired' : 'twin_paused'
    await finishRun(db, run, 'cancelled', { error: why })
    return { ran: false, why }
  }
  const trigger = run.triggerId ? await db.twinTrigger.findFirst({ where: { id: run.triggerId, organizationId: run.organizationId } }) : null
  const harness = getHarness(harnessKeyFor(trigger))
  if (!harness) {
    await finishRun(db, run, 'failed', { error: `No harness is registered under ${harnessKeyFor(trigger)}.` })
    return { ran: false, why: 'no_harness' }
  }
  const started = await startRun(db, run)
  let ctx
  try {
    ctx = await contextForUser(db, twin.userId, twin.organizationId, { twinId: twin.id })
  } catch (error) {
    await finishRun(db, started, 'failed', { error: (error as Error).message })
    return { ran: true, status: 'failed' }
  }
  const duties = trigger ? [trigger.dutyKey] : (twin.duties as string[])
  const input: RunContext = { run: started, twin, trigger, duties, ctx, db, footer: (await runFooter(db, started)) ?? '' }
  try {
    const outcome = await harness.execute(input)
    if (outcome.status === 'interrupted') {
      const moved = await interruptRun(db, started)
      return { ran: true, status: moved.status }
    }
    const done = await finishRun(db, started, 'succeeded', { outcome: outcome.summary ?? {} })
    return { ran: true, status: done.status }
  } catch (error) {
    const message = error instanceof DomainError ? `${error.code}: ${error.message}` : (error as Error).message
    log.warn('twin_cycle.failed', { runId: run.id, error })
    await finishRun(db, started, 'failed', { error: message })
    return { ran: true, status: 'failed' }
  }
}
