// Owns the lifecycle of twin runs (agent_runs of kinds twin_cycle and twin_handoff): creating one (queued, with its
// twin_cycle job), and start, finish, interrupt and resume as the explicit transitions of core/states/runs.ts. Every
// change is announced on twin_run_updated inside its transaction, so subscribers hear of it only once it committed.
// Also the run footer: who started the run, and under whose standing plan.
import type { AgentRun, Prisma } from '../../generated/prisma/client'
import { asTx, transactionFor, type AnyTx, type Db, type TenantDb, type TenantTx } from '../../core/database'
import { insertQueuedRun } from './sql'
import { publish } from '../../core/database'
import { transition } from '../../core/states'
import { agentRunStatus } from '../../core/states'
import { enqueue } from '../../core/jobs'

/** AGENT_RUN_KINDS added by the twins document (R3); R4 adds stage_readiness. */
export const TWIN_RUN_KINDS = ['twin_cycle', 'twin_handoff'] as const
export type TwinRunKind = (typeof TWIN_RUN_KINDS)[number]
/** AGENT_RUN_KINDS added at R4: the run that writes a stage gate's readiness_brief (domain/gate-readiness.ts). */
export const STAGE_READINESS_RUN_KIND = 'stage_readiness' as const
/** agent_runs.initiated_by (null for runs that are not twin runs); a CHECK constraint holds the same list. */
export const INITIATED_BY = ['schedule', 'event', 'handoff', 'user'] as const
export type InitiatedBy = (typeof INITIATED_BY)[number]
export type RunPriority = 'now' | 'digest'

export interface NewTwinRun {
  organizationId: string
  programId: string | null
  twinId: string
  triggerId?: string | null
  kind?: TwinRunKind
  initiatedBy: InitiatedBy
  priority?: RunPriority
  /** What the run is about (a hand-off, a record), when it is about one thing. */
  targetId?: string | null
  /** The person, when initiated_by is user. */
  startedByUserId?: string | null
  /** Not before (the cadence floor of event runs). */
  runAt?: Date
}

const announce = (tx: AnyTx, run: Pick<AgentRun, 'id' | 'programId' | 'organizationId'>) =>
  run.programId ? publish(tx, 'twin_run_updated', { id: run.id, programId: run.programId, organizationId: run.organizationId }) : Promise.resolve()

/**
 * Creates a queued twin run and its twin_cycle job in `tx` (the job exists exactly when the run does). A trigger has
 * at most one queued run (unique index agent_runs_one_queued_per_trigger): when one waits already, that run is
 * answered instead and nothing is written, which is how events and schedules coalesce.
 */
export async function createTwinRun(anyTx: AnyTx, input: NewTwinRun): Promise<{ run: AgentRun; created: boolean }> {
  const tx = asTx(anyTx)
  const rows = await insertQueuedRun(tx, input.organizationId, input)
  if (rows.length === 0) {
    const queued = await tx.agentRun.findFirstOrThrow({ where: { triggerId: input.triggerId!, status: 'queued', organizationId: input.organizationId } })
    return { run: queued, created: false }
  }
  const run = await tx.agentRun.findUniqueOrThrow({ where: { id: rows[0].id } })
  await enqueue(tx, 'twin_cycle', { runId: run.id }, { runAt: input.runAt, jobKey: `twin_cycle:${run.id}`, maxAttempts: 3 })
  await announce(tx, run)
  return { run, created: true }
}

type RunRow = Pick<AgentRun, 'id' | 'organizationId'>

async function move(db: Db | AnyTx, run: RunRow, name: keyof typeof agentRunStatus.transitions, data: Omit<Prisma.AgentRunUncheckedUpdateManyInput, 'status' | 'id' | 'organizationId'> = {}) {
  const apply = async (tx: AnyTx) => {
    const moved = await transition(tx, agentRunStatus, name, run, data)
    await announce(tx, moved)
    return moved
  }
  // A client opens its own transaction, on the run's organisation; a transaction client (it cannot be extended, and
  // Prisma's carries a $transaction of its own) joins the caller's.
  return typeof (db as Db).$extends === 'function' ? transactionFor(db as Db, run.organizationId, apply) : apply(db)
}

/**
 * queued -> running (started_at set): the worker picked the run up. The persona harness and workbench role it works
 * under are recorded now and never change inside the run.
 */
export const startRun = (db: Db | AnyTx, run: RunRow, harness: { harnessKey: string | null; workbenchRoleKey: string | null } | null = null) =>
  move(db, run, 'start', { startedAt: new Date(), ...(harness ? { harnessKey: harness.harnessKey, workbenchRoleKey: harness.workbenchRoleKey } : {}) })

