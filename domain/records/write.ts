// Owns the one write path of program records: create, update and decide, each a command (core/jobs/command.ts) that checks
// the type's key live in the record's program, locks the row, validates typed fields, references and citations, bumps
// the version, writes the version snapshot with its provenance, the citations, one typed audit row, and announces the
// change. applyRecordChange is the contract the decisions helper (twins subgraph) applies an approved proposal through,
// inside its own write, as the deciding person.
import { z } from 'zod'
import { personText } from '../../core/text'
import type { AuditAction } from '../../core/audit'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { forbidden, InvalidInput, InvalidTransition, NotFoundError, parseInput, type InputIssue } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import { can } from '../../core/identity'
import { invalidTransition } from '../../core/states'
import type { Prisma, ProgramRecord } from '../../generated/prisma/client'
import { getProgram } from '../programs'
import { lockRecordRow } from './sql'
import { CitationsSchema, resolveCitations, type CitationInput, type ResolvedCitation } from './citations'
import {
  decidePermission, isRecordType, RECORD_AUDIT_ACTIONS, RECORD_TYPE_KEYS, RECORD_TYPES, validateFields,
  type RecordTypeKey, type RecordTypeSpec,
} from './types'

/** A change to a program record: what a mutation asks for and what an approved proposal applies. */
export type RecordChange =
  | { kind: 'create'; programId: string; recordType: RecordTypeKey; title: string; body?: string; fields?: Record<string, unknown>; citations?: CitationInput[] }
  | { kind: 'update'; recordId: string; title?: string; body?: string; fields?: Record<string, unknown>; citations?: CitationInput[] }
  | { kind: 'decide'; recordId: string; outcome: string; note?: string }

/** Where a change came from when it was proposed: kept on the version it makes (the record footer reads it). */
export interface Provenance {
  proposalId?: string; proposedByUserId: string; proposedByTwinId?: string | null; runId?: string | null
  /** What the twin's run worked as when it filed (the proposal's proposer.workingAs): the record footer names it. */
  workingAs?: string | null
  /** The decider's note on an approval with edits ('What you changed and why'), kept on the version it makes. */
  note?: string | null
}

const ProvenanceSchema = z.object({
  proposalId: IdInput.optional(),
  proposedByUserId: IdInput,
  proposedByTwinId: IdInput.nullish(),
  runId: IdInput.nullish(),
  workingAs: z.string().max(200).nullish(),
  note: personText(2000).nullish(),
})
// A person's words are kept exactly (never trimmed or rewritten): a blank title is refused, any other is stored as given.
const Title = personText(300, 'a title is required')
const Body = z.string().max(100_000, 'at most 100000 characters')
const Fields = z.record(z.string(), z.unknown(), { error: 'an object of typed fields' })

const fieldIssues = (spec: RecordTypeSpec, fields: Record<string, unknown>, ctx: z.RefinementCtx, partial = false) => {
  const { issues } = validateFields(spec, fields)
  for (const i of issues) {
    // An update names only what changes: a required field it does not name keeps its value (checked again merged).
    if (partial && i.message === 'required' && !(i.field!.slice('fields.'.length) in fields)) continue
    ctx.addIssue({ code: 'custom', path: i.field!.split('.'), message: i.message })
  }
}

export const CreateInput = z.object({
  programId: IdInput,
  recordType: z.string().refine(isRecordType, `use one of ${RECORD_TYPE_KEYS.join(', ')}`),
  title: Title,
  body: Body.optional(),
  fields: Fields.optional(),
  citations: CitationsSchema.optional(),
  provenance: ProvenanceSchema.optional(),
}).superRefine((v, ctx) => { if (isRecordType(v.recordType)) fieldIssues(RECORD_TYPES[v.recordType], v.fields ?? {}, ctx) })

export const UpdateInput = z.object({
  id: IdInput,
  title: Title.optional(),
  body: Body.optional(),
  fields: Fields.optional(),
  citations: CitationsSchema.optional(),
  provenance: ProvenanceSchema.optional(),
}).refine((v) => v.title !== undefined || v.body !== undefined || v.fields !== undefined || v.citations !== undefined,
  { message: 'give at least one of title, body, fields or citations', path: ['fields'] })

