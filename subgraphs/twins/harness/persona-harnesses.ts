// Owns the persona harness catalogue (memory and workbench roles document): one harness per workbench role plus the
// five neutral persona harnesses, the R4 gate's 'harnesses 20'. A harness here is what a run works under (its prompt
// and its toolset), not the executor that drives the run (harness/registry.ts lists those).
//
// A workbench role's toolset only ever narrows: the effective toolset of a run is the intersection of the harness's
// toolset, the run role's tools and the allow-list from the person's live permissions (tools/toolset.ts).
import {
  NEUTRAL_PERSONA_HARNESSES, PERSONA_NAMES, WORKBENCH_ROLES, workbenchRole, type WorkbenchRole, type WorkbenchRoleKey,
} from '../../../core/identity'
import type { ProgramPersona } from '../../../core/permissions'
import { SKILL_DEFINITIONS } from '../../../domain/skills'
import type { ToolDefinition } from '../tools/tool'

/** memory.recall, memory.propose_note and lens.list_rubrics: in every harness's toolset (no workbench role removes them). */
export const ALWAYS_ALLOWED_TOOLS = ['memory.recall', 'memory.propose_note', 'lens.list_rubrics'] as const
/** memory.propose_promotion exists as a specification only and is in no harness toolset. */
export const NEVER_IN_A_TOOLSET = ['memory.propose_promotion'] as const

export const EXPECTED_HARNESS_COUNT = 20

export interface PersonaHarness {
  key: WorkbenchRoleKey | ProgramPersona
  kind: 'workbench_role' | 'persona'
  /** The prompt it runs: the role's own (medicinal chemist, DMPK/tox at R4) or the neutral prompt of a persona; null
   *  for "neutral of the persona held" (the persona is chosen per person by the fallback order). */
  prompt: 'own' | ProgramPersona | null
  /** What a proposal footer says the twin was working as. */
  workingAs: string
  /** The table's "Harness at R4" cell for a role; 'neutral' for a persona harness. */
  atR4: string
  /** Whether a tool is in this harness's toolset. */
  includes(tool: ToolDefinition): boolean
}

const always = new Set<string>(ALWAYS_ALLOWED_TOOLS)
const never = new Set<string>(NEVER_IN_A_TOOLSET)
/** The record type (<product>.<resource>) a propose tool writes, from its .manage permission. */
const writesType = (tool: ToolDefinition) => tool.permission.replace(/\.manage$/, '')
const skillRole = new Map(SKILL_DEFINITIONS.map((d) => [d.key, d.workbench_role]))

/**
 * A workbench role's toolset: the console and the always-allowed tools; every read (what the rail does not promote
 * stays under 'All records', never hidden); proposals only for the role's record types; skills the role owns (the
 * skills table's workbench_role) or that every role has ('all'), none of its own before their release.
 */
function roleToolset(role: WorkbenchRole) {
  const types = new Set(role.record_types)
  return (tool: ToolDefinition): boolean => {
    if (never.has(tool.name)) return false
    if (always.has(tool.name) || tool.runRole === 'console') return true
    if (tool.kind === 'read') return true
    if (tool.kind === 'write') return types.has(writesType(tool))
    const owner = skillRole.get(tool.name)
    if (owner === 'all') return true
    return owner === role.key && !role.skills_release && !role.tools_release
  }
}

/** A neutral persona harness narrows nothing: the person's persona bundle (the allow-list) decides. */
const neutralToolset = (tool: ToolDefinition) => !never.has(tool.name)

export const PERSONA_HARNESSES: readonly PersonaHarness[] = Object.freeze([
  ...WORKBENCH_ROLES.map((r): PersonaHarness => ({
    key: r.key,
    kind: 'workbench_role',
    prompt: r.harness_key === r.key ? 'own' : (r.harness_key as ProgramPersona | null),
    workingAs: r.name,
    atR4: r.harness_at_r4,
    includes: roleToolset(r),
  })),
  ...NEUTRAL_PERSONA_HARNESSES.map((p): PersonaHarness => ({
    key: p, kind: 'persona', prompt: p, workingAs: PERSONA_NAMES[p], atR4: 'neutral', includes: neutralToolset,
  })),
])
if (PERSONA_HARNESSES.length !== EXPECTED_HARNESS_COUNT) throw new Error(`the persona harness catalogue holds ${PERSONA_HARNESSES.length}, not ${EXPECTED_HARNESS_COUNT}`)

const BY_KEY = new Map<string, PersonaHarness>()
for (const h of PERSONA_HARNESSES) {
  // Role keys never equal persona keys (catalogue rule), so one map holds both kinds.
  if (BY_KEY.has(h.key)) throw new Error(`two persona harnesses share the key ${h.key}`)
  BY_KEY.set(h.key, h)
}

export function personaHarness(key: string): PersonaHarness | undefined {
  return BY_KEY.get(key)
}

/**
 * The toolset predicate of what a run works under: the workbench role's harness when one is worn, else the neutral
 * persona harness of the fallback; a run with neither (a viewer, or a run from before harnesses were recorded) is
 * not narrowed here (the allow-list still applies: a viewer holds no twin).
 */
export function harnessToolset(worn: { workbenchRoleKey: string | null; harnessKey: string | null }): (tool: ToolDefinition) => boolean {
  const role = worn.workbenchRoleKey ? workbenchRole(worn.workbenchRoleKey) : undefined
  const h = role ? BY_KEY.get(role.key) : worn.harnessKey ? BY_KEY.get(worn.harnessKey) : undefined
  return h ? h.includes : neutralToolset
}
