// qa.check_readiness (class A, run role review): for a check and its accepted requirement set, lists
// the requirements met and not met, each with its SOP anchor (document number, version, section).
// Replaces the container-local SOP binding.
//
// Decisions (reference sop_binding_rule):
// - Only effective SOP versions bind checks. A requirement anchored on a version whose
//   lifecycle_state is not 'effective' (draft, in_review, superseded, obsolete, unmapped) is
//   refused with invalid_input on that anchor's lifecycle_state: a readiness verdict against a
//   non-binding SOP would look valid while it is not; the requirement set must be re-accepted
//   against the effective version.
// - The requirement set must be accepted (accepted: true); otherwise invalid_input.
// - A requirement is met when at least min_evidence (default 1) evidence items linked to it are
//   present; when it lists accepted evidence kinds, only items of those kinds count.
// - The check's requirement_ids (default: all requirements of the set) must exist in the set.
//   Evidence items linked to requirements outside that list are reported as unused (warning).

import { z } from 'zod'
import { SkillInputError } from './errors'
import { SOP_BINDING_RULE, SOP_LIFECYCLE_STATES } from './references'
import { citationSchema } from './schema'
import type { SkillModule } from './skill'
import { boolValue, col, countValue, iv, textValue, type IntermediateValue, type SkillCitation, type SkillTable, type SkillValue } from './result'

const input = z.strictObject({
  check: z.strictObject({
    id: z.string().min(1).max(200),
    title: z.string().max(500).optional(),
    requirement_ids: z.array(z.string().min(1)).max(500).optional().describe('requirements the check must satisfy; default: all of the set'),
    evidence: z
      .array(
        z.strictObject({
          requirement_id: z.string().min(1),
          kind: z.string().min(1).max(100).optional().describe('e.g. record, signature, attachment, calibration_certificate'),
          ref: citationSchema.describe('the record that is the evidence'),
          note: z.string().max(1000).optional(),
        }),
      )
      .max(5000),
  }),
  requirement_set: z.strictObject({
    id: z.string().min(1).max(200),
    version: z.string().min(1).max(50),
    accepted: z.boolean(),
    accepted_by: z.string().max(200).optional(),
    accepted_on: z.string().max(40).optional(),
    requirements: z
      .array(
        z.strictObject({
          id: z.string().min(1).max(200),
          text: z.string().min(1).max(2000),
          sop: z.strictObject({
            document_number: z.string().min(1).max(100),
            version: z.string().min(1).max(50),
            section: z.string().min(1).max(100),
            lifecycle_state: z.enum(SOP_LIFECYCLE_STATES),
          }),
          evidence_kinds: z.array(z.string().min(1)).max(50).optional(),
          min_evidence: z.number().int().min(1).max(100).default(1),
        }),
      )
      .min(1)
      .max(500),
  }),
})
export type CheckReadinessInput = z.output<typeof input>

export function sopAnchor(sop: { document_number: string; version: string; section: string }): string {
  return `${sop.document_number} v${sop.version} §${sop.section}`
}

