// Owns the state sets of program records (program_records.status), one machine per record type. The documents name the
// record types (spec 001, workbench role catalogue) but show no statuses or transitions for them: every row here is a
// decision (the design decisions (docs/contributors.md) 'state transitions not shown'). Types with an .approve key (hypotheses, plans) move by a
// decision under that key; the others by an update under .manage (domain/records).
import { defineMachine, type TransitionSpec } from './state-machine'

const D = 'the specification shows no transition; record types from spec 001 §Workbench roles'
const storage = (type: string) => ({
  model: null,
  column: 'status',
  note: `program_records.status where record_type = '${type}' (text, a CHECK per record type), applied by applyRecordChange as a guarded update`,
})
const t = <S extends string>(from: readonly S[], to: S, by: string): TransitionSpec<S> => ({ from, to, by, basis: 'designed', source: D })

export const hypothesisStatus = defineMachine({
  name: 'program_records.status (evidence.hypotheses)', noun: 'hypothesis',
  states: ['proposed', 'supported', 'refuted', 'withdrawn'], initial: ['proposed'],
  source: 'ours', storage: storage('evidence.hypotheses'),
  transitions: {
    support: t(['proposed', 'refuted'], 'supported', 'decideRecord under evidence.hypotheses.approve (audit hypothesis.decision)'),
    refute: t(['proposed', 'supported'], 'refuted', 'decideRecord under evidence.hypotheses.approve (audit hypothesis.decision)'),
    withdraw: t(['proposed', 'supported', 'refuted'], 'withdrawn', 'decideRecord under evidence.hypotheses.approve (audit hypothesis.decision)'),
  },
})

export const evidenceFindingStatus = defineMachine({
  name: 'program_records.status (evidence.findings)', noun: 'finding',
  states: ['draft', 'confirmed', 'retracted'], initial: ['draft'],
  source: 'ours', storage: storage('evidence.findings'),
  transitions: {
    confirm: t(['draft'], 'confirmed', 'decideRecord under evidence.findings.manage (audit finding.update)'),
    retract: t(['draft', 'confirmed'], 'retracted', 'decideRecord under evidence.findings.manage (audit finding.update)'),
  },
})

export const questionStatus = defineMachine({
  name: 'program_records.status (evidence.questions)', noun: 'question',
  states: ['open', 'answered', 'closed'], initial: ['open'],
  source: 'ours', storage: storage('evidence.questions'),
  transitions: {
    answer: t(['open'], 'answered', 'decideRecord under evidence.questions.manage (audit question.update)'),
    close: t(['open', 'answered'], 'closed', 'decideRecord under evidence.questions.manage (audit question.update)'),
    reopen: t(['answered', 'closed'], 'open', 'decideRecord under evidence.questions.manage (audit question.update)'),
  },
})

export const gapStatus = defineMachine({
  name: 'program_records.status (evidence.gaps)', noun: 'gap',
  states: ['open', 'closed', 'accepted'], initial: ['open'],
  source: 'ours', storage: storage('evidence.gaps'),
  transitions: {
    close: t(['open'], 'closed', 'decideRecord under evidence.gaps.manage: the gap was filled (audit gap.update)'),
    accept: t(['open'], 'accepted', 'decideRecord under evidence.gaps.manage: the gap is accepted as a risk (audit gap.update)'),
    reopen: t(['closed', 'accepted'], 'open', 'decideRecord under evidence.gaps.manage (audit gap.update)'),
  },
})

export const sourceStatus = defineMachine({
  name: 'program_records.status (evidence.sources)', noun: 'source',
  states: ['active', 'retired'], initial: ['active'],
  source: 'ours', storage: storage('evidence.sources'),
  transitions: {
    retire: t(['active'], 'retired', 'decideRecord under evidence.sources.manage: no longer relied on (audit source.update)'),
    restore: t(['retired'], 'active', 'decideRecord under evidence.sources.manage (audit source.update)'),
  },
})

export const experimentStatus = defineMachine({
  name: 'program_records.status (plans.experiments)', noun: 'experiment',
  states: ['planned', 'running', 'completed', 'cancelled'], initial: ['planned'],
  source: 'ours', storage: storage('plans.experiments'),
  transitions: {
    start: t(['planned'], 'running', 'decideRecord under plans.experiments.manage (audit experiment.update)'),
    complete: t(['running'], 'completed', 'decideRecord under plans.experiments.manage (audit experiment.update)'),
    cancel: t(['planned', 'running'], 'cancelled', 'decideRecord under plans.experiments.manage (audit experiment.update)'),
  },
})

export const protocolStatus = defineMachine({
  name: 'program_records.status (plans.protocols)', noun: 'protocol',
  states: ['draft', 'final', 'superseded', 'withdrawn'], initial: ['draft'],
  source: 'ours', storage: storage('plans.protocols'),
  transitions: {
    finalise: t(['draft'], 'final', 'decideRecord under plans.protocols.manage (audit protocol.update)'),
    supersede: t(['final'], 'superseded', 'decideRecord under plans.protocols.manage (audit protocol.update)'),
    withdraw: t(['draft'], 'withdrawn', 'decideRecord under plans.protocols.manage (audit protocol.update)'),
  },
})

