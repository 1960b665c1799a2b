// Owns collaboration between people and their twins: hand-offs (handoffs.ts), delegations (delegations.ts),
// mentions in threads (mentions.ts) and the oversight reads (oversight.ts). The contract other modules use.
export { expireDelegations, routeDecision, createDelegation, getMyDelegation, listMyDelegations, revokeDelegation, delegationBetween } from './delegations'
export { sendHandoff, checkSendable, HandoffDraft, HANDOFF_KINDS, HANDOFF_PERSONAS, HANDOFF_STATUSES, LINKED_TYPES, acceptHandoff, completeHandoff, createHandoff, declineHandoff, getHandoff, listHandoffs, withdrawHandoff } from './handoffs'
export type { Redaction } from './handoffs'
export { composerHint, createThread, getThread, letMyTwinLook, listMessages, postMessage, shareThread } from './mentions'
export { decisionMetrics, programBoard, twinsExport } from './oversight'
export type { BoardItem, DecisionMetrics, ExportRow, PersonaMetrics, UserMetrics } from './oversight'
