// Owns what a tool is: its name (<namespace>.<leaf>, checked against the forbidden verbs when defined), kind, run
// role, the permission it exercises, its zod input schema and its handler. The catalogue (catalogue.ts) lists them.
import { z } from 'zod'
import type { AgentRun } from '../../../generated/prisma/client'
import type { DomainContext, Write } from '../../../core/jobs'
import type { AuditAction } from '../../../core/audit'
import type { PermissionKey } from '../../../core/permissions'
import type { TenantDb } from '../../../core/database'
import type { DomainError } from '../../../core/errors'
import { FORBIDDEN_VERBS as SKILL_FORBIDDEN_VERBS } from '../../../domain/skills'

/**
 * 'Your twin never approves, signs or sends.' The skills rule (a leaf containing a forbidden verb as a substring is
 * rejected, so 'sign' inside 'design' fails) applied to every tool name; submit and publish are ways of sending.
 */
export const FORBIDDEN_VERBS = [...SKILL_FORBIDDEN_VERBS, 'submit', 'publish'] as const
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9]*\.[a-z][a-z0-9_]*$/

/** Problems with a tool or skill name; [] when it is acceptable. */
export function toolNameProblems(name: string): string[] {
  const problems: string[] = []
  if (!TOOL_NAME_PATTERN.test(name)) problems.push(`'${name}' does not have the form <namespace>.<leaf>`)
  const leaf = name.slice(name.indexOf('.') + 1).toLowerCase()
  for (const verb of FORBIDDEN_VERBS) if (leaf.includes(verb)) problems.push(`'${leaf}' contains the forbidden verb '${verb}'`)
  return problems
}

/**
 * Run roles: which tools a kind of run carries (the spec's skills name evidence and review; console, plans and
 * progress are the products of this tools). The effective toolset intersects them with the person's live
 * permissions (toolset.ts).
 */
// 'always': the memory document's always-allowed set (memory.recall, memory.propose_note, lens.list_rubrics), carried
// by every run kind that carries tools; the person's permissions still apply.
// 'documents': the mirrored documents (documents.list_assets, documents.read_table_rows; issue 29, item 9).
export const RUN_ROLES = ['console', 'plans', 'evidence', 'review', 'progress', 'documents', 'always'] as const
export type RunRole = (typeof RUN_ROLES)[number]

/**
 * What outside content a tool returns (R4 gate list, container tests: 'untrusted tools absent from non-reader agents'):
 * the literature (evidence.search_literature), the mirrored documents (notebook entries, attachments, SOP versions:
 * documents.*) and QMS text (qa.check_readiness reads requirements extracted from SOP text). Program records are not
 * outside content: members write and decide them (their text still passes the sanitiser on the way out).
 */
export const OUTSIDE_SOURCES = ['literature', 'documents', 'qms'] as const
export type OutsideSource = (typeof OUTSIDE_SOURCES)[number]

/**
 * The run roles that may hold a tool returning outside content: reading is their work (evidence reads the literature
 * and notebook tables, review reads SOP text, documents is the reading itself). console, plans, progress and the
 * always-allowed set never do, so an agent carrying only those (a hand-off run, a planning pass, stage_readiness) is
 * a non-reader agent and holds no untrusted tool, by construction: defineTool refuses an untrusted tool of any other
 * run role, and toolset.ts refuses a non-reader run kind that carries a reader role.
 */
export const READER_RUN_ROLES: readonly RunRole[] = Object.freeze(['evidence', 'review', 'documents'])
export const isUntrusted = (tool: Pick<ToolBase<z.ZodType>, 'outside'>) => tool.outside !== undefined

export type ToolKind = 'read' | 'write' | 'skill'

/** What a handler gets: the twin's domain context (actor: the twin under the person), its run and the call's place. */
export interface ToolCallScope {
  ctx: DomainContext
  run: AgentRun & { programId: string; twinId: string }
  /** The harness's turn number (max_skill_runs_per_turn counts skill calls per run and turn). */
  turn: number
  /** The duty template the harness is running, when it says (part of a proposal's idempotency key). */
  duty: string | null
}

/** A handler's answer; a propose_* tool names the tool_calls row fileProposal wrote (with its basis_hash). */
export interface ToolResult {
  result: Record<string, unknown>; basisHash?: string | null; toolCallId?: string | null
  /** What the handler's own cleaning changed (outside text through the shared sanitiser), reported with the call's. */
  violations?: import('./sanitise').Violation[]
}

/**
 * A per-turn limit of a tool (max_skill_runs_per_turn, the literature queries per turn): the tool server admits a
 * call only by taking the run and turn's counter below the limit (admission.ts), else answers `refusal`.
 */
export interface TurnLimit {
  counter: 'turn_skills' | 'turn_queries'
  /** The limit for this run (a program setting may set it). */
  limit(q: TenantDb, run: ToolCallScope['run']): number | Promise<number>
  /** What the call is refused with once the turn has used its limit. */
  refusal(limit: number): DomainError
}

interface ToolBase<S extends z.ZodType> {
  name: string
  description: string
  runRole: RunRole
  permission: PermissionKey
  input: S
  turnLimit?: TurnLimit
  /** Set when the tool returns outside content (an untrusted tool): only a reader run role may hold it. */
  outside?: OutsideSource
  /** How the tool refuses an argument that reads as an instruction (sanitise.ts); default invalid_input on the field. */
  refuseText?: import('./sanitise').TextRefusal
}

/** Read and write tools run inside the call's transaction (`w`), which also writes the tool_calls row and the audit. */
export interface InCallTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  kind: 'read' | 'write'
  /** Write tools: the record the call concerns; with the run and the duty it is the idempotency key. */
  target?: (args: z.output<S>) => string
  /**
   * Work that waits on the outside (a vendor search), done after the live permission check and before the call's
   * transaction opens, so a slow source holds no connection while calls run at once; its answer is the handler's
   * fourth argument.
   */
  prepare?: (scope: ToolCallScope, args: z.output<S>) => Promise<unknown>
  handler: (scope: ToolCallScope, args: z.output<S>, w: Write<AuditAction>, prepared?: unknown) => Promise<ToolResult>
}

/** Skills run through skill-runs.ts, which writes their tool_calls row (check_logic_version, inputs_hash). */
export interface SkillTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  kind: 'skill'
  skillClass: 'A' | 'B'
  jsonSchema: Record<string, unknown>
}

export type ToolDefinition = InCallTool | SkillTool

/** Declares a tool; a name that breaks the grammar or the forbidden-verb rule never loads. */
export function defineTool<S extends z.ZodType>(def: (Omit<InCallTool<S>, 'kind'> & { kind: 'read' | 'write' }) | SkillTool<S>): ToolDefinition {
  const problems = toolNameProblems(def.name)
  if (problems.length) throw new Error(`tool ${def.name} rejected: ${problems.join('; ')}`)
  if (def.kind === 'write' && !/^propose_/.test(def.name.split('.')[1])) throw new Error(`write tool ${def.name} must be a propose_* tool`)
  if (def.outside && !READER_RUN_ROLES.includes(def.runRole)) throw new Error(`tool ${def.name} returns outside content (${def.outside}) and may not have the non-reader run role ${def.runRole}`)
  if (def.outside && def.kind === 'write') throw new Error(`tool ${def.name} returns outside content and may not write`)
  return def as unknown as ToolDefinition
}

/** The JSON Schema a client sees in tools/list. */
export function toolJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  if (tool.kind === 'skill') return tool.jsonSchema
  const { $schema: _s, ...schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return schema
}
