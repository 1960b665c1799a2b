// Owns the workbench role catalogue of the memory document: fifteen roles over the program personas, and the fallback harness rule.
//
// A workbench role selects what a person sees first (home, rail, toolset, skills, prompt, rubric, memory lenses).
// It never grants a permission: nothing here is read by core/permissions.
import type { ProgramPersona } from '../permissions'
import { itemStatus } from './release'

export const WORKBENCH_ROLE_VERSION = 1
export const EXPECTED_WORKBENCH_ROLE_COUNT = 15

/** Stored per person and program at users.settings.workbench_role[program_id]. */
export const USER_SETTING_WORKBENCH_ROLE = 'workbench_role'

export type WorkbenchRoleKey =
  | 'medicinal_chemist'
  | 'biologist_pharmacologist'
  | 'dmpk_tox_scientist'
  | 'cmc_process_scientist'
  | 'clinical_pharmacologist'
  | 'regulatory_strategist'
  | 'medical_writer'
  | 'qa_reviewer'
  | 'program_manager'
  | 'analytical_qc_scientist'
  | 'formulation_scientist'
  | 'computational_biologist'
  | 'biostatistician'
  | 'ip_analyst'
  | 'portfolio_head'

export type WorkbenchRole = {
  readonly key: WorkbenchRoleKey
  /** The table's Name cell, verbatim. */
  readonly name: string
  readonly personas: readonly ProgramPersona[]
  /** Permission resources <product>.<resource>, in the table's order. */
  readonly record_types: readonly string[]
  /**
   * Which of the role's personas writes each record type. Where the table names a persona per record type
   * (cmc_process_scientist, formulation_scientist) it is respected; otherwise every mapped persona.
   */
  readonly record_type_personas: Readonly<Record<string, readonly ProgramPersona[]>>
  /** Qualifications the table writes beside the record types. */
  readonly record_type_notes: readonly string[]
  /** The table's "Harness at R4" cell, verbatim. */
  readonly harness_at_r4: string
  /** The harness at R4: the role's own prompt, a neutral persona harness, or null for "neutral of the persona held". */
  readonly harness_key: WorkbenchRoleKey | ProgramPersona | null
  readonly release: 'R4' | 'R5'
  readonly skills_release?: 'R5'
  readonly tools_release?: 'R6'
  /** Products promoted on the rail, in the order the record types first name them. */
  readonly rail: readonly string[]
  /** The program manager promotes Setup; everyone else finds it under 'More' by permission. */
  readonly promotes_setup: boolean
  /** Duty templates the role ships at R4 (persona templates run whether or not the role is worn). */
  readonly duty_templates: readonly string[]
  /** Decision scope: what a person wearing the role decides. */
  readonly decides: string
}

type RoleInput = Omit<WorkbenchRole, 'record_type_personas' | 'rail' | 'record_type_notes' | 'promotes_setup' | 'duty_templates'> & {
  readonly record_type_personas?: Readonly<Record<string, readonly ProgramPersona[]>>
  readonly record_type_notes?: readonly string[]
  readonly promotes_setup?: boolean
  readonly duty_templates?: readonly string[]
}

function role(input: RoleInput): WorkbenchRole {
  const record_type_personas: Record<string, readonly ProgramPersona[]> = {}
  for (const t of input.record_types) record_type_personas[t] = input.record_type_personas?.[t] ?? input.personas
  const rail = [...new Set(input.record_types.map((t) => t.slice(0, t.indexOf('.'))))]
  return Object.freeze({
    ...input,
    record_type_personas,
    rail,
    record_type_notes: input.record_type_notes ?? [],
    promotes_setup: input.promotes_setup ?? false,
    duty_templates: input.duty_templates ?? [],
  })
}

const MS = 'manufacturing_specialist' as const
const SCI = 'scientist' as const

