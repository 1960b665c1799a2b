// Owns one tool call of a twin run, in order: the run (token, still running), the effective toolset, the twin
// (active), the sanitised and parsed arguments, the admission (budget_tool_calls_month, then the tool's per-turn
// limit, each taken atomically: admission.ts), then one transaction writing the tool_calls row, the tool's work and
// the audit row; the result is sanitised on the way out, and what the sanitiser changed either way is stored on the
// row (output_violations; result fields under `result.`). A harness denial writes no proposal, record or interrupt,
// only its trace: a refused tool_calls row and a tool_call.deny audit row.
import { z } from 'zod'
import type { AgentRun, TwinDefinition } from '../../../generated/prisma/client'
import { command, contextForUser, type DomainContext } from '../../../core/jobs'
import { recordAudit } from '../../../core/audit'
import type { Db, Prisma } from '../../../core/database'
import { DomainError, HarnessDenied, TwinPaused, parseInput } from '../../../core/errors'
import { transition } from '../../../core/states'
import { toolCallStatus } from '../../../core/states'
import { runSkillForPerson } from '../../../domain/skills'
import { PAUSED_PHRASE } from '../../../domain/twins'
import { toolByName } from './catalogue'
import { admit, monthTake, release, turnTake, type Admission } from './admission'
import { verifyRunToken, RunTokenRefused, type RunTokenClaims } from './run-tokens'
import { sanitiseArguments, sanitiseValue, type Violation } from './sanitise'
import { effectiveToolset } from './toolset'
import { activeTwinOf, pauseForBudget } from './twin-state'
import { pauseWhenUsdBudgetUsedUp } from '../../../domain/twins'
import type { InCallTool, ToolCallScope, ToolDefinition } from './tool'
import { answerSummary, refusalSummary } from './rail'

export type TwinRun = AgentRun & { programId: string; twinId: string }

/** A verified run: its token's claims, the run row, and the person's live context acting as the twin. */
export interface RunSession { claims: RunTokenClaims; run: TwinRun; ctx: DomainContext }

/**
 * The tool server's authentication: the token must name this run and the run must be running now (a finished,
 * cancelled or interrupted run's token is refused), and the person must still be active (their session is live).
 */
export async function authenticateRun(db: Db, authorization: string | undefined | null, runId: string): Promise<RunSession> {
  const claims = await verifyRunToken(authorization, runId)
  const run = await db.agentRun.findFirst({ where: { id: runId, organizationId: claims.organizationId } })
  if (!run || run.twinId !== claims.twinId || !run.programId) throw new RunTokenRefused('other_run', 'The run token was issued for another run.')
  if (run.status !== 'running') throw new RunTokenRefused('finished', `The run is ${run.status}; its token is no longer accepted.`)
  const ctx = await contextForUser(db, claims.userId, claims.organizationId, { twinId: claims.twinId })
  return { claims, run: run as TwinRun, ctx }
}

/** What the harness says about a call besides its arguments (MCP request _meta). */
export interface CallMeta { turn?: number; duty?: string | null }

export interface CallOutcome {
  tool: string
  result: Record<string, unknown>
  /** What the sanitiser changed, in the arguments and in the result. */
  violations: Violation[]
  /** True when a retried call found its proposal filed already (same run, duty and target): nothing was written. */
  duplicate?: boolean
}

/**
 * A harness denial (outside the toolset, max_skill_runs_per_turn, the turn's literature queries, backpressure): the
 * call has no effect, but a regulated trail keeps the attempt, so a refused tool_calls row (the tool name as asked,
 * the arguments when they pass the sanitiser's limits, the denial in output_violations) and a tool_call.deny audit row
 * are written in one transaction. A denial consumes no limit: the admission it lost took nothing, and one it won
 * (`admission`, when the tool itself refused for backpressure) is given back in the same transaction.
 */
