// Owns what the audit trail does to twins: the post-flush hooks (core/audit/audit.ts, each in its own savepoint, so a failing
// hook never loses the write; installed by ../audit-hooks.ts) that turn a triggerable action into coalesced twin_cycle runs and a pause action into
// paused twins, and twin_events_reconcile, which compares each event trigger's entry_seq watermark with the trail.
import type { AuditEvent, TwinTrigger } from '../../generated/prisma/client'
import { PAUSE_ACTIONS, TRIGGERABLE_ACTIONS, systemActor } from '../../core/audit'
import { asTx, transactionFor, type Db, type Tx } from '../../core/database'
import { advanceTriggerWatermark, lockTriggerBehind, missedTriggerEventsAcrossOrganisations } from './sql'
import { hasPermission } from '../../core/permissions'
import { currentPersonaVersion } from '../../core/identity'
import { createTwinRun } from './runs'
import { clock } from './schedules'
import { isFilingPaused, openDecisionCount } from '../inbox'
import { pauseTwin, pauseTwinsFor } from './twins'

const triggerable = new Set<string>(TRIGGERABLE_ACTIONS)
const pausing = new Set<string>(PAUSE_ACTIONS)

type EventTrigger = TwinTrigger & { userId: string }

/** Enabled event triggers for `action` in `programId` whose twin is active and whose plan is approved. */
async function matchingTriggers(tx: Tx, organizationId: string, programId: string, action: string): Promise<EventTrigger[]> {
  const triggers = await tx.twinTrigger.findMany({
    where: { organizationId, programId, kind: 'event', eventAction: action, enabled: true, standingPlanApprovedAt: { not: null }, twin: { status: 'active' } },
    include: { twin: { select: { userId: true } } },
  })
  return triggers.map(({ twin, ...t }) => ({ ...t, userId: twin.userId }))
}

/**
 * Fires one event trigger for audit entries up to `seq`: a twin_cycle run (initiated_by event) that runs no sooner than
 * the cadence floor after the trigger last fired, coalesced into the trigger's queued run when one waits. Under
 * backpressure nothing is queued and the watermark stays, so twin_events_reconcile picks the event up later.
 */
async function fire(tx: Tx, trigger: EventTrigger, seq: bigint, targetId: string | null, now: Date): Promise<'queued' | 'coalesced' | 'deferred'> {
  if (isFilingPaused(await openDecisionCount(tx, trigger.userId, trigger.organizationId))) return 'deferred'
  const floor = trigger.lastFiredAt ? new Date(trigger.lastFiredAt.getTime() + trigger.minIntervalSeconds * 1000) : now
  const runAt = floor > now ? floor : now
  const { created } = await createTwinRun(tx, {
    organizationId: trigger.organizationId, programId: trigger.programId, twinId: trigger.twinId, triggerId: trigger.id,
    initiatedBy: 'event', priority: trigger.priority, targetId, runAt,
  })
  // The watermark only moves forward; the firing time is when the run may start (what the next floor counts from).
  await advanceTriggerWatermark(tx, trigger.organizationId, trigger.id, seq, created, runAt, now)
  return created ? 'queued' : 'coalesced'
}

/** The event hook: a triggerable audit action fires the matching event triggers of its program (never the twin's own). */
export async function onTriggerableEvent(tx: Tx, event: AuditEvent, now = clock.now()) {
  if (!triggerable.has(event.action) || !event.programId) return
  for (const trigger of await matchingTriggers(tx, event.organizationId, event.programId, event.action)) {
    if (event.twinId && event.twinId === trigger.twinId) continue // a twin never triggers itself
    await fire(tx, trigger, event.entrySeq, event.targetId, now)
  }
}

/**
 * The pause hook. role_assignment.delete: the person's twins in that program pause with membership_lost when their last
 * persona there went, else with permission_lost when the twin's persona went or program.twins.use is no longer held.
 * user.deactivate: every active twin of the person pauses with user_inactive.
 */
export async function onPauseEvent(tx: Tx, event: AuditEvent) {
  if (!pausing.has(event.action)) return
  const details = (event.details ?? {}) as Record<string, unknown>
  const opts = { actor: systemActor('twin_pause_causes'), note: `audit ${event.action} ${event.id}` }
  if (event.action === 'user.deactivate') {
    const userId = event.targetType === 'user' ? event.targetId : String(details.user_id ?? '')
    if (userId) await pauseTwinsFor(tx, { organizationId: event.organizationId, userId }, 'user_inactive', opts)
    return
  }
  const userId = typeof details.user_id === 'string' ? details.user_id : null
  if (!userId || !event.programId) return
  const left = await tx.roleAssignment.findMany({ where: { organizationId: event.organizationId, programId: event.programId, userId }, select: { personaKey: true } })
  const where = { organizationId: event.organizationId, userId, programId: event.programId }
  if (left.length === 0) {
    await pauseTwinsFor(tx, where, 'membership_lost', opts)
    return
  }
  const personas = left.map((l) => l.personaKey)
  const grants = { programPersonas: new Map([[event.programId, personas]]), orgPersonas: [] }
  const mayUse = hasPermission(grants, 'program.twins.use', event.programId, currentPersonaVersion())
  const twins = await tx.twinDefinition.findMany({ where: { ...where, status: 'active' } })
  for (const twin of twins) {
    if (!mayUse || !personas.includes(twin.personaKey)) await pauseTwin(tx, twin, 'permission_lost', opts)
  }
}

export interface ReconcileReport { triggers: number; queued: number; coalesced: number; deferred: number }

/**
 * twin_events_reconcile: for each enabled event trigger, the newest matching audit entry past its watermark (a hook
 * that failed, or an event deferred by backpressure) fires it once; the watermark then moves to that entry.
 */
export async function reconcileEventTriggers(db: Db, now = clock.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { triggers: 0, queued: 0, coalesced: 0, deferred: 0 }
  const missed = await missedTriggerEventsAcrossOrganisations(db)
  for (const m of missed) {
    report.triggers++
    const outcome = await transactionFor(db, m.organization_id, async (tx) => {
      const locked = await lockTriggerBehind(tx, m.organization_id, m.id, m.seq)
      if (!locked) return null
      const t = await tx.twinTrigger.findUniqueOrThrow({ where: { id: m.id }, include: { twin: { select: { userId: true } } } })
      const { twin, ...trigger } = t
      return fire(asTx(tx), { ...trigger, userId: twin.userId }, m.seq, m.target_id, now)
    })
    if (outcome) report[outcome]++
  }
  return report
}
