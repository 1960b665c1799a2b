// Owns a stage gate's required records and their readiness: what the required_records payload holds, how each kind
// is found present, the card ('<N> of <M> required records present'), and keeping it current: the audit hook that
// recomputes the open gates of a program when something in it is written (so a decided record moves the card in the
// same transaction), and stage_readiness_refresh (hourly, open gates only) with the stage_readiness run that writes
// the readiness_brief artifact. Reads are set-based per program, so recomputing a thousand gates is a few queries per
// program, not per gate.
import { z } from 'zod'
import type { AuditEvent, StageGate } from '../../generated/prisma/client'
import { asTx, type AnyTx, type Db } from '../../core/database'
import { lockOpenGates, programsWithOpenGatesAcrossOrganisations } from './sql'
import { publish, publishMany, transactionFor } from '../../core/database'
import { FIXED_PHRASES, requiredRecordsPresent } from '../../core/text'
import { IdInput } from '../../core/text'
import { RECORD_TYPE_KEYS } from '../records'
import { finishRun, startRun } from '../twins'
import { acceptedRequirementSets } from '../documents'
import { notEvidenceLine, skillResultEvidence } from './gate-evidence'

/**
 * What counts as decided per record type: the statuses a person moved the record to by deciding it. Sources have no
 * decision (they are active from the start), so they cannot be required as decided records.
 */
export const DECIDED_STATUSES: Readonly<Partial<Record<(typeof RECORD_TYPE_KEYS)[number], readonly string[]>>> = {
  'evidence.hypotheses': ['supported', 'refuted'],
  'evidence.findings': ['confirmed'],
  'evidence.questions': ['answered', 'closed'],
  'evidence.gaps': ['closed', 'accepted'],
  'plans.experiments': ['completed'],
  'plans.protocols': ['final'],
  'plans.plans': ['approved'],
  'plans.reports': ['final'],
  'progress.milestones': ['done'],
  'progress.dependencies': ['met'],
  'progress.open_items': ['closed'],
  'progress.approvals': ['granted'],
  'review.findings': ['resolved', 'dismissed'],
  'review.deviations': ['closed'],
}
const DECIDABLE = Object.keys(DECIDED_STATUSES) as [string, ...string[]]

/** The kinds of required record (docs/console-developers.md, Stage gates: required_records). */
export const REQUIRED_RECORD_KINDS = ['decided_record', 'requirement_set', 'skill_result', 'critical_milestones'] as const
export type RequiredRecordKind = (typeof REQUIRED_RECORD_KINDS)[number]

/** One requirement as given when a gate is opened (or superseded). */
export const RequirementInput = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('decided_record'),
    /** The record type; with recordId, that record must be decided; without, at least `min` records of the type. */
    recordType: z.enum(DECIDABLE, { error: () => `use a record type with a decision: ${DECIDABLE.join(', ')}` }),
    recordId: IdInput.optional(),
    min: z.number().int().min(1).max(100).optional(),
    label: z.string().trim().min(1).max(200).optional(),
  }).strict(),
  z.object({
    kind: z.literal('requirement_set'),
    /** With requirementSetId, that set must be accepted; without, at least one accepted set in the program. */
    requirementSetId: IdInput.optional(),
    label: z.string().trim().min(1).max(200).optional(),
  }).strict(),
  z.object({
    kind: z.literal('skill_result'),
    /** A skill_result artifact of this skill in the program that is gate evidence (gate-evidence.ts). */
    skillKey: z.string().regex(/^[a-z]+\.[a-z_]+$/, 'a skill key, e.g. tox.fih_dose_projection'),
    label: z.string().trim().min(1).max(200).optional(),
  }).strict(),
  z.object({
    kind: z.literal('critical_milestones'),
    /** Every progress.milestones record tagged with the program's gate_critical_milestone_tag is done (at least one). */
    label: z.string().trim().min(1).max(200).optional(),
  }).strict(),
])
export type Requirement = z.output<typeof RequirementInput>
export const RequirementsInput = z.array(RequirementInput).min(1, 'a gate requires at least one record').max(50)

