// Owns executing one queued twin run (the twin_cycle job): refuse a paused or retired twin, start the run, hand it to
// the harness for its trigger (harness/registry.ts, handed in by installDomain), finish it. Retried jobs never leave a run stuck running: a run a
// retry finds `running` was cut off by a crash part-way, and is failed rather than run again (a second pass could file
// twice).
import type { AgentRun } from '../../generated/prisma/client'
import { contextForUser } from '../../core/jobs'
import { forOrganization, type Db } from '../../core/database'
import { abandonedRunsAcrossOrganisations } from './sql'
import { DomainError, InvalidTransition } from '../../core/errors'
import { log } from '../../core/config'
import { harnessKeyFor, triggerHarnessKey, type Harness, type RunContext } from './harness-contract'
import { defaultHarnessFor } from './model-settings'
import { finishRun, interruptRun, runFooter, startRun } from './runs'
import { runWornRole } from '../programs'
import { transitionAll } from '../../core/states'
import { agentRunStatus } from '../../core/states'
import { publish } from '../../core/database'
import { pauseWhenUsdBudgetUsedUp } from './twin-usd-budget'
import { recordToolAllowlist } from './twin-allowlist'
import { systemActor } from '../../core/audit'

export const CRASHED_RUN_ERROR = 'The worker stopped during this run; it was marked failed rather than run twice.'
/** How long a harness may take for one run before the run fails (its signal is aborted). */
// The harnesses (harness/registry.ts) run the tools, which call the domain's faces, so the domain cannot import them:
// installDomain (subgraphs/install.ts) hands the registry's lookup in, as it does the audit hooks.
let harnessOf: (key: string) => Harness | undefined = () => undefined

/** Installs the lookup the run cycle finds a run's harness with (harness/registry.ts getHarness). Idempotent. */
export function installHarnessLookup(lookup: (key: string) => Harness | undefined): void {
  harnessOf = lookup
}

export const RUN_TIME_LIMIT_MS = 10 * 60_000

export type CycleResult =
  | { ran: false; why: 'missing' | 'finished' | 'waiting' | 'crashed' | 'twin_paused' | 'twin_retired' | 'no_harness' }
  | { ran: true; status: AgentRun['status'] }