export const WORKBENCH_ROLES: readonly WorkbenchRole[] = [
  role({
    key: 'medicinal_chemist',
    name: 'Medicinal chemist',
    personas: [SCI],
    record_types: ['evidence.hypotheses', 'evidence.findings', 'evidence.questions', 'plans.experiments'],
    harness_at_r4: 'own prompt; preview candidate',
    harness_key: 'medicinal_chemist',
    release: 'R4',
    duty_templates: ['sar_refresh'],
    decides: 'compounds to make next, series progression, SAR hypotheses to test',
  }),
  role({
    key: 'biologist_pharmacologist',
    name: 'Biologist / pharmacologist',
    personas: [SCI],
    record_types: ['evidence.questions', 'evidence.findings', 'plans.protocols', 'plans.experiments'],
    harness_at_r4: 'neutral scientist',
    harness_key: 'scientist',
    release: 'R4',
    decides: 'target validation calls, assay readiness, which model answers which question',
  }),
  role({
    key: 'dmpk_tox_scientist',
    name: 'DMPK and toxicology scientist (bioanalytical and safety pharmacology folded in)',
    personas: [SCI],
    record_types: ['evidence.findings', 'evidence.gaps', 'plans.protocols', 'plans.reports'],
    harness_at_r4: 'own prompt; preview candidate',
    harness_key: 'dmpk_tox_scientist',
    release: 'R4',
    duty_templates: ['study_gate_check'],
    decides:
      'dose-range and GLP study proposals, NOAEL interpretation as proposals, species rationale, first-in-human inputs, bioanalytical method suitability',
  }),
  role({
    key: 'cmc_process_scientist',
    name: 'CMC / process scientist',
    personas: [MS, SCI],
    record_types: ['plans.plans', 'progress.milestones', 'progress.dependencies', 'plans.protocols', 'evidence.findings'],
    // "plans.plans (both personas); progress.milestones, progress.dependencies (manufacturing specialist);
    // plans.protocols, evidence.findings (scientist)"
    record_type_personas: {
      'plans.plans': [MS, SCI],
      'progress.milestones': [MS],
      'progress.dependencies': [MS],
      'plans.protocols': [SCI],
      'evidence.findings': [SCI],
    },
    harness_at_r4: 'neutral of the persona held',
    harness_key: null,
    release: 'R4',
    decides: 'route, salt and form, batch strategy, specification proposals, tech transfer, supply',
  }),
  role({
    key: 'clinical_pharmacologist',
    name: 'Clinical pharmacologist / translational lead (pharmacometrics and clinical operations folded in)',
    personas: [SCI],
    record_types: ['evidence.findings', 'evidence.hypotheses', 'plans.protocols', 'plans.reports'],
    harness_at_r4: 'neutral scientist',
    harness_key: 'scientist',
    release: 'R4',
    decides: 'first-in-human dose and escalation rationale, PK/PD plan, phase 1 design inputs',
  }),
  role({
    key: 'regulatory_strategist',
    name: 'Regulatory strategist',
    personas: [SCI],
    record_types: ['evidence.gaps', 'evidence.sources', 'evidence.questions', 'plans.reports'],
    // The scientist persona lacks review.sops.manage, so requirement sets leave as a hand-off.
    record_type_notes: ['requirement sets are a hand-off to qa_reviewer'],
    harness_at_r4: 'neutral scientist',
    harness_key: 'scientist',
    release: 'R4',
    decides: 'claims, agency questions, pre-IND package, governing guidance',
  }),
  role({
    key: 'medical_writer',
    name: 'Medical writer',
    personas: [SCI],
    record_types: ['plans.reports', 'evidence.sources'],
    harness_at_r4: 'neutral scientist',
    harness_key: 'scientist',
    release: 'R4',
    decides: 'module structure, citation completeness, what is missing before filing',
  }),
  role({
    key: 'qa_reviewer',
    name: 'Quality reviewer (QA)',
    personas: ['quality_reviewer'],
    // Checks and requirement sets are both written under review.sops.manage; they are display groupings.
    record_types: ['review.sops', 'review.findings', 'review.deviations'],
    record_type_notes: ['review.sops (checks, requirement sets)'],
    harness_at_r4: 'neutral quality_reviewer',
    harness_key: 'quality_reviewer',
    release: 'R4',
    decides: 'check outcomes, deviation classification, requirement-set acceptance, twin and memory oversight',
  }),
  role({
    key: 'program_manager',
    name: 'Program manager',
    personas: ['program_lead'],
    record_types: [
      'progress.milestones',
      'progress.dependencies',
      'progress.open_items',
      'progress.approvals',
      'plans.plans',
      'program.handoffs',
    ],
    harness_at_r4: 'neutral program_lead',
    harness_key: 'program_lead',
    release: 'R4',
    promotes_setup: true,
    decides: 'plan approvals, open items, milestone changes, hand-off routing',
  }),
  role({
    key: 'analytical_qc_scientist',
    name: 'Analytical / QC scientist',
    personas: [SCI],
    record_types: ['plans.protocols', 'plans.reports', 'evidence.findings'],
    record_type_notes: ['evidence.findings (oos_candidate finding kind; hand-off to QA)'],
    harness_at_r4: 'neutral scientist; skills R5',
    harness_key: 'scientist',
    release: 'R4',
    skills_release: 'R5',
    decides: 'method suitability, specifications, stability design, OOS/OOT candidate classification',
  }),
  role({
    key: 'formulation_scientist',
    name: 'Formulation scientist',
    personas: [SCI, MS],
    record_types: ['plans.protocols', 'plans.experiments', 'evidence.findings', 'progress.dependencies'],
    // "plans.protocols, plans.experiments, evidence.findings; progress.dependencies (manufacturing specialist)"
    record_type_personas: {
      'plans.protocols': [SCI],
      'plans.experiments': [SCI],
      'evidence.findings': [SCI],
      'progress.dependencies': [MS],
    },
    harness_at_r4: 'neutral of the persona held; R5',
    harness_key: null,
    release: 'R5',
    decides: 'tox and first-in-human formulations, excipient compatibility, solubility enhancement, dose-form selection',
  }),
  role({
    key: 'computational_biologist',
    name: 'Computational biologist',
    personas: [SCI],
    record_types: ['evidence.findings', 'evidence.hypotheses', 'evidence.sources'],
    harness_at_r4: 'neutral scientist; R5',
    harness_key: 'scientist',
    release: 'R5',
    decides: 'genetics, expression, structure and pathway calls',
  }),
  role({
    key: 'biostatistician',
    name: 'Biostatistician',
    personas: [SCI],
    record_types: ['plans.protocols', 'plans.reports', 'evidence.findings'],
    harness_at_r4: 'neutral scientist; R5',
    harness_key: 'scientist',
    release: 'R5',
    decides: 'design adequacy, analysis plans, dataset conformance readiness',
  }),
  role({
    key: 'ip_analyst',
    name: 'IP analyst (never legal advice)',
    personas: [SCI],
    record_types: ['evidence.sources', 'evidence.findings', 'evidence.gaps'],
    harness_at_r4: 'neutral scientist; tools R6',
    harness_key: 'scientist',
    release: 'R4',
    tools_release: 'R6',
    decides: 'landscape completeness and which families go to counsel',
  }),
  role({
    key: 'portfolio_head',
    name: 'Portfolio head',
    personas: ['program_owner'],
    record_types: ['progress.approvals'],
    record_type_notes: ['stage gates (R5)'],
    harness_at_r4: 'neutral program_owner; R5',
    harness_key: 'program_owner',
    release: 'R5',
    decides: 'go/no-go chair',
  }),
]

