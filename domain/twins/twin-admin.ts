// Owns the twin routes (twins document, Endpoints "Twins (13)"): reading twins, triggers, schedules and runs under
// program.twins.read (every twin of the program) or read_own (one's own), and configuring one's own twin under
// program.twins.use (create, update, retire, pause, resume, run now, triggers, schedule, standing plans); a manager
// pauses or retires any twin under program.twins.manage, with a reason.
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Prisma, TwinDefinition, TwinTrigger } from '../../generated/prisma/client'
import { TRIGGERABLE_ACTIONS } from '../../core/audit'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { auditTrailEndAcrossOrganisations, releaseSavepoint, rollbackToSavepoint, savepoint } from './sql'
import { BoundUserOnly, DutyUnavailable, InvalidInput, NotFoundError, ReasonRequired, TwinActiveExists, TwinPaused } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import { PROGRAM_PERSONAS } from '../../core/permissions'
import { assertCan, can } from '../../core/identity'
import { transition, transitionAll } from '../../core/states'
import { agentRunStatus, twinStatus } from '../../core/states'
import { keysetPage, type Page, type PageArgs } from '../../core/database'
import { dutyRefusal } from './duty-catalogue'
import { withTwinDefaults } from './twin-defaults'
import { createTwinRun } from './runs'
import { clock, nextRunAt, normaliseSchedule } from './schedules'
import { loadActiveTwin, pauseTwin, PAUSED_PHRASE, VIEWER_NO_TWIN_PHRASE } from './twins'
import { MAX_EXPIRY_HOURS, MIN_EXPIRY_HOURS } from './twin-expiry'
import { recordToolAllowlist, twinToolAllowlist } from './twin-allowlist'
import { answerPlanApproval, openPlanApproval } from './plan-approvals'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

// ---- Reads --------------------------------------------------------------------------------------------------------

/** May the caller see this twin: every twin under program.twins.read, their own under read_own. */
export function canSeeTwin(ctx: Pick<DomainContext, 'session'>, twin: Pick<TwinDefinition, 'programId' | 'userId'>): boolean {
  if (!twin.programId) return false
  return can(ctx.session, 'program.twins.read', twin.programId)
    || (twin.userId === ctx.session.userId && can(ctx.session, 'program.twins.read_own', twin.programId))
}

/** GET P/twins: every twin of the program (program.twins.read) or the caller's own (read_own), newest first. */
export function listTwins(ctx: Ctx, programId: string, args: PageArgs = {}): Promise<Page<TwinDefinition>> {
  const all = can(ctx.session, 'program.twins.read', programId)
  if (!all) assertCan(ctx.session, 'program.twins.read_own', programId)
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.twinDefinition.findMany({
    ...q, where: { programId, ...(all ? {} : { userId: ctx.session.userId }), ...q.where },
  }))
}

/** GET P/twins/{twin_id}: the twin when the caller may see it, else null (never telling which). */
export async function getTwin(ctx: Ctx, id: string): Promise<TwinDefinition | null> {
  if (!isId(id)) return null
  const twin = await ctx.tdb.twinDefinition.findFirst({ where: { id } })
  return twin && canSeeTwin(ctx, twin) ? twin : null
}

/** GET P/twins/{twin_id}/triggers. */
export async function listTriggers(ctx: Ctx, twin: Pick<TwinDefinition, 'id'>) {
  return ctx.tdb.twinTrigger.findMany({ where: { twinId: twin.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })
}

/** GET P/twins/{twin_id}/schedule: one schedule per schedule trigger, soonest first. */
export async function listSchedules(ctx: Ctx, twin: Pick<TwinDefinition, 'id'>) {
  return ctx.tdb.twinSchedule.findMany({ where: { twinId: twin.id }, orderBy: [{ nextRunAt: 'asc' }, { id: 'asc' }] })
}

/** The twin's runs, newest first. */
export function listTwinRuns(ctx: Ctx, twin: Pick<TwinDefinition, 'id'>, args: PageArgs = {}) {
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.agentRun.findMany({ ...q, where: { twinId: twin.id, ...q.where } }))
}

