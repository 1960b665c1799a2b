// Owns the list of every declared state machine, in the order docs/contributors.md shows them.
import type { Machine } from './state-machine'
import { connectionStatus, launchIdLifecycle, sopLifecycle, webhookOutcome } from './connectors'
import { memoryRecordStatus } from './memory'
import { requirementSetStatus } from './qms'
import { agentRunStatus, toolCallStatus } from './runs'
import { RECORD_MACHINES } from './records'
import { delegationStatus, handoffStatus, inboxItemStatus, proposalStatus, skillStatus, stageGateStatus, twinStatus } from './twins'

export * from './connectors'
export * from './memory'
export * from './runs'
export * from './twins'
export * from './records'
export * from './qms'

export const MACHINES: readonly Machine[] = [
  // Applied: a status column with a database enum, changed only through transition()/transitionAll().
  connectionStatus, inboxItemStatus, agentRunStatus, toolCallStatus,
  memoryRecordStatus, twinStatus, requirementSetStatus, stageGateStatus, handoffStatus, delegationStatus,
  // Declared for the tables later releases add (or derived from other columns).
  proposalStatus, skillStatus,
  sopLifecycle, webhookOutcome, launchIdLifecycle,
  // Program records: one machine per record type, applied by domain/records.
  ...RECORD_MACHINES,
] as readonly Machine[]
export * from './state-machine'
