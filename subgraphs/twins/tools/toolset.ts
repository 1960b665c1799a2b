// Owns the effective toolset of a run (memory and workbench roles document: "the intersection of the workbench role's
// toolset, the tools of the run role, and the allow-list computed from the person's live permissions. No workbench role
// widens it"). One function, effectiveToolset, answers it for tools/list and for every call.
import { can, type Session } from '../../../core/identity'
import { READER_RUN_ROLES, isUntrusted, type RunRole, type ToolDefinition } from './tool'
import { TOOLS } from './catalogue'
import { harnessToolset } from '../harness/persona-harnesses'

/**
 * Run roles per run kind. A twin cycle carries every product role (its duty templates read, file and run skills);
 * a hand-off run reads and files plan changes only, never skills. Kinds not listed carry no tool.
 */
export const RUN_KIND_ROLES: Readonly<Record<string, readonly RunRole[]>> = Object.freeze({
  twin_cycle: ['console', 'plans', 'evidence', 'review', 'progress', 'documents'],
  twin_handoff: ['console', 'plans'],
})

/**
 * Reader agents: the run kinds that may read outside content (tool.ts READER_RUN_ROLES). Every other kind (a hand-off
 * run, stage_readiness, every kind without tools) and planning (PLANNING_TOOLS) is a non-reader agent: no untrusted
 * tool is in its toolset. A non-reader kind given a reader run role fails when this module loads.
 */
export const READER_RUN_KINDS: readonly string[] = Object.freeze(['twin_cycle'])
export const isReaderRunKind = (kind: string) => READER_RUN_KINDS.includes(kind)
for (const [kind, roles] of Object.entries(RUN_KIND_ROLES)) {
  const readers = roles.filter((r) => READER_RUN_ROLES.includes(r))
  if (!isReaderRunKind(kind) && readers.length) throw new Error(`run kind ${kind} is a non-reader agent and may not carry the reader run roles ${readers.join(', ')}`)
}

/** The run-role tools of a kind of run; a non-reader kind never carries an untrusted tool. */
export function runRoleTools(runKind: string): ToolDefinition[] {
  const roles = new Set(RUN_KIND_ROLES[runKind] ?? [])
  const reader = isReaderRunKind(runKind)
  return TOOLS.filter((t) => (roles.has(t.runRole) || (roles.size > 0 && t.runRole === 'always')) && (reader || !isUntrusted(t)))
}

/** The allow-list: every tool whose permission the person holds now in the program (re-read for every call). */
export function allowList(session: Session, programId: string): ToolDefinition[] {
  return TOOLS.filter((t) => can(session, t.permission, programId))
}

/** What a run works under: recorded on agent_runs when it started (a running harness never changes inside a run). */
export interface RunHarness { harnessKey?: string | null; workbenchRoleKey?: string | null }

/**
 * The workbench role's toolset of the run: its harness's (the persona harness catalogue). It reads only what the run
 * recorded when it started, never the person's setting now, so picking another role mid-run changes nothing.
 */
export function workbenchRoleToolset(run: RunHarness): (tool: ToolDefinition) => boolean {
  return harnessToolset({ harnessKey: run.harnessKey ?? null, workbenchRoleKey: run.workbenchRoleKey ?? null })
}

/** What a run may call now, in catalogue order: run-role tools ∩ allow-list ∩ the workbench role's toolset. */
export function effectiveToolset(session: Session, run: { kind: string; programId: string } & RunHarness): ToolDefinition[] {
  const allowed = new Set(allowList(session, run.programId).map((t) => t.name))
  const byRole = workbenchRoleToolset(run)
  return runRoleTools(run.kind).filter((t) => allowed.has(t.name) && byRole(t))
}

/**
 * PLANNING_TOOLS (twins document, Tools: console.propose_handoff is 'write (never in PLANNING_TOOLS)'): what drafting a
 * standing plan may call. Reads only: planning looks at the program and the twin, and never files, sends or runs a
 * skill. Computed from the catalogue, so a new write tool can never slip in; planning is a non-reader agent, so no tool
 * returning outside content is in it either.
 */
export const PLANNING_TOOLS: readonly string[] = Object.freeze(TOOLS.filter((t) => t.kind === 'read' && !isUntrusted(t)).map((t) => t.name))
