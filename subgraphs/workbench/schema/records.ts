// Program records in the workbench subgraph: the ProgramRecord interface with one object type per record type (typed
// fields from the type catalogue), versions, citations, Program.records (cursor pages), Query.record and the
// createRecord / updateRecord / decideRecord mutations. ProgramRecord and every object type are federation entities
// keyed by id.
import { result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import type { ProgramRecord, ProgramRecordVersion } from '../../../generated/prisma/client'
import * as records from '../../../domain/records'
import type { FieldSpec } from '../../../domain/records'
import type { WorkbenchRefs } from './refs'

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
const fieldOf = (r: ProgramRecord, name: string) => records.typedFields(r)[name] ?? null

export function addRecords(builder: Builder, { ProgramRef, UserRef }: WorkbenchRefs) {
  const Source = builder.objectRef<{ id: string; sourceSystem: string; sourceType: string; title: string; targetRef: string | null }>('RecordSource').implement({
    description: 'The connector source a record came from; every surfaced record names its source system.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sourceType: t.exposeString('sourceType', { description: 'eln_entry for a notebook entry' }),
      sourceSystem: t.exposeString('sourceSystem', { description: 'Where the source lives, e.g. eln_provider' }),
      title: t.exposeString('title'),
      targetRef: t.exposeString('targetRef', { nullable: true }),
    }),
  })

  const Citation = builder.objectRef<records.Citation>('RecordCitation').implement({
    description: 'What a record cites, by reference to a source-system object; agent-origin text is never citable.',
    fields: (t) => ({
      kind: t.exposeString('kind', { description: `${records.CITATION_KINDS.join(', ')}` }),
      ref: t.exposeString('ref', { description: 'The source id, document id or literature cluster key cited.' }),
      locator: t.exposeString('locator', { nullable: true, description: 'Where in the document (passages).' }),
      title: t.exposeString('title', { nullable: true }),
      sourceSystem: t.exposeString('sourceSystem', { nullable: true }),
      targetRef: t.exposeString('targetRef', { nullable: true }),
      href: t.exposeString('href', { nullable: true, description: "Where a person can read what is cited: the source's own address, or a literature cluster's DOI or PubMed page; null when there is none." }),
      place: t.exposeString('place', { nullable: true, description: "The locator in words: a document table ('table=0') reads 'Table 1'; another locator as written." }),
      documentVersion: t.exposeInt('documentVersion', { nullable: true, description: 'For a document passage: the version of the document as mirrored now.' }),
    }),
  })

  const FieldValue = builder.objectRef<records.RecordFieldValue>('RecordFieldValue').implement({
    description: "One typed field of a record as a screen shows it: its label and its value in words (a person's name, a linked record's title, a source's title).",
    fields: (t) => ({
      name: t.exposeString('name', { description: 'The field as create and update take it (snake_case).' }),
      label: t.exposeString('label'),
      kind: t.exposeString('kind', { description: 'text, enum, number, boolean, date (YYYY-MM-DD), url, tags, record, user or source' }),
      value: t.exposeString('value', { nullable: true, description: 'In words; null when the field is empty.' }),
      recordId: t.exposeID('recordId', { nullable: true, description: 'The program record a record field names, when the caller may read it.' }),
      href: t.exposeString('href', { nullable: true, description: "A url field's address, or the address of the source a source field names." }),
    }),
  })

  const ValueChange = builder.objectRef<records.RecordValueChange>('RecordValueChange').implement({
    description: 'One thing a version changed, in words.',
    fields: (t) => ({
      label: t.exposeString('label', { description: 'Title, Status, Content, Citations or a field label.' }),
      before: t.exposeString('before', { nullable: true }),
      after: t.exposeString('after', { nullable: true }),
    }),
  })

  const Version = builder.objectRef<ProgramRecordVersion & { recordType: string }>('RecordVersion').implement({
    description: 'One version of a record: a full snapshot and its provenance.',
    fields: (t) => ({
      version: t.exposeInt('version'),
      change: t.exposeString('change', { description: 'create, update or decide' }),
      title: t.exposeString('title'),
      body: t.exposeString('body'),
      status: t.exposeString('status'),
      fields: t.field({ type: 'JSON', resolve: (v) => v.fields }),
      citations: t.field({ type: 'JSON', description: '[{kind, ref, locator}] as cited at this version', resolve: (v) => v.citations }),
      outcome: t.exposeString('outcome', { nullable: true, description: 'The transition a decision applied.' }),
      note: t.exposeString('note', { nullable: true }),
      proposalId: t.exposeID('proposalId', { nullable: true }),
      proposedBy: t.field({ type: UserRef, nullable: true, resolve: (v, _a, ctx) => (v.proposedByUserId ? ctx.loaders.user.load(v.proposedByUserId) : null) }),
      proposedByTwinId: t.exposeID('proposedByTwinId', { nullable: true }),
      runId: t.exposeID('runId', { nullable: true }),
      decidedBy: t.field({ type: UserRef, nullable: true, description: 'The person who made or applied the change.', resolve: (v, _a, ctx) => ctx.loaders.user.load(v.decidedByUserId) }),
      createdAt: t.field({ type: 'DateTime', resolve: (v) => v.createdAt }),
      changes: t.field({ type: [ValueChange], description: 'What this version changed from the one before it (empty for the first).', resolve: (v, _a, ctx) => records.versionChanges(ctx, v.recordType, v) }),
      footer: t.string({
        nullable: true,
        description: "'Proposed by <Name>'s twin (agent, working as <workbench role or persona name>); decided by <Name>' for a version applied from a twin's proposal (without the working-as part when its run recorded no harness), else null.",
        resolve: (v, _a, ctx) => records.versionFooter(ctx, v),
      }),
    }),
  })

  const Record = builder.interfaceRef<ProgramRecord>('ProgramRecord').implement({
    description: 'A program record of one of the workbench record types (recordType is its permission resource).',
    resolveType: (r) => records.RECORD_TYPES[r.recordType as records.RecordTypeKey].graphqlType,
    fields: (t) => ({
      id: t.exposeID('id'),
      recordType: t.exposeString('recordType', { description: `${records.RECORD_TYPE_KEYS.join(', ')}` }),
      title: t.exposeString('title'),
      body: t.exposeString('body'),
      status: t.exposeString('status', { description: "The type's state (core/states/records.ts)." }),
      version: t.exposeInt('version', { description: 'Counts changes; every version is in history.' }),
      program: t.field({ type: ProgramRef, resolve: async (r, _a, ctx) => (await ctx.loaders.program.load(r.programId))! }),
      fields: t.field({ type: 'JSON', description: 'The typed fields as stored, snake_case (what create and update take).', resolve: (r) => records.typedFields(r) }),
      createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.user.load(r.createdByUserId) }),
      updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.user.load(r.updatedByUserId) }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.updatedAt }),
      history: t.field({ type: [Version], description: 'Every version, newest first.', resolve: async (r, _a, ctx) => (await records.recordHistory(ctx, r.id)).map((v) => ({ ...v, recordType: r.recordType })) }),
      statusLabel: t.string({ description: 'The status in words.', resolve: (r) => records.valueWords(r.status) }),
      content: t.field({ type: [FieldValue], description: "The type's typed fields in order, each with its label and its value in words (empty ones with value null).", resolve: (r, _a, ctx) => records.recordContent(ctx, r) }),
      viewerCanUpdate: t.boolean({ description: "Whether the caller may change the record (updateRecord's own permission check).", resolve: (r, _a, ctx) => records.viewerRecordPermissions(ctx.session, r).canUpdate }),
      viewerCanDecide: t.boolean({ description: "Whether the caller may apply a transition to the record now (decideRecord's permission check, and a transition from its status).", resolve: (r, _a, ctx) => records.viewerRecordPermissions(ctx.session, r).outcomes.length > 0 }),
      viewerOutcomes: t.stringList({ description: "The transitions (decideRecord's outcome) the caller may apply from the record's status; empty when they may not decide it.", resolve: (r, _a, ctx) => records.viewerRecordPermissions(ctx.session, r).outcomes }),
      citations: t.field({ type: [Citation], resolve: (r, _a, ctx) => records.recordCitations(ctx, r) }),
      source: t.field({ type: Source, nullable: true, description: 'The connector source the record came from, if any.', resolve: (r, _a, ctx) => records.recordSource(ctx, r) }),
      sourceSystem: t.string({ nullable: true, description: 'The source system of a record that came from a connector; null for one written here.', resolve: async (r, _a, ctx) => (await records.recordSource(ctx, r))?.sourceSystem ?? null }),
      footer: t.string({
        nullable: true,
        description: "The footer of the current version: 'Proposed by <Name>'s twin (agent, working as <workbench role or persona name>); decided by <Name>' when it was applied from a twin's proposal (without the working-as part when its run recorded no harness), else null.",
        resolve: async (r, _a, ctx) => records.versionFooter(ctx, await records.currentVersionRow(ctx, r)),
      }),
    }),
  })

  const key = builder.selection<{ id: string }>('id')
  // An interface entity (Federation 2.3): another subgraph points at a record as `ProgramRecord @interfaceObject`
  // by id without knowing its type (the twins subgraph's proposals do).
  builder.asEntity(Record, { key, resolveReference: (r, ctx) => records.findRecord(ctx, r.id) })
  for (const typeKey of records.RECORD_TYPE_KEYS) {
    const spec = records.RECORD_TYPES[typeKey]
    const ref = builder.objectRef<ProgramRecord>(spec.graphqlType).implement({
      description: `A ${typeKey} record (read ${spec.permissions.read}, write ${spec.permissions.manage}${spec.permissions.approve ? `, decide ${spec.permissions.approve}` : ''}; statuses ${spec.machine.states.join(', ')}).`,
      interfaces: [Record],
      isTypeOf: (r) => (r as ProgramRecord).recordType === typeKey,
      fields: (t) => Object.fromEntries(spec.fields.map((f: FieldSpec) => {
        const description = f.description
        const read = (r: ProgramRecord) => fieldOf(r, f.name) as never
        const field = f.kind === 'number' ? t.float({ nullable: true, description, resolve: read })
          : f.kind === 'boolean' ? t.boolean({ nullable: true, description, resolve: read })
            : f.kind === 'tags' ? t.stringList({ nullable: true, description, resolve: read })
              : f.kind === 'record' || f.kind === 'source' ? t.id({ nullable: true, description, resolve: read })
                : f.kind === 'user' ? t.field({ type: UserRef, nullable: true, description, resolve: (r, _a, ctx) => (read(r) ? ctx.loaders.user.load(read(r)) : null) })
                  : t.string({ nullable: true, description, resolve: read })
        return [camel(f.kind === 'user' ? f.name.replace(/_user_id$/, '') : f.name), field]
      })),
    })
    builder.asEntity(ref, { key, resolveReference: (r, ctx) => records.findRecord(ctx, r.id) })
  }

  const Records = connectionType(builder, 'ProgramRecord', Record as never, "A page of a program's records, newest first.")
  builder.objectField(ProgramRef, 'records', (t) =>
    t.field({
      type: Records,
      description: "The program's records, newest first; type (e.g. evidence.hypotheses) needs its .read key, without it every type the caller may read.",
      args: {
        type: t.arg.string({ required: false }), status: t.arg.string({ required: false }),
        search: t.arg.string({ required: false, description: 'Words the title or the body contains (case-insensitive; at most 200 characters).' }),
        ...pageArgs(t.arg),
      },
      resolve: (p, args, ctx) => records.listRecords(ctx, p.id, { recordType: args.type, status: args.status, search: args.search, first: args.first, after: args.after }),
    }))

  const StatusOption = builder.objectRef<{ key: string; label: string }>('RecordStatusOption').implement({
    fields: (t) => ({ key: t.exposeString('key'), label: t.exposeString('label') }),
  })
  const TypeInfo = builder.objectRef<{ spec: records.RecordTypeSpec; programId: string }>('ProgramRecordType').implement({
    description: 'A record type the caller may read in a program: what a list of its records offers.',
    fields: (t) => ({
      key: t.string({ resolve: (x) => x.spec.key }),
      product: t.string({ description: 'evidence, plans, progress or review', resolve: (x) => x.spec.key.split('.')[0] }),
      name: t.string({ description: "The type in words, e.g. 'Findings'.", resolve: (x) => records.valueWords(x.spec.key.split('.')[1]) }),
      statuses: t.field({ type: [StatusOption], description: "The type's statuses, in its machine's order.", resolve: (x) => x.spec.machine.states.map((k) => ({ key: k, label: records.valueWords(k) })) }),
      viewerCanCreate: t.boolean({ description: "Whether the caller may create one (createRecord's permission check).", resolve: (x, _a, ctx) => records.viewerCanCreate(ctx.session, x.programId, x.spec) }),
    }),
  })
  builder.objectField(ProgramRef, 'recordTypes', (t) =>
    t.field({
      type: [TypeInfo],
      description: 'The record types the caller may read in this program, in the catalogue order; product narrows them to one product.',
      args: { product: t.arg.string({ required: false }) },
      resolve: (p, args, ctx) => records.readableRecordTypes(ctx.session, p.id, args.product ?? null).map((spec) => ({ spec, programId: p.id })),
    }))

  builder.queryFields((t) => ({
    record: t.field({
      type: Record,
      nullable: true,
      description: 'A program record, if the caller may read its type in its program.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, { id }, ctx) => records.findRecord(ctx, String(id)),
    }),
  }))

  const CitationInput = builder.inputType('RecordCitationInput', {
    fields: (t) => ({
      kind: t.string({ required: true, description: records.CITATION_KINDS.join(', ') }),
      ref: t.string({ required: true, description: 'The source id (eln_entry, sop_version), document id (document_passage) or cluster key (literature_cluster).' }),
      locator: t.string({ required: false, description: 'Section, page or anchor; required for a document_passage.' }),
    }),
  })
  const CreateInput = builder.inputType('CreateRecordInput', {
    fields: (t) => ({
      programId: t.id({ required: true }),
      recordType: t.string({ required: true, description: records.RECORD_TYPE_KEYS.join(', ') }),
      title: t.string({ required: true }),
      body: t.string({ required: false }),
      fields: t.field({ type: 'JSON', required: false, description: "The type's typed fields, snake_case (see each record type)." }),
      citations: t.field({ type: [CitationInput], required: false }),
    }),
  })
  const UpdateInput = builder.inputType('UpdateRecordInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      title: t.string({ required: false }),
      body: t.string({ required: false }),
      fields: t.field({ type: 'JSON', required: false, description: 'A patch: named fields change, null clears an optional one.' }),
      citations: t.field({ type: [CitationInput], required: false, description: 'Replaces every citation.' }),
    }),
  })
  const DecideInput = builder.inputType('DecideRecordInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      outcome: t.string({ required: true, description: "A transition of the type's machine, e.g. support, refute, withdraw (hypotheses), approve (plans)." }),
      note: t.string({ required: false }),
    }),
  })

  const opt = <T>(v: T | null | undefined) => (v === null ? undefined : v)
  builder.mutationFields((t) => ({
    createRecord: t.field({
      type: Record,
      errors: result(records.createRecord, 'record'),
      args: { input: t.arg({ type: CreateInput, required: true }) },
      resolve: (_r, { input }, ctx) => records.createRecord(ctx, {
        programId: input.programId, recordType: input.recordType, title: input.title, body: opt(input.body),
        fields: opt(input.fields), citations: opt(input.citations),
      }),
    }),
    updateRecord: t.field({
      type: Record,
      errors: result(records.updateRecord, 'record'),
      args: { input: t.arg({ type: UpdateInput, required: true }) },
      resolve: (_r, { input }, ctx) => records.updateRecord(ctx, {
        id: input.id, title: opt(input.title), body: opt(input.body), fields: opt(input.fields), citations: opt(input.citations),
      }),
    }),
    decideRecord: t.field({
      type: Record,
      errors: result(records.decideRecord, 'record'),
      args: { input: t.arg({ type: DecideInput, required: true }) },
      resolve: (_r, { input }, ctx) => records.decideRecord(ctx, { id: input.id, outcome: input.outcome, note: opt(input.note) }),
    }),
  }))
  return { RecordRef: Record }
}
