// Owns persona twins: a twin's state (twins.ts), the twin routes (twin-admin.ts), duties (duty-catalogue.ts), runs and
// their lifecycle (runs.ts, run-cycle.ts, twin-run-events.ts), schedules and event triggers (schedules.ts,
// twin-events.ts), evaluation (evaluation.ts) and the demo twins (demo.ts). The contract other modules use.
export { seedIllustrativeTwins } from './demo'
export { onPauseEvent, onTriggerableEvent, reconcileEventTriggers } from './twin-events'
export { claimDueSchedules } from './schedules'
export { runTwinCycle, failAbandonedRuns, ABANDONED_RUN_ERROR, CRASHED_RUN_ERROR } from './run-cycle'
export { evaluateTwins, evaluateTwin } from './evaluation'
export { createTwinRun, finishRun, startRun, runFooter, formatRunFooter } from './runs'
export { dutyTemplate, registerDuty, dutyRefusal } from './duty-catalogue'
export { TwinRunEvents } from './twin-run-events'
export type { TwinRunRow } from './twin-run-events'
export { getTwin, pausedNotice, listTriggers, listSchedules, listTwinRuns, listTwins, twinPanelNotice, createTwin, updateTwin, pauseTwinRoute, resumeTwin, retireTwin, runTwinNow, createTwinTrigger, updateTwinTrigger, deleteTwinTrigger, putTwinSchedule } from './twin-admin'
export { PAUSED_REASONS, PAUSED_PHRASE, loadActiveTwin, pauseTwin } from './twins'