export const DecideInput = z.object({
  id: IdInput,
  outcome: z.string().min(1, 'required').max(64),
  note: personText(2000).optional(),
  provenance: ProvenanceSchema.optional(),
})

/**
 * Validates a change without writing: shapes, and the typed fields of a create (or of an update when the record type
 * is given). Throws InvalidInput whose issues name the field (e.g. 'fields.dose_mg_per_kg', 'citations.0.ref').
 */
export function parseRecordChange(raw: unknown, recordType?: RecordTypeKey): RecordChange {
  const kind = (raw as { kind?: unknown } | null)?.kind
  if (kind === 'create') {
    const v = parseInput(CreateInput, raw)
    return { kind, programId: v.programId, recordType: v.recordType as RecordTypeKey, title: v.title, body: v.body, fields: v.fields, citations: v.citations }
  }
  if (kind === 'update') {
    const r = raw as Record<string, unknown>
    const v = parseInput(UpdateInput, { ...r, id: r.recordId })
    if (recordType && v.fields) {
      const issues = validateFields(RECORD_TYPES[recordType], v.fields).issues.filter((i) => i.message !== 'required' || i.field!.slice(7) in v.fields!)
      if (issues.length) throw new InvalidInput(issues)
    }
    return { kind, recordId: v.id, title: v.title, body: v.body, fields: v.fields, citations: v.citations }
  }
  if (kind === 'decide') {
    const r = raw as Record<string, unknown>
    const v = parseInput(DecideInput, { ...r, id: r.recordId })
    return { kind, recordId: v.id, outcome: v.outcome, note: v.note }
  }
  throw InvalidInput.of('kind', 'use create, update or decide')
}

/** Current versions of the given records in the client's organisation (absent or foreign ids are missing). */
export async function currentVersions(q: TenantTx, recordIds: readonly string[]): Promise<Map<string, number>> {
  const ids = [...new Set(recordIds.filter(isId))]
  if (ids.length === 0) return new Map()
  const rows = await q.programRecord.findMany({ where: { id: { in: ids } }, select: { id: true, version: true } })
  return new Map(rows.map((r) => [r.id, r.version]))
}

/** A record the caller may read (its type's .read in its program), else not found: never telling it exists elsewhere. */
async function loadReadable(q: TenantTx, id: string, ctx: DomainContext): Promise<ProgramRecord & { spec: RecordTypeSpec }> {
  const record = await q.programRecord.findFirst({ where: { id } })
  if (!record || !isRecordType(record.recordType) || !can(ctx.session, RECORD_TYPES[record.recordType].permissions.read, record.programId)) {
    throw new NotFoundError('ProgramRecord', { field: 'id' })
  }
  return { ...record, spec: RECORD_TYPES[record.recordType] }
}

/** Twins draft proposals and people decide: a record is only ever written by a person (spec 002, Rules). */
function assertPerson(w: Write<AuditAction>, key: Parameters<typeof forbidden>[0]) {
  if (w.ctx.actor.type !== 'user') throw forbidden(key)
}

/** Serialises changes to one record: the row is locked for the rest of the transaction, then read fresh. */
async function lock(organizationId: string, tx: TenantTx, id: string): Promise<ProgramRecord> {
  await lockRecordRow(organizationId, tx, id)
  return tx.programRecord.findFirstOrThrow({ where: { id } })
}

const linkField = (spec: RecordTypeSpec) => spec.fields.find((f) => f.kind === 'source')