/** Ends a run: running (or queued / interrupted, for failed and cancelled) -> succeeded | failed | cancelled. */
export function finishRun(db: Db | AnyTx, run: RunRow, status: 'succeeded' | 'failed' | 'cancelled', opts: { error?: string; outcome?: Record<string, unknown> } = {}) {
  const name = status === 'succeeded' ? 'succeed' : status === 'failed' ? 'fail' : 'cancel'
  return move(db, run, name, { finishedAt: new Date(), error: opts.error ?? null, ...(opts.outcome ? { outcome: opts.outcome as object } : {}) })
}

/** running -> interrupted: the run waits for a person (a run interrupt). */
export const interruptRun = (db: Db | AnyTx, run: RunRow) => move(db, run, 'interrupt')
/** interrupted -> running: the interrupt was answered. */
export const resumeRun = (db: Db | AnyTx, run: RunRow) => move(db, run, 'resume')

// ---- The run footer -----------------------------------------------------------------------------------------------

/** How each initiated_by reads in the footer. Never 'Requested by'. */
const STARTED_BY: Record<InitiatedBy, string> = { schedule: 'schedule', event: 'event', handoff: 'hand-off', user: 'the person' }
/** Characters of the plan hash the footer shows (the hash prefix of the design decisions (docs/contributors.md)). */
export const PLAN_HASH_PREFIX = 12

export interface FooterParts {
  initiatedBy: InitiatedBy
  /** The person the twin acts for. */
  personName: string
  plan: { approvedAt: Date; hash: string } | null
}

/** 'started by schedule, under Olivia Owner's standing plan (approved 2026-11-23, plan 3f2a9c1b0d4e)'. */
export function formatRunFooter(p: FooterParts): string {
  const plan = p.plan
    ? `under ${p.personName}'s standing plan (approved ${p.plan.approvedAt.toISOString().slice(0, 10)}, plan ${p.plan.hash.slice(0, PLAN_HASH_PREFIX)})`
    : `under ${p.personName}'s standing plan (no plan approved)`
  return `started by ${STARTED_BY[p.initiatedBy]}, ${plan}`
}

/**
 * The footer of a twin run, read from its twin's person and its trigger's approved plan. A run without a trigger
 * (run-now) reads under the twin's most recently approved plan.
 */
export async function runFooter(q: TenantDb | TenantTx, run: Pick<AgentRun, 'initiatedBy' | 'twinId' | 'triggerId' | 'organizationId'>): Promise<string | null> {
  if (!run.twinId || !run.initiatedBy) return null
  const tx = asTx(q)
  const twin = await tx.twinDefinition.findFirst({ where: { id: run.twinId, organizationId: run.organizationId } })
  if (!twin) return null
  const user = await tx.user.findFirst({ where: { id: twin.userId }, select: { name: true } })
  const trigger = run.triggerId
    ? await tx.twinTrigger.findFirst({ where: { id: run.triggerId, organizationId: run.organizationId } })
    : await tx.twinTrigger.findFirst({ where: { twinId: twin.id, standingPlanApprovedAt: { not: null } }, orderBy: { standingPlanApprovedAt: 'desc' } })
  const plan = trigger?.standingPlanApprovedAt && trigger.standingPlanHash ? { approvedAt: trigger.standingPlanApprovedAt, hash: trigger.standingPlanHash } : null
  return formatRunFooter({ initiatedBy: run.initiatedBy as InitiatedBy, personName: user?.name ?? 'the person', plan })
}

/**
 * What a finished twin run did, in words for the person who started it: how many proposals it filed, and the ones it
 * did not file because one of the same kind on the same basis is still waiting for them (named by title). Null until
 * the run has finished, and for runs whose harness reports no counts.
 */
export async function runSummary(q: TenantDb | TenantTx, run: Pick<AgentRun, 'status' | 'outcome' | 'organizationId'>): Promise<string | null> {
  if (run.status !== 'succeeded' || !run.outcome || typeof run.outcome !== 'object') return null
  const outcome = run.outcome as { proposals_filed?: unknown; already_waiting_ids?: unknown }
  if (typeof outcome.proposals_filed !== 'number') return null
  const filed = outcome.proposals_filed
  const waitingIds = Array.isArray(outcome.already_waiting_ids) ? outcome.already_waiting_ids.filter((x): x is string => typeof x === 'string') : []
  const waiting = waitingIds.length
    ? await asTx(q).runInterrupt.findMany({ where: { id: { in: waitingIds }, organizationId: run.organizationId }, select: { id: true, question: true } })
    : []
  const titles = waiting.map((w) => String((w.question as { title?: unknown })?.title ?? '')).filter(Boolean)
  const filedLine = filed === 0 ? 'Filed no new proposal.' : filed === 1 ? 'Filed 1 proposal for your decision.' : `Filed ${filed} proposals for your decision.`
  if (!titles.length) return filedLine
  const named = titles.slice(0, 3).map((t) => `“${t}”`).join(', ') + (titles.length > 3 ? ` and ${titles.length - 3} more` : '')
  return `${filedLine} Already waiting for your decision, so not filed again: ${named}.`
}