function compute(inp: CheckReadinessInput) {
  const ivs: IntermediateValue[] = []
  const warnings: string[] = []
  const citations: SkillCitation[] = []
  const set = inp.requirement_set

  if (!set.accepted) throw new SkillInputError('invalid_input', 'requirement_set.accepted', `requirement set ${set.id} v${set.version} is not accepted; only an accepted requirement set binds a check`)
  const byId = new Map<string, number>()
  set.requirements.forEach((r, i) => {
    if (byId.has(r.id)) throw new SkillInputError('invalid_input', `requirement_set.requirements[${i}].id`, `requirement id '${r.id}' repeats requirements[${byId.get(r.id)}]`)
    byId.set(r.id, i)
    if (!SOP_BINDING_RULE.binding_lifecycle_states.includes(r.sop.lifecycle_state))
      throw new SkillInputError(
        'invalid_input',
        `requirement_set.requirements[${i}].sop.lifecycle_state`,
        `requirement '${r.id}' is anchored on ${sopAnchor(r.sop)}, which is ${r.sop.lifecycle_state}; only effective SOP versions bind checks: re-accept the requirement set against the effective version`,
      )
  })

  const required = inp.check.requirement_ids ?? set.requirements.map((r) => r.id)
  const seenReq = new Set<string>()
  required.forEach((id, i) => {
    if (!byId.has(id)) throw new SkillInputError('invalid_input', `check.requirement_ids[${i}]`, `requirement '${id}' is not in requirement set ${set.id} v${set.version}`)
    if (seenReq.has(id)) throw new SkillInputError('invalid_input', `check.requirement_ids[${i}]`, `requirement '${id}' is listed twice`)
    seenReq.add(id)
  })

  const evidenceFor = new Map<string, Array<{ index: number; kind: string | null; ref: string }>>()
  const unused: number[] = []
  inp.check.evidence.forEach((e, j) => {
    if (!seenReq.has(e.requirement_id)) {
      unused.push(j)
      return
    }
    const a = evidenceFor.get(e.requirement_id) ?? []
    a.push({ index: j, kind: e.kind ?? null, ref: e.ref })
    evidenceFor.set(e.requirement_id, a)
    citations.push({ ref: e.ref, field: `check.evidence[${j}].ref` })
  })
  if (unused.length) warnings.push(`${unused.length} evidence item(s) link to requirements outside this check and were not used: check.evidence[${unused.join('], check.evidence[')}].`)

  const rows: SkillTable['rows'] = []
  let met = 0
  const notMetIds: string[] = []
  for (const id of required) {
    const r = set.requirements[byId.get(id)!]
    const items = evidenceFor.get(id) ?? []
    const kinds = r.evidence_kinds ?? null
    const counted = kinds ? items.filter((x) => x.kind !== null && kinds.includes(x.kind)) : items
    const isMet = counted.length >= r.min_evidence
    let reason: string
    if (isMet) reason = `${counted.length} of ${r.min_evidence} required evidence item(s) present`
    else if (items.length > counted.length) reason = `${counted.length} of ${r.min_evidence} counted; ${items.length - counted.length} item(s) of another kind (accepted: ${kinds!.join(', ')})`
    else reason = `${counted.length} of ${r.min_evidence} required evidence item(s) present`
    if (isMet) met++
    else notMetIds.push(id)
    ivs.push(iv(`${id}.evidence_counted`, counted.length, undefined, `min ${r.min_evidence}${kinds ? `, kinds ${kinds.join('/')}` : ''}`))
    rows.push({
      requirement_id: { value: id },
      requirement: { value: r.text },
      sop_anchor: { value: sopAnchor(r.sop) },
      sop_lifecycle_state: { value: r.sop.lifecycle_state },
      status: { value: isMet ? 'met' : 'not_met', display: isMet ? 'Met' : 'Not met' },
      evidence_counted: { value: counted.length },
      evidence_required: { value: r.min_evidence },
      evidence_refs: { value: counted.map((c) => c.ref).join('; ') },
      reason: { value: reason },
    })
  }
  const notMet = required.length - met
  const outputs: Record<string, SkillValue> = {
    check_id: textValue(inp.check.id),
    requirement_set: textValue(`${set.id} v${set.version}`),
    requirements_total: countValue(required.length),
    requirements_met: countValue(met),
    requirements_not_met: countValue(notMet),
    not_met_ids: textValue(notMetIds.join(',')),
    ready: boolValue(notMet === 0),
    summary: textValue(`${met} of ${required.length} requirements met`),
  }
  return {
    outputs,
    citations,
    warnings,
    tables: {
      readiness: {
        title: `Readiness of check ${inp.check.id} against ${set.id} v${set.version}`,
        columns: [
          col('requirement_id', 'Requirement'),
          col('requirement', 'Text'),
          col('sop_anchor', 'SOP anchor'),
          col('sop_lifecycle_state', 'SOP state'),
          col('status', 'Status'),
          col('evidence_counted', 'Evidence counted'),
          col('evidence_required', 'Evidence required'),
          col('evidence_refs', 'Evidence'),
          col('reason', 'Reason'),
        ],
        rows,
      },
    },
    how_computed: {
      intermediate_values: ivs,
      rules_applied: [
        `${SOP_BINDING_RULE.rule} Anchors on another lifecycle state are refused (invalid_input): ${SOP_BINDING_RULE.on_non_binding_anchor}.`,
        'Only an accepted requirement set binds a check.',
        SOP_BINDING_RULE.requirement_met_rule,
        'The check must satisfy its requirement_ids, or every requirement of the set when none are listed.',
        `SOP anchor format: ${SOP_BINDING_RULE.anchor_format}.`,
        'Ready when every required requirement is met.',
      ],
    },
  }
}

export const checkReadiness: SkillModule<typeof input> = {
  key: 'qa.check_readiness',
  name: 'Check readiness against the accepted requirement set',
  product: 'review',
  run_role: 'review',
  workbench_role: 'qa_reviewer',
  skill_class: 'A',
  check_logic_version: 1,
  release: 'R4',
  input,
  output_fields: ['check_id', 'requirement_set', 'requirements_total', 'requirements_met', 'requirements_not_met', 'not_met_ids', 'ready', 'summary'],
  required_citations: ['check.evidence[*].ref'],
  reference_keys: ['sop_binding_rule'],
  primary_reference: 'sop_binding_rule',
  method_name: 'Check readiness',
  compute,
}