export const WORKBENCH_ROLE_KEYS: readonly WorkbenchRoleKey[] = WORKBENCH_ROLES.map((r) => r.key)

const BY_KEY = new Map<string, WorkbenchRole>(WORKBENCH_ROLES.map((r) => [r.key, r]))

export function workbenchRole(key: string): WorkbenchRole | undefined {
  return BY_KEY.get(key)
}

/** Shown in the picker as suggestions; copy, never stored values. */
export const SUGGESTED_FIRST_CHOICES: readonly WorkbenchRoleKey[] = [
  'qa_reviewer',
  'program_manager',
  'portfolio_head',
  'cmc_process_scientist',
]

/** Neutral persona harness used when no workbench role is set; viewers get none (read-only console). */
export const FALLBACK_HARNESS: Readonly<Record<ProgramPersona, ProgramPersona | null>> = {
  program_owner: 'program_owner',
  program_lead: 'program_lead',
  scientist: 'scientist',
  quality_reviewer: 'quality_reviewer',
  manufacturing_specialist: 'manufacturing_specialist',
  viewer: null,
}

/** With several personas: owner, lead, quality reviewer, manufacturing specialist, scientist (first wins). */
export const FALLBACK_PERSONA_ORDER: readonly ProgramPersona[] = [
  'program_owner',
  'program_lead',
  'quality_reviewer',
  'manufacturing_specialist',
  'scientist',
]

