// Owns which duties a twin may hold: each duty template's key and the personas (and, for role templates, the
// workbench role) that may hold it, as one list read where duties are checked. The templates themselves (what a duty
// reads and files) live with the harness (harness/duties.ts), which takes the QA templates' personas from here, so a
// twin is refused a duty its person cannot hold (duty_unavailable) in every process alike.
import type { ProgramPersona } from '../../core/permissions'
import { RESERVED_DUTY_TEMPLATES, USER_SETTING_WORKBENCH_ROLE } from '../../core/identity'

export interface DutyTemplate {
  key: string
  /** Personas that may hold the duty (any one is enough). */
  personas: readonly ProgramPersona[]
  /** Role templates: the workbench role the person must wear in the program (users.settings.workbench_role). */
  workbenchRole?: string
  description: string
}

const ALL_BUT_VIEWER: readonly ProgramPersona[] = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer', 'manufacturing_specialist']

/** The quality reviewer's templates; owners and leads hold the same review keys. */
export const QA_DUTY_PERSONAS: readonly ProgramPersona[] = ['quality_reviewer', 'program_owner', 'program_lead']

/**
 * Every duty a twin may hold. Persona templates run whether or not the person wears a workbench role; role templates
 * need the role (memory and workbench roles document: sar_refresh for the medicinal chemist, study_gate_check for the
 * DMPK/tox scientist).
 */
export const DUTY_CATALOGUE: readonly DutyTemplate[] = [
  { key: 'blocker_scan', personas: ALL_BUT_VIEWER, description: 'Looks for what blocks the program and proposes how to clear it.' },
  { key: 'pre_read', personas: ALL_BUT_VIEWER, description: 'Prepares what to read before a decision or meeting.' },
  { key: 'sar_refresh', personas: ['scientist', 'program_owner', 'program_lead'], workbenchRole: 'medicinal_chemist', description: 'Runs chem.sar_table_build on new compounds.' },
  { key: 'study_gate_check', personas: ['scientist', 'program_owner', 'program_lead'], workbenchRole: 'dmpk_tox_scientist', description: 'Checks a study against its gate.' },
  // The seeded capability console.twin_literature_watch: those who may search the literature (evidence.literature.search).
  { key: 'twin_literature_watch', personas: ['program_owner', 'program_lead', 'scientist'], description: 'Searches the open literature for open hypotheses and questions and proposes findings citing what it found.' },
  // The seeded capability console.twin_handoff: a hand-off run carries console and plans tools only, and its pre-read
  // is a plans.reports proposal, so those who may file reports (plans.reports.manage) may hold it.
  { key: 'twin_handoff', personas: ['program_owner', 'program_lead', 'scientist'], description: 'On an accepted hand-off: reads it and the linked record it may read, and proposes a pre-read citing them.' },
  // The QA templates (harness/duties.ts implements them).
  { key: 'qa_check_triage', personas: QA_DUTY_PERSONAS, description: 'Open major or critical review findings with no deviation record: proposes one, classified by the finding severity.' },
  { key: 'qa_deviation_followup', personas: QA_DUTY_PERSONAS, description: 'Reported or investigating major/critical deviations without capa_required: proposes setting it.' },
  { key: 'qa_oos_intake', personas: QA_DUTY_PERSONAS, description: 'Evidence findings of kind oos_candidate without a review finding: proposes one (major, check OOS/OOT intake).' },
  { key: 'qa_assertion_audit', personas: QA_DUTY_PERSONAS, description: 'Interpretation findings run through evidence.assertion_lint; uncited interpretations: proposes a minor review finding.' },
]

const duties = new Map(DUTY_CATALOGUE.map((t) => [t.key, t]))

export function dutyTemplate(key: string): DutyTemplate | undefined {
  return duties.get(key)
}

export function dutyKeys(): string[] {
  return [...duties.keys()]
}

/**
 * Why a person holding `personas` (with `settings`) cannot hold duty `key` in `programId`, or null when they can.
 * The twin's own persona is what counts: a twin acts as one persona.
 */
export function dutyRefusal(key: string, persona: string, programId: string | null, settings: unknown): string | null {
  // guidance_watch, stability_pull_reminder and shortage_watch are R5: listed in the catalogue as reserved, never held.
  if (RESERVED_DUTY_TEMPLATES.includes(key)) return `The duty ${key} is reserved for R5.`
  const t = duties.get(key)
  if (!t) return `There is no duty ${key}.`
  if (!(t.personas as readonly string[]).includes(persona)) return `The duty ${key} is not available to the ${persona} persona.`
  if (t.workbenchRole) {
    const roles = ((settings as Record<string, unknown> | null)?.[USER_SETTING_WORKBENCH_ROLE] ?? {}) as Record<string, unknown>
    if (!programId || roles[programId] !== t.workbenchRole) return `The duty ${key} needs the workbench role ${t.workbenchRole} in this program.`
  }
  return null
}
