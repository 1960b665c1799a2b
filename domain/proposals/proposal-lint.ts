// Owns the assertion lint an evidence proposal runs first (twins document, Skills: evidence.assertion_lint "runs before
// every evidence.propose_*"). The lint runs in the proposal's transaction on the text a person will read (the draft and
// the change's body), is recorded like any skill run of the twin (a skill_result artifact, a tool_calls row naming the
// run, the twin and the turn, audit skill_run.start), and its summary is stored with the proposal (the write_approval
// interrupt's question.lint), so the decision card can show which assertions are uncited interpretations.
//
// It does not count against max_skill_runs_per_turn nor budget_tool_calls_month: it is the proposal's precondition,
// not a skill the agent chose to run, and counting it would let three skills of a turn block the turn's filing. The
// propose_* call that runs it is admitted (and counted) once, as before. A lint the agent asks for itself
// (evidence.assertion_lint as a tool) counts as every skill does.
import type { TenantTx } from '../../core/database'
import { recordAudit, type Actor } from '../../core/audit'
import { runSkillSync } from '../skills'
import { recordRun } from '../skills'

export const ASSERTION_LINT = 'evidence.assertion_lint'

/** The tools whose proposals are linted first: every evidence.propose_*. */
export const lintsBeforeFiling = (tool: string) => tool.startsWith('evidence.propose_')

/** One assertion the lint flagged: an interpretation with no citation marker. */
export interface UncitedAssertion { index: number; kind: string; text: string }

/** What a proposal stores of its lint (run_interrupts.question.lint). */
export interface ProposalLint {
  skillKey: typeof ASSERTION_LINT
  checkLogicVersion: number
  assertionModelVersion: string
  sentenceCount: number
  passed: boolean
  uncited: UncitedAssertion[]
  /** The skill_result artifact and the tool_calls row of the run (the full table of assertions is in the artifact). */
  artifactId: string
  toolCallId: string
}

export interface LintScope {
  organizationId: string
  programId: string
  userId: string
  actor: Actor
  /** The twin's run and the harness's turn the propose_* call came in. */
  call: { runId: string; twinId: string; turn: number }
  /** The tool that files the proposal (recorded as the lint's context). */
  tool: string
}

/** The text a person reads as the proposal's statement: the draft, then the body the record would carry. */
export const lintedText = (draft: string, body?: string | null) => [draft, body].filter((t): t is string => !!t && t.trim() !== '').join('\n\n')

/** Runs the lint on `text` in the caller's transaction, records the run, and answers what the proposal stores. */
export async function lintBeforeFiling(tx: TenantTx, scope: LintScope, text: string): Promise<ProposalLint> {
  const inputs = { text, context: scope.tool }
  const result = runSkillSync(ASSERTION_LINT, inputs)
  const { artifact, toolCall } = await recordRun(tx, scope, result, { args: { inputs, citations: null, before: scope.tool }, twin: scope.call })
  await recordAudit(tx, {
    organizationId: scope.organizationId, programId: scope.programId, action: 'skill_run.start', actor: scope.actor,
    target: { type: 'tool_call', id: toolCall.id }, twinId: scope.call.twinId, details: { skill_key: ASSERTION_LINT, before: scope.tool, run_id: scope.call.runId },
  })
  const rows = result.tables.assertions?.rows ?? []
  const uncited = rows.filter((r) => r.flag?.value === 'uncited_interpretation')
    .map((r) => ({ index: Number(r.index.value), kind: String(r.kind.value), text: String(r.text.value) }))
  return {
    skillKey: ASSERTION_LINT,
    checkLogicVersion: result.check_logic_version,
    assertionModelVersion: String(result.outputs.assertion_model_version?.value ?? ''),
    sentenceCount: Number(result.outputs.sentence_count?.value ?? rows.length),
    passed: uncited.length === 0,
    uncited,
    artifactId: artifact.id,
    toolCallId: toolCall.id,
  }
}