function firstByFallbackOrder(personas: readonly string[]): ProgramPersona | null {
  return FALLBACK_PERSONA_ORDER.find((p) => personas.includes(p)) ?? null
}

/** The neutral persona harness for a person holding these personas in a program, or null (viewer only). */
export function fallbackHarness(personasHeld: readonly string[]): ProgramPersona | null {
  const p = firstByFallbackOrder(personasHeld)
  return p === null ? null : FALLBACK_HARNESS[p]
}

/** A key may be set when the role's persona tuple intersects the person's personas (else workbench_role_not_held). */
export function isWorkbenchRoleHeld(key: string, personasHeld: readonly string[]): boolean {
  const r = BY_KEY.get(key)
  return r !== undefined && r.personas.some((p) => personasHeld.includes(p))
}

export function workbenchRolesAvailableTo(personasHeld: readonly string[]): WorkbenchRole[] {
  return WORKBENCH_ROLES.filter((r) => r.personas.some((p) => personasHeld.includes(p)))
}

/**
 * The harness a run starts with. No role set, or a role the person no longer holds: the neutral persona fallback.
 * "Neutral of the persona held" applies the fallback order to the personas the role and the person share.
 */
export function harnessKeyFor(
  personasHeld: readonly string[],
  workbenchRoleKey: string | null,
): WorkbenchRoleKey | ProgramPersona | null {
  const r = workbenchRoleKey === null ? undefined : BY_KEY.get(workbenchRoleKey)
  if (!r || !isWorkbenchRoleHeld(r.key, personasHeld)) return fallbackHarness(personasHeld)
  if (r.harness_key !== null) return r.harness_key
  return firstByFallbackOrder(r.personas.filter((p) => personasHeld.includes(p)))
}

// ---- status, labels, folded roles, duty templates, persona names ----------------------------------------------

/**
 * A role of the R4 catalogue reads designed until the R4 gate list passes, then preview. The four roles the table
 * marks 'R5' (formulation_scientist, computational_biologist, biostatistician, portfolio_head) carry release R5: they
 * stay pickable under the neutral harness the table names (the gate list counts fifteen roles), but they read
 * designed until R5 ships, never preview with the R4 roles.
 */
export function workbenchRoleStatus(
  roleRelease: 'R4' | 'R5' = 'R4',
  flags: Parameters<typeof itemStatus>[1] = {},
): 'designed' | 'preview' {
  return (itemStatus(roleRelease, flags) ?? 'designed') as 'designed' | 'preview'
}

/** The key of a role's label map (the record subtitle and rail labels; their texts are not shown in the document). */
export const labelMapKey = (key: WorkbenchRoleKey) => `role_labels/${key}`

/** Roles folded into a catalogue key: never keys of their own. */
export const FOLDED_ROLES: Readonly<Record<string, WorkbenchRoleKey>> = {
  'bioanalytical scientist': 'dmpk_tox_scientist',
  'safety pharmacologist': 'dmpk_tox_scientist',
  pharmacometrician: 'clinical_pharmacologist',
  'clinical operations': 'clinical_pharmacologist',
}

/** Roadmap, not keys. */
export const ROADMAP_NOT_KEYS: readonly string[] = ['clinical operations lead', 'pharmacovigilance physician', 'data manager', 'alliance / BD']

