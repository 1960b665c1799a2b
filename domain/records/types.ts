// Owns the catalogue of program record types: for each record type of the workbench role catalogue (spec 001) its
// permission keys, audit actions, GraphQL type name, state machine and typed fields (one descriptor list from which the
// zod validation and the GraphQL fields are both derived). program.handoffs and review.sops belong to later issues.
import { z } from 'zod'
import type { AuditAction } from '../../core/audit'
import type { PermissionKey } from '../../core/permissions'
import type { Machine } from '../../core/states'
import * as states from '../../core/states'
import type { InputIssue } from '../../core/errors'
import { isId } from '../../core/text'

/** A typed field of a record type, stored under its snake_case name in program_records.fields. */
export type FieldKind =
  | { kind: 'text'; max?: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'number'; min?: number }
  | { kind: 'boolean' }
  | { kind: 'date' }
  | { kind: 'url' }
  | { kind: 'tags' }
  /** Another program record of the same program (checked when written). */
  | { kind: 'record'; recordTypes?: readonly RecordTypeKey[] }
  /** A member of the record's program (checked when written). */
  | { kind: 'user' }
  /**
   * A source of the record's program (a connector's object): stored in program_records.source_id, not in fields, so the
   * record keeps its link and names the source system.
   */
  | { kind: 'source'; sourceType?: string }

type UnlabelledField = FieldKind & { name: string; required?: boolean; description: string; max?: number }
export type FieldSpec = UnlabelledField & {
  /** What a screen calls the field (FIELD_LABELS); the unit a number is in, when it has one. */
  label: string; unit?: string
}

export interface RecordTypeSpec {
  key: RecordTypeKey
  /** The GraphQL object type implementing ProgramRecord. */
  graphqlType: string
  /** The prefix of its audit actions. */
  noun: string
  permissions: { read: PermissionKey; manage: PermissionKey; approve?: PermissionKey }
  /** create and update under .manage; decide under .approve where the key exists, else .manage. */
  audit: { create: AuditAction; update: AuditAction; decide: AuditAction }
  machine: Machine
  fields: readonly FieldSpec[]
}

export const RECORD_TYPE_KEYS = [
  'evidence.hypotheses', 'evidence.findings', 'evidence.questions', 'evidence.gaps', 'evidence.sources',
  'plans.experiments', 'plans.protocols', 'plans.plans', 'plans.reports',
  'progress.milestones', 'progress.dependencies', 'progress.open_items', 'progress.approvals',
  'review.findings', 'review.deviations',
] as const
export type RecordTypeKey = (typeof RECORD_TYPE_KEYS)[number]

type Unlabelled = UnlabelledField
const text = (name: string, description: string, extra: { max?: number; required?: boolean } = {}): Unlabelled => ({ kind: 'text', name, description, ...extra } as Unlabelled)
const oneOf = (name: string, values: readonly string[], description: string, required = false): Unlabelled => ({ kind: 'enum', values, name, description, required })
const date = (name: string, description: string, required = false): Unlabelled => ({ kind: 'date', name, description, required })
const user = (name: string, description: string): Unlabelled => ({ kind: 'user', name, description })

/**
 * What a screen calls each field. The specification names the record types but none of their fields' labels (spec 001
 * §Workbench roles lists types only), so these are plain words chosen here (docs/contributors.md, Decisions); '*' holds
 * the labels shared by every type, a type's own entry overrides them.
 */
