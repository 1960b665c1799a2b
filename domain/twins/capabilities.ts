// Owns the seeded twin capabilities (twins document, Tools: "Seeded capabilities (R3): console.twin_literature_watch,
// console.twin_handoff, review.twin_check_triage, each with a context of use, limitations and a risk class"). A
// capability is what a twin is seeded to do, described for the person who enables it and for quality oversight; the
// duty template named by dutyKey is its implementation (subgraphs/twins/harness/duties.ts). review.twin_check_triage is
// implemented by the QA duty template qa_check_triage, whose key stays as it is (twins hold it by that key).
//
// Risk class (ours; the document names no scale): model influence (how much the capability's output weighs in the
// decision, given that a person decides every proposal) against decision consequence (what a wrong decision based on it
// would do), the two factors of FDA's draft guidance on AI used to support regulatory decision-making (January 2025):
// low when both are low, medium when either is medium, high when the consequence is high. No capability is high: a
// twin only proposes.
import { dutyTemplate } from './duty-catalogue'

export const RISK_CLASSES = ['low', 'medium', 'high'] as const
export type RiskClass = (typeof RISK_CLASSES)[number]

export interface SeededCapability {
  key: string
  name: string
  release: 'R3'
  /** The duty template that implements it (the key a twin's duties list holds). */
  dutyKey: string
  contextOfUse: string
  limitations: readonly string[]
  riskClass: RiskClass
  /** Why that class: model influence and decision consequence, in words. */
  riskRationale: string
}

export const SEEDED_CAPABILITIES: readonly SeededCapability[] = Object.freeze([
  {
    key: 'console.twin_literature_watch', name: 'Literature watch', release: 'R3', dutyKey: 'twin_literature_watch',
    contextOfUse: "A program member's twin, on its schedule, searches the open literature for the program's open hypotheses and open questions and proposes one observation finding per topic, citing the literature clusters it found. The person decides each proposal; nothing is written until they do.",
    limitations: [
      'Searches only the literature source the platform connects; it reads titles and metadata, never full text.',
      'Queries are built from at most four words of a record title: it can miss relevant work and find unrelated work.',
      "At most the program's evidence_query_budget searches per turn; topics beyond it wait for the next pass.",
      'Outside text is sanitised, cited and shown as outside text; it is never an instruction and never a claim of the program.',
      'Proposes observations only: it does not interpret, weigh or conclude, and it never approves, signs or sends.',
    ],
    riskClass: 'low',
    riskRationale: 'Model influence low: a person reads every proposed finding with its citations and decides. Decision consequence low: an observation finding informs later decisions and is not itself a decision.',
  },
  {
    key: 'console.twin_handoff', name: 'Hand-off pre-read', release: 'R3', dutyKey: 'twin_handoff',
    contextOfUse: "When a person accepts a hand-off, their twin reads the hand-off's kind, persona and link (never its message or the private thread) and the linked record where its toolset and the person's permissions allow, and proposes a pre-read report citing what it read.",
    limitations: [
      'A hand-off run carries console and plans tools only: a linked record of another kind is named by id and not read.',
      "It never reads the hand-off's message or the thread it came from.",
      'The pre-read summarises; it does not decide what to do with the hand-off (accepting, completing or declining stays with the person).',
    ],
    riskClass: 'low',
    riskRationale: 'Model influence low: the pre-read is a proposed summary report the person decides on. Decision consequence low: a summary report changes no record state.',
  },
  {
    key: 'review.twin_check_triage', name: 'Check triage', release: 'R3', dutyKey: 'qa_check_triage',
    contextOfUse: "A quality reviewer's twin looks for open major or critical review findings that have no deviation record and proposes a deviation for each, classified by the finding's severity (capa_required for critical). The quality reviewer decides the classification and whether the deviation is filed.",
    limitations: [
      "The classification copies the finding's severity: no root cause, impact or scope assessment is made.",
      'An existing deviation is recognised by its title only, so a deviation filed under another title can be proposed again.',
      'Only findings the quality reviewer may read are considered; minor findings are not triaged.',
      'It proposes; it never classifies, approves or closes a deviation on its own.',
    ],
    riskClass: 'medium',
    riskRationale: 'Model influence low: the reviewer decides each proposed deviation. Decision consequence medium: deviations are quality records, and a missed or misclassified deviation has compliance consequences.',
  },
])

/** The personas that may hold a capability: those of its duty template. */
export function capabilityPersonas(c: SeededCapability): string[] {
  return [...(dutyTemplate(c.dutyKey)?.personas ?? [])]
}

export function seededCapability(key: string): SeededCapability | null {
  return SEEDED_CAPABILITIES.find((c) => c.key === key) ?? null
}