export type RoleDutyTemplate = { key: string; role: WorkbenchRoleKey; release: 'R4' | 'R5'; reserved: boolean }

/**
 * Duty templates that belong to a workbench role. R4 ships sar_refresh and study_gate_check; the three R5 templates are
 * reserved (listed, never run: no harness implements them and no twin may hold them). Which role each R5 template
 * belongs to is the project's reading of its name (the document names the templates only).
 */
export const ROLE_DUTY_TEMPLATES: readonly RoleDutyTemplate[] = [
  { key: 'sar_refresh', role: 'medicinal_chemist', release: 'R4', reserved: false },
  { key: 'study_gate_check', role: 'dmpk_tox_scientist', release: 'R4', reserved: false },
  { key: 'guidance_watch', role: 'regulatory_strategist', release: 'R5', reserved: true },
  { key: 'stability_pull_reminder', role: 'analytical_qc_scientist', release: 'R5', reserved: true },
  { key: 'shortage_watch', role: 'cmc_process_scientist', release: 'R5', reserved: true },
]
export const RESERVED_DUTY_TEMPLATES: readonly string[] = ROLE_DUTY_TEMPLATES.filter((d) => d.reserved).map((d) => d.key)

/** Persona templates: they run whether or not the person wears a workbench role. */
export const PERSONA_DUTY_TEMPLATES: readonly string[] = ['blocker_scan', 'pre_read']

/** Persona names as a footer writes them ('working as <persona name>'). */
export const PERSONA_NAMES: Readonly<Record<ProgramPersona, string>> = {
  program_owner: 'Program owner',
  program_lead: 'Program lead',
  scientist: 'Scientist',
  quality_reviewer: 'Quality reviewer',
  manufacturing_specialist: 'Manufacturing specialist',
  viewer: 'Viewer',
}

/** The five neutral persona harnesses (the viewer has none: read-only console). */
export const NEUTRAL_PERSONA_HARNESSES: readonly ProgramPersona[] = ['scientist', 'quality_reviewer', 'program_lead', 'program_owner', 'manufacturing_specialist']

/** WorkbenchRoleOut (memory document, Workbench DTOs). */
export interface WorkbenchRoleOut {
  key: WorkbenchRoleKey
  name: string
  personas: readonly ProgramPersona[]
  record_types: readonly string[]
  rail: readonly string[]
  harness_key: string | null
  /** The release the role is designed for: R5 roles read designed while the deployment is R4. */
  release: 'R4' | 'R5'
  status: 'designed' | 'preview'
  label_map_key: string
  version: number
}

export function workbenchRoleOut(r: WorkbenchRole): WorkbenchRoleOut {
  return {
    key: r.key, name: r.name, personas: r.personas, record_types: r.record_types, rail: r.rail, harness_key: r.harness_key,
    release: r.release, status: workbenchRoleStatus(r.release), label_map_key: labelMapKey(r.key), version: WORKBENCH_ROLE_VERSION,
  }
}

/**
 * What a run or a home works under: the workbench role worn (null under the fallback) and the harness it selects.
 * `workingAs` is what a proposal footer names: the workbench role's name, or under the neutral persona harness of the
 * fallback the persona's name (null for a viewer, who has no harness).
 */
export interface WornRole {
  workbenchRoleKey: WorkbenchRoleKey | null
  harnessKey: WorkbenchRoleKey | ProgramPersona | null
  fallback: boolean
  workingAs: string | null
}

/** Resolves the worn role from the stored key (which may be stale: a persona removed since) and the personas held. */
export function wornRole(personasHeld: readonly string[], storedKey: string | null | undefined): WornRole {
  const r = storedKey ? BY_KEY.get(storedKey) : undefined
  if (r && isWorkbenchRoleHeld(r.key, personasHeld)) {
    return { workbenchRoleKey: r.key, harnessKey: harnessKeyFor(personasHeld, r.key), fallback: false, workingAs: r.name }
  }
  const harness = fallbackHarness(personasHeld)
  return { workbenchRoleKey: null, harnessKey: harness, fallback: true, workingAs: harness ? PERSONA_NAMES[harness] : null }
}
