// Owns what every twin writer needs about a twin's state: loading an active twin (refusing a paused one), pausing a
// twin for a reason (audit twin.pause, or twin.self_pause for budget and high_decline_rate; notification twin_paused, queued runs cancelled) and the fixed phrases.
import type { TwinDefinition, TwinPausedReason } from '../../generated/prisma/client'
import { recordAudit, type Actor } from '../../core/audit'
import { asTx, type AnyTx } from '../../core/database'
import { NotFoundError, TwinPaused } from '../../core/errors'
import { notifyPerson } from '../../core/jobs'
import { transition, transitionAll } from '../../core/states'
import { agentRunStatus, twinStatus } from '../../core/states'
import { publish } from '../../core/database'

/** Fixed phrases of the twins document (Fixed phrases; Versioning). */
export const PAUSED_PHRASE = 'Paused. Nothing runs until you resume.'
export const VIEWER_NO_TWIN_PHRASE = 'Viewers have no twin. Nothing waits for you.'
export const TWIN_PROPOSES_PHRASE = 'Your twin proposes. You decide.'
export const TWIN_NEVER_PHRASE = 'Your twin never approves, signs or sends.'

export const PAUSED_REASONS = ['user', 'manage', 'budget', 'high_decline_rate', 'permission_lost', 'membership_lost', 'user_inactive', 'migrated'] as const satisfies readonly TwinPausedReason[]

/**
 * The twin, when it may run: not_found when it does not exist in the organisation or is retired, twin_paused when it
 * is paused. `q` is any client of the twin's organisation.
 */
export async function loadActiveTwin(q: AnyTx, organizationId: string, twinId: string): Promise<TwinDefinition> {
  const twin = await asTx(q).twinDefinition.findFirst({ where: { id: twinId, organizationId } })
  if (!twin || twin.status === 'retired') throw new NotFoundError('Twin', { field: 'twinId' })
  if (twin.status === 'paused') throw new TwinPaused(`${PAUSED_PHRASE} (reason: ${twin.pausedReason})`, { field: 'twinId' })
  return twin
}

/**
 * Pauses the twin brings on itself by its own conduct: its month's budget used up, or too many of its proposals declined.
 * They audit twin.self_pause; a person's pause (user, manage) and causes outside the twin (permission_lost,
 * membership_lost, user_inactive, migrated) audit twin.pause. Quality reviewers tell the two apart by the action.
 */
export const SELF_PAUSE_REASONS: readonly TwinPausedReason[] = ['budget', 'high_decline_rate']
export const pauseAuditAction = (reason: TwinPausedReason) => (SELF_PAUSE_REASONS.includes(reason) ? 'twin.self_pause' as const : 'twin.pause' as const)

export interface PauseOptions {
  /** Who paused it: a person (route pause/manage), or the system for a pause cause (budget, lost permission, ...). */
  actor: Actor
  /** The person who paused it, for paused_by (null for causes). */
  pausedBy?: string | null
  /** Why, in words (a manager's reason, the audit row that caused it). */
  note?: string
}

/**
 * Pauses an active twin with `reason` in the caller's transaction: status paused with paused_reason, paused_by and
 * paused_at; its queued runs cancelled; audit twin.pause (twin.self_pause for SELF_PAUSE_REASONS); a twin_paused notification to its person. Answers the
 * paused twin, or throws invalid_transition when it is not active (callers acting on causes use pauseTwinsFor).
 */
export async function pauseTwin(anyTx: AnyTx, twin: Pick<TwinDefinition, 'id' | 'organizationId'>, reason: TwinPausedReason, opts: PauseOptions): Promise<TwinDefinition> {
  const tx = asTx(anyTx)
  const now = new Date()
  const paused = await transition(tx, twinStatus, 'pause', twin, { pausedReason: reason, pausedBy: opts.pausedBy ?? null, pausedAt: now, updatedAt: now })
  const cancelled = await transitionAll(tx, agentRunStatus, 'cancel', { twinId: paused.id, organizationId: paused.organizationId, status: 'queued' },
    { finishedAt: now, error: `twin paused (${reason})` })
  for (const run of cancelled) {
    if (run.programId) await publish(tx, 'twin_run_updated', { id: run.id, programId: run.programId, organizationId: run.organizationId })
  }
  await recordAudit(tx, {
    organizationId: paused.organizationId, programId: paused.programId, action: pauseAuditAction(reason), actor: opts.actor,
    target: { type: 'twin', id: paused.id }, twinId: paused.id,
    details: { reason, ...(opts.note ? { note: opts.note } : {}), cancelled_runs: cancelled.length },
  })
  await notifyPerson(tx, { // after the person's quiet hours
    organizationId: paused.organizationId, programId: paused.programId, userId: paused.userId, kind: 'twin_paused',
    payload: { twin_id: paused.id, persona_key: paused.personaKey, reason, message: PAUSED_PHRASE },
  })
  return paused
}

/** Pauses every active twin of a person (in one program, or all) for a cause; answers those paused. */
export async function pauseTwinsFor(anyTx: AnyTx, where: { organizationId: string; userId: string; programId?: string }, reason: TwinPausedReason, opts: PauseOptions) {
  const twins = await asTx(anyTx).twinDefinition.findMany({ where: { ...where, status: 'active' } })
  const paused: TwinDefinition[] = []
  for (const twin of twins) paused.push(await pauseTwin(anyTx, twin, reason, opts))
  return paused
}
