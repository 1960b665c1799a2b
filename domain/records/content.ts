// Owns a record's content as people read it: each typed field with its label and its value in words (a person's name,
// a linked record's title, a source's title and address), what changed from one version to the next, and what the
// caller may do to the record, asked of the very commands that make those changes (Command.permits).
import type { DomainContext } from '../../core/jobs'
import { can, type Session } from '../../core/identity'
import type { ProgramRecord, ProgramRecordVersion } from '../../generated/prisma/client'
import { findRecord, sourceById, userName, versionRow } from './read'
import { isRecordType, RECORD_TYPE_KEYS, RECORD_TYPES, valueWords, type FieldSpec, type RecordTypeSpec } from './types'
import { createRecord, decideRecord, typedFields, updateRecord } from './write'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

/** One typed field as a screen shows it: `value` in words (null when empty), with a link where it names something. */
export interface RecordFieldValue {
  name: string
  label: string
  kind: FieldSpec['kind']
  value: string | null
  /** The program record a record field names (readable by the caller), for a link. */
  recordId: string | null
  /** The address of the source a source field names, or the url of a url field. */
  href: string | null
}

/** A value in words: dates stay YYYY-MM-DD (the client reads them in its locale), numbers carry their unit. */
async function describe(ctx: Ctx, f: FieldSpec, raw: unknown): Promise<Omit<RecordFieldValue, 'name' | 'label' | 'kind'>> {
  const none = { value: null, recordId: null, href: null }
  if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) return none
  switch (f.kind) {
    case 'enum': return { ...none, value: valueWords(String(raw)) }
    case 'number': return { ...none, value: `${raw}${f.unit ? ` ${f.unit}` : ''}` }
    case 'boolean': return { ...none, value: raw ? 'Yes' : 'No' }
    case 'tags': return { ...none, value: (raw as string[]).join(', ') }
    case 'url': return { ...none, value: String(raw), href: String(raw) }
    case 'user': return { ...none, value: (await userName(ctx, String(raw))) ?? 'A former member' }
    case 'record': {
      const linked = await findRecord(ctx, String(raw))
      return linked ? { ...none, value: linked.title, recordId: linked.id } : { ...none, value: 'A record you cannot open' }
    }
    case 'source': {
      const source = await sourceById(ctx, String(raw))
      return source ? { ...none, value: source.title, href: source.url } : { ...none, value: 'A source no longer held' }
    }
    default: return { ...none, value: String(raw) }
  }
}

/** The record's typed fields in the type's order, each with its label; empty ones included (value null). */
export async function recordContent(ctx: Ctx, record: ProgramRecord): Promise<RecordFieldValue[]> {
  if (!isRecordType(record.recordType)) return []
  const spec = RECORD_TYPES[record.recordType]
  const fields = typedFields(record)
  return Promise.all(spec.fields.map(async (f) => ({ name: f.name, label: f.label, kind: f.kind, ...await describe(ctx, f, fields[f.name]) })))
}

/** One thing a version changed: its label, and the value before and after, in words (null when empty). */
export interface RecordValueChange { label: string; before: string | null; after: string | null }

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/**
 * What a version changed from the one before it: the title, the status, each typed field, the body and the citations.
 * The first version changed nothing (it created the record).
 */
export async function versionChanges(ctx: Ctx, recordType: string, v: ProgramRecordVersion): Promise<RecordValueChange[]> {
  if (v.version <= 1 || !isRecordType(recordType)) return []
  const before = await versionRow(ctx, v.recordId, v.version - 1)
  if (!before) return []
  const spec: RecordTypeSpec = RECORD_TYPES[recordType]
  const changes: RecordValueChange[] = []
  if (before.title !== v.title) changes.push({ label: 'Title', before: before.title, after: v.title })
  if (before.status !== v.status) changes.push({ label: 'Status', before: valueWords(before.status), after: valueWords(v.status) })
  const was = before.fields as Record<string, unknown>
  const now = v.fields as Record<string, unknown>
  for (const f of spec.fields) {
    if (same(was[f.name], now[f.name])) continue
    const [b, a] = await Promise.all([describe(ctx, f, was[f.name]), describe(ctx, f, now[f.name])])
    changes.push({ label: f.label, before: b.value, after: a.value })
  }
  if (before.body !== v.body) changes.push({ label: 'Content', before: before.body || null, after: v.body || null })
  if (!same(before.citations, v.citations)) {
    const count = (c: unknown) => (Array.isArray(c) ? c.length : 0)
    const n = (k: number) => (k === 0 ? 'None' : k === 1 ? '1 citation' : `${k} citations`)
    changes.push({ label: 'Citations', before: n(count(before.citations)), after: n(count(v.citations)) })
  }
  return changes
}

/** What the caller may do to a record: change it, and which of its type's transitions they may apply from its status. */
export function viewerRecordPermissions(session: Session, record: ProgramRecord): { canUpdate: boolean; outcomes: string[] } {
  if (!isRecordType(record.recordType)) return { canUpdate: false, outcomes: [] }
  const target = { ...record, spec: RECORD_TYPES[record.recordType] }
  const canUpdate = updateRecord.permits(session, { id: record.id }, target)
  const transitions = target.spec.machine.transitions as Record<string, { from: readonly string[] }>
  const outcomes = decideRecord.permits(session, { id: record.id }, target)
    ? Object.keys(transitions).filter((t) => transitions[t].from.includes(record.status))
    : []
  return { canUpdate, outcomes }
}

/** Whether the caller may create records of a type in a program (createRecord's own check). */
export const viewerCanCreate = (session: Session, programId: string, spec: RecordTypeSpec) =>
  createRecord.permits(session, { programId, recordType: spec.key }, undefined as never)

/** The record types the session may read in a program, in catalogue order, of one product when given. */
export const readableRecordTypes = (session: Session, programId: string, product: string | null): RecordTypeSpec[] =>
  RECORD_TYPE_KEYS.filter((k) => (product === null || k.startsWith(`${product}.`)) && can(session, RECORD_TYPES[k].permissions.read, programId))
    .map((k) => RECORD_TYPES[k])
