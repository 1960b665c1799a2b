// Owns persona twins: a twin's state (twins.ts), the twin routes (twin-admin.ts), duties (duty-catalogue.ts), runs and
// their lifecycle (runs.ts, run-cycle.ts, twin-run-events.ts), schedules and event triggers (schedules.ts,
// twin-events.ts), evaluation (evaluation.ts) and the demo twins (demo.ts). The contract other modules use.
export { seedIllustrativeTwins } from './demo'
export { onPauseEvent, onTriggerableEvent, reconcileEventTriggers } from './twin-events'
export { claimDueSchedules } from './schedules'
export { runTwinCycle, failAbandonedRuns, ABANDONED_RUN_ERROR, CRASHED_RUN_ERROR } from './run-cycle'
export { evaluateTwins, evaluateTwin } from './evaluation'
export { createTwinRun, finishRun, startRun, runFooter, formatRunFooter } from './runs'
export { dutyTemplate, dutyKeys, dutyRefusal, DUTY_CATALOGUE, QA_DUTY_PERSONAS, type DutyTemplate } from './duty-catalogue'
export { TwinRunEvents } from './twin-run-events'
export type { TwinRunRow } from './twin-run-events'
export { getTwin, pausedNotice, listTriggers, listSchedules, listTwinRuns, listTwins, twinPanelNotice, createTwin, updateTwin, pauseTwinRoute, resumeTwin, retireTwin, runTwinNow, createTwinTrigger, updateTwinTrigger, deleteTwinTrigger, putTwinSchedule } from './twin-admin'
export { PAUSED_REASONS, PAUSED_PHRASE, loadActiveTwin, pauseTwin } from './twins'
export { DEFAULT_EXPIRY_HOURS, MAX_EXPIRY_HOURS, MIN_EXPIRY_HOURS, expiresAtFor } from './twin-expiry'
export { capabilityPersonas, RISK_CLASSES, SEEDED_CAPABILITIES, seededCapability, type SeededCapability } from './capabilities'
export { setProgramTwinDefaults } from './twin-defaults'
export { storedEvaluations } from './evaluation-store'
export { pauseWhenUsdBudgetUsedUp } from './twin-usd-budget'