/** Checks the references of typed fields in the record's program; returns the issues (each on its field). */
async function checkReferences(tx: TenantTx, spec: RecordTypeSpec, programId: string, fields: Record<string, unknown>, selfId?: string): Promise<InputIssue[]> {
  const issues: InputIssue[] = []
  // A dependency links two different records.
  if (spec.key === 'progress.dependencies' && fields.from_record_id && fields.from_record_id === fields.to_record_id) {
    issues.push({ field: 'fields.to_record_id', message: 'a record does not depend on itself' })
  }
  for (const f of spec.fields) {
    const v = fields[f.name]
    if (typeof v !== 'string') continue
    const field = `fields.${f.name}`
    if (f.kind === 'record') {
      const other = v === selfId ? null : await tx.programRecord.findFirst({ where: { id: v, programId }, select: { id: true } })
      if (!other) issues.push({ field, message: 'no other record of this program has that id' })
    } else if (f.kind === 'user') {
      const member = await tx.programMembership.findFirst({ where: { programId, userId: v, endedAt: null }, select: { id: true } })
      if (!member) issues.push({ field, message: 'not a member of this program' })
    } else if (f.kind === 'source') {
      const source = await tx.source.findFirst({ where: { id: v, programId }, select: { sourceType: true } })
      if (!source || (f.sourceType && source.sourceType !== f.sourceType)) {
        issues.push({ field, message: `no ${f.sourceType === 'eln_entry' ? 'notebook entry' : 'source'} of this program has that id` })
      }
    }
  }
  return issues
}

/** The fields as stored (the source link lives in program_records.source_id) and the link. */
function splitLink(spec: RecordTypeSpec, fields: Record<string, unknown>) {
  const link = linkField(spec)
  if (!link) return { stored: fields, sourceId: null as string | null }
  const { [link.name]: sourceId, ...stored } = fields
  return { stored, sourceId: (sourceId as string | undefined) ?? null }
}

/** The record's typed fields as a caller sees them: stored fields plus the source link under its field name. */
export function typedFields(record: Pick<ProgramRecord, 'recordType' | 'fields' | 'sourceId'>): Record<string, unknown> {
  const spec = isRecordType(record.recordType) ? RECORD_TYPES[record.recordType] : null
  const fields = { ...(record.fields as Record<string, unknown>) }
  const link = spec && linkField(spec)
  if (link && record.sourceId) fields[link.name] = record.sourceId
  return fields
}

/** plans.experiments: the record owns one experiments row, bound to its notebook entry through eln_source_id. */
async function bindExperiment(w: Write<AuditAction>, record: { id?: string; experimentId?: string | null; programId: string; title: string }, elnSourceId: string | null): Promise<string> {
  const tx = w.tx
  if (elnSourceId) {
    const holder = await tx.experiment.findFirst({ where: { elnSourceId }, include: { record: { select: { id: true } } } })
    if (holder && holder.id !== record.experimentId) {
      // A notebook entry the connector synced before any record existed: the new record adopts that experiment.
      if (!holder.record && !record.experimentId) {
        await tx.experiment.update({ where: { id: holder.id }, data: { title: record.title } })
        return holder.id
      }
      throw InvalidInput.of('fields.eln_source_id', 'that notebook entry records another experiment already')
    }
  }
  if (record.experimentId) {
    await tx.experiment.update({ where: { id: record.experimentId }, data: { title: record.title, elnSourceId } })
    return record.experimentId
  }
  const created = await tx.experiment.create({
    data: { organizationId: w.ctx.session.organizationId, programId: record.programId, title: record.title, elnSourceId },
  })
  return created.id
}

async function writeCitations(tx: TenantTx, organizationId: string, recordId: string, rows: ResolvedCitation[], replace: boolean) {
  if (replace) await tx.recordCitation.deleteMany({ where: { recordId } })
  if (rows.length === 0) return
  await tx.recordCitation.createMany({
    data: rows.map((c, position) => ({
      organizationId, recordId, position, citedKind: c.kind, sourceId: c.sourceId, documentId: c.documentId, clusterKey: c.clusterKey, locator: c.locator,
    })),
  })
}

const snapshotOf = (rows: ResolvedCitation[]) => rows.map((c) => ({ kind: c.kind, ref: c.ref, locator: c.locator }))