/** One requirement as stored in required_records, with what was found. */
export type RequirementState = Requirement & {
  key: string
  label: string
  present: boolean
  /** Ids of what satisfies it (records, artifacts), or of the tagged milestones that are not done yet. */
  found: string[]
  /** Why it is missing, in words; null when present. */
  missing: string | null
}

/** The required_records payload: the requirements with their state, and the counts the card reads. */
export interface RequiredRecords {
  items: RequirementState[]
  present: number
  total: number
  computedAt: string
}

export const card = (r: Pick<RequiredRecords, 'present' | 'total'>) => requiredRecordsPresent(r.present, r.total)
export const missingOf = (r: RequiredRecords) => r.items.filter((i) => !i.present).map((i) => `${i.label}: ${i.missing}`)
export const asRequiredRecords = (json: unknown): RequiredRecords => {
  const r = (json ?? {}) as Partial<RequiredRecords>
  return { items: r.items ?? [], present: r.present ?? 0, total: r.total ?? (r.items?.length ?? 0), computedAt: r.computedAt ?? '' }
}

function labelOf(q: Requirement): string {
  if (q.label) return q.label
  if (q.kind === 'decided_record') return q.recordId ? `${q.recordType} record ${q.recordId}` : `${q.min ?? 1} decided ${q.recordType}`
  if (q.kind === 'skill_result') return `skill result ${q.skillKey}`
  if (q.kind === 'requirement_set') return q.requirementSetId ? `requirement set ${q.requirementSetId} accepted` : 'an accepted requirement set'
  return 'gate-critical milestones done'
}

/** Requirements as first stored (nothing found yet); computeReadiness fills them in. */
export function initialRequired(reqs: readonly Requirement[]): RequiredRecords {
  return {
    items: reqs.map((q, i) => ({ ...q, key: `r${i + 1}`, label: labelOf(q), present: false, found: [], missing: 'not checked yet' })),
    present: 0, total: reqs.length, computedAt: new Date(0).toISOString(),
  }
}

type GateRow = Pick<StageGate, 'id' | 'organizationId' | 'programId' | 'requiredRecords'>

/**
 * Readiness of several gates of one program, from three reads (records of the required types, skill results,
 * tagged milestones), whatever the number of gates.
 */
