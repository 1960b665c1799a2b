// Owns skill runs for a person: permission, the class A run in the API process or the class B run awaited
// from the worker, and the record: a skill_result artifact (run_id null), a tool_calls row, audit skill_run.start.
import { z } from 'zod'
import { checkReadinessInput } from '../qms'
import type { Db } from '../../core/database'
import { asTx, forOrganization, type AnyTx } from '../../core/database'
import {
  DomainError, InvalidInput, NotFoundError, SkillFailed, SkillTimeout, UnitMismatch, UnitRequired, UnitUnsupported, domainError,
} from '../../core/errors'
import { command, type DomainContext } from '../../core/jobs'
import type { PermissionKey } from '../../core/permissions'
import { env } from '../../core/config'
import { transition } from '../../core/states'
import { toolCallStatus } from '../../core/states'
import { isSkillInputError } from './errors'
import { executeSkill, outputViolations, skillClassOf } from './runner'
import { getSkill, listSkills, skillPermission, MAX_SKILL_RUNS_PER_TURN } from './registry'
import { skillResultJson, type SkillResult } from './result'
import { tableRowsAsInput } from './skill-table-input'

export { MAX_SKILL_RUNS_PER_TURN }

/** How long a person's request waits for a class B run in the worker before answering skill_timeout. */
export const CLASS_B_TIMEOUT_MS = 120_000

const gate = () => ({ r4GatePassed: env().R4_GATE_PASSED })
export const skillCatalogue = () => listSkills(gate())
export const skillByKey = (key: string) => getSkill(key, gate())

export interface SkillRunIn { programId: string; skillKey: string; inputs: unknown; citations?: unknown; toolCall?: TwinToolCall }
/** A twin's run through the tool server: its tool_calls row names the run, the twin and the harness's turn. */
export interface TwinToolCall { runId: string; twinId: string; turn: number }
export type SkillResultOut = SkillResult & { artifact_id: string; created_at: Date }

const twinColumns = (t?: TwinToolCall) => (t ? { runId: t.runId, twinId: t.twinId, turn: t.turn } : {})

function refusal(e: unknown): never {
  if (isSkillInputError(e)) throw new DomainError(e.code, e.message, { field: e.field })
  throw e
}

/** The record of one finished run, written in one transaction with the audit row (also the lint a proposal runs first). */
export async function recordRun(anyTx: AnyTx, ctx: { organizationId: string; programId: string; userId: string }, result: SkillResult, call: { toolCallId: string } | { args: object; twin?: TwinToolCall }) {
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
        arguments: call.args, status: 'ok', ...twinColumns(call.twin), ...data },
    })
  return { artifact, toolCall }
}

/**
 * The write of POST /programs/{program_id}/skill-runs: a class A skill runs here (before the transaction) and its
 * record is written with the audit row; a class B run is recorded, audited and enqueued in one transaction.
 */
const startSkillRun = command({
  input: z.object({
    programId: z.string().uuid('not an id this service gave out'),
    skillKey: z.string().max(200),
    inputs: z.unknown(),
    citations: z.unknown().optional(),
    toolCall: z.object({ runId: z.string().uuid(), twinId: z.string().uuid(), turn: z.number().int().min(0) }).optional(),
  }),
  async load(q, input) {
    const skill = skillByKey(input.skillKey)
    if (!skill) throw InvalidInput.of('skill_key', `No skill ${input.skillKey}; see Query.skills.`)
    const program = await q.program.findFirst({ where: { id: input.programId } })
    if (!program) throw new NotFoundError('Program', { field: 'programId' })
    return { skill, program }
  },
  permission: (_input, { skill }) => skillPermission(skill.key) as PermissionKey,
  program: (_input, { program }) => program.id,
  errors: [UnitRequired, UnitUnsupported, UnitMismatch, SkillFailed, SkillTimeout],
  async prepare(_ctx, input, { skill }): Promise<SkillResult | null> {
    if (skillClassOf(skill.key) !== 'A') return null
    try { return await executeSkill(skill.key, input.inputs as never, (input.citations ?? undefined) as never) } catch (e) { refusal(e) }
  },
  audit: ['skill_run.start'],
  async run(w, input, { skill, program }, result) {
    const who = { organizationId: w.ctx.session.organizationId, programId: program.id, userId: w.ctx.session.userId }
    const args = { inputs: input.inputs ?? null, citations: input.citations ?? null } as object
    if (result) {
      const { artifact, toolCall } = await recordRun(w.tx, who, result, { args, twin: input.toolCall })
      await w.audit('skill_run.start', { type: 'tool_call', id: toolCall.id }, { skill_key: skill.key })
      return { done: { ...result, artifact_id: artifact.id, created_at: artifact.createdAt } as SkillResultOut }
    }
    // Class B: the chemistry library lives in the worker; the caller waits for its answer under CLASS_B_TIMEOUT_MS.
    const row = await w.tx.toolCall.create({
      data: { organizationId: who.organizationId, programId: who.programId, userId: who.userId, tool: skill.key, status: 'running', arguments: args, ...twinColumns(input.toolCall) },
    })
    await w.audit('skill_run.start', { type: 'tool_call', id: row.id }, { skill_key: skill.key })
    await w.enqueue('skill_library_job', { toolCallId: row.id }, { jobKey: `skill_library_job:${row.id}`, maxAttempts: 1 })
    return { queued: row.id }
  },
})

