// Owns which audit hooks the twins subgraph's domain installs (core/audit.ts runs each after an audited write, in its
// own savepoint): event triggers and pause causes of twins, and the readiness of open stage gates. It composes two
// concepts, so it sits above both, and the twins concept needs nothing from stage gates.
import { registerAuditHook } from '../../../core/audit'
import { onPauseEvent, onTriggerableEvent } from './twins'
import { onProgramEventForGates } from './gates'

/** Registers the hooks (idempotent: by name). Every process that records audit rows calls this at start. */
export function installTwinAuditHooks() {
  registerAuditHook('twins.events', onTriggerableEvent)
  registerAuditHook('twins.pause_causes', onPauseEvent)
  // Stage gates: a write in a program with open gates recomputes their readiness in the same transaction.
  registerAuditHook('gates.readiness', onProgramEventForGates)
}
