// QMS/SOP in the connectors subgraph: SOPs (connector and local), SOP versions, requirement sets and their rows,
// checks and their rows, a QMS connection's configuration, and the review.sops operations (approveSop answers
// sop_external for a connector SOP). Resolvers translate; domain/qms/review.ts decides.
import type { Requirement, RequirementSet, Sop, SopCheck, SopCheckRow, SopVersion } from '../../../generated/prisma/client'
import { result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import * as review from '../../../domain/qms'
import type { ConnectorsRefs } from './refs'
import type { ConnectionRefs } from './connections'

export function addQms(builder: Builder, { ProgramRef, UserRef }: ConnectorsRefs, { ConnectionRef }: ConnectionRefs) {
  const Lifecycle = builder.enumType('SopLifecycleState', { values: ['draft', 'in_review', 'effective', 'superseded', 'obsolete', 'unmapped'] as const, description: 'sop_versions.lifecycle_state, mapped per connection from the vendor label (unmapped: no mapping, ineligible).' })
  const SetStatus = builder.enumType('RequirementSetStatus', { values: ['draft', 'accepted', 'superseded'] as const })
  const Outcome = builder.enumType('SopCheckRowOutcome', { values: ['pending', 'met', 'not_met'] as const })

  const LabelMap = builder.objectRef<{ label: string; state: string }>('QmsLifecycleMapping').implement({
    fields: (t) => ({ label: t.exposeString('label'), state: t.exposeString('state') }),
  })
  const QmsConfiguration = builder.objectRef<NonNullable<ReturnType<typeof review.qmsConfiguration>>>('QmsConfiguration').implement({
    description: "A QMS connection's settings (not secret): client id header, instance id, integration user, query template, lifecycle map.",
    fields: (t) => ({
      clientId: t.exposeString('client_id'),
      clientIdHeader: t.exposeString('client_id_header'),
      instanceId: t.exposeString('instance_id'),
      integrationUser: t.exposeString('integration_user', { description: 'sandbox (R1c) or production (R2).' }),
      queryTemplate: t.field({ type: 'JSON', resolve: (s) => s.query_template }),
      lifecycleMap: t.field({ type: [LabelMap], resolve: (s) => s.lifecycle_map }),
      renditionType: t.exposeString('rendition_type'),
      reconciledAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => (s.reconciled_at ? new Date(s.reconciled_at) : null) }),
    }),
  })
  builder.objectField(ConnectionRef, 'qmsConfiguration', (t) => t.field({ type: QmsConfiguration, nullable: true, resolve: (c) => review.qmsConfiguration(c) }))

  const Signature = builder.objectRef<{ printedName: string; signedAt: Date; meaning: string }>('SopSignature').implement({
    fields: (t) => ({
      printedName: t.exposeString('printedName'), meaning: t.exposeString('meaning'), signedAt: t.field({ type: 'DateTime', resolve: (s) => s.signedAt }),
      manifestation: t.string({ resolve: (s) => `${s.printedName}, ${s.signedAt.toISOString()}, ${s.meaning}` }),
    }),
  })

  const RequirementRef = builder.objectRef<Requirement>('SopRequirement').implement({
    description: 'One numbered requirement, anchored into the version text: section and the character range [anchorStart, anchorEnd).',
    fields: (t) => ({
      id: t.exposeID('id'), number: t.exposeInt('number'), ref: t.exposeString('ref'), text: t.exposeString('text'), section: t.exposeString('section'),
      anchorStart: t.exposeInt('anchorStart'), anchorEnd: t.exposeInt('anchorEnd'),
    }),
  })

  const SopRef = builder.objectRef<Sop>('Sop')
  const VersionRef = builder.objectRef<SopVersion>('SopVersion')
  const SetRef = builder.objectRef<RequirementSet>('RequirementSet')

  SopRef.implement({
    description: 'A controlled document: from a QMS connection (the QMS is authoritative) or local (approved here).',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: async (s, _a, ctx) => (await ctx.loaders.program.load(s.programId))! }),
      origin: t.string({ description: 'connector or local', resolve: (s) => s.origin }),
      sourceSystem: t.string({ description: 'Every surfaced record names its source system.', resolve: (s) => (s.origin === 'connector' ? 'qms_provider' : 'local') }),
      connectionId: t.id({ nullable: true, resolve: (s) => s.connectionId }),
      documentNumber: t.exposeString('documentNumber'),
      documentType: t.exposeString('documentType'),
      title: t.exposeString('title'),
      deletedAt: t.field({ type: 'DateTime', nullable: true, description: 'The QMS no longer lists any version of it.', resolve: (s) => s.deletedAt }),
      versions: t.field({ type: [VersionRef], resolve: (s, _a, ctx) => review.sopVersions(ctx, s.id) }),
      createdAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    }),
  })

  VersionRef.implement({
    description: 'One SOP version (sop_versions). Only effective versions bind checks.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sop: t.field({ type: SopRef, resolve: async (v, _a, ctx) => (await ctx.tdb.sop.findFirst({ where: { id: v.sopId } }))! }),
      documentId: t.string({ nullable: true, description: 'The QMS document id.', resolve: (v) => v.documentId }),
      major: t.exposeInt('major'), minor: t.exposeInt('minor'),
      externalVersionLabel: t.string({ nullable: true, resolve: (v) => v.externalVersionLabel }),
      vendorLabel: t.string({ nullable: true, description: 'The lifecycle label in the QMS.', resolve: (v) => v.vendorLabel }),
      lifecycleState: t.field({ type: Lifecycle, resolve: (v) => v.lifecycleState }),
      bindsChecks: t.boolean({ resolve: (v) => v.lifecycleState === 'effective' && !v.deletedAt }),
      effectiveAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.effectiveAt }),
      effectiveOnObserved: t.exposeBoolean('effectiveOnObserved', { description: 'effective_at is the first observation (no effective date in the source).' }),
      supersededAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.supersededAt }),
      renditionHash: t.string({ nullable: true, resolve: (v) => v.renditionHash }),
      renditionFetchedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.renditionFetchedAt }),
      text: t.exposeString('text', { description: 'The version text after the shared outside-content sanitiser.' }),
      textSource: t.string({ nullable: true, description: 'text_endpoint, rendition or local', resolve: (v) => v.textSource }),
      sanitiserFindings: t.stringList({ resolve: (v) => (v.sanitiserFindings as string[]) ?? [] }),
      externalModifiedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.externalModifiedAt }),
      firstObservedAt: t.field({ type: 'DateTime', resolve: (v) => v.firstObservedAt }),
      deletedAt: t.field({ type: 'DateTime', nullable: true, description: 'Deleted in the QMS (kept as history; never binds).', resolve: (v) => v.deletedAt }),
      requirementSets: t.field({ type: [SetRef], resolve: (v, _a, ctx) => review.requirementSetsOf(ctx, v.id) }),
    }),
  })

  SetRef.implement({
    description: 'Requirements extracted from one SOP version. Accepting it is the binding decision for a connector SOP.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sopVersion: t.field({ type: VersionRef, resolve: async (r, _a, ctx) => (await ctx.tdb.sopVersion.findFirst({ where: { id: r.sopVersionId } }))! }),
      version: t.exposeInt('version'),
      status: t.field({ type: SetStatus, resolve: (r) => r.status }),
      title: t.exposeString('title'),
      extractedFrom: t.exposeString('extractedFrom'),
      acceptedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => (r.acceptedByUserId ? ctx.loaders.user.load(r.acceptedByUserId) : null) }),
      acceptedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.acceptedAt }),
      signatureMeaning: t.string({ nullable: true, resolve: (r) => r.signatureMeaning }),
      signature: t.field({ type: Signature, nullable: true, resolve: (r, _a, ctx) => (r.signatureId ? ctx.tdb.signature.findFirst({ where: { id: r.signatureId } }) : null) }),
      requirements: t.field({ type: [RequirementRef], resolve: (r, _a, ctx) => review.requirementsOf(ctx, r.id) }),
    }),
  })

  const RowRef = builder.objectRef<SopCheckRow & { requirement: Requirement }>('SopCheckRow').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      requirement: t.field({ type: RequirementRef, resolve: (r) => r.requirement }),
      outcome: t.field({ type: Outcome, resolve: (r) => r.outcome }),
      note: t.string({ nullable: true, resolve: (r) => r.note }),
      evidence: t.field({ type: 'JSON', resolve: (r) => r.evidence }),
      decidedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.decidedAt }),
    }),
  })

  const CheckRef = builder.objectRef<SopCheck>('SopCheck').implement({
    description: 'Binds a notebook entry (source eln_entry) to the effective SOP version of a document type; qa.check_readiness reads its rows.',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: async (c, _a, ctx) => (await ctx.loaders.program.load(c.programId))! }),
      sourceId: t.exposeID('sourceId'), sourceType: t.exposeString('sourceType'), documentType: t.exposeString('documentType'),
      sopVersion: t.field({ type: VersionRef, resolve: async (c, _a, ctx) => (await ctx.tdb.sopVersion.findFirst({ where: { id: c.sopVersionId } }))! }),
      requirementSet: t.field({ type: SetRef, nullable: true, resolve: (c, _a, ctx) => (c.requirementSetId ? ctx.tdb.requirementSet.findFirst({ where: { id: c.requirementSetId } }) : null) }),
      launchId: t.id({ nullable: true, resolve: (c) => c.launchId }),
      rows: t.field({ type: [RowRef], resolve: (c, _a, ctx) => review.checkRows(ctx, c.id) }),
      createdAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
    }),
  })

  const Sops = connectionType(builder, 'Sop', SopRef, "A page of a program's SOPs, newest first.")
  const Checks = connectionType(builder, 'SopCheck', CheckRef, "A page of a program's checks, newest first.")
  builder.objectField(ProgramRef, 'sops', (t) => t.field({ type: Sops, description: 'SOPs of the program (review.sops.read).', args: pageArgs(t.arg), resolve: (p, a, ctx) => review.listSops(ctx, p.id, a) }))
  builder.objectField(ProgramRef, 'sopChecks', (t) => t.field({ type: Checks, description: 'Checks of the program (review.sops.read).', args: pageArgs(t.arg), resolve: (p, a, ctx) => review.listChecks(ctx, p.id, a) }))

  builder.queryFields((t) => ({
    sop: t.field({ type: SopRef, nullable: true, args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.getSop(ctx, String(a.id)) }),
    sopVersion: t.field({ type: VersionRef, nullable: true, args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.getSopVersion(ctx, String(a.id)) }),
    requirementSet: t.field({ type: SetRef, nullable: true, args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.getRequirementSet(ctx, String(a.id)) }),
    sopCheck: t.field({ type: CheckRef, nullable: true, args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.getCheck(ctx, String(a.id)) }),
  }))

  const MappingInput = builder.inputType('QmsLifecycleMappingInput', { fields: (t) => ({ label: t.string({ required: true }), state: t.string({ required: true }) }) })
  const TemplateInput = builder.inputType('QmsQueryTemplateInput', {
    description: 'Vault field per role; unset roles keep the defaults (version_modified_date__v, major_version_number__v, ...).',
    fields: (t) => ({
      id: t.string(), modified: t.string(), major: t.string(), minor: t.string(), status: t.string(), number: t.string(), title: t.string(),
      documentType: t.string(), effectiveDate: t.string(), supersededDate: t.string(), renditionHash: t.string(), versionLabel: t.string(),
    }),
  })
  const ConfigureInput = builder.inputType('ConfigureQmsConnectionInput', {
    fields: (t) => ({
      clientId: t.string({ required: true, description: 'The X-QmsAPI-ClientID value: at most 100 characters.' }),
      clientIdHeader: t.string({ description: 'Default X-QmsAPI-ClientID (the vault: X-VaultAPI-ClientID).' }),
      instanceId: t.string({ required: true }),
      integrationUser: t.string({ required: true, description: 'sandbox or production' }),
      queryTemplate: t.field({ type: TemplateInput }),
      lifecycleMap: t.field({ type: [MappingInput], required: true }),
      renditionType: t.string(),
    }),
  })
  const LocalSopInput = builder.inputType('CreateLocalSopInput', {
    fields: (t) => ({ programId: t.id({ required: true }), documentNumber: t.string({ required: true }), documentType: t.string({ required: true }), title: t.string({ required: true }), text: t.string({ required: true }) }),
  })
  const CheckInput = builder.inputType('CreateSopCheckInput', { fields: (t) => ({ programId: t.id({ required: true }), sourceId: t.id({ required: true }), documentType: t.string({ required: true }) }) })
  const EvidenceInput = builder.inputType('SopCheckEvidenceInput', { fields: (t) => ({ kind: t.string(), ref: t.string({ required: true }) }) })
  const RowInput = builder.inputType('SetSopCheckRowInput', {
    fields: (t) => ({ checkId: t.id({ required: true }), requirementId: t.id({ required: true }), outcome: t.field({ type: Outcome, required: true }), note: t.string(), evidence: t.field({ type: [EvidenceInput] }) }),
  })

  builder.mutationFields((t) => ({
    configureQmsConnection: t.field({
      type: ConnectionRef, errors: result(review.configureQmsConnection, 'connection'),
      description: 'Configures a QMS connection (program.connections.manage); the client id is validated here.',
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: ConfigureInput, required: true }) },
      resolve: (_r, a, ctx) => review.configureQmsConnection(ctx, { ...a.input, id: String(a.id) } as never),
    }),
    createLocalSop: t.field({
      type: SopRef, errors: result(review.createLocalSop, 'sop'), description: 'A local SOP, its version 1.0 in draft (review.sops.manage).',
      args: { input: t.arg({ type: LocalSopInput, required: true }) }, resolve: (_r, a, ctx) => review.createLocalSop(ctx, a.input),
    }),
    approveSop: t.field({
      type: SopRef, errors: result(review.approveSop, 'sop'),
      description: 'POST .../review/sops/{sop_id}/approve: local SOPs only (signed); a connector SOP answers sop_external.',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.approveSop(ctx, String(a.id)),
    }),
    extractRequirementSet: t.field({
      type: SetRef, errors: result(review.extractRequirementSet, 'requirementSet'), description: 'Extracts numbered requirements with anchors from a version text (review.sops.manage).',
      args: { sopVersionId: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.extractRequirementSet(ctx, { sopVersionId: String(a.sopVersionId) }),
    }),
    acceptRequirementSet: t.field({
      type: SetRef, errors: result(review.acceptRequirementSet, 'requirementSet'), description: 'The binding decision for a connector SOP: signed (meaning approval), audited.',
      args: { id: t.arg.id({ required: true }) }, resolve: (_r, a, ctx) => review.acceptRequirementSet(ctx, String(a.id)),
    }),
    createSopCheck: t.field({
      type: CheckRef, errors: result(review.createCheck, 'check'), description: 'Binds a notebook entry to the effective SOP version of a document type.',
      args: { input: t.arg({ type: CheckInput, required: true }) }, resolve: (_r, a, ctx) => review.createCheck(ctx, a.input),
    }),
    setSopCheckRow: t.field({
      type: RowRef, errors: result(review.setCheckRow, 'row'), description: 'Marks one requirement of a check met or not met.',
      args: { input: t.arg({ type: RowInput, required: true }) }, resolve: (_r, a, ctx) => review.setCheckRow(ctx, a.input),
    }),
  }))
}