/**
 * qa.check_readiness reads a check's rows: inputs `{ check_id }` become the check (rows met as evidence) and its accepted
 * requirement set with SOP anchors (connectors domain/qms/review.ts); the resolved inputs are what the run records.
 */
async function checkRowsAsInput(ctx: DomainContext, input: SkillRunIn): Promise<SkillRunIn> {
  const ref = input.inputs as { check_id?: unknown } | null
  if (input.skillKey !== 'qa.check_readiness' || !ref || typeof ref !== 'object' || Object.keys(ref).length !== 1 || typeof ref.check_id !== 'string') return input
  return { ...input, inputs: await checkReadinessInput(ctx, ref.check_id) }
}

/**
 * POST /programs/{program_id}/skill-runs. Synchronous for the caller. Runs are allowed while the skill's
 * status is designed: the status is what the catalogue shows, and flipping R4_GATE_PASSED is the release act.
 */
export const runSkillForPerson = Object.assign(async (ctx: DomainContext, input: SkillRunIn): Promise<SkillResultOut> => {
  // Inputs that name the program's records are read first: a check's rows, a notebook table (skill-table-input.ts).
  const started = await startSkillRun(ctx, await checkRowsAsInput(ctx, await tableRowsAsInput(ctx, input)))
  if (started.done) return started.done
  const deadline = Date.now() + CLASS_B_TIMEOUT_MS
  for (;;) {
    const row = await ctx.tdb.toolCall.findFirst({ where: { id: started.queued! } })
    if (row?.status === 'ok' && row.resultArtifactId) {
      const artifact = await ctx.tdb.artifact.findFirstOrThrow({ where: { id: row.resultArtifactId } })
      return { ...(artifact.content as unknown as SkillResult), artifact_id: artifact.id, created_at: artifact.createdAt }
    }
    if (row?.status === 'refused') {
      const [v] = (row.outputViolations as { code: string; field?: string; message: string }[]) ?? []
      throw domainError(v?.code ?? 'invalid_input', v?.message ?? 'The skill refused its inputs.', { field: v?.field })
    }
    if (row?.status === 'failed') throw new SkillFailed('The skill could not complete; nothing was stored. Try again or report it.')
    if (Date.now() > deadline) throw new SkillTimeout(`The skill did not finish within ${CLASS_B_TIMEOUT_MS / 1000} s; nothing was stored.`)
    await new Promise((r) => setTimeout(r, 100))
  }
}, { errors: startSkillRun.errors })

/** skill_library_job: runs one class B skill in the worker and records its result (or refusal). */
export async function runQueuedSkill(db: Db, toolCallId: string, timeoutMs = CLASS_B_TIMEOUT_MS) {
  const call = await toolCallAcrossOrganisations(db, toolCallId)
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
  await forOrganization(db, call.organizationId).$transaction((tx) => recordRun(tx, { organizationId: call.organizationId, programId: call.programId!, userId: call.userId! }, result, { toolCallId }))
    .catch(answeredMeanwhile)
}

/** Another delivery of the same job answered the call first: its answer stands (delivery is at least once). */
/** The queued call a skill_library_job names: its payload carries the id only, so this read learns the organisation. */
function toolCallAcrossOrganisations(db: Db, toolCallId: string) {
  return db.toolCall.findUnique({ where: { id: toolCallId } })
}

function answeredMeanwhile(e: unknown) {
  if (e instanceof DomainError && e.code === 'invalid_transition') return
  throw e
}