/** Runs `runId` once; safe to call again (a finished run is left alone). */
export async function runTwinCycle(db: Db, runId: string, opts: { timeLimitMs?: number } = {}): Promise<CycleResult> {
  const run = await runAcrossOrganisations(db, runId)
  if (!run || !run.twinId) return { ran: false, why: 'missing' }
  if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'cancelled') return { ran: false, why: 'finished' }
  if (run.status === 'interrupted') return { ran: false, why: 'waiting' }
  if (run.status === 'running') {
    await finishRun(db, run, 'failed', { error: CRASHED_RUN_ERROR })
    return { ran: false, why: 'crashed' }
  }
  // Everything after the run is read happens in the run's organisation.
  const tdb = forOrganization(db, run.organizationId)
  const twin = await tdb.twinDefinition.findFirst({ where: { id: run.twinId, organizationId: run.organizationId } })
  if (!twin || twin.status !== 'active') {
    const why = !twin || twin.status === 'retired' ? 'twin_retired' : 'twin_paused'
    await finishRun(db, run, 'cancelled', { error: why })
    return { ran: false, why }
  }
  // budget_usd_month used up (twin-usd-budget.ts): the twin pauses, which cancels this queued run with the others.
  if (await pauseWhenUsdBudgetUsedUp(db, twin, 'twin_cycle')) return { ran: false, why: 'twin_paused' }
  const trigger = run.triggerId ? await tdb.twinTrigger.findFirst({ where: { id: run.triggerId, organizationId: run.organizationId } }) : null
  // The trigger's own harness, else the program's or organisation's default (model-settings.ts), else deterministic.
  const harnessKey = harnessKeyFor(trigger, triggerHarnessKey(trigger) ? null : await defaultHarnessFor(db, run.organizationId, run.programId))
  const harness = harnessOf(harnessKey)
  if (!harness) {
    await finishRun(db, run, 'failed', { error: `No harness is registered under ${harnessKey}.` })
    return { ran: false, why: 'no_harness' }
  }
  // The harness the run works under is fixed here, once: choosing another workbench role mid-run does not switch it.
  const worn = run.programId ? await runWornRole(db, { organizationId: run.organizationId, programId: run.programId, userId: twin.userId, twinId: twin.id }) : null
  const started = await startRun(db, run, worn ? { harnessKey: worn.harnessKey, workbenchRoleKey: worn.workbenchRoleKey } : null)
  let ctx
  try {
    ctx = await contextForUser(db, twin.userId, twin.organizationId, { twinId: twin.id })
  } catch (error) {
    await finishRun(db, started, 'failed', { error: (error as Error).message })
    return { ran: true, status: 'failed' }
  }
  // The allow-list the person's permissions grant now: a change since the twin was configured is recorded and audited.
  await tdb.$transaction((tx) => recordToolAllowlist(tx, twin, ctx.session, systemActor('twin_cycle'), 'run'))
  const duties = trigger ? [trigger.dutyKey] : (twin.duties as string[])
  const abort = new AbortController()
  const input: RunContext = { run: started, twin, trigger, duties, ctx, db, footer: (await runFooter(tdb, started)) ?? '', signal: abort.signal }
  const limit = opts.timeLimitMs ?? RUN_TIME_LIMIT_MS
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => { abort.abort(); reject(new Error(`The run took longer than ${limit >= 1000 ? `${Math.round(limit / 1000)} s` : `${limit} ms`} and was stopped.`)) }, limit)
  })
  try {
    const outcome = await Promise.race([harness.execute(input), timedOut])
    if (outcome.status === 'interrupted') {
      const moved = await interruptRun(db, started)
      return { ran: true, status: moved.status }
    }
    // Paused while the harness worked (budget exhausted, a person, a lost permission): the run in flight was left to
    // end here, and it ends cancelled with what it did, since nothing more runs until the person resumes.
    const now = await tdb.twinDefinition.findUnique({ where: { id: twin.id }, select: { status: true, pausedReason: true } })
    if (now && now.status !== 'active') {
      return { ran: true, status: await endRun(db, started, 'cancelled', { outcome: outcome.summary ?? {}, error: `twin ${now.status}${now.pausedReason ? ` (${now.pausedReason})` : ''} during the run` }) }
    }
    const done = await endRun(db, started, 'succeeded', { outcome: outcome.summary ?? {} })
    return { ran: true, status: done }
  } catch (error) {
    const message = error instanceof DomainError ? `${error.code}: ${error.message}` : (error as Error).message
    log.warn('twin_cycle.failed', { runId: run.id, error })
    return { ran: true, status: await endRun(db, started, 'failed', { error: message }) }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Ends a run the harness has finished with. A pause cancels queued runs only, but a run can still be ended from
 * elsewhere while the harness works (the abandoned-run sweep, a retire): then its end stands and is answered, rather
 * than an invalid_transition thrown out of the job (which would retry a run that is over).
 */
async function endRun(db: Db, run: AgentRun, status: 'succeeded' | 'failed' | 'cancelled', opts: Parameters<typeof finishRun>[3]): Promise<AgentRun['status']> {
  try {
    return (await finishRun(db, run, status, opts)).status
  } catch (error) {
    if (!(error instanceof InvalidTransition)) throw error
    const current = await forOrganization(db, run.organizationId).agentRun.findUnique({ where: { id: run.id }, select: { status: true } })
    log.warn('twin_cycle.ended_elsewhere', { runId: run.id, wanted: status, status: current?.status })
    return current?.status ?? status
  }
}

/** The run a twin_cycle job names: its payload carries the run's id only, so this read learns the organisation. */
function runAcrossOrganisations(db: Db, runId: string) {
  return db.agentRun.findUnique({ where: { id: runId } })
}

export const ABANDONED_RUN_ERROR = 'No worker holds this run any more (its job gave up or was lost); it was marked failed.'
/** A queued or running twin run untouched this long with no live job is abandoned. */
export const ABANDONED_AFTER_MS = 3600_000

/**
 * Fails twin runs no job will ever finish: queued or running for over an hour while their twin_cycle job is gone or
 * has used all its attempts (a job that failed three times, a database restored without its jobs). Runs in each
 * twin_schedule pass, so nothing stays stuck `running`.
 */
export async function failAbandonedRuns(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - ABANDONED_AFTER_MS)
  const stuck = await abandonedRunsAcrossOrganisations(db, before)
  if (!stuck.length) return 0
  return failRunsAcrossOrganisations(db, stuck.map((r) => r.id), now)
}

/** One transaction fails every organisation's abandoned runs together: the sweep is the platform's, not a tenant's. */
function failRunsAcrossOrganisations(db: Db, runIds: string[], now: Date): Promise<number> {
  return db.$transaction(async (tx) => {
    const failed = await transitionAll(tx, agentRunStatus, 'fail', { id: { in: runIds } }, { finishedAt: now, error: ABANDONED_RUN_ERROR })
    for (const r of failed) if (r.programId) await publish(tx, 'twin_run_updated', { id: r.id, programId: r.programId, organizationId: r.organizationId })
    return failed.length
  })
}