const FIELD_LABELS: Partial<Record<RecordTypeKey | '*', Record<string, string>>> = {
  '*': {
    rationale: 'Rationale', confidence: 'Confidence', target: 'Target or mechanism', kind: 'Kind of finding', species: 'Species',
    dose_mg_per_kg: 'Dose', summary: 'Summary', owner_user_id: 'Owner', due_on: 'Due', answer: 'Answer', severity: 'Severity',
    area: 'Area', blocks: 'What it blocks', source_id: 'Source', source_kind: 'Kind of source', citation: 'Citation', url: 'Where to read it',
    eln_source_id: 'Notebook entry', objective: 'Objective', planned_start_on: 'Planned start', protocol_kind: 'Kind of protocol',
    glp: 'Under GLP', plan_kind: 'Kind of plan', period_start_on: 'Period starts', period_end_on: 'Period ends', report_kind: 'Kind of report',
    module: 'CTD module or section', tags: 'Tags', from_record_id: 'Record that depends', to_record_id: 'Depends on',
    dependency_kind: 'Kind of dependency', priority: 'Priority', target_record_id: 'Record to approve', approver_user_id: 'Approver',
    sop_reference: 'SOP clause', check: 'Check that raised it', classification: 'Classification', occurred_on: 'Occurred on',
    capa_required: 'Corrective and preventive action required',
  },
  'progress.milestones': { owner_user_id: 'Owner' },
  'evidence.questions': { owner_user_id: 'Who answers it', due_on: 'Answer needed by' },
  'progress.open_items': { owner_user_id: 'Who closes it', due_on: 'Close by' },
  'progress.approvals': { due_on: 'Needed by' },
}