async function denied(session: RunSession, name: string, rawArgs: unknown, meta: { turn: number; duty: string | null }, refusal: string | DomainError, admission?: Admission) {
  const { run, ctx } = session
  const error = typeof refusal === 'string' ? new HarnessDenied(refusal) : refusal
  let args: object = {}
  try { args = sanitiseArguments(rawArgs ?? {}).args } catch { /* over the limits: the name is the trace */ }
  await ctx.db.$transaction(async (tx) => {
    if (admission) await release(tx, admission)
    const row = await tx.toolCall.create({
      data: {
        organizationId: run.organizationId, programId: run.programId, runId: run.id, twinId: run.twinId, userId: ctx.session.userId,
        tool: name.slice(0, 200), arguments: args, turn: meta.turn, status: 'running', summary: refusalSummary(error) as object,
      },
    })
    await transition(tx, toolCallStatus, 'refuse', { id: row.id, organizationId: run.organizationId }, {
      outputViolations: [{ code: error.code, field: null, message: error.message }] as unknown as object,
    })
    await recordAudit(tx, {
      organizationId: run.organizationId, programId: run.programId, action: 'tool_call.deny', actor: ctx.actor,
      target: { type: 'tool_call', id: row.id }, details: { tool: name.slice(0, 200), duty: meta.duty, run_id: run.id, reason: error.message },
    })
  })
  return error
}

/** The tools a run may call now (tools/list). */
export async function listToolsFor(session: RunSession): Promise<ToolDefinition[]> {
  return effectiveToolset(session.ctx.session, session.run)
}

/**
 * Admits a call against the limits that count calls, in one statement per counter (admission.ts): the twin's month,
 * then the tool's per-turn limit. Over the month's budget the twin pauses (reason budget) and the call is refused
 * twin_paused, as every call after the pause is; over a per-turn limit it is denied with that limit's code.
 */
async function admitCall(session: RunSession, tool: ToolDefinition, twin: TwinDefinition, meta: { turn: number; duty: string | null }, rawArgs: unknown): Promise<Admission> {
  const { run, ctx } = session
  const month = monthTake(twin)
  const turnLimit = tool.turnLimit
  const perTurn = turnLimit ? turnTake(turnLimit.counter, run.id, meta.turn, await turnLimit.limit(ctx.tdb, run)) : null
  const answer = await admit(ctx.db, run.organizationId, perTurn ? [month, perTurn] : [month])
  if ('admitted' in answer) return answer.admitted
  if (answer.refused === month) {
    await pauseForBudget(ctx, twin)
    throw new TwinPaused(`${PAUSED_PHRASE} (reason: budget; the month's ${twin.budgetToolCallsMonth} tool calls are used)`, { field: 'twinId' })
  }
  throw await denied(session, tool.name, rawArgs, meta, turnLimit!.refusal(answer.refused.limit))
}