export async function computeReadinessForProgram(anyTx: AnyTx | Db, organizationId: string, programId: string, gates: readonly GateRow[], now = new Date()): Promise<Map<string, RequiredRecords>> {
  const tx = asTx(anyTx as AnyTx)
  const reqs = gates.flatMap((g) => asRequiredRecords(g.requiredRecords).items)
  const types = [...new Set(reqs.flatMap((q) => (q.kind === 'decided_record' ? [q.recordType] : [])))]
  const skills = [...new Set(reqs.flatMap((q) => (q.kind === 'skill_result' ? [q.skillKey] : [])))]
  const wantsMilestones = reqs.some((q) => q.kind === 'critical_milestones')
  const wantsSets = reqs.some((q) => q.kind === 'requirement_set')
  const [records, artifacts, program, sets] = await Promise.all([
    types.length
      ? tx.programRecord.findMany({ where: { organizationId, programId, recordType: { in: types } }, select: { id: true, recordType: true, status: true, fields: true } })
      : Promise.resolve([]),
    // Only results that are gate evidence count (gate-evidence.ts: run by a person, citing records of the program).
    skills.length ? skillResultEvidence(tx, organizationId, programId, skills) : Promise.resolve([]),
    wantsMilestones ? tx.program.findFirst({ where: { id: programId, organizationId }, select: { settings: true } }) : Promise.resolve(null),
    wantsSets ? acceptedRequirementSets(tx, organizationId, programId) : Promise.resolve([]),
  ])
  const milestones = wantsMilestones
    ? await tx.programRecord.findMany({ where: { organizationId, programId, recordType: 'progress.milestones' }, select: { id: true, status: true, fields: true, title: true } })
    : []
  const tag = String((program?.settings as Record<string, unknown> | null)?.gate_critical_milestone_tag ?? '')
  const tagged = milestones.filter((m) => tag && Array.isArray((m.fields as { tags?: unknown })?.tags) && ((m.fields as { tags: unknown[] }).tags).includes(tag))

  const out = new Map<string, RequiredRecords>()
  for (const g of gates) {
    const items = asRequiredRecords(g.requiredRecords).items.map((q): RequirementState => {
      if (q.kind === 'decided_record') {
        const decided = DECIDED_STATUSES[q.recordType as keyof typeof DECIDED_STATUSES] ?? []
        const found = records.filter((r) => r.recordType === q.recordType && decided.includes(r.status) && (!q.recordId || r.id === q.recordId)).map((r) => r.id)
        const need = q.recordId ? 1 : q.min ?? 1
        return { ...q, present: found.length >= need, found, missing: found.length >= need ? null : q.recordId ? `not decided (${decided.join(' or ')})` : `${found.length} of ${need} decided` }
      }
      if (q.kind === 'requirement_set') {
        const found = sets.filter((r) => !q.requirementSetId || r.id === q.requirementSetId).map((r) => r.id)
        return { ...q, present: found.length > 0, found, missing: found.length ? null : q.requirementSetId ? 'not accepted' : 'no accepted requirement set in this program' }
      }
      if (q.kind === 'skill_result') {
        const results = artifacts.filter((a) => a.skillKey === q.skillKey)
        const found = results.filter((a) => a.evidence).map((a) => a.id)
        return { ...q, present: found.length > 0, found, missing: found.length ? null : notEvidenceLine(results) }
      }
      // critical_milestones: nothing tagged is not "all done" (a gate cannot pass on an empty set).
      const notDone = tagged.filter((m) => m.status !== 'done')
      const present = tagged.length > 0 && notDone.length === 0
      return {
        ...q, present, found: present ? tagged.map((m) => m.id) : notDone.map((m) => m.id),
        missing: present ? null : !tag ? 'the program has no gate_critical_milestone_tag' : tagged.length === 0 ? `no milestone is tagged ${tag}` : `${notDone.length} tagged ${tag} not done`,
      }
    })
    const present = items.filter((i) => i.present).length
    out.set(g.id, { items, present, total: items.length, computedAt: now.toISOString() })
  }
  return out
}

export async function computeReadiness(tx: AnyTx | Db, gate: GateRow): Promise<RequiredRecords> {
  return (await computeReadinessForProgram(tx, gate.organizationId, gate.programId, [gate])).get(gate.id)!
}

const sameCounts = (a: RequiredRecords, b: RequiredRecords) =>
  a.present === b.present && a.total === b.total && a.items.every((i, n) => i.present === b.items[n]?.present && i.found.join() === b.items[n]?.found.join() && i.missing === b.items[n]?.missing)

/**
 * Recomputes the open gates of one program in `tx` and stores (and announces) those whose readiness changed.
 * Ready and reviewed gates keep the snapshot taken when they were marked ready; a closed gate never changes.
 */
export async function refreshOpenGates(anyTx: AnyTx, organizationId: string, programId: string, gates?: readonly StageGate[]): Promise<StageGate[]> {
  const tx = asTx(anyTx)
  const open = gates ?? await tx.stageGate.findMany({ where: { organizationId, programId, status: 'open' } })
  if (!open.length) return []
  const computed = await computeReadinessForProgram(tx, organizationId, programId, open)
  const changed: StageGate[] = []
  for (const g of open) {
    const next = computed.get(g.id)!
    if (sameCounts(asRequiredRecords(g.requiredRecords), next)) continue
    // Guarded on status: a gate that moved on meanwhile keeps its snapshot.
    const [row] = await tx.stageGate.updateManyAndReturn({ where: { id: g.id, organizationId, status: 'open' }, data: { requiredRecords: next as object } })
    if (row) changed.push(row)
  }
  await publishMany(tx, 'stage_gate_readiness_changed', changed.map((g) => ({ id: g.id, programId: g.programId, organizationId: g.organizationId })))
  return changed
}

/**
 * The audit hook (installed with the twins hooks in every process that records audit rows): any write in a program
 * that has open gates recomputes them in the same transaction, so the card and the live stream move when a record is
 * decided, committed with the decision. Stage gate actions are skipped (the gate's own writes recompute themselves).
 */
