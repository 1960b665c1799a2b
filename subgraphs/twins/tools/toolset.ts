// Owns the effective toolset of a run: the tools of the run's roles ∩ the allow-list computed from the person's live
// permissions ∩ the workbench role's toolset (a seam: every tool until the workbench-roles issue lands).
import { can, type Session } from '../../../core/session'
import type { RunRole, ToolDefinition } from './tool'
import { TOOLS } from './catalogue'

/**
 * Run roles per run kind. A twin cycle carries every product role (its duty templates read, file and run skills);
 * a hand-off run reads and files plan changes only, never skills. Kinds not listed carry no tool.
 */
export const RUN_KIND_ROLES: Readonly<Record<string, readonly RunRole[]>> = Object.freeze({
  twin_cycle: ['console', 'plans', 'evidence', 'review', 'progress'],
  twin_handoff: ['console', 'plans'],
})

/** The run-role tools of a kind of run. */
export function runRoleTools(runKind: string): ToolDefinition[] {
  const roles = new Set(RUN_KIND_ROLES[runKind] ?? [])
  return TOOLS.filter((t) => roles.has(t.runRole) || (roles.size > 0 && t.runRole === 'always'))
}

/** The allow-list: every tool whose permission the person holds now in the program (re-read for every call). */
export function allowList(session: Session, programId: string): ToolDefinition[] {
  return TOOLS.filter((t) => can(session, t.permission, programId))
}

/**
 * Seam for the workbench role's toolset (memory and workbench roles document: 'No workbench role widens it').
 * Until that issue lands every tool passes; it will return the role's toolset for the person in the program.
 */
export function workbenchRoleToolset(_session: Session, _programId: string): ((tool: ToolDefinition) => boolean) {
  return () => true
}

/** What a run may call now, in catalogue order. */
export function effectiveToolset(session: Session, run: { kind: string; programId: string }): ToolDefinition[] {
  const allowed = new Set(allowList(session, run.programId).map((t) => t.name))
  const byRole = workbenchRoleToolset(session, run.programId)
  return runRoleTools(run.kind).filter((t) => allowed.has(t.name) && byRole(t))
}

/**
 * PLANNING_TOOLS (twins document, Tools: console.propose_handoff is 'write (never in PLANNING_TOOLS)'): what drafting a
 * standing plan may call. Reads only: planning looks at the program and the twin, and never files, sends or runs a
 * skill. Computed from the catalogue, so a new write tool can never slip in.
 */
export const PLANNING_TOOLS: readonly string[] = Object.freeze(TOOLS.filter((t) => t.kind === 'read').map((t) => t.name))
