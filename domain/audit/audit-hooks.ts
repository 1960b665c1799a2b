// Owns which audit hooks the twins subgraph's domain installs (core/audit/audit.ts runs each after an audited write, in its
// own savepoint): event triggers and pause causes of twins, the readiness of open stage gates, and the inbox's
// producers. It composes several concepts, so it sits above them, and the twins concept needs nothing from stage gates.
import { AUDIT_ACTIONS, PAUSE_ACTIONS, TRIGGERABLE_ACTIONS, type AuditHook } from '../../core/audit'
import { onPauseEvent, onTriggerableEvent } from '../twins'
import { onProgramEventForGates } from '../gates'
import { INBOX_PRODUCER_ACTIONS, onEventForInbox } from '../inbox'

/**
 * The twins' audit hooks, each with the actions it reads; installDomain (subgraphs/install.ts) installs them in every
 * process that records audit rows. Stage gates: a write in a program with open gates recomputes their readiness in the
 * same transaction (every action but the gate's own, which recompute themselves).
 */
export const TWIN_AUDIT_HOOKS: readonly AuditHook[] = [
  { name: 'twins.events', actions: TRIGGERABLE_ACTIONS, run: onTriggerableEvent },
  { name: 'twins.pause_causes', actions: PAUSE_ACTIONS, run: onPauseEvent },
  { name: 'gates.readiness', actions: AUDIT_ACTIONS.filter((a) => !a.startsWith('stage_gate.')), run: onProgramEventForGates },
  // The inbox's signature, question and information items (inbox/inbox-producers.ts).
  { name: 'inbox.producers', actions: INBOX_PRODUCER_ACTIONS, run: (tx, e) => onEventForInbox(tx, e) },
]