/** A stored value or state key in words: 'oos_candidate' reads 'OOS candidate', 'at_risk' reads 'At risk'. */
export function valueWords(value: string): string {
  const ACRONYMS: Record<string, string> = { oos: 'OOS', ctd: 'CTD', cmc: 'CMC', sop: 'SOP', glp: 'GLP' }
  const words = value.split('_').map((w) => ACRONYMS[w] ?? w).join(' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}
const LEVELS = ['low', 'medium', 'high'] as const
const SEVERITIES = ['minor', 'major', 'critical'] as const

/**
 * Types with an .approve key decide under it (audit <noun>.decision); the others move status under .manage and audit
 * the move as <noun>.update, so a twin's trigger on milestone.update or experiment.update sees every change.
 */
function type(key: RecordTypeKey, graphqlType: string, noun: string, machine: Machine, unlabelled: UnlabelledField[],
  opts: { approve?: PermissionKey; audit?: Partial<RecordTypeSpec['audit']> } = {}): RecordTypeSpec {
  const fields = unlabelled.map((f) => ({ ...f, label: FIELD_LABELS[key]?.[f.name] ?? FIELD_LABELS['*']?.[f.name] ?? f.name, ...(f.kind === 'number' && f.name.endsWith('_mg_per_kg') ? { unit: 'mg/kg' } : {}) }) as FieldSpec)
  const permissions = { read: `${key}.read`, manage: `${key}.manage`, ...(opts.approve ? { approve: opts.approve } : {}) } as RecordTypeSpec['permissions']
  const audit = {
    create: `${noun}.create`, update: `${noun}.update`, decide: opts.approve ? `${noun}.decision` : `${noun}.update`, ...opts.audit,
  } as RecordTypeSpec['audit']
  return { key, graphqlType, noun, permissions, audit, machine, fields }
}

export const RECORD_TYPES: Readonly<Record<RecordTypeKey, RecordTypeSpec>> = {
  'evidence.hypotheses': type('evidence.hypotheses', 'HypothesisRecord', 'hypothesis', states.hypothesisStatus, [
    text('rationale', 'Why the hypothesis is held.'),
    oneOf('confidence', LEVELS, 'low, medium or high'),
    text('target', 'The target or mechanism the hypothesis is about.', { max: 200 }),
  ], { approve: 'evidence.hypotheses.approve' }),
  'evidence.findings': type('evidence.findings', 'EvidenceFindingRecord', 'finding', states.evidenceFindingStatus, [
    oneOf('kind', ['observation', 'result', 'interpretation', 'oos_candidate'], 'What the finding is; oos_candidate is handed off to QA.', true),
    text('species', 'The species the finding was observed in.', { max: 100 }),
    { kind: 'number', min: 0, name: 'dose_mg_per_kg', description: 'The dose the finding refers to, in mg/kg.' },
    text('summary', 'One-paragraph summary.'),
  ]),
  'evidence.questions': type('evidence.questions', 'QuestionRecord', 'question', states.questionStatus, [
    user('owner_user_id', 'Who answers it.'),
    date('due_on', 'When an answer is needed (YYYY-MM-DD).'),
    text('answer', 'The answer, once there is one.'),
  ]),
  'evidence.gaps': type('evidence.gaps', 'GapRecord', 'gap', states.gapStatus, [
    oneOf('severity', LEVELS, 'low, medium or high', true),
    text('area', 'The area of the package the gap is in.', { max: 200 }),
    text('blocks', 'What the gap blocks (a stage, a filing).', { max: 500 }),
  ]),
  'evidence.sources': type('evidence.sources', 'SourceRecord', 'source', states.sourceStatus, [
    { kind: 'source', name: 'source_id', description: "The connector's source this record stands for (a notebook entry, an SOP version), if any." },
    oneOf('source_kind', ['guidance', 'publication', 'notebook_entry', 'sop', 'document', 'other'], 'What the source is.', true),
    text('citation', 'How the source is cited.', { max: 2000 }),
    { kind: 'url', name: 'url', description: 'Where the source can be read.' },
  ]),
  'plans.experiments': type('plans.experiments', 'ExperimentRecord', 'experiment', states.experimentStatus, [
    { kind: 'source', sourceType: 'eln_entry', name: 'eln_source_id', description: 'The notebook entry recording the experiment (experiments.eln_source_id).' },
    text('objective', 'What the experiment is meant to show.'),
    date('planned_start_on', 'When it is planned to start (YYYY-MM-DD).'),
  ]),
  'plans.protocols': type('plans.protocols', 'ProtocolRecord', 'protocol', states.protocolStatus, [
    oneOf('protocol_kind', ['study', 'assay', 'method', 'analysis_plan', 'other'], 'What the protocol governs.', true),
    text('species', 'The species, for a study protocol.', { max: 100 }),
    { kind: 'boolean', name: 'glp', description: 'Whether the study runs under GLP.' },
  ]),
  'plans.plans': type('plans.plans', 'PlanRecord', 'plan', states.planStatus, [
    oneOf('plan_kind', ['development', 'nonclinical', 'clinical', 'cmc', 'regulatory', 'other'], 'What the plan covers.', true),
    date('period_start_on', 'Start of the period planned (YYYY-MM-DD).'),
    date('period_end_on', 'End of the period planned (YYYY-MM-DD).'),
  ], { approve: 'plans.plans.approve' }),
  'plans.reports': type('plans.reports', 'ReportRecord', 'report', states.reportStatus, [
    oneOf('report_kind', ['study_report', 'summary', 'ctd_module', 'other'], 'What the report is.', true),
    text('module', 'The CTD module or section it belongs to.', { max: 100 }),
  ]),
  'progress.milestones': type('progress.milestones', 'MilestoneRecord', 'milestone', states.milestoneStatus, [
    date('due_on', 'When the milestone is due (YYYY-MM-DD).', true),
    { kind: 'tags', name: 'tags', description: "Tags, e.g. the program's gate_critical_milestone_tag." },
    user('owner_user_id', 'Who owns the milestone.'),
  ]),
  'progress.dependencies': type('progress.dependencies', 'DependencyRecord', 'dependency', states.dependencyStatus, [
    { kind: 'record', name: 'from_record_id', required: true, description: 'The record that depends (e.g. a milestone).' },
    { kind: 'record', name: 'to_record_id', required: true, description: 'The record it depends on.' },
    oneOf('dependency_kind', ['finish_to_start', 'start_to_start', 'supply', 'other'], 'How the two depend.'),
  ]),
  'progress.open_items': type('progress.open_items', 'OpenItemRecord', 'open_item', states.openItemStatus, [
    user('owner_user_id', 'Who closes it.'),
    date('due_on', 'When it must be closed (YYYY-MM-DD).'),
    oneOf('priority', LEVELS, 'low, medium or high'),
  ]),
  'progress.approvals': type('progress.approvals', 'ApprovalRecord', 'approval', states.approvalRecordStatus, [
    { kind: 'record', name: 'target_record_id', required: true, description: 'The record whose approval is tracked.' },
    user('approver_user_id', 'Who is asked to approve.'),
    date('due_on', 'When the approval is needed (YYYY-MM-DD).'),
  ]),
  'review.findings': type('review.findings', 'ReviewFindingRecord', 'review_finding', states.reviewFindingStatus, [
    oneOf('severity', SEVERITIES, 'minor, major or critical', true),
    text('sop_reference', 'The SOP clause the finding is against.', { max: 500 }),
    text('check', 'The check that raised it.', { max: 500 }),
  ]),
  'review.deviations': type('review.deviations', 'DeviationRecord', 'deviation', states.deviationStatus, [
    oneOf('classification', SEVERITIES, 'minor, major or critical'),
    date('occurred_on', 'When the deviation occurred (YYYY-MM-DD).'),
    { kind: 'boolean', name: 'capa_required', description: 'Whether a corrective and preventive action is required.' },
  ]),
}

export const isRecordType = (v: unknown): v is RecordTypeKey => typeof v === 'string' && (RECORD_TYPE_KEYS as readonly string[]).includes(v)

/** The key a decision on a record of this type needs. */
export const decidePermission = (t: RecordTypeSpec): PermissionKey => t.permissions.approve ?? t.permissions.manage

/** Every audit action a record write may record. */
export const RECORD_AUDIT_ACTIONS: readonly AuditAction[] = [...new Set(RECORD_TYPE_KEYS.flatMap((k) => Object.values(RECORD_TYPES[k].audit)))]

// ---- field validation ------------------------------------------------------------------------------------------

const DATE = /^\d{4}-\d{2}-\d{2}$/
function validDate(v: string) {
  const d = new Date(`${v}T00:00:00Z`)
  return DATE.test(v) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v)
}

function zodOf(f: FieldSpec): z.ZodType {
  switch (f.kind) {
    case 'text': return z.string().max(f.max ?? 20_000, `at most ${f.max ?? 20_000} characters`)
    case 'enum': return z.string().refine((v) => f.values.includes(v), `use one of ${f.values.join(', ')}`)
    case 'number': return z.number({ error: 'a number is required' }).finite().min(f.min ?? -Infinity, `at least ${f.min}`)
    case 'boolean': return z.boolean({ error: 'true or false' })
    case 'date': return z.string().refine(validDate, 'a date as YYYY-MM-DD')
    case 'url': return z.string().max(2000).refine((v) => /^https?:\/\/\S+$/.test(v), 'an http(s) address')
    case 'tags': return z.array(z.string().trim().min(1).max(100)).max(50, 'at most 50 tags')
    case 'record': case 'user': case 'source': return z.string().refine(isId, 'not an id this service gave out')
  }
}

/**
 * Validates the typed fields of a record type: unknown keys, wrong values and missing required fields each give one
 * issue named `fields.<name>`. null clears an optional field. Returns the fields with nulls removed.
 */
export function validateFields(t: RecordTypeSpec, fields: Record<string, unknown>, prefix = 'fields'): { value: Record<string, unknown>; issues: InputIssue[] } {
  const issues: InputIssue[] = []
  const value: Record<string, unknown> = {}
  const known = new Map(t.fields.map((f) => [f.name, f]))
  for (const key of Object.keys(fields)) {
    if (!known.has(key)) issues.push({ field: `${prefix}.${key}`, message: `not a field of ${t.key}; use ${t.fields.map((f) => f.name).join(', ')}` })
  }
  for (const f of t.fields) {
    const v = fields[f.name]
    if (v === undefined || v === null) {
      if (f.required) issues.push({ field: `${prefix}.${f.name}`, message: 'required' })
      continue
    }
    const r = zodOf(f).safeParse(v)
    if (r.success) value[f.name] = r.data
    else issues.push({ field: `${prefix}.${f.name}`, message: r.error.issues[0]?.message ?? 'not valid' })
  }
  return { value, issues }
}