/** The version row, the audit row and the announcement every change ends with. */
async function finish(w: Write<AuditAction>, record: ProgramRecord, change: 'create' | 'update' | 'decide', action: AuditAction,
  citations: unknown, provenance: Provenance | undefined, extra: { outcome?: string; note?: string; from?: string } = {}) {
  const version = await w.tx.programRecordVersion.create({
    data: {
      organizationId: record.organizationId, recordId: record.id, version: record.version, change,
      title: record.title, body: record.body, status: record.status, fields: record.fields as Prisma.InputJsonValue,
      citations: citations as Prisma.InputJsonValue, outcome: extra.outcome ?? null, note: extra.note ?? provenance?.note ?? null,
      proposalId: provenance?.proposalId ?? null, proposedByUserId: provenance?.proposedByUserId ?? null,
      proposedByTwinId: provenance?.proposedByTwinId ?? null, runId: provenance?.runId ?? null,
      workingAs: provenance?.proposedByTwinId ? provenance.workingAs ?? null : null,
      decidedByUserId: w.ctx.session.userId,
    },
  })
  await w.audit(action, { type: 'program_record', id: record.id }, {
    record_type: record.recordType, version: record.version, change, status: record.status,
    ...(extra.outcome ? { outcome: extra.outcome, from: extra.from, to: record.status } : {}),
    ...(provenance ? {
      proposal_id: provenance.proposalId ?? null, proposed_by_user_id: provenance.proposedByUserId,
      proposed_by_twin_id: provenance.proposedByTwinId ?? null, run_id: provenance.runId ?? null,
      ...(provenance.proposedByTwinId && provenance.workingAs ? { working_as: provenance.workingAs } : {}),
    } : {}),
  }, { programId: record.programId, subjects: [{ table: 'program_record_versions', id: version.id }] })
  await w.publish('record_changed', { id: record.id, programId: record.programId, organizationId: record.organizationId, version: record.version })
  return record
}

const citationsOf = async (tx: TenantTx, recordId: string) =>
  snapshotOf((await tx.recordCitation.findMany({ where: { recordId }, orderBy: { position: 'asc' } })).map((c) => ({
    kind: c.citedKind as ResolvedCitation['kind'], ref: c.sourceId ?? c.documentId ?? c.clusterKey ?? '', locator: c.locator,
    sourceId: c.sourceId, documentId: c.documentId, clusterKey: c.clusterKey,
  })))

/** Creates a record of a type in a program the caller may read, under the type's .manage key (audit <noun>.create). */
export const createRecord = command({
  permission: (input) => RECORD_TYPES[input.recordType as RecordTypeKey].permissions.manage,
  input: CreateInput,
  load: (q, input, ctx) => getProgram(ctx, { id: input.programId }, q),
  program: (input) => input.programId,
  audit: RECORD_AUDIT_ACTIONS,
  async run(w, input) {
    const spec = RECORD_TYPES[input.recordType as RecordTypeKey]
    assertPerson(w, spec.permissions.manage)
    const { value } = validateFields(spec, input.fields ?? {})
    const citations = await resolveCitations(w.tx, input.programId, input.citations ?? [])
    const issues = [...await checkReferences(w.tx, spec, input.programId, value), ...citations.issues]
    if (issues.length) throw new InvalidInput(issues)
    const { stored, sourceId } = splitLink(spec, value)
    const experimentId = spec.key === 'plans.experiments'
      ? await bindExperiment(w, { programId: input.programId, title: input.title }, sourceId) : null
    const userId = w.ctx.session.userId
    const record = await w.tx.programRecord.create({
      data: {
        organizationId: w.ctx.session.organizationId, programId: input.programId, recordType: spec.key, title: input.title,
        body: input.body ?? '', status: spec.machine.initial[0], fields: stored as Prisma.InputJsonValue, version: 1,
        sourceId, experimentId, createdByUserId: userId, updatedByUserId: userId,
      },
    })
    await writeCitations(w.tx, record.organizationId, record.id, citations.rows, false)
    return finish(w, record, 'create', spec.audit.create, snapshotOf(citations.rows), input.provenance)
  },
})

/**
 * Changes a record's title, body, typed fields (a patch: named fields change, null clears an optional one) or
 * citations (replaced whole), under the type's .manage key (audit <noun>.update).
 */