/** What the twin panel shows in a program: the viewer's phrase when the caller holds only viewer there. */
export function twinPanelNotice(ctx: Pick<DomainContext, 'session'>, programId: string): string | null {
  const personas = ctx.session.programPersonas.get(programId) ?? []
  return personas.length > 0 && personas.every((p) => p === 'viewer') ? VIEWER_NO_TWIN_PHRASE : null
}

/** The panel line of a paused twin. */
export const pausedNotice = (twin: Pick<TwinDefinition, 'status'>) => (twin.status === 'paused' ? PAUSED_PHRASE : null)

// ---- Shared pieces of the writes ------------------------------------------------------------------------------------

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'use HH:MM (24 h)')
const dutyList = z.array(z.string().min(1).max(64)).max(20, 'at most 20 duties')

/** Loads a twin of the caller's organisation (not_found otherwise, also when the caller may not see it). */
async function loadTwin(q: TenantTx, id: string, ctx: DomainContext): Promise<TwinDefinition> {
  const twin = await q.twinDefinition.findFirst({ where: { id } })
  if (!twin || !canSeeTwin(ctx, twin)) throw new NotFoundError('Twin', { field: 'twinId' })
  return twin
}

/** Writes on a twin under program.twins.use act on the caller's own twin only. */
function ownTwin(ctx: DomainContext, twin: TwinDefinition) {
  if (twin.userId !== ctx.session.userId) throw new BoundUserOnly('Only the person this twin works for may configure it.', { field: 'twinId' })
  if (twin.status === 'retired') throw new NotFoundError('Twin', { field: 'twinId', message: 'This twin is retired.' })
}

function refuseDuties(duties: readonly string[], twin: Pick<TwinDefinition, 'personaKey' | 'programId'>, settings: unknown) {
  for (const [i, key] of duties.entries()) {
    const why = dutyRefusal(key, twin.personaKey, twin.programId, settings)
    if (why) throw new DutyUnavailable(why, { field: `duties.${i}` })
  }
}

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === 'P2002' || /unique|duplicate key/i.test(String((e as Error).message))

/** The standing plan's hash: sha256 of its canonical JSON (keys sorted). */
export function planHash(plan: unknown): string {
  const canonical = (v: unknown): unknown => Array.isArray(v) ? v.map(canonical)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v
  return createHash('sha256').update(JSON.stringify(canonical(plan))).digest('hex')
}

// ---- Twins ----------------------------------------------------------------------------------------------------------