/** Runs one call; throws a DomainError (harness_denied, twin_paused, invalid_input, the tool's own refusals). */
export async function callTool(session: RunSession, name: string, rawArgs: unknown, meta: CallMeta = {}): Promise<CallOutcome> {
  const { run, ctx } = session
  const tool = toolByName(name)
  const toolset = new Set(effectiveToolset(ctx.session, run).map((t) => t.name))
  const turn = meta.turn ?? 0
  const duty = meta.duty ?? null
  // An unknown name and a tool outside the toolset read the same: the agent learns only what it may call.
  if (!tool || !toolset.has(name)) throw await denied(session, name, rawArgs, { turn, duty }, `${name} is not in this run's toolset.`)
  const twin = await activeTwinOf(ctx.tdb, run.organizationId, run.twinId)
  // budget_usd_month: the cost the twin's runs reported this month (twin-usd-budget.ts); used up, the twin pauses.
  if (await pauseWhenUsdBudgetUsedUp(ctx.db, twin, 'tool_server')) throw new TwinPaused(`${PAUSED_PHRASE} (reason: budget; the month's USD budget is used)`, { field: 'twinId' })
  // Credentials redacted and hostile text refused here, once, for every tool, before anything is parsed or stored;
  // arguments the server would refuse are refused before admission: they take nothing and leave nothing.
  const { args: cleaned, violations } = sanitiseArguments(rawArgs ?? {}, tool.refuseText)
  const args = parseInput(tool.input, cleaned)
  const admission = await admitCall(session, tool, twin, { turn, duty }, rawArgs)
  try {
    if (tool.kind === 'skill') {
      const { inputs, citations } = args as { inputs: unknown; citations?: unknown }
      const result = await runSkillForPerson(ctx, { programId: run.programId, skillKey: tool.name, inputs, citations, toolCall: { runId: run.id, twinId: run.twinId, turn } })
      return await sanitisedSkillOutcome(ctx, name, result, violations)
    }
    // Sanitises the result before its row is written, so the row holds what the agent was handed.
    return await callInTransaction(session, tool, args, { turn, duty, violations, admission })
  } finally {
    // The call that took the month's last one pauses the twin once it has run (whatever it answered).
    if ((admission.used.get('twin_month') ?? 0) >= twin.budgetToolCallsMonth) await pauseForBudget(ctx, twin)
  }
}

/** What the sanitiser changed in a result, its fields under `result.` (arguments keep their own paths). */
const sanitiseResult = (result: Record<string, unknown>, violations: Violation[]) => sanitiseValue(result, violations, 'result') as Record<string, unknown>

/**
 * A skill's row is written by the skill run (skill-runs.ts, shared with people's runs, which have no sanitiser), so
 * the sanitiser's changes to the arguments and the result are added to that row's output_violations afterwards.
 */
async function sanitisedSkillOutcome(ctx: DomainContext, tool: string, raw: { artifact_id: string }, violations: Violation[]): Promise<CallOutcome> {
  const result = sanitiseResult(raw as unknown as Record<string, unknown>, violations)
  if (violations.length) {
    const row = await ctx.tdb.toolCall.findFirst({ where: { resultArtifactId: raw.artifact_id }, select: { id: true, outputViolations: true } })
    if (row) {
      const kept = Array.isArray(row.outputViolations) ? row.outputViolations : []
      await ctx.tdb.toolCall.update({ where: { id: row.id }, data: { outputViolations: [...kept, ...violations] as unknown as object } })
    }
  }
  return { tool, result, violations }
}

/**
 * A read or write tool: the tool_calls row (with its idempotency key for propose_*), the tool's work and the audit
 * row commit together. A refusal from the tool rolls that back and leaves one refused row (the call happened).
 */
async function callInTransaction(session: RunSession, tool: InCallTool, args: unknown, opts: CallOpts): Promise<CallOutcome> {
  const { run, ctx } = session
  const idempotencyKey = tool.kind === 'write' && tool.target ? `${opts.duty ?? '-'}:${tool.name}:${tool.target(args as never)}` : null
  const base: ToolCallRow = {
    organizationId: run.organizationId, programId: run.programId, runId: run.id, twinId: run.twinId, userId: ctx.session.userId,
    tool: tool.name, arguments: args as object, turn: opts.turn, outputViolations: opts.violations as unknown as object,
  }
  if (idempotencyKey) {
    const filed = await ctx.tdb.toolCall.findFirst({ where: { runId: run.id, idempotencyKey, status: 'ok' } })
    if (filed) return { tool: tool.name, result: { duplicate: true, toolCallId: filed.id, basisHash: filed.basisHash }, violations: opts.violations, duplicate: true }
  }
  try {
    return await invoke(ctx, { programId: run.programId, tool: tool.name }, { tool, args, base, idempotencyKey, session, opts })
  } catch (e) {
    if (isUniqueViolation(e) && idempotencyKey) {
      const filed = await ctx.tdb.toolCall.findFirstOrThrow({ where: { runId: run.id, idempotencyKey } })
      return { tool: tool.name, result: { duplicate: true, toolCallId: filed.id, basisHash: filed.basisHash }, violations: opts.violations, duplicate: true }
    }
    // A permission lost between the toolset check and the write (command() re-checks it live) is the denial it is.
    if ((e as { extensions?: { code?: string } })?.extensions?.code === 'FORBIDDEN') {
      throw await denied(session, tool.name, args, opts, `${tool.name} is not in this run's toolset.`, opts.admission)
    }
    if (!(e instanceof DomainError)) throw e
    // A limit the tool checks itself (backpressure) is a denial: its trace, and the admission given back.
    if (e.code === 'harness_denied') throw await denied(session, tool.name, args, opts, e, opts.admission)
    await ctx.tdb.$transaction(async (tx) => {
      const row = await tx.toolCall.create({ data: { ...base, status: 'running', summary: refusalSummary(e) as object } })
      await transition(tx, toolCallStatus, 'refuse', { id: row.id, organizationId: run.organizationId }, {
        outputViolations: [...opts.violations, { code: e.code, field: e.field ?? null, message: e.message }] as unknown as object,
      })
    })
    throw e
  }
}

