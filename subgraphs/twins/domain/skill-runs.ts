// Owns skill runs for a person: permission, the class A run in the API process or the class B run awaited
// from the worker, and the record: a skill_result artifact (run_id null), a tool_calls row, audit skill_run.start.
import type { Db } from '../../../core/db'
import { asTx, type AnyTx } from '../../../core/db'
import { DomainError } from '../../../core/errors'
import { recordAudit } from '../../../core/audit'
import { assertCan } from '../../../core/session'
import { env } from '../../../core/env'
import { enqueue } from '../../../jobs/registry'
import { transition } from '../../../core/state-machine'
import { toolCallStatus } from '../../../core/states'
import type { GraphQLContext } from '../../shared/context'
import {
  executeSkill, getSkill, isSkillInputError, listSkills, outputViolations, skillClassOf, skillPermission,
  skillResultJson, MAX_SKILL_RUNS_PER_TURN, type SkillResult,
} from './skills'

export { MAX_SKILL_RUNS_PER_TURN }

/** How long a person's request waits for a class B run in the worker before answering skill_timeout. */
export const CLASS_B_TIMEOUT_MS = 120_000

const gate = () => ({ r4GatePassed: env().R4_GATE_PASSED })
export const skillCatalogue = () => listSkills(gate())
export const skillByKey = (key: string) => getSkill(key, gate())

export interface SkillRunIn { programId: string; skillKey: string; inputs: unknown; citations?: unknown }
export type SkillResultOut = SkillResult & { artifact_id: string; created_at: Date }

function refusal(e: unknown): never {
  if (isSkillInputError(e)) throw new DomainError(e.code, e.message, { field: e.field, status: 422 })
  throw e
}

/** The record of one finished run, written in one transaction with the audit row. */
async function recordRun(anyTx: AnyTx, ctx: { organizationId: string; programId: string; userId: string }, result: SkillResult, call: { toolCallId: string } | { args: object }) {
  const tx = asTx(anyTx)
  const artifact = await tx.artifact.create({
    data: {
      organizationId: ctx.organizationId, programId: ctx.programId, runId: null, kind: 'skill_result',
      content: JSON.parse(skillResultJson(result)), agentGenerated: false, createdByUserId: ctx.userId,
    },
  })
  const data = {
    checkLogicVersion: result.check_logic_version, inputsHash: result.inputs_hash,
    resultArtifactId: artifact.id, outputViolations: outputViolations(result),
  }
  // A queued call leaves running only once (a second delivery of the job loses the guarded update and rolls back).
  const toolCall = 'toolCallId' in call
    ? await transition(tx, toolCallStatus, 'complete', { id: call.toolCallId, organizationId: ctx.organizationId }, data)
    : await tx.toolCall.create({
      data: { organizationId: ctx.organizationId, programId: ctx.programId, userId: ctx.userId, tool: result.skill_key,
        arguments: call.args, status: 'ok', ...data },
    })
  return { artifact, toolCall }
}

async function auditStart(anyTx: AnyTx, ctx: { organizationId: string; programId: string; userId: string }, skillKey: string, toolCallId: string) {
  await recordAudit(anyTx, {
    organizationId: ctx.organizationId, programId: ctx.programId, action: 'skill_run.start',
    actor: { type: 'user', userId: ctx.userId }, target: { type: 'tool_call', id: toolCallId }, details: { skill_key: skillKey },
  })
}

/**
 * POST /programs/{program_id}/skill-runs. Synchronous for the caller. Runs are allowed while the skill's
 * status is designed: the status is what the catalogue shows, and flipping R4_GATE_PASSED is the release act.
 */