export const updateRecord = command({
  permission: (_input, record) => record.spec.permissions.manage,
  input: UpdateInput,
  load: (q: TenantTx, input: { id: string }, ctx: DomainContext) => loadReadable(q, input.id, ctx),
  program: (_input, record) => record.programId,
  audit: RECORD_AUDIT_ACTIONS,
  async run(w, input, { spec }) {
    assertPerson(w, spec.permissions.manage)
    const current = await lock(w.ctx.session.organizationId, w.tx, input.id)
    const merged = { ...typedFields(current), ...(input.fields ?? {}) }
    const { value, issues: fieldIssues } = validateFields(spec, merged)
    const citations = input.citations ? await resolveCitations(w.tx, current.programId, input.citations) : null
    const issues = [...fieldIssues, ...await checkReferences(w.tx, spec, current.programId, value, current.id), ...(citations?.issues ?? [])]
    if (issues.length) throw new InvalidInput(issues)
    const { stored, sourceId } = splitLink(spec, value)
    const title = input.title ?? current.title
    if (spec.key === 'plans.experiments') await bindExperiment(w, { ...current, title }, sourceId)
    const record = await w.tx.programRecord.update({
      where: { id: current.id },
      data: {
        title, body: input.body ?? current.body, fields: stored as Prisma.InputJsonValue, sourceId: linkField(spec) ? sourceId : current.sourceId,
        version: current.version + 1, updatedByUserId: w.ctx.session.userId, updatedAt: new Date(),
      },
    })
    if (citations) await writeCitations(w.tx, record.organizationId, record.id, citations.rows, true)
    const snapshot = citations ? snapshotOf(citations.rows) : await citationsOf(w.tx, record.id)
    return finish(w, record, 'update', spec.audit.update, snapshot, input.provenance)
  },
})

/**
 * The type's own decision: `outcome` names a transition of its machine (core/states/records.ts), under .approve where
 * the type has that key (hypotheses, plans: audit <noun>.decision), else under .manage (audit <noun>.update).
 */
export const decideRecord = command({
  permission: (_input, record) => decidePermission(record.spec),
  input: DecideInput,
  load: (q: TenantTx, input: { id: string }, ctx: DomainContext) => loadReadable(q, input.id, ctx),
  program: (_input, record) => record.programId,
  audit: RECORD_AUDIT_ACTIONS,
  errors: [InvalidTransition],
  async run(w, input, { spec }) {
    assertPerson(w, decidePermission(spec))
    const transitions = spec.machine.transitions as Record<string, { from: readonly string[]; to: string }>
    const t = Object.hasOwn(transitions, input.outcome) ? transitions[input.outcome] : undefined
    if (!t) throw InvalidInput.of('outcome', `use one of ${Object.keys(transitions).join(', ')}`)
    const current = await lock(w.ctx.session.organizationId, w.tx, input.id)
    if (!t.from.includes(current.status)) throw invalidTransition(spec.machine, input.outcome, current.status, t.to)
    const record = await w.tx.programRecord.update({
      where: { id: current.id },
      data: { status: t.to, version: current.version + 1, updatedByUserId: w.ctx.session.userId, updatedAt: new Date() },
    })
    return finish(w, record, 'decide', spec.audit.decide, await citationsOf(w.tx, record.id), input.provenance,
      { outcome: input.outcome, note: input.note, from: current.status })
  },
})

/**
 * Applies a change as ctx's person, inside the caller's write when `opts.within` is given (one transaction with the
 * caller's own rows): the type's key is checked live in the record's program, the version bumped, a version row with
 * the provenance written, one typed audit row recorded, the change announced. Throws NotFound, FORBIDDEN (a GraphQL
 * error with the permission), InvalidInput (issues name the field) or InvalidTransition.
 */
export async function applyRecordChange(ctx: DomainContext, change: RecordChange, opts: { within?: Write<AuditAction>; provenance?: Provenance } = {}):
  Promise<{ recordId: string; version: number; programId: string }> {
  const within = { within: opts.within }
  const provenance = opts.provenance
  const record = change.kind === 'create'
    ? await createRecord(ctx, { programId: change.programId, recordType: change.recordType, title: change.title, body: change.body, fields: change.fields, citations: change.citations, provenance }, within)
    : change.kind === 'update'
      ? await updateRecord(ctx, { id: change.recordId, title: change.title, body: change.body, fields: change.fields, citations: change.citations, provenance }, within)
      : await decideRecord(ctx, { id: change.recordId, outcome: change.outcome, note: change.note, provenance }, within)
  return { recordId: record.id, version: record.version, programId: record.programId }
}