interface CallOpts { turn: number; duty: string | null; violations: Violation[]; admission: Admission }

type ToolCallRow = Omit<Prisma.ToolCallUncheckedCreateInput, 'status' | 'idempotencyKey'>

interface InvokeTarget {
  tool: InCallTool; args: unknown; base: ToolCallRow; idempotencyKey: string | null
  session: RunSession; opts: CallOpts
}

/** The write of one call: the tool's permission re-checked under live assignments by command(), audited as tool_call.invoke. */
function invoke(ctx: DomainContext, input: { programId: string; tool: string }, target: InvokeTarget): Promise<CallOutcome> {
  const { tool, args, base, idempotencyKey, session, opts } = target
  const scope: ToolCallScope = { ctx: session.ctx, run: session.run, turn: opts.turn, duty: opts.duty }
  const write = command({
    input: z.object({ programId: z.string().uuid(), tool: z.string() }),
    permission: tool.permission,
    program: (i) => i.programId,
    audit: ['tool_call.invoke'],
    // Outside the transaction: a tool's wait on a vendor holds no connection (tool.ts, prepare).
    prepare: async () => (tool.prepare ? tool.prepare(scope, args as never) : undefined),
    async run(w, _input, _target, prepared) {
      const { result: raw, basisHash, toolCallId, violations: found } = await tool.handler(scope, args as never, w, prepared)
      // What the handler neutralised itself (outside text in a record body) and what the result sanitiser changes are
      // stored on the row beside the argument changes.
      if (found) opts.violations.push(...found.map((v) => ({ ...v, field: `result.${v.field}` })))
      const result = sanitiseResult(raw, opts.violations)
      // The run rail's account of the answer (rail.ts), from the result as the agent was handed it.
      const stored = { ...base, outputViolations: opts.violations as unknown as object, summary: answerSummary(tool, result) as object }
      // A proposal's row is written by fileProposal (with its basis_hash); this call completes it. Reads write their own.
      const row = toolCallId
        ? await w.tx.toolCall.update({ where: { id: toolCallId }, data: { ...stored, idempotencyKey, ...(basisHash ? { basisHash } : {}) } })
        : await w.tx.toolCall.create({ data: { ...stored, status: 'ok', idempotencyKey, basisHash: basisHash ?? null } })
      await w.audit('tool_call.invoke', { type: 'tool_call', id: row.id }, { tool: tool.name, duty: opts.duty, run_id: session.run.id })
      return { tool: tool.name, result: { ...result, toolCallId: row.id }, violations: opts.violations } as CallOutcome
    },
  })
  return write(ctx, input)
}

function isUniqueViolation(e: unknown) {
  const code = (e as { code?: string })?.code
  return code === 'P2002' || /unique constraint/i.test(String((e as Error)?.message ?? ''))
}