export async function runSkillForPerson(ctx: Pick<GraphQLContext, 'session' | 'tdb' | 'db'>, input: SkillRunIn): Promise<SkillResultOut> {
  const skill = skillByKey(input.skillKey)
  if (!skill) throw new DomainError('invalid_input', `No skill ${input.skillKey}; see Query.skills.`, { field: 'skill_key', status: 422 })
  const program = await ctx.tdb.program.findFirst({ where: { id: input.programId } })
  if (!program) throw new DomainError('not_found', 'Program was not found.', { field: 'programId', status: 404 })
  assertCan(ctx.session, skillPermission(skill.key)!, program.id)
  const who = { organizationId: ctx.session.organizationId, programId: program.id, userId: ctx.session.userId }
  const citations = input.citations ?? undefined

  if (skillClassOf(skill.key) === 'A') {
    let result: SkillResult
    try { result = await executeSkill(skill.key, input.inputs as never, citations as never) } catch (e) { refusal(e) }
    const { artifact } = await ctx.tdb.$transaction(async (tx) => {
      const written = await recordRun(tx, who, result, { args: { inputs: input.inputs ?? null, citations: citations ?? null } })
      await auditStart(tx, who, skill.key, written.toolCall.id)
      return written
    })
    return { ...result, artifact_id: artifact.id, created_at: artifact.createdAt }
  }

  // Class B: the chemistry library lives in the worker. The request is recorded and the job enqueued in one
  // transaction; the caller waits for the worker's answer under CLASS_B_TIMEOUT_MS.
  const toolCall = await ctx.tdb.$transaction(async (tx) => {
    const row = await tx.toolCall.create({
      data: { organizationId: who.organizationId, programId: who.programId, userId: who.userId, tool: skill.key, status: 'running',
        arguments: { inputs: input.inputs ?? null, citations: citations ?? null } as object },
    })
    await auditStart(tx, who, skill.key, row.id)
    await enqueue(tx, 'skill_library_job', { toolCallId: row.id }, { jobKey: `skill_library_job:${row.id}`, maxAttempts: 1 })
    return row
  })
  const deadline = Date.now() + CLASS_B_TIMEOUT_MS
  for (;;) {
    const row = await ctx.tdb.toolCall.findFirst({ where: { id: toolCall.id } })
    if (row?.status === 'ok' && row.resultArtifactId) {
      const artifact = await ctx.tdb.artifact.findFirstOrThrow({ where: { id: row.resultArtifactId } })
      return { ...(artifact.content as unknown as SkillResult), artifact_id: artifact.id, created_at: artifact.createdAt }
    }
    if (row?.status === 'refused') {
      const [v] = (row.outputViolations as { code: string; field?: string; message: string }[]) ?? []
      throw new DomainError(v?.code ?? 'invalid_input', v?.message ?? 'The skill refused its inputs.', { field: v?.field, status: 422 })
    }
    if (row?.status === 'failed') throw new DomainError('skill_failed', 'The skill could not complete; nothing was stored. Try again or report it.', { status: 500 })
    if (Date.now() > deadline) {
      throw new DomainError('skill_timeout', `The skill did not finish within ${CLASS_B_TIMEOUT_MS / 1000} s; nothing was stored.`, { status: 504 })
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** skill_library_job: runs one class B skill in the worker and records its result (or refusal). */
export async function runQueuedSkill(db: Db, toolCallId: string, timeoutMs = CLASS_B_TIMEOUT_MS) {
  const call = await db.toolCall.findUnique({ where: { id: toolCallId } })
  if (!call || call.status !== 'running') return // already answered (delivery is at least once)
  const args = call.arguments as { inputs?: unknown; citations?: unknown }
  let result: SkillResult
  try {
    result = await Promise.race([
      executeSkill(call.tool, args.inputs as never, (args.citations ?? undefined) as never),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`job timeout after ${timeoutMs} ms`)), timeoutMs).unref()),
    ])
  } catch (e) {
    const refused = isSkillInputError(e)
    await transition(db, toolCallStatus, refused ? 'refuse' : 'fail', { id: toolCallId, organizationId: call.organizationId }, {
      outputViolations: refused ? [{ code: e.code, field: e.field, message: e.message }] : [{ code: 'skill_failed', message: (e as Error).message }],
    }).catch(answeredMeanwhile)
    if (!refused) throw e
    return
  }
  await db.$transaction((tx) => recordRun(tx, { organizationId: call.organizationId, programId: call.programId!, userId: call.userId! }, result, { toolCallId }))
    .catch(answeredMeanwhile)
}

/** Another delivery of the same job answered the call first: its answer stands (delivery is at least once). */
function answeredMeanwhile(e: unknown) {
  if (e instanceof DomainError && e.code === 'invalid_transition') return
  throw e
}
