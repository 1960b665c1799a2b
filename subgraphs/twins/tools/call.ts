// Owns one tool call of a twin run, in order: the run (token, still running), the effective toolset, the twin
// (active, budget), max_skill_runs_per_turn, the sanitised and parsed arguments, then one transaction writing the
// tool_calls row, the tool's work and the audit row; the result is sanitised on the way out. A denial writes nothing.
import { z } from 'zod'
import type { AgentRun } from '../../../generated/prisma/client'
import { command, contextForUser, type DomainContext } from '../../../core/command'
import type { Db, Prisma } from '../../../core/db'
import { DomainError, HarnessDenied, parseInput } from '../../../core/errors'
import { transition } from '../../../core/state-machine'
import { toolCallStatus } from '../../../core/states'
import { MAX_SKILL_RUNS_PER_TURN, runSkillForPerson } from '../domain/skill-runs'
import { TOOLS, toolByName } from './catalogue'
import { verifyRunToken, RunTokenRefused, type RunTokenClaims } from './run-tokens'
import { sanitiseArguments, sanitiseValue, type Violation } from './sanitise'
import { effectiveToolset } from './toolset'
import { activeTwinOf, pauseIfBudgetExhausted } from './twin-state'
import type { InCallTool, ToolCallScope, ToolDefinition } from './tool'

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

const denied = (message: string) => new HarnessDenied(message)

/** The tools a run may call now (tools/list). */
export async function listToolsFor(session: RunSession): Promise<ToolDefinition[]> {
  return effectiveToolset(session.ctx.session, session.run)
}

/** Runs one call; throws a DomainError (harness_denied, twin_paused, invalid_input, the tool's own refusals). */
export async function callTool(session: RunSession, name: string, rawArgs: unknown, meta: CallMeta = {}): Promise<CallOutcome> {
  const { run, ctx } = session
  const tool = toolByName(name)
  const toolset = new Set(effectiveToolset(ctx.session, run).map((t) => t.name))
  // An unknown name and a tool outside the toolset read the same: the agent learns only what it may call.
  if (!tool || !toolset.has(name)) throw denied(`${name} is not in this run's toolset.`)
  const turn = meta.turn ?? 0
  const duty = meta.duty ?? null
  const twin = await activeTwinOf(ctx.tdb, run.organizationId, run.twinId)
  if (await pauseIfBudgetExhausted(ctx, twin)) throw denied('The twin has used its tool calls for this month and is paused (budget).')
  if (tool.kind === 'skill') {
    const used = await ctx.tdb.toolCall.count({ where: { runId: run.id, turn, tool: { in: skillNames() } } })
    if (used >= MAX_SKILL_RUNS_PER_TURN) throw denied(`max_skill_runs_per_turn is ${MAX_SKILL_RUNS_PER_TURN}; this turn has run ${used} skills.`)
  }
  const { args: cleaned, violations } = sanitiseArguments(rawArgs ?? {})
  const args = parseInput(tool.input, cleaned)
  let outcome: CallOutcome
  if (tool.kind === 'skill') {
    const { inputs, citations } = args as { inputs: unknown; citations?: unknown }
    const result = await runSkillForPerson(ctx, { programId: run.programId, skillKey: tool.name, inputs, citations, toolCall: { runId: run.id, twinId: run.twinId, turn } })
    outcome = { tool: name, result: result as unknown as Record<string, unknown>, violations }
  } else {
    outcome = await callInTransaction(session, tool, args, { turn, duty, violations })
  }
  outcome.result = sanitiseValue(outcome.result, outcome.violations) as Record<string, unknown>
  await pauseIfBudgetExhausted(ctx, twin)
  return outcome
}

/** Skill tools' names: what max_skill_runs_per_turn counts. */
const skillNames = () => TOOLS.filter((t) => t.kind === 'skill').map((t) => t.name)

/**
 * A read or write tool: the tool_calls row (with its idempotency key for propose_*), the tool's work and the audit
 * row commit together. A refusal from the tool rolls that back and leaves one refused row (the call happened).
 */
async function callInTransaction(session: RunSession, tool: InCallTool, args: unknown, opts: { turn: number; duty: string | null; violations: Violation[] }): Promise<CallOutcome> {
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
    if (!(e instanceof DomainError)) throw e
    await ctx.tdb.$transaction(async (tx) => {
      const row = await tx.toolCall.create({ data: { ...base, status: 'running' } })
      await transition(tx, toolCallStatus, 'refuse', { id: row.id, organizationId: run.organizationId }, {
        outputViolations: [...opts.violations, { code: e.code, field: e.field ?? null, message: e.message }] as unknown as object,
      })
    })
    throw e
  }
}

type ToolCallRow = Omit<Prisma.ToolCallUncheckedCreateInput, 'status' | 'idempotencyKey'>

interface InvokeTarget {
  tool: InCallTool; args: unknown; base: ToolCallRow; idempotencyKey: string | null
  session: RunSession; opts: { turn: number; duty: string | null; violations: Violation[] }
}

/** The write of one call: the tool's permission re-checked under live assignments by command(), audited as tool_call.invoke. */
function invoke(ctx: DomainContext, input: { programId: string; tool: string }, target: InvokeTarget): Promise<CallOutcome> {
  const { tool, args, base, idempotencyKey, session, opts } = target
  const write = command({
    input: z.object({ programId: z.string().uuid(), tool: z.string() }),
    permission: tool.permission,
    program: (i) => i.programId,
    audit: ['tool_call.invoke'],
    async run(w) {
      const scope: ToolCallScope = { ctx: session.ctx, run: session.run, turn: opts.turn, duty: opts.duty }
      const { result, basisHash, toolCallId, violations: found } = await tool.handler(scope, args as never, w)
      // A proposal's row is written by fileProposal (with its basis_hash); this call completes it. Reads write their own.
      const row = toolCallId
        ? await w.tx.toolCall.update({ where: { id: toolCallId }, data: { ...base, idempotencyKey, ...(basisHash ? { basisHash } : {}) } })
        : await w.tx.toolCall.create({ data: { ...base, status: 'ok', idempotencyKey, basisHash: basisHash ?? null } })
      await w.audit('tool_call.invoke', { type: 'tool_call', id: row.id }, { tool: tool.name, duty: opts.duty, run_id: session.run.id })
      return { tool: tool.name, result: { ...result, toolCallId: row.id }, violations: [...opts.violations, ...(found ?? [])] } as CallOutcome
    },
  })
  return write(ctx, input)
}

function isUniqueViolation(e: unknown) {
  const code = (e as { code?: string })?.code
  return code === 'P2002' || /unique constraint/i.test(String((e as Error)?.message ?? ''))
}

