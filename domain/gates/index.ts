// Owns stage gates: the gate operations (gates.ts), required records and readiness with the stage_readiness run
// (gate-readiness.ts), the live readiness topic (gate-events.ts) and the illustrative gate (gate-seed.ts). The
// contract other modules use.
export { computeReadinessForProgram, initialRequired, refreshStageReadiness, onProgramEventForGates, REQUIRED_RECORD_KINDS, asRequiredRecords, card } from './gate-readiness'
export type { RequirementState } from './gate-readiness'
export { seedIllustrativeGate } from './gate-seed'
export { STAGE_GATE_STATUSES, gateCard, gateSignatures, gateFooter, getStageGate, stageGateBrief, listStageGates, openStageGate, markStageGateReady, reopenStageGate, reviewStageGate, closeStageGate, supersedeStageGate, gateViewerActions } from './gates'
export type { GateViewerActions } from './gates'
export { StageGateEvents } from './gate-events'
