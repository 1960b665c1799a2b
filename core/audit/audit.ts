// Owns the audit trail: one recorder writing inside the caller's transaction, and post-flush hooks.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditEvent } from '../../generated/prisma/client'
import { asTx, type AnyTx, type Tx } from '../database'
import { inSavepoint } from '../sql'
import { log } from '../config'
import { appendToChain, type AuditSubject } from './audit-chain'

/** Audit actions that pause twins (twins document, Events). */
export const PAUSE_ACTIONS = ['role_assignment.delete', 'user.deactivate'] as const
/** The closed set of actions an event trigger may name (twin_triggers.event_action). */
export const TRIGGERABLE_ACTIONS = [
  'connector_object.update', 'hypothesis.decision', 'sop_version.update', 'milestone.update',
  'handoff.accept', 'experiment.update', 'approval.create',
] as const

/**
 * The audit action catalogue: every action this service records or the documents name. `AuditAction` is derived
 * from it, so an action that is not here does not compile.
 */
export const AUDIT_ACTIONS = [
  // ours: programs, members, connections, launches
  'program.create', 'program.update', 'role_assignment.create', 'role_assignment.delete', 'user.deactivate',
  'connection.create', 'connection.update', 'connection.api_version_change', 'connection.credentials_update',
  'connection.health_check', 'connection.sync_request', 'connection.disconnect', 'launch.open', 'connector_object.create',
  // twins document: triggerable actions, R3 and R4 actions, skills
  ...TRIGGERABLE_ACTIONS,
  'inbox.snooze', 'inbox.dismiss', 'inbox.feedback', 'twin.create', 'twin.pause', 'twin.resume', 'twin.retire',
  'twin.duty_enable', 'twin.duty_disable', 'twin.self_pause', 'twin.enqueue', 'handoff.send', 'handoff.decline',
  'handoff.complete', 'handoff.withdraw', 'delegation.create', 'delegation.renew', 'delegation.expire',
  'delegation.revoke', 'mention.create', 'stage_gate.open', 'stage_gate.ready', 'stage_gate.reopen',
  'stage_gate.review', 'stage_gate.close', 'stage_gate.supersede', 'skill_run.start',
  // memory and workbench roles document, Events
  'memory.keep', 'memory.promote', 'memory.forget', 'memory.oversight_read', 'workbench_role.set',
  'workbench_role.assign', 'workbench_role.default_applied',
  // ours, tool server (issue 12): every tool call of a twin run that is not a skill run (skills audit skill_run.start)
  'tool_call.invoke',
  // program records (domain/records): <noun>.create / .update, .decision where the type has an
  // .approve key; hypothesis.decision, milestone.update, experiment.update and approval.create are triggerable (above)
  'hypothesis.create', 'hypothesis.update', 'finding.create', 'finding.update', 'question.create', 'question.update',
  'gap.create', 'gap.update', 'source.create', 'source.update', 'experiment.create', 'protocol.create', 'protocol.update',
  'plan.create', 'plan.update', 'plan.decision', 'report.create', 'report.update', 'milestone.create',
  'dependency.create', 'dependency.update', 'open_item.create', 'open_item.update', 'approval.update',
  'review_finding.create', 'review_finding.update', 'deviation.create', 'deviation.update',
  // ours: proposals and decisions (twins subgraph, domain/proposals.ts and domain/decisions.ts)
  'proposal.file', 'proposal.approve', 'proposal.decline', 'batch_approval.create', 'signature.create',
  // ours: an owner or lead removes a tier-1 record with a reason ("audited" in the memory document's States table)
  'memory.remove',
  // ours: configuring twins (twins subgraph, domain/twin-admin.ts); the document names twin.create ... twin.enqueue above
  'twin.update', 'twin_trigger.create', 'twin_trigger.update', 'twin_trigger.delete', 'twin_trigger.plan_approve',
  'twin_schedule.update',
  // ours: resolve is an inbox operation the twins document lists among its routes and audit actions
  'inbox.resolve',
  // ours, tool server (issue 12): a harness_denied refusal leaves a refused tool_calls row and this row (no effect)
  'tool_call.deny',
  // ours, stage gates (issue 18): the monthly QA oversight summary produced and accepted (review_audit_reviews)
  'review_audit_review.create', 'review_audit_review.accept',
  // ours, QMS/SOP (issue 15): local SOPs, requirement sets (accept is the binding decision), checks and their rows
  'sop.create', 'sop.approve', 'requirement_set.create', 'requirement_set.accept', 'sop_check.create', 'sop_check_row.update',
  'connection.qms_configure',
  // ours, the model-backed harness (issue 39): an organisation's or program's model settings set (the key never in details)
  'twin_model_settings.update',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export type Actor =
  | { type: 'user'; userId: string }
  | { type: 'twin'; userId: string; twinId: string }
  | { type: 'system'; name: string }

/** The actor of work no person started (a connector's sync, a sweep): named, never a person. */
export const systemActor = (name: string): Actor => ({ type: 'system', name })

export interface AuditInput {
  organizationId: string
  programId?: string | null
  action: AuditAction
  actor: Actor
  target: { type: string; id: string }
  batchId?: string | null
  twinId?: string | null
  triggerId?: string | null
  delegatedFromUserId?: string | null
  signatureId?: string | null
  details?: Record<string, unknown>
  /**
   * The append-only rows this entry records beyond its signature (an approval, a record version): hashed with the
   * entry in the organisation's chain (core/audit/audit-chain.ts). A signature_id is a subject without being listed.
   */
  subjects?: readonly AuditSubject[]
}

/**
 * A post-flush hook: runs after an audit row of one of its `actions` is written, inside the same transaction but in
 * its own savepoint. A write of any other action pays nothing for it (no savepoint, no query).
 */
export interface AuditHook {
  /** Names the hook in logs (audit.hook_failed) and keys it: installing a hook of the same name replaces it. */
  name: string
  actions: readonly AuditAction[]
  run(tx: Tx, event: AuditEvent): Promise<void>
}

const hooks = new Map<string, AuditHook>()
/** The installed hooks by action, in installation order: what recordAudit reads per write. */
let hooksByAction = new Map<string, AuditHook[]>()

function indexHooks() {
  hooksByAction = new Map()
  for (const hook of hooks.values()) {
    for (const action of new Set(hook.actions)) hooksByAction.set(action, [...(hooksByAction.get(action) ?? []), hook])
  }
}

/**
 * Installs the hooks a process runs (installDomain, subgraphs/install.ts, passes the twins' list); idempotent, since a
 * hook of the same name replaces the one installed before.
 */
export function installAuditHooks(list: readonly AuditHook[]): void {
  for (const hook of list) hooks.set(hook.name, hook)
  indexHooks()
}

/** Installs one more hook (tests); answers a function that removes it again. */
export function registerAuditHook(hook: AuditHook): () => void {
  installAuditHooks([hook])
  return () => { if (hooks.get(hook.name) === hook) { hooks.delete(hook.name); indexHooks() } }
}

/** The names of the hooks a write of `action` runs, in order. */
export function auditHooksFor(action: AuditAction): string[] {
  return (hooksByAction.get(action) ?? []).map((h) => h.name)
}

// A batch decision (batch_approval) runs each item's ordinary write inside this scope, so every audit row the item
// writes, the record change's included, carries the one batch_id without each writer knowing about batches.
const batchScope = new AsyncLocalStorage<{ batchId: string }>()

/** Runs `f` with `batchId` stamped on every audit row it records (except signature rows, which the CHECK forbids). */
export function inAuditBatch<T>(batchId: string, f: () => Promise<T>): Promise<T> {
  return batchScope.run({ batchId }, f)
}

// A decision taken under delegation (domain/collaboration/delegations.ts) runs inside this scope, so every audit row
// it writes, the record change's included, carries delegated_from_user_id (never on signature rows: the CHECK).
const delegationScope = new AsyncLocalStorage<{ fromUserId: string }>()

/** Runs `f` with `fromUserId` as delegated_from_user_id on every audit row it records (except signature rows). */
export function underDelegation<T>(fromUserId: string | null, f: () => Promise<T>): Promise<T> {
  return fromUserId ? delegationScope.run({ fromUserId }, f) : f()
}

// Transactions whose audit rows are chained at their end (chainAtEnd), with the rows waiting.
const chainPending = new WeakMap<object, { organizationId: string; id: string }[]>()

/**
 * Runs `f` in `tx` (a write's transaction) and chains the audit rows it recorded once it is done, in two statements
 * for all of them: the organisation's chain head is locked for the end of the write only, so concurrent writers of
 * one organisation wait for each other's last moments, not for each other's whole writes. A transaction already
 * chaining at its end (a write joining its caller's) leaves it to the outermost.
 */
export async function chainAtEnd<T>(anyTx: AnyTx, f: () => Promise<T>): Promise<T> {
  const tx = asTx(anyTx)
  if (chainPending.has(tx)) return f()
  const pending: { organizationId: string; id: string }[] = []
  chainPending.set(tx, pending)
  try {
    const result = await f()
    for (const organizationId of new Set(pending.map((p) => p.organizationId))) {
      await appendToChain(tx, organizationId, pending.filter((p) => p.organizationId === organizationId).map((p) => p.id))
    }
    return result
  } finally {
    chainPending.delete(tx)
  }
}

/** The subjects an entry's hash covers: its signature first, then those the writer names, each once. */
function subjectsOf(input: AuditInput): AuditSubject[] {
  const all: AuditSubject[] = [...(input.signatureId ? [{ table: 'signatures' as const, id: input.signatureId }] : []), ...(input.subjects ?? [])]
  return all.filter((s, i) => all.findIndex((o) => o.table === s.table && o.id === s.id) === i)
}

/**
 * Writes one audit row in the caller's transaction, appends it to the organisation's hash chain, then runs each post-flush hook of its action in a savepoint:
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
      batchId: input.batchId ?? (input.signatureId ? null : batchScope.getStore()?.batchId) ?? null,
      twinId: input.twinId ?? (input.actor.type === 'twin' ? input.actor.twinId : null),
      triggerId: input.triggerId ?? null,
      delegatedFromUserId: input.delegatedFromUserId ?? (input.signatureId ? null : delegationScope.getStore()?.fromUserId) ?? null,
      signatureId: input.signatureId ?? null,
      details: (input.actor.type === 'system' ? { ...input.details, system: input.actor.name } : input.details ?? {}) as object,
      subjects: subjectsOf(input) as object,
    },
  })
  // Chained in this transaction: the entry, and what it records, commit with their hash or not at all. Inside a
  // command (chainAtEnd), at the end of its transaction with the write's other entries; otherwise at once.
  const pending = chainPending.get(tx)
  if (pending) pending.push({ organizationId: event.organizationId, id: event.id })
  else Object.assign(event, (await appendToChain(tx, input.organizationId, [event.id])).get(event.id))
  for (const hook of hooksByAction.get(event.action) ?? []) {
    const err = await inSavepoint(tx, 'audit_hook', () => hook.run(tx, event))
    if (err) log.error('audit.hook_failed', { hook: hook.name, action: event.action, auditEventId: event.id, error: err })
  }
  return event
}