export async function onProgramEventForGates(tx: AnyTx, event: AuditEvent) {
  if (!event.programId || event.action.startsWith('stage_gate.')) return
  await refreshOpenGates(tx, event.organizationId, event.programId)
}

// ---- The stage_readiness run and its readiness_brief ---------------------------------------------------------------

/**
 * Writes a readiness_brief through a stage_readiness run (AGENT_RUN_KINDS, R4): the run is recorded queued, started
 * and finished in `tx`; the brief is agent-generated, labelled 'Agent-generated draft, unsigned.', and lists the card,
 * each requirement with its state and what is missing (ids and labels, no record text).
 */
export async function writeReadinessBrief(anyTx: AnyTx, gate: StageGate, required: RequiredRecords) {
  const tx = asTx(anyTx)
  const run = await tx.agentRun.create({
    data: { organizationId: gate.organizationId, programId: gate.programId, kind: 'stage_readiness', status: 'queued', targetId: gate.id },
  })
  await startRun(tx, run)
  const stage = await tx.programStage.findFirst({ where: { id: gate.stageId, organizationId: gate.organizationId }, select: { name: true } })
  const briefVersion = (gate.briefVersion ?? 0) + 1
  const artifact = await tx.artifact.create({
    data: {
      organizationId: gate.organizationId, programId: gate.programId, runId: run.id, kind: 'readiness_brief', agentGenerated: true, version: briefVersion,
      content: {
        label: FIXED_PHRASES.agentGeneratedDraft,
        heading: `Readiness of the ${stage?.name ?? 'stage'} gate (version ${gate.version})`,
        gate_id: gate.id, gate_version: gate.version, status: gate.status, card: card(required),
        items: required.items.map((i) => ({ key: i.key, kind: i.kind, label: i.label, present: i.present, found: i.found, missing: i.missing })),
        missing: missingOf(required),
        computed_at: required.computedAt,
      },
    },
  })
  await finishRun(tx, run, 'succeeded', { outcome: { gate_id: gate.id, brief_artifact_id: artifact.id, present: required.present, total: required.total } })
  const updated = await tx.stageGate.update({ where: { id: gate.id }, data: { briefArtifactId: artifact.id, briefVersion } })
  await publish(tx, 'stage_gate_readiness_changed', { id: gate.id, programId: gate.programId, organizationId: gate.organizationId })
  return { run, artifact, gate: updated }
}

export interface RefreshReport { gates: number; programs: number; changed: number; briefs: number }

/**
 * stage_readiness_refresh (3600 s): recomputes required_records for open gates only, program by program (one
 * transaction each, rows locked SKIP LOCKED so a gate being marked ready meanwhile is left to that write), and writes
 * a new readiness_brief where readiness changed or no brief exists yet. `gateId` narrows it to one gate (after open).
 */
export async function refreshStageReadiness(db: Db, opts: { gateId?: string } = {}): Promise<RefreshReport> {
  const report: RefreshReport = { gates: 0, programs: 0, changed: 0, briefs: 0 }
  const programs = await programsWithOpenGatesAcrossOrganisations(db, opts.gateId ?? null)
  for (const p of programs) {
    await transactionFor(db, p.organization_id, async (tx) => {
      const ids = await lockOpenGates(tx, p.organization_id, p.program_id, opts.gateId ?? null)
      if (!ids.length) return
      const gates = await tx.stageGate.findMany({ where: { id: { in: ids.map((r) => r.id) }, organizationId: p.organization_id } })
      const changed = new Set((await refreshOpenGates(tx, p.organization_id, p.program_id, gates)).map((g) => g.id))
      const fresh = await tx.stageGate.findMany({ where: { id: { in: ids.map((r) => r.id) }, organizationId: p.organization_id } })
      for (const g of fresh) {
        if (!changed.has(g.id) && g.briefArtifactId) continue
        await writeReadinessBrief(tx, g, asRequiredRecords(g.requiredRecords))
        report.briefs++
      }
      report.gates += ids.length
      report.changed += changed.size
      report.programs++
    }, { timeout: 120_000 })
  }
  return report
}
