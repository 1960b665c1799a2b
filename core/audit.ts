// Owns the audit trail: one recorder writing inside the caller's transaction, and post-flush hooks.
import { randomBytes } from 'node:crypto'
import type { AuditEvent } from '../generated/prisma/client'
import { asTx, type AnyTx, type Tx } from './db'
import { log } from './log'

/** Audit actions that pause twins (twins document, Events). */
export const PAUSE_ACTIONS = ['role_assignment.delete', 'user.deactivate'] as const
/** The closed set of actions an event trigger may name (twin_triggers.event_action). */
export const TRIGGERABLE_ACTIONS = [
  'connector_object.update', 'hypothesis.decision', 'sop_version.update', 'milestone.update',
  'handoff.accept', 'experiment.update', 'approval.create',
] as const

export type Actor =
  | { type: 'user'; userId: string }
  | { type: 'twin'; userId: string; twinId: string }
  | { type: 'system'; name: string }

export interface AuditInput {
  organizationId: string
  programId?: string | null
  action: string
  actor: Actor
  target: { type: string; id: string }
  batchId?: string | null
  twinId?: string | null
  triggerId?: string | null
  delegatedFromUserId?: string | null
  signatureId?: string | null
  details?: Record<string, unknown>
}

/** Runs after the audit row is written, inside the same transaction but in its own savepoint. */
export type AuditHook = (tx: Tx, event: AuditEvent) => Promise<void>

const hooks = new Map<string, AuditHook>()

export function registerAuditHook(name: string, hook: AuditHook): () => void {
  hooks.set(name, hook)
  return () => hooks.delete(name)
}

/**
 * Writes one audit row in the caller's transaction, then runs each post-flush hook in a savepoint:
 * a failing hook is rolled back to its savepoint and logged, and never fails or undoes the record write.
 */
export async function recordAudit(anyTx: AnyTx, input: AuditInput): Promise<AuditEvent> {
  const tx = asTx(anyTx)
  const event = await tx.auditEvent.create({
    data: {
      organizationId: input.organizationId,
      programId: input.programId ?? null,
      action: input.action,
      actorType: input.actor.type,
      actorUserId: input.actor.type === 'system' ? null : input.actor.userId,
      targetType: input.target.type,
      targetId: input.target.id,
      batchId: input.batchId ?? null,
      twinId: input.twinId ?? (input.actor.type === 'twin' ? input.actor.twinId : null),
      triggerId: input.triggerId ?? null,
      delegatedFromUserId: input.delegatedFromUserId ?? null,
      signatureId: input.signatureId ?? null,
      details: (input.actor.type === 'system' ? { ...input.details, system: input.actor.name } : input.details ?? {}) as object,
    },
  })
  for (const [name, hook] of hooks) {
    const savepoint = `audit_hook_${randomBytes(6).toString('hex')}`
    await tx.$executeRawUnsafe(`SAVEPOINT ${savepoint}`)
    try {
      await hook(tx, event)
      await tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${savepoint}`)
    } catch (err) {
      await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${savepoint}`)
      log.error('audit.hook_failed', { hook: name, action: event.action, auditEventId: event.id, error: err })
    }
  }
  return event
}