export const planStatus = defineMachine({
  name: 'program_records.status (plans.plans)', noun: 'plan',
  states: ['draft', 'approved', 'superseded', 'withdrawn'], initial: ['draft'],
  source: 'ours', storage: storage('plans.plans'),
  transitions: {
    approve: t(['draft'], 'approved', 'decideRecord under plans.plans.approve (audit plan.decision)'),
    supersede: t(['approved'], 'superseded', 'decideRecord under plans.plans.approve (audit plan.decision)'),
    withdraw: t(['draft'], 'withdrawn', 'decideRecord under plans.plans.approve (audit plan.decision)'),
  },
})

export const reportStatus = defineMachine({
  name: 'program_records.status (plans.reports)', noun: 'report',
  states: ['draft', 'final', 'superseded', 'withdrawn'], initial: ['draft'],
  source: 'ours', storage: storage('plans.reports'),
  transitions: {
    finalise: t(['draft'], 'final', 'decideRecord under plans.reports.manage (audit report.update)'),
    supersede: t(['final'], 'superseded', 'decideRecord under plans.reports.manage (audit report.update)'),
    withdraw: t(['draft'], 'withdrawn', 'decideRecord under plans.reports.manage (audit report.update)'),
  },
})

export const milestoneStatus = defineMachine({
  name: 'program_records.status (progress.milestones)', noun: 'milestone',
  states: ['planned', 'at_risk', 'done', 'missed', 'cancelled'], initial: ['planned'],
  source: 'ours', storage: storage('progress.milestones'),
  transitions: {
    flag_at_risk: t(['planned'], 'at_risk', 'decideRecord under progress.milestones.manage (audit milestone.update)'),
    recover: t(['at_risk'], 'planned', 'decideRecord under progress.milestones.manage (audit milestone.update)'),
    complete: t(['planned', 'at_risk'], 'done', 'decideRecord under progress.milestones.manage (audit milestone.update)'),
    miss: t(['planned', 'at_risk'], 'missed', 'decideRecord under progress.milestones.manage (audit milestone.update)'),
    cancel: t(['planned', 'at_risk'], 'cancelled', 'decideRecord under progress.milestones.manage (audit milestone.update)'),
  },
})

export const dependencyStatus = defineMachine({
  name: 'program_records.status (progress.dependencies)', noun: 'dependency',
  states: ['open', 'met', 'broken'], initial: ['open'],
  source: 'ours', storage: storage('progress.dependencies'),
  transitions: {
    meet: t(['open', 'broken'], 'met', 'decideRecord under progress.dependencies.manage (audit dependency.update)'),
    break: t(['open', 'met'], 'broken', 'decideRecord under progress.dependencies.manage (audit dependency.update)'),
  },
})

export const openItemStatus = defineMachine({
  name: 'program_records.status (progress.open_items)', noun: 'open item',
  states: ['open', 'closed'], initial: ['open'],
  source: 'ours', storage: storage('progress.open_items'),
  transitions: {
    close: t(['open'], 'closed', 'decideRecord under progress.open_items.manage (audit open_item.update)'),
    reopen: t(['closed'], 'open', 'decideRecord under progress.open_items.manage (audit open_item.update)'),
  },
})

export const approvalRecordStatus = defineMachine({
  name: 'program_records.status (progress.approvals)', noun: 'approval',
  states: ['requested', 'granted', 'declined', 'withdrawn'], initial: ['requested'],
  source: 'ours', storage: storage('progress.approvals'),
  transitions: {
    grant: t(['requested'], 'granted', 'decideRecord under progress.approvals.manage (audit approval.update)'),
    decline: t(['requested'], 'declined', 'decideRecord under progress.approvals.manage (audit approval.update)'),
    withdraw: t(['requested'], 'withdrawn', 'decideRecord under progress.approvals.manage (audit approval.update)'),
  },
})

export const reviewFindingStatus = defineMachine({
  name: 'program_records.status (review.findings)', noun: 'review finding',
  states: ['open', 'resolved', 'dismissed'], initial: ['open'],
  source: 'ours', storage: storage('review.findings'),
  transitions: {
    resolve: t(['open'], 'resolved', 'decideRecord under review.findings.manage (audit review_finding.update)'),
    dismiss: t(['open'], 'dismissed', 'decideRecord under review.findings.manage (audit review_finding.update)'),
    reopen: t(['resolved', 'dismissed'], 'open', 'decideRecord under review.findings.manage (audit review_finding.update)'),
  },
})

export const deviationStatus = defineMachine({
  name: 'program_records.status (review.deviations)', noun: 'deviation',
  states: ['reported', 'investigating', 'closed'], initial: ['reported'],
  source: 'ours', storage: storage('review.deviations'),
  transitions: {
    investigate: t(['reported'], 'investigating', 'decideRecord under review.deviations.manage (audit deviation.update)'),
    close: t(['reported', 'investigating'], 'closed', 'decideRecord under review.deviations.manage: classified and closed (audit deviation.update)'),
    reopen: t(['closed'], 'investigating', 'decideRecord under review.deviations.manage (audit deviation.update)'),
  },
})

/** Every record machine, in the order of the record types (RECORD_TYPES in domain/records). */
export const RECORD_MACHINES = [
  hypothesisStatus, evidenceFindingStatus, questionStatus, gapStatus, sourceStatus,
  experimentStatus, protocolStatus, planStatus, reportStatus,
  milestoneStatus, dependencyStatus, openItemStatus, approvalRecordStatus,
  reviewFindingStatus, deviationStatus,
] as const
