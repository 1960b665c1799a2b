// Twins in the twins subgraph: Twin, TwinTrigger, TwinSchedule, TwinRun; the thirteen twin routes (twins document,
// Endpoints "Twins (13)") as Query.twins / Query.twin / Twin.triggers / Twin.schedules and the twin mutations; and
// Subscription.twinRunUpdated(programId).
import type { AgentRun, TwinDefinition, TwinSchedule, TwinTrigger } from '../../../generated/prisma/client'
import { TRIGGERABLE_ACTIONS } from '../../../core/audit'
import { entityRef, result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import * as admin from '../../../domain/twins'
import { evaluateTwin } from '../../../domain/twins'
import { storedEvaluations } from '../../../domain/twins'
import type { TwinEvaluation as TwinEvaluationRow } from '../../../generated/prisma/client'
import { runFooter } from '../../../domain/twins'
import { PAUSED_REASONS } from '../../../domain/twins'
import type { TwinRunEvents, TwinRunRow } from '../../../domain/twins'
import type { TwinsRefs } from './refs'
import { addRunSteps } from './run-steps'

export function addTwins(builder: Builder, { ProgramRef, UserRef }: TwinsRefs, deps: { twinRunEvents: TwinRunEvents }) {
  const TwinStatus = builder.enumType('TwinStatus', { values: ['active', 'paused', 'retired'] as const })
  const PausedReason = builder.enumType('TwinPausedReason', { values: PAUSED_REASONS })
  const TriggerKind = builder.enumType('TwinTriggerKind', { values: ['schedule', 'event', 'handoff', 'mention'] as const })
  const TriggerPriority = builder.enumType('TwinTriggerPriority', { values: ['now', 'digest'] as const })
  const TriggerableAction = builder.enumType('TriggerableAction', {
    description: 'The closed set of audit actions an event trigger may name (TRIGGERABLE_ACTIONS).',
    values: Object.fromEntries(TRIGGERABLE_ACTIONS.map((a) => [a.replace('.', '_'), { value: a }])),
  })
  const RunStatus = builder.enumType('TwinRunStatus', { values: ['queued', 'running', 'interrupted', 'succeeded', 'failed', 'cancelled'] as const })
  const InitiatedBy = builder.enumType('TwinRunInitiatedBy', { values: ['schedule', 'event', 'handoff', 'user'] as const })

  const Schedule = builder.objectRef<TwinSchedule>('TwinSchedule').implement({
    description: "A schedule trigger's RFC 5545 rule in the person's timezone and its next run (no sooner than the cadence floor).",
    fields: (t) => ({
      id: t.exposeID('id'),
      triggerId: t.exposeID('triggerId'),
      rrule: t.exposeString('rrule'),
      timezone: t.exposeString('timezone'),
      nextRunAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.nextRunAt }),
      lastRunAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.lastRunAt }),
    }),
  })

  const Trigger = builder.objectRef<TwinTrigger>('TwinTrigger').implement({
    description: "A duty's schedule, event, hand-off or mention trigger, firing at most once per min_interval_seconds under an approved standing plan.",
    fields: (t) => ({
      id: t.exposeID('id'),
      dutyKey: t.exposeString('dutyKey'),
      kind: t.field({ type: TriggerKind, resolve: (x) => x.kind }),
      eventAction: t.string({ nullable: true, resolve: (x) => x.eventAction }),
      spec: t.field({ type: 'JSON', resolve: (x) => x.spec }),
      minIntervalSeconds: t.exposeInt('minIntervalSeconds'),
      priority: t.field({ type: TriggerPriority, resolve: (x) => x.priority }),
      standingPlan: t.field({ type: 'JSON', nullable: true, resolve: (x) => x.standingPlanJson }),
      standingPlanHash: t.string({ nullable: true, resolve: (x) => x.standingPlanHash }),
      standingPlanApprovedAt: t.field({ type: 'DateTime', nullable: true, resolve: (x) => x.standingPlanApprovedAt }),
      planInterruptId: t.id({
        nullable: true, description: 'The plan_approval interrupt of the current standing plan: pending until approved, then the record of the approval.',
        resolve: (x) => x.planInterruptId,
      }),
      enabled: t.exposeBoolean('enabled'),
      lastFiredAt: t.field({ type: 'DateTime', nullable: true, resolve: (x) => x.lastFiredAt }),
      fireCount: t.exposeInt('fireCount'),
      schedule: t.field({ type: Schedule, nullable: true, resolve: (x, _a, ctx) => ctx.tdb.twinSchedule.findFirst({ where: { triggerId: x.id } }) }),
    }),
  })

  const TwinRef = builder.objectRef<TwinDefinition>('Twin')
  const Run = builder.objectRef<AgentRun | TwinRunRow>('TwinRun').implement({
    description: 'A twin run (agent_runs of kind twin_cycle or twin_handoff).',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.exposeString('kind'),
      status: t.field({ type: RunStatus, resolve: (r) => r.status }),
      initiatedBy: t.field({ type: InitiatedBy, nullable: true, resolve: (r) => r.initiatedBy as 'schedule' | null }),
      priority: t.string({ nullable: true, resolve: (r) => r.priority }),
      program: t.field({ type: ProgramRef, nullable: true, resolve: (r) => (r.programId ? entityRef(r.programId) : null) }),
      twin: t.field({ type: TwinRef, nullable: true, resolve: (r, _a, ctx) => (r.twinId ? admin.getTwin(ctx, r.twinId) : null) }),
      triggerId: t.id({ nullable: true, resolve: (r) => r.triggerId }),
      targetId: t.string({ nullable: true, resolve: (r) => r.targetId }),
      error: t.string({ nullable: true, resolve: (r) => r.error }),
      outcome: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.outcome }),
      footer: t.string({
        nullable: true, description: "'started by <schedule|event|hand-off|the person>, under <Name>'s standing plan (approved <date>, plan <hash prefix>)'",
        resolve: (r, _a, ctx) => runFooter(ctx.tdb, r),
      }),
      summary: t.string({
        nullable: true,
        description: "What a finished run did, in words: 'Filed 1 proposal for your decision.', and the proposals it did not file again because one of the same kind on the same basis is still waiting ('Already waiting for your decision, so not filed again: “<title>”.'). Null until it has succeeded.",
        resolve: (r, _a, ctx) => admin.runSummary(ctx.tdb, r),
      }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
      startedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.startedAt }),
      finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finishedAt }),
    }),
  })
  const Runs = connectionType(builder, 'TwinRun', Run, "A page of a twin's runs, newest first.")
  addRunSteps(builder, Run)

  const Evaluation = builder.objectRef<Awaited<ReturnType<typeof evaluateTwin>>>('TwinEvaluation').implement({
    description: 'What this twin\'s proposals became over the last 7 days (twin_evaluate); per twin, never per person.',
    fields: (t) => ({
      windowStart: t.field({ type: 'DateTime', resolve: (e) => e.windowStart }),
      filed: t.exposeInt('filed'),
      approvedUnchanged: t.exposeInt('approvedUnchanged'),
      edited: t.exposeInt('edited'),
      declined: t.exposeInt('declined'),
      declinedByReason: t.field({ type: 'JSON', resolve: (e) => e.declinedByReason }),
      refused: t.exposeInt('refused'),
      expired: t.exposeInt('expired'),
      notUsefulByTrigger: t.field({ type: 'JSON', resolve: (e) => e.notUseful }),
    }),
  })

  const StoredEvaluation = builder.objectRef<TwinEvaluationRow>('TwinEvaluationReport').implement({
    description: "One stored twin_evaluate report of one twin over one period (the 7 days before periodEnd); per twin, never per person.",
    fields: (t) => ({
      id: t.exposeID('id'),
      periodStart: t.field({ type: 'DateTime', resolve: (e) => e.periodStart }),
      periodEnd: t.field({ type: 'DateTime', resolve: (e) => e.periodEnd }),
      filed: t.exposeInt('filed'),
      approvedUnchanged: t.exposeInt('approvedUnchanged'),
      edited: t.exposeInt('edited'),
      declined: t.exposeInt('declined'),
      declinedByReason: t.field({ type: 'JSON', description: 'decline reason code to count', resolve: (e) => e.declinedByReason }),
      refused: t.exposeInt('refused'),
      expired: t.exposeInt('expired'),
      notUsefulByTrigger: t.field({ type: 'JSON', description: '[{triggerId, rated, notUseful, rate}]', resolve: (e) => e.notUsefulByTrigger }),
    }),
  })

  TwinRef.implement({
    description: "A person's twin in a program: it proposes; the person decides. It never approves, signs or sends.",
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, nullable: true, resolve: (x) => (x.programId ? entityRef(x.programId) : null) }),
      user: t.field({ type: UserRef, resolve: (x) => entityRef(x.userId) }),
      personaKey: t.exposeString('personaKey'),
      agentKey: t.exposeString('agentKey'),
      status: t.field({ type: TwinStatus, resolve: (x) => x.status }),
      pausedReason: t.field({ type: PausedReason, nullable: true, resolve: (x) => x.pausedReason }),
      pausedAt: t.field({ type: 'DateTime', nullable: true, resolve: (x) => x.pausedAt }),
      pausedNotice: t.string({ nullable: true, description: "'Paused. Nothing runs until you resume.' while paused", resolve: (x) => admin.pausedNotice(x) }),
      duties: t.stringList({ resolve: (x) => x.duties as string[] }),
      expiryHours: t.exposeInt('expiryHours'),
      digestTime: t.string({ nullable: true, resolve: (x) => x.digestTime }),
      batchTimes: t.stringList({ resolve: (x) => x.batchTimes as string[] }),
      budgetToolCallsMonth: t.exposeInt('budgetToolCallsMonth'),
      budgetUsdMonth: t.float({ nullable: true, resolve: (x) => (x.budgetUsdMonth === null ? null : Number(x.budgetUsdMonth)) }),
      toolAllowlistHash: t.string({
        nullable: true, description: 'sha256 of the tool names a cycle of this twin may call under its person\'s permissions, as of its last configuration or run; a change is audited twin.update.',
        resolve: (x) => x.toolAllowlistHash,
      }),
      retiredAt: t.field({ type: 'DateTime', nullable: true, resolve: (x) => x.retiredAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (x) => x.createdAt }),
      triggers: t.field({ type: [Trigger], description: 'GET P/twins/{twin_id}/triggers', resolve: (x, _a, ctx) => admin.listTriggers(ctx, x) }),
      schedules: t.field({ type: [Schedule], description: 'GET P/twins/{twin_id}/schedule', resolve: (x, _a, ctx) => admin.listSchedules(ctx, x) }),
      runs: t.field({ type: Runs, args: pageArgs(t.arg), resolve: (x, args, ctx) => admin.listTwinRuns(ctx, x, args) }),
      evaluation: t.field({ type: Evaluation, resolve: (x, _a, ctx) => evaluateTwin(ctx.db, x) }),
      evaluations: t.field({
        type: [StoredEvaluation], nullable: true,
        description: "The stored twin_evaluate reports of this twin, newest period first (oversight: program.twins.read; null without it).",
        args: { last: t.arg.int({ required: false, description: 'how many reports, 1 to 365 (30)' }) },
        resolve: (x, { last }, ctx) => storedEvaluations(ctx, x, last ?? 30),
      }),
    }),
  })
  const Twins = connectionType(builder, 'Twin', TwinRef, "A page of a program's twins (every twin under program.twins.read, one's own under read_own), newest first.")

  builder.queryFields((t) => ({
    twins: t.field({
      type: Twins, description: 'GET P/twins', args: { programId: t.arg.id({ required: true }), ...pageArgs(t.arg) },
      resolve: (_r, { programId, ...args }, ctx) => admin.listTwins(ctx, String(programId), args),
    }),
    twin: t.field({
      type: TwinRef, nullable: true, description: 'GET P/twins/{twin_id}',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => admin.getTwin(ctx, String(id)),
    }),
    twinTriggers: t.field({
      type: [Trigger], nullable: true, description: 'GET P/twins/{twin_id}/triggers (null when the twin is not one the caller may see)',
      args: { twinId: t.arg.id({ required: true }) },
      resolve: async (_r, { twinId }, ctx) => { const twin = await admin.getTwin(ctx, String(twinId)); return twin ? admin.listTriggers(ctx, twin) : null },
    }),
    twinSchedule: t.field({
      type: [Schedule], nullable: true, description: 'GET P/twins/{twin_id}/schedule: one entry per schedule trigger (null when the twin is not one the caller may see)',
      args: { twinId: t.arg.id({ required: true }) },
      resolve: async (_r, { twinId }, ctx) => { const twin = await admin.getTwin(ctx, String(twinId)); return twin ? admin.listSchedules(ctx, twin) : null },
    }),
  }))

  builder.objectField(ProgramRef, 'twinPanelNotice', (t) => t.string({
    nullable: true, description: "'Viewers have no twin. Nothing waits for you.' when the caller holds only the viewer persona here.",
    resolve: (p, _a, ctx) => admin.twinPanelNotice(ctx, p.id),
  }))

  const CreateTwinInput = builder.inputType('CreateTwinInput', {
    fields: (t) => ({
      personaKey: t.string({ required: true }), duties: t.stringList(), digestTime: t.string(), batchTimes: t.stringList(),
      budgetToolCallsMonth: t.int(), budgetUsdMonth: t.float(),
    }),
  })
  const UpdateTwinInput = builder.inputType('UpdateTwinInput', {
    fields: (t) => ({
      duties: t.stringList(), digestTime: t.string(), batchTimes: t.stringList(), budgetToolCallsMonth: t.int(), budgetUsdMonth: t.float(),
      expiryHours: t.int({ description: 'How long the twin\'s proposals wait before they expire unwritten: 1 to 720 hours (72 by default).' }),
    }),
  })
  const CreateTriggerInput = builder.inputType('CreateTwinTriggerInput', {
    fields: (t) => ({
      dutyKey: t.string({ required: true }), kind: t.field({ type: TriggerKind, required: true }),
      eventAction: t.string({ description: `one of ${TRIGGERABLE_ACTIONS.join(', ')}` }),
      rrule: t.string({ description: 'RFC 5545 rule for schedule triggers, e.g. FREQ=DAILY;BYHOUR=8;BYMINUTE=0' }),
      timezone: t.string({ description: "IANA timezone; the person's (users.settings.timezone) by default" }),
      minIntervalSeconds: t.int(), priority: t.field({ type: TriggerPriority }), spec: t.field({ type: 'JSON' }),
      standingPlan: t.field({ type: 'JSON' }), approvePlan: t.boolean({ description: 'approve the standing plan in the same write' }), enabled: t.boolean(),
    }),
  })
  const UpdateTriggerInput = builder.inputType('UpdateTwinTriggerInput', {
    fields: (t) => ({
      enabled: t.boolean(), minIntervalSeconds: t.int(), priority: t.field({ type: TriggerPriority }), spec: t.field({ type: 'JSON' }),
      standingPlan: t.field({ type: 'JSON' }), approvePlanHash: t.string({ description: 'approves the standing plan with this hash (the one the person read)' }),
    }),
  })
  const Deleted = builder.objectRef<{ id: string; twinId: string }>('DeletedTwinTrigger').implement({
    fields: (t) => ({ id: t.exposeID('id'), twinId: t.exposeID('twinId') }),
  })
  const clean = <T extends Record<string, unknown>>(o: T | null | undefined) =>
    Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> }

  builder.mutationFields((t) => ({
    createTwin: t.field({
      type: TwinRef, errors: result(admin.createTwin, 'twin'), description: 'POST P/twins',
      args: { programId: t.arg.id({ required: true }), input: t.arg({ type: CreateTwinInput, required: true }) },
      resolve: (_r, { programId, input }, ctx) => admin.createTwin(ctx, { programId, ...clean(input) }),
    }),
    updateTwin: t.field({
      type: TwinRef, errors: result(admin.updateTwin, 'twin'), description: 'PATCH P/twins/{twin_id}',
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateTwinInput, required: true }) },
      resolve: (_r, { id, input }, ctx) => admin.updateTwin(ctx, { id, ...clean(input) }),
    }),
    pauseTwin: t.field({
      type: TwinRef, errors: result(admin.pauseTwinRoute, 'twin'), description: "POST P/twins/{twin_id}/pause (someone else's twin: program.twins.manage, with a reason)",
      args: { id: t.arg.id({ required: true }), reason: t.arg.string() },
      resolve: (_r, { id, reason }, ctx) => admin.pauseTwinRoute(ctx, { id, reason: reason ?? undefined }),
    }),
    resumeTwin: t.field({
      type: TwinRef, errors: result(admin.resumeTwin, 'twin'), description: 'POST P/twins/{twin_id}/resume',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => admin.resumeTwin(ctx, { id }),
    }),
    retireTwin: t.field({
      type: TwinRef, errors: result(admin.retireTwin, 'twin'), description: "Retires a twin (operation retire; someone else's: program.twins.manage, with a reason)",
      args: { id: t.arg.id({ required: true }), reason: t.arg.string() },
      resolve: (_r, { id, reason }, ctx) => admin.retireTwin(ctx, { id, reason: reason ?? undefined }),
    }),
    runTwinNow: t.field({
      type: Run, errors: result(admin.runTwinNow, 'run'), description: 'POST P/twins/{twin_id}/run-now',
      args: { id: t.arg.id({ required: true }), triggerId: t.arg.id() },
      resolve: (_r, { id, triggerId }, ctx) => admin.runTwinNow(ctx, { id, triggerId: triggerId ?? undefined }),
    }),
    createTwinTrigger: t.field({
      type: Trigger, errors: result(admin.createTwinTrigger, 'trigger'), description: 'POST P/twins/{twin_id}/triggers',
      args: { twinId: t.arg.id({ required: true }), input: t.arg({ type: CreateTriggerInput, required: true }) },
      resolve: (_r, { twinId, input }, ctx) => admin.createTwinTrigger(ctx, { twinId, ...clean(input) }),
    }),
    updateTwinTrigger: t.field({
      type: Trigger, errors: result(admin.updateTwinTrigger, 'trigger'), description: 'PATCH P/twins/{twin_id}/triggers/{trigger_id}',
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateTriggerInput, required: true }) },
      resolve: (_r, { id, input }, ctx) => admin.updateTwinTrigger(ctx, { id, ...clean(input) }),
    }),
    deleteTwinTrigger: t.field({
      type: Deleted, errors: result(admin.deleteTwinTrigger, 'trigger'), description: 'DELETE P/twins/{twin_id}/triggers/{trigger_id}',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => admin.deleteTwinTrigger(ctx, { id }),
    }),
    setTwinSchedule: t.field({
      type: Schedule, errors: result(admin.putTwinSchedule, 'schedule'), description: 'PUT P/twins/{twin_id}/schedule',
      args: { twinId: t.arg.id({ required: true }), triggerId: t.arg.id({ required: true }), rrule: t.arg.string({ required: true }), timezone: t.arg.string() },
      resolve: (_r, { twinId, triggerId, rrule, timezone }, ctx) => admin.putTwinSchedule(ctx, { twinId, triggerId, rrule, timezone: timezone ?? undefined }),
    }),
  }))

  builder.subscriptionFields((t) => ({
    twinRunUpdated: t.field({
      type: Run,
      description: "A twin run of the program changed status. Permission is checked when subscribing and for every event; events are not durable.",
      args: { programId: t.arg.id({ required: true }) },
      subscribe: (_r, { programId }, ctx) => deps.twinRunEvents.subscribeProgram(ctx.session, String(programId)),
      resolve: (run: TwinRunRow) => run,
    }),
  }))
  void TriggerableAction
  return { TwinRef }
}