/** POST P/twins: the caller's twin for one of their personas in the program (twin.create). */
export const createTwin = command({
  permission: 'program.twins.use',
  input: z.object({
    programId: IdInput,
    personaKey: z.enum(PROGRAM_PERSONAS, { error: () => `use one of ${PROGRAM_PERSONAS.join(', ')}` }),
    // Left out: the program's twin_defaults fill it (domain/twin-defaults.ts).
    duties: dutyList.optional(),
    digestTime: HHMM.nullish(),
    batchTimes: z.array(HHMM).max(6).optional(),
    budgetToolCallsMonth: z.number().int().min(0).max(100_000).optional(),
    budgetUsdMonth: z.number().min(0).max(100_000).nullish(),
  }),
  load: async (q, input, ctx) => {
    const program = await q.program.findFirst({ where: { id: input.programId } })
    if (!program || !ctx.session.programPersonas.has(program.id)) throw new NotFoundError('Program', { field: 'programId' })
    return program
  },
  program: (input) => input.programId,
  audit: ['twin.create'],
  errors: [DutyUnavailable, TwinActiveExists],
  async run(w, input, program) {
    const { session } = w.ctx
    const held = session.programPersonas.get(input.programId) ?? []
    if (input.personaKey === 'viewer') throw InvalidInput.of('personaKey', VIEWER_NO_TWIN_PHRASE)
    if (!held.includes(input.personaKey)) throw InvalidInput.of('personaKey', `You do not hold the ${input.personaKey} persona in this program.`)
    const user = await w.tx.user.findFirst({ where: { id: session.userId }, select: { settings: true } })
    if (input.duties) refuseDuties(input.duties, { personaKey: input.personaKey, programId: input.programId }, user?.settings)
    const chosen = withTwinDefaults(input, program.settings, { personaKey: input.personaKey, programId: input.programId }, user?.settings)
    if (await w.tx.twinDefinition.findFirst({ where: { programId: input.programId, userId: session.userId, status: 'active' } })) {
      throw new TwinActiveExists('You have an active twin in this program already; pause or retire it first.', { field: 'personaKey' })
    }
    if (await w.tx.twinDefinition.findFirst({ where: { programId: input.programId, userId: session.userId, personaKey: input.personaKey } })) {
      throw new TwinActiveExists('A twin for this persona exists already; resume it instead.', { field: 'personaKey' })
    }
    let twin: TwinDefinition
    try {
      twin = await w.tx.twinDefinition.create({
        data: {
          organizationId: session.organizationId, programId: input.programId, userId: session.userId, personaKey: input.personaKey,
          duties: [...new Set(chosen.duties)], digestTime: chosen.digestTime, batchTimes: chosen.batchTimes,
          ...(chosen.budgetToolCallsMonth !== undefined ? { budgetToolCallsMonth: chosen.budgetToolCallsMonth } : {}),
          ...(chosen.expiryHours !== undefined ? { expiryHours: chosen.expiryHours } : {}),
          budgetUsdMonth: chosen.budgetUsdMonth,
          // What the person's permissions grant the twin now (twin-allowlist.ts keeps it true).
          toolAllowlistHash: twinToolAllowlist(session, input.programId).hash,
        },
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw new TwinActiveExists(undefined, { field: 'personaKey' })
      throw e
    }
    await w.audit('twin.create', { type: 'twin', id: twin.id }, { persona_key: twin.personaKey, duties: twin.duties, program_defaults: chosen.applied, tool_allowlist_hash: twin.toolAllowlistHash })
    return twin
  },
})

/** PATCH P/twins/{twin_id}: duties (twin.duty_enable / twin.duty_disable each), digest and batch times, budgets. */
export const updateTwin = command({
  permission: 'program.twins.use',
  input: z.object({
    id: IdInput,
    duties: dutyList.optional(),
    digestTime: HHMM.nullish(),
    batchTimes: z.array(HHMM).max(6).optional(),
    budgetToolCallsMonth: z.number().int().min(0).max(100_000).optional(),
    budgetUsdMonth: z.number().min(0).max(100_000).nullish(),
    /** How long the twin's proposals wait for the person before they expire unwritten (twin-expiry.ts). */
    expiryHours: z.number().int().min(MIN_EXPIRY_HOURS).max(MAX_EXPIRY_HOURS).optional(),
  }),
  load: (q, input, ctx) => loadTwin(q, input.id, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin.update', 'twin.duty_enable', 'twin.duty_disable'],
  errors: [DutyUnavailable, BoundUserOnly],
  async run(w, input, twin) {
    ownTwin(w.ctx, twin)
    const data: Prisma.TwinDefinitionUncheckedUpdateInput = {}
    if (input.duties) {
      const user = await w.tx.user.findFirst({ where: { id: twin.userId }, select: { settings: true } })
      refuseDuties(input.duties, twin, user?.settings)
      const before = new Set(twin.duties as string[])
      const after = new Set(input.duties)
      for (const d of after) if (!before.has(d)) await w.audit('twin.duty_enable', { type: 'twin', id: twin.id }, { duty_key: d })
      for (const d of before) if (!after.has(d)) await w.audit('twin.duty_disable', { type: 'twin', id: twin.id }, { duty_key: d })
      data.duties = [...after]
    }
    if (input.digestTime !== undefined) data.digestTime = input.digestTime
    if (input.batchTimes) data.batchTimes = input.batchTimes
    if (input.budgetToolCallsMonth !== undefined) data.budgetToolCallsMonth = input.budgetToolCallsMonth
    if (input.budgetUsdMonth !== undefined) data.budgetUsdMonth = input.budgetUsdMonth
    if (input.expiryHours !== undefined) data.expiryHours = input.expiryHours
    const updated = await w.tx.twinDefinition.update({ where: { id: twin.id }, data })
    await w.audit('twin.update', { type: 'twin', id: twin.id }, { fields: Object.keys(data) })
    const hash = await recordToolAllowlist(w.tx, updated, w.ctx.session, w.ctx.actor, 'update')
    return { ...updated, toolAllowlistHash: hash }
  },
})

const own = (ctx: DomainContext, twin: TwinDefinition) => twin.userId === ctx.session.userId

/** POST P/twins/{twin_id}/pause: one's own twin (program.twins.use, reason user) or any twin (manage, reason given). */
export const pauseTwinRoute = command({
  permission: 'program.twins.use', // and program.twins.manage for someone else's twin (checked in run: it depends on the caller)
  input: z.object({ id: IdInput, reason: personText(500).optional() }),
  load: (q, input, ctx) => loadTwin(q, input.id, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin.pause'],
  errors: [ReasonRequired],
  async run(w, input, twin) {
    const mine = own(w.ctx, twin)
    if (!mine) {
      assertCan(w.ctx.session, 'program.twins.manage', twin.programId)
      if (!input.reason?.trim()) throw new ReasonRequired("Give a reason for pausing someone else's twin.", { field: 'reason' })
    }
    if (twin.status === 'retired') throw new NotFoundError('Twin', { field: 'twinId', message: 'This twin is retired.' })
    return pauseTwin(w.tx, twin, mine ? 'user' : 'manage', { actor: w.ctx.actor, pausedBy: w.ctx.session.userId, note: input.reason })
  },
})

/** POST P/twins/{twin_id}/resume: one's own paused twin becomes active again (twin.resume). */
export const resumeTwin = command({
  permission: 'program.twins.use',
  input: z.object({ id: IdInput }),
  load: (q, input, ctx) => loadTwin(q, input.id, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin.resume'],
  errors: [BoundUserOnly, TwinActiveExists],
  async run(w, _input, twin) {
    ownTwin(w.ctx, twin)
    let resumed: TwinDefinition
    try {
      await savepoint(w.tx, 'twin_resume')
      resumed = await transition(w.tx, twinStatus, 'resume', twin, { pausedReason: null, pausedBy: null, pausedAt: null, updatedAt: clock.now() })
      await releaseSavepoint(w.tx, 'twin_resume')
    } catch (e) {
      if (!isUniqueViolation(e)) throw e
      await rollbackToSavepoint(w.tx, 'twin_resume')
      throw new TwinActiveExists('Another of your twins is active in this program; pause it first.', { field: 'twinId' })
    }
    await w.audit('twin.resume', { type: 'twin', id: twin.id }, { was: twin.pausedReason })
    const hash = await recordToolAllowlist(w.tx, resumed, w.ctx.session, w.ctx.actor, 'resume')
    return { ...resumed, toolAllowlistHash: hash }
  },
})

/** Retires a twin: one's own (program.twins.use) or any (program.twins.manage, with a reason). Queued runs are cancelled. */
export const retireTwin = command({
  permission: 'program.twins.use',
  input: z.object({ id: IdInput, reason: personText(500).optional() }),
  load: (q, input, ctx) => loadTwin(q, input.id, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin.retire'],
  errors: [ReasonRequired],
  async run(w, input, twin) {
    if (!own(w.ctx, twin)) {
      assertCan(w.ctx.session, 'program.twins.manage', twin.programId)
      if (!input.reason?.trim()) throw new ReasonRequired("Give a reason for retiring someone else's twin.", { field: 'reason' })
    }
    const now = clock.now()
    const retired = await transition(w.tx, twinStatus, 'retire', twin, { retiredAt: now, updatedAt: now })
    await transitionAll(w.tx, agentRunStatus, 'cancel', { twinId: twin.id, status: 'queued' }, { finishedAt: now, error: 'twin retired' })
    await w.audit('twin.retire', { type: 'twin', id: twin.id }, input.reason ? { reason: input.reason } : {})
    return retired
  },
})

/** POST P/twins/{twin_id}/run-now: a run started by the person (initiated_by user; audit twin.enqueue). */
export const runTwinNow = command({
  permission: 'program.twins.use',
  input: z.object({ id: IdInput, triggerId: IdInput.optional() }),
  load: (q, input, ctx) => loadTwin(q, input.id, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin.enqueue'],
  errors: [BoundUserOnly, TwinPaused],
  async run(w, input, twin) {
    ownTwin(w.ctx, twin)
    await loadActiveTwin(w.tx, twin.organizationId, twin.id)
    let trigger: TwinTrigger | null = null
    if (input.triggerId) {
      trigger = await w.tx.twinTrigger.findFirst({ where: { id: input.triggerId, twinId: twin.id } })
      if (!trigger) throw new NotFoundError('Trigger', { field: 'triggerId' })
    }
    const { run } = await createTwinRun(w.tx, {
      organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger?.id ?? null,
      initiatedBy: 'user', priority: 'now', startedByUserId: w.ctx.session.userId,
    })
    await w.audit('twin.enqueue', { type: 'agent_run', id: run.id }, { twin_id: twin.id, initiated_by: 'user' }, { triggerId: trigger?.id ?? null })
    return run
  },
})

// ---- Triggers and schedules -------------------------------------------------------------------------------------------

const TriggerFields = {
  minIntervalSeconds: z.number().int().min(3600, 'at least 3600 seconds (the cadence floor)').max(31 * 86400).optional(),
  priority: z.enum(['now', 'digest']).optional(),
  spec: z.record(z.string(), z.unknown()).optional(),
  standingPlan: z.record(z.string(), z.unknown()).optional(),
}

async function approvePlan(w: Write<'twin_trigger.plan_approve'>, trigger: TwinTrigger) {
  const now = clock.now()
  await w.tx.twinTrigger.update({ where: { id: trigger.id }, data: { standingPlanApprovedAt: now, standingPlanApprovedBy: w.ctx.session.userId } })
  // The plan_approval interrupt the trigger points at is answered: the record of this approval (plan-approvals.ts).
  const approved = await answerPlanApproval(w.tx, { ...trigger, standingPlanApprovedAt: now }, 'approved', w.ctx.session.userId)
  await w.audit('twin_trigger.plan_approve', { type: 'twin_trigger', id: trigger.id }, { plan_hash: trigger.standingPlanHash, plan_interrupt_id: approved.planInterruptId }, { triggerId: trigger.id })
  return approved
}

async function writeSchedule(tx: TenantTx, twin: TwinDefinition, trigger: TwinTrigger, rrule: string, timezone: string) {
  const now = clock.now()
  const s = normaliseSchedule(rrule, timezone, now)
  const existing = await tx.twinSchedule.findFirst({ where: { triggerId: trigger.id } })
  const next = nextRunAt(s.rrule, { now, lastRunAt: existing?.lastRunAt ?? null, minIntervalSeconds: trigger.minIntervalSeconds })
  return existing
    ? tx.twinSchedule.update({ where: { id: existing.id }, data: { rrule: s.rrule, timezone: s.timezone, nextRunAt: next } })
    : tx.twinSchedule.create({ data: { organizationId: twin.organizationId, twinId: twin.id, triggerId: trigger.id, rrule: s.rrule, timezone: s.timezone, nextRunAt: next } })
}

/** The person's timezone (users.settings.timezone), UTC when unset. */
async function personTimezone(tx: TenantTx, userId: string) {
  const user = await tx.user.findFirst({ where: { id: userId }, select: { settings: true } })
  const tz = (user?.settings as { timezone?: unknown } | null)?.timezone
  return typeof tz === 'string' && tz ? tz : 'UTC'
}

/** POST P/twins/{twin_id}/triggers: a duty's trigger; a schedule trigger with its rule; a standing plan, approved at once when asked. */
export const createTwinTrigger = command({
  permission: 'program.twins.use',
  input: z.object({
    twinId: IdInput,
    dutyKey: z.string().min(1).max(64),
    kind: z.enum(['schedule', 'event', 'handoff', 'mention']),
    eventAction: z.string().optional(),
    rrule: z.string().max(2000).optional(),
    timezone: z.string().max(64).optional(),
    approvePlan: z.boolean().default(false),
    enabled: z.boolean().default(true),
    ...TriggerFields,
  }).superRefine((v, ctx) => {
    if (v.kind === 'event' && !v.eventAction) ctx.addIssue({ code: 'custom', path: ['eventAction'], message: `an event trigger names one of ${TRIGGERABLE_ACTIONS.join(', ')}` })
    if (v.eventAction && v.kind !== 'event') ctx.addIssue({ code: 'custom', path: ['eventAction'], message: 'only event triggers name an action' })
    if (v.eventAction && !(TRIGGERABLE_ACTIONS as readonly string[]).includes(v.eventAction)) {
      ctx.addIssue({ code: 'custom', path: ['eventAction'], message: `not a triggerable action; use one of ${TRIGGERABLE_ACTIONS.join(', ')}` })
    }
    if (v.kind === 'schedule' && !v.rrule) ctx.addIssue({ code: 'custom', path: ['rrule'], message: 'a schedule trigger needs a rule, e.g. FREQ=DAILY;BYHOUR=8;BYMINUTE=0' })
    if (v.rrule && v.kind !== 'schedule') ctx.addIssue({ code: 'custom', path: ['rrule'], message: 'only schedule triggers have a rule' })
  }),
  load: (q, input, ctx) => loadTwin(q, input.twinId, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin_trigger.create', 'twin_trigger.plan_approve'],
  errors: [BoundUserOnly, DutyUnavailable],
  async run(w, input, twin) {
    ownTwin(w.ctx, twin)
    if (!(twin.duties as string[]).includes(input.dutyKey)) throw new DutyUnavailable(`Enable the duty ${input.dutyKey} on this twin first.`, { field: 'dutyKey' })
    const plan = input.standingPlan ?? { duty: input.dutyKey }
    let trigger = await w.tx.twinTrigger.create({
      data: {
        organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, dutyKey: input.dutyKey, kind: input.kind,
        eventAction: input.eventAction ?? null, spec: (input.spec ?? {}) as object, minIntervalSeconds: input.minIntervalSeconds ?? 3600,
        priority: input.priority ?? 'digest', standingPlanJson: plan as object, standingPlanHash: planHash(plan), enabled: input.enabled,
        // Events before the trigger existed are not its concern: the reconcile watermark starts at the trail's end.
        lastEntrySeq: input.kind === 'event' ? await auditTrailEndAcrossOrganisations(w.tx) : 0,
      },
    })
    await w.audit('twin_trigger.create', { type: 'twin_trigger', id: trigger.id }, { kind: trigger.kind, duty_key: trigger.dutyKey, event_action: trigger.eventAction }, { triggerId: trigger.id })
    trigger = await openPlanApproval(w.tx, twin, trigger, w.ctx.session.userId)
    if (input.kind === 'schedule') await writeSchedule(w.tx, twin, trigger, input.rrule!, input.timezone ?? await personTimezone(w.tx, twin.userId))
    if (input.approvePlan) trigger = await approvePlan(w as Write<'twin_trigger.plan_approve'>, trigger)
    return trigger
  },
})

async function loadTrigger(q: TenantTx, id: string, ctx: DomainContext) {
  const trigger = await q.twinTrigger.findFirst({ where: { id } })
  if (!trigger) throw new NotFoundError('Trigger', { field: 'id' })
  const twin = await loadTwin(q, trigger.twinId, ctx).catch(() => { throw new NotFoundError('Trigger', { field: 'id' }) })
  return { trigger, twin }
}

/**
 * PATCH P/twins/{twin_id}/triggers/{trigger_id}. A new standing plan needs approval again; `approvePlanHash` approves
 * the plan whose hash the person saw (a plan changed since is refused on that field).
 */
export const updateTwinTrigger = command({
  permission: 'program.twins.use',
  input: z.object({ id: IdInput, enabled: z.boolean().optional(), approvePlanHash: z.string().optional(), ...TriggerFields }),
  load: (q, input, ctx) => loadTrigger(q, input.id, ctx),
  program: (_i, t) => t.twin.programId,
  audit: ['twin_trigger.update', 'twin_trigger.plan_approve'],
  errors: [BoundUserOnly],
  async run(w, input, { trigger, twin }) {
    ownTwin(w.ctx, twin)
    const data: Prisma.TwinTriggerUncheckedUpdateInput = {}
    if (input.enabled !== undefined) data.enabled = input.enabled
    if (input.minIntervalSeconds !== undefined) data.minIntervalSeconds = input.minIntervalSeconds
    if (input.priority) data.priority = input.priority
    if (input.spec) data.spec = input.spec as object
    if (input.standingPlan) {
      const hash = planHash(input.standingPlan)
      if (hash !== trigger.standingPlanHash) Object.assign(data, { standingPlanJson: input.standingPlan as object, standingPlanHash: hash, standingPlanApprovedAt: null, standingPlanApprovedBy: null })
    }
    let updated = await w.tx.twinTrigger.update({ where: { id: trigger.id }, data })
    // A changed plan asks for approval again: a new plan_approval interrupt, the pending one superseded.
    if (data.standingPlanHash !== undefined) updated = await openPlanApproval(w.tx, twin, updated, w.ctx.session.userId)
    await w.audit('twin_trigger.update', { type: 'twin_trigger', id: trigger.id }, { fields: Object.keys(data) }, { triggerId: trigger.id })
    if (input.approvePlanHash !== undefined) {
      if (input.approvePlanHash !== updated.standingPlanHash) throw InvalidInput.of('approvePlanHash', 'The standing plan changed since you read it; read it again before approving.')
      updated = await approvePlan(w as Write<'twin_trigger.plan_approve'>, updated)
    }
    if (input.minIntervalSeconds !== undefined) {
      const schedule = await w.tx.twinSchedule.findFirst({ where: { triggerId: trigger.id } })
      if (schedule) await w.tx.twinSchedule.update({ where: { id: schedule.id }, data: { nextRunAt: nextRunAt(schedule.rrule, { now: clock.now(), lastRunAt: schedule.lastRunAt, minIntervalSeconds: updated.minIntervalSeconds }) } })
    }
    return updated
  },
})

/** DELETE P/twins/{twin_id}/triggers/{trigger_id}: the trigger and its schedule; its queued run is cancelled. */
export const deleteTwinTrigger = command({
  permission: 'program.twins.use',
  input: z.object({ id: IdInput }),
  load: (q, input, ctx) => loadTrigger(q, input.id, ctx),
  program: (_i, t) => t.twin.programId,
  audit: ['twin_trigger.delete'],
  errors: [BoundUserOnly],
  async run(w, _input, { trigger, twin }) {
    ownTwin(w.ctx, twin)
    await transitionAll(w.tx, agentRunStatus, 'cancel', { triggerId: trigger.id, status: 'queued' }, { finishedAt: clock.now(), error: 'trigger deleted' })
    await answerPlanApproval(w.tx, trigger, 'superseded', w.ctx.session.userId) // a pending plan approval ends with it
    await w.tx.twinTrigger.delete({ where: { id: trigger.id } })
    await w.audit('twin_trigger.delete', { type: 'twin_trigger', id: trigger.id }, { kind: trigger.kind, duty_key: trigger.dutyKey }, { triggerId: trigger.id })
    return { id: trigger.id, twinId: twin.id }
  },
})

/** PUT P/twins/{twin_id}/schedule: the rule of one of the twin's schedule triggers, in a timezone (the person's by default). */
export const putTwinSchedule = command({
  permission: 'program.twins.use',
  input: z.object({ twinId: IdInput, triggerId: IdInput, rrule: z.string().max(2000), timezone: z.string().max(64).optional() }),
  load: (q, input, ctx) => loadTwin(q, input.twinId, ctx),
  program: (_i, twin) => twin.programId,
  audit: ['twin_schedule.update'],
  errors: [BoundUserOnly],
  async run(w, input, twin) {
    ownTwin(w.ctx, twin)
    const trigger = await w.tx.twinTrigger.findFirst({ where: { id: input.triggerId, twinId: twin.id } })
    if (!trigger) throw new NotFoundError('Trigger', { field: 'triggerId' })
    if (trigger.kind !== 'schedule') throw InvalidInput.of('triggerId', 'Only a schedule trigger has a schedule.')
    const schedule = await writeSchedule(w.tx, twin, trigger, input.rrule, input.timezone ?? await personTimezone(w.tx, twin.userId))
    await w.audit('twin_schedule.update', { type: 'twin_schedule', id: schedule.id }, { rrule: schedule.rrule, timezone: schedule.timezone }, { triggerId: trigger.id })
    return schedule
  },
})
