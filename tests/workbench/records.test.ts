// Program records through the gateway: create, update and decide for every record type with their audit rows, typed
// objects, history and footer, permission refusals, tenant and program isolation, typed refusals naming the field,
// citations of source-system objects only, connector links, and cursor pages.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { INTERNAL_HEADER, signInternalToken } from '../../core/identity'
import { applyRecordChange, RECORD_TYPES, RECORD_TYPE_KEYS, type RecordTypeKey } from '../../domain/records'
import { useStack, gql } from '../helpers/stack'
import { addMember, createProgram, createTenant, expectRowsExist, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const ERR = `__typename ... on Error { code message field } ... on InvalidInput { issues { field message } }`
const DECIDE_ERR = `${ERR} ... on InvalidTransition { from to }`
const REC = 'id recordType title body status version fields sourceSystem footer'

async function call(t: Tenant, persona: Parameters<Tenant['token']>[0], query: string, variables: Record<string, unknown> = {}) {
  return gql(url(), query, variables, await t.token(persona))
}
const create = (t: Tenant, persona: Parameters<Tenant['token']>[0], input: Record<string, unknown>) =>
  call(t, persona, `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { ${REC} } } } }`, { i: input })
const update = (t: Tenant, persona: Parameters<Tenant['token']>[0], input: Record<string, unknown>) =>
  call(t, persona, `mutation($i: UpdateRecordInput!) { updateRecord(input: $i) { ${ERR} ... on MutationUpdateRecordSuccess { record { ${REC} } } } }`, { i: input })
const decide = (t: Tenant, persona: Parameters<Tenant['token']>[0], input: Record<string, unknown>) =>
  call(t, persona, `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${DECIDE_ERR} ... on MutationDecideRecordSuccess { record { ${REC} } } } }`, { i: input })

/** Valid fields per type; record references point at `ref`, a milestone of the same program. */
function sampleFields(type: RecordTypeKey, ref: string): Record<string, unknown> {
  switch (type) {
    case 'evidence.hypotheses': return { confidence: 'medium', rationale: 'Potency tracks lipophilicity.' }
    case 'evidence.findings': return { kind: 'result', species: 'rat', dose_mg_per_kg: 30 }
    case 'evidence.questions': return { due_on: '2026-12-15' }
    case 'evidence.gaps': return { severity: 'high', area: 'safety pharmacology' }
    case 'evidence.sources': return { source_kind: 'guidance', url: 'https://example.org/ich-m3', citation: 'ICH M3(R2)' }
    case 'plans.experiments': return { objective: 'Confirm the hERG margin' }
    case 'plans.protocols': return { protocol_kind: 'study', species: 'dog', glp: true }
    case 'plans.plans': return { plan_kind: 'nonclinical', period_start_on: '2027-01-01', period_end_on: '2027-06-30' }
    case 'plans.reports': return { report_kind: 'study_report', module: '4.2.3' }
    case 'progress.milestones': return { due_on: '2027-03-31', tags: ['gate_critical'] }
    case 'progress.dependencies': return { from_record_id: ref, to_record_id: ref, dependency_kind: 'finish_to_start' }
    case 'progress.open_items': return { priority: 'high' }
    case 'progress.approvals': return { target_record_id: ref }
    case 'review.findings': return { severity: 'major', sop_reference: 'SOP-QA-012 §4.2' }
    case 'review.deviations': return { classification: 'minor', occurred_on: '2026-11-02', capa_required: false }
  }
}

describe('program records', () => {
  it('creates, updates and decides a record of every type, each change versioned and audited with its typed action', async () => {
    const t = await createTenant(db(), 'Every type')
    const anchor = await create(t, 'program_lead', { programId: t.program.id, recordType: 'progress.milestones', title: 'IND filed', fields: { due_on: '2027-06-30' } })
    const anchorId = anchor.body.data.createRecord.record.id
    const other = await create(t, 'program_lead', { programId: t.program.id, recordType: 'progress.milestones', title: 'GLP tox done', fields: { due_on: '2027-03-31' } })
    const otherId = other.body.data.createRecord.record.id
    for (const type of RECORD_TYPE_KEYS) {
      const spec = RECORD_TYPES[type]
      const fields = type === 'progress.dependencies' ? { from_record_id: otherId, to_record_id: anchorId } : sampleFields(type, anchorId)
      const c = await create(t, 'program_lead', { programId: t.program.id, recordType: type, title: `A ${type} record`, body: 'First draft.', fields })
      expect(c.body.errors, type).toBeUndefined()
      const made = c.body.data.createRecord.record
      expect(made, type).toMatchObject({ recordType: type, status: spec.machine.initial[0], version: 1, footer: null, sourceSystem: null })
      expect(made.fields, type).toMatchObject(fields)
      const u = await update(t, 'program_lead', { id: made.id, title: `The ${type} record`, body: 'Second draft.' })
      expect(u.body.data.updateRecord.record, type).toMatchObject({ title: `The ${type} record`, body: 'Second draft.', version: 2 })
      const [outcome, move] = Object.entries(spec.machine.transitions).find(([, tr]) => tr.from.includes(spec.machine.initial[0]))!
      const d = await decide(t, 'program_lead', { id: made.id, outcome, note: 'Decided in review.' })
      expect(d.body.data.decideRecord.record, type).toMatchObject({ status: move.to, version: 3 })
      const audit = await db().auditEvent.findMany({ where: { targetId: made.id }, orderBy: { entrySeq: 'asc' } })
      expect(audit.map((a) => a.action), type).toEqual([spec.audit.create, spec.audit.update, spec.audit.decide])
      expect(audit.every((a) => a.actorUserId === t.users.program_lead.id && a.programId === t.program.id && a.targetType === 'program_record'), type).toBe(true)
      const read = await call(t, 'viewer', `query($id: ID!) { record(id: $id) { __typename ${REC} history { version change status title outcome note decidedBy { name } footer } } }`, { id: made.id })
      expect(read.body.data.record.__typename, type).toBe(spec.graphqlType)
      expect(read.body.data.record.history.map((v: any) => [v.version, v.change, v.status]), type).toEqual([
        [3, 'decide', move.to], [2, 'update', spec.machine.initial[0]], [1, 'create', spec.machine.initial[0]],
      ])
      expect(read.body.data.record.history[0]).toMatchObject({ outcome, note: 'Decided in review.', decidedBy: { name: t.users.program_lead.name }, footer: null })
    }
    // The four actions twins can trigger on are among them.
    const actions = new Set((await db().auditEvent.findMany({ where: { programId: t.program.id } })).map((a) => a.action))
    for (const a of ['hypothesis.decision', 'milestone.update', 'experiment.update', 'approval.create']) expect(actions.has(a), a).toBe(true)
  })

  it('answers each type as its typed object with its typed fields', async () => {
    const t = await createTenant(db(), 'Typed')
    const f = await create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.findings', title: 'QT prolongation at 30 mg/kg', fields: { kind: 'result', species: 'dog', dose_mg_per_kg: 30 } })
    const m = await create(t, 'manufacturing_specialist', { programId: t.program.id, recordType: 'progress.milestones', title: 'Batch release', fields: { due_on: '2027-02-01', tags: ['cmc'], owner_user_id: t.users.manufacturing_specialist.id } })
    const r = await call(t, 'viewer', `query($p: ID!) { program(id: $p) { records { nodes { __typename title
      ... on EvidenceFindingRecord { kind species doseMgPerKg }
      ... on MilestoneRecord { dueOn tags owner { name } } } } } }`, { p: t.program.id })
    expect(f.body.data.createRecord.record).toBeDefined()
    expect(m.body.data.createRecord.record).toBeDefined()
    expect(r.body.data.program.records.nodes).toEqual([
      { __typename: 'MilestoneRecord', title: 'Batch release', dueOn: '2027-02-01', tags: ['cmc'], owner: { name: t.users.manufacturing_specialist.name } },
      { __typename: 'EvidenceFindingRecord', title: 'QT prolongation at 30 mg/kg', kind: 'result', species: 'dog', doseMgPerKg: 30 },
    ])
  })

  it('refuses a viewer any write, and a scientist the hypothesis and plan decisions, writing nothing', async () => {
    const t = await createTenant(db(), 'Refusals')
    const before = await db().auditEvent.count({ where: { programId: t.program.id } })
    const viewer = await create(t, 'viewer', { programId: t.program.id, recordType: 'evidence.hypotheses', title: 'H' })
    expect(viewer.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.hypotheses.manage' })
    expect(await db().programRecord.count({ where: { programId: t.program.id } })).toBe(0)
    expect(await db().auditEvent.count({ where: { programId: t.program.id } })).toBe(before)

    // The scientist writes hypotheses and plans (.manage) but, from persona v3, no longer decides them (.approve).
    const h = (await create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.hypotheses', title: 'H1' })).body.data.createRecord.record
    const p = (await create(t, 'scientist', { programId: t.program.id, recordType: 'plans.plans', title: 'P1', fields: { plan_kind: 'cmc' } })).body.data.createRecord.record
    const sh = await decide(t, 'scientist', { id: h.id, outcome: 'support' })
    expect(sh.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.hypotheses.approve' })
    const sp = await decide(t, 'scientist', { id: p.id, outcome: 'approve' })
    expect(sp.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'plans.plans.approve' })
    const vu = await update(t, 'viewer', { id: h.id, title: 'Mine' })
    expect(vu.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.hypotheses.manage' })
    // A quality reviewer may not write a milestone (progress.milestones.manage).
    const qm = await create(t, 'quality_reviewer', { programId: t.program.id, recordType: 'progress.milestones', title: 'M', fields: { due_on: '2027-01-01' } })
    expect(qm.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'progress.milestones.manage' })
    expect(await db().programRecord.findMany({ where: { programId: t.program.id }, select: { status: true, version: true } })).toEqual([{ status: 'proposed', version: 1 }, { status: 'draft', version: 1 }])
    expect((await db().auditEvent.findMany({ where: { programId: t.program.id } })).map((a) => a.action).sort()).toEqual(['hypothesis.create', 'plan.create'])
    // The lead holds the approve keys.
    expect((await decide(t, 'program_lead', { id: p.id, outcome: 'approve' })).body.data.decideRecord.record.status).toBe('approved')
  })

  it('never shows or changes a record of another organisation or program, and answers not found without telling', async () => {
    const a = await createTenant(db(), 'Org A')
    const b = await createTenant(db(), 'Org B')
    const secondProgram = await createProgram(db(), a.organization.id, { name: 'Second program of A' })
    await addMember(db(), secondProgram, a.users.program_owner.id, ['program_owner'])
    const bRecord = (await create(b, 'program_lead', { programId: b.program.id, recordType: 'evidence.hypotheses', title: 'B secret' })).body.data.createRecord.record
    const a2Record = (await create(a, 'program_owner', { programId: secondProgram.id, recordType: 'evidence.hypotheses', title: 'A2 secret' })).body.data.createRecord.record
    // The other tenant's rows exist.
    expect(await db().programRecord.count({ where: { id: { in: [bRecord.id, a2Record.id] } } })).toBe(2)
    for (const id of [bRecord.id, a2Record.id]) {
      const read = await call(a, 'program_lead', `query($id: ID!) { record(id: $id) { id } }`, { id })
      expect(read.body.data.record).toBeNull()
      const u = await update(a, 'program_lead', { id, title: 'taken' })
      expect(u.body.data.updateRecord).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'input.id' })
      const d = await decide(a, 'program_lead', { id, outcome: 'refute' })
      expect(d.body.data.decideRecord).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'input.id' })
    }
    const missing = await update(a, 'program_lead', { id: randomUUID(), title: 'x' })
    expect(missing.body.data.updateRecord).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'input.id' })
    for (const programId of [b.program.id, secondProgram.id]) {
      const c = await create(a, 'program_lead', { programId, recordType: 'evidence.hypotheses', title: 'planted' })
      expect(c.body.data.createRecord).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'input.programId' })
      const list = await call(a, 'program_lead', `query($p: ID!) { program(id: $p) { records { nodes { id } } } }`, { p: programId })
      expect(list.body.data.program).toBeNull()
    }
    // A reference into another program is refused on its field, never followed.
    const aMilestone = (await create(a, 'program_lead', { programId: a.program.id, recordType: 'progress.milestones', title: 'M', fields: { due_on: '2027-01-01' } })).body.data.createRecord.record
    const dep = await create(a, 'program_lead', { programId: a.program.id, recordType: 'progress.dependencies', title: 'D', fields: { from_record_id: aMilestone.id, to_record_id: bRecord.id } })
    expect(dep.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.fields.to_record_id' })
    const self = await create(a, 'program_lead', { programId: a.program.id, recordType: 'progress.dependencies', title: 'D', fields: { from_record_id: aMilestone.id, to_record_id: aMilestone.id } })
    expect(self.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.fields.to_record_id' })
    expect(await db().programRecord.findUniqueOrThrow({ where: { id: bRecord.id } })).toMatchObject({ title: 'B secret', version: 1 })
  })

  it('answers invalid_input naming each field, and invalid_transition with from and to', async () => {
    const t = await createTenant(db(), 'Invalid')
    const bad = await create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.findings', title: ' ', fields: { kind: 'rumour', dose_mg_per_kg: -3, colour: 'red' } })
    expect(bad.body.data.createRecord.__typename).toBe('InvalidInput')
    expect(bad.body.data.createRecord.issues.map((i: any) => i.field).sort()).toEqual(['input.fields.colour', 'input.fields.dose_mg_per_kg', 'input.fields.kind', 'input.title'])
    const type = await create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.rumours', title: 'x' })
    expect(type.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.recordType' })
    const required = await create(t, 'program_lead', { programId: t.program.id, recordType: 'progress.milestones', title: 'No date' })
    expect(required.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.fields.due_on' })
    const h = (await create(t, 'program_lead', { programId: t.program.id, recordType: 'evidence.hypotheses', title: 'H' })).body.data.createRecord.record
    const cleared = await update(t, 'program_lead', { id: h.id, fields: { confidence: 'certain' } })
    expect(cleared.body.data.updateRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.fields.confidence' })
    const outcome = await decide(t, 'program_lead', { id: h.id, outcome: 'approve' })
    expect(outcome.body.data.decideRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.outcome' })
    await decide(t, 'program_lead', { id: h.id, outcome: 'withdraw' })
    const again = await decide(t, 'program_lead', { id: h.id, outcome: 'support' })
    expect(again.body.data.decideRecord).toMatchObject({ __typename: 'InvalidTransition', code: 'invalid_transition', from: 'withdrawn', to: 'supported' })
    const notId = await update(t, 'program_lead', { id: 'not-an-id', title: 'x' })
    expect(notId.body.data.updateRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.id' })
    expect(await db().programRecord.findUniqueOrThrow({ where: { id: h.id } })).toMatchObject({ status: 'withdrawn', version: 2 })
  })

  it('cites notebook entries, document passages and literature clusters by reference, and never agent-origin text', async () => {
    const t = await createTenant(db(), 'Citations')
    const other = await createTenant(db(), 'Citations other')
    const entry = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-1', title: 'hERG patch clamp', targetRef: 'eln_provider:entry:E-1@abcdef012345' } })
    const doc = await db().document.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceId: entry.id, sourceSystem: 'eln_provider', classification: 'customer_internal', title: 'hERG patch clamp', text: 'IC50 12 µM', contentJson: {}, contentHash: 'h' } })
    const artifact = await db().artifact.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'persona_brief', content: { text: 'twin text' }, agentGenerated: true } })
    const foreign = await db().source.create({ data: { organizationId: other.organization.id, programId: other.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-9', title: 'foreign' } })
    // Literature clusters are what the organisation's literature searches found (the literature connector keeps them).
    await db().literatureCluster.create({ data: { organizationId: t.organization.id, clusterKey: '10.1038/nrd.2016.1', aliases: ['pmid:26888229'], title: 'A review', licence: 'cc_by' } })
    await db().literatureCluster.create({ data: { organizationId: other.organization.id, clusterKey: '10.1038/foreign.1', title: 'Foreign', licence: 'cc_by' } })
    const ok = await call(t, 'scientist', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id citations { kind ref locator title sourceSystem targetRef } history { citations } } } } }`, { i: {
      programId: t.program.id, recordType: 'evidence.findings', title: 'hERG IC50 12 µM', fields: { kind: 'result' },
      citations: [{ kind: 'eln_entry', ref: entry.id }, { kind: 'document_passage', ref: doc.id, locator: 'day 2, note 1' }, { kind: 'literature_cluster', ref: '10.1038/nrd.2016.1' }],
    } })
    expect(ok.body.data.createRecord.record.citations).toEqual([
      { kind: 'eln_entry', ref: entry.id, locator: null, title: 'hERG patch clamp', sourceSystem: 'eln_provider', targetRef: 'eln_provider:entry:E-1@abcdef012345' },
      { kind: 'document_passage', ref: doc.id, locator: 'day 2, note 1', title: 'hERG patch clamp', sourceSystem: 'eln_provider', targetRef: null },
      { kind: 'literature_cluster', ref: '10.1038/nrd.2016.1', locator: null, title: 'A review', sourceSystem: 'literature_search', targetRef: null },
    ])
    expect(ok.body.data.createRecord.record.history[0].citations).toHaveLength(3)
    const cite = (citations: unknown[]) => create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.findings', title: 'F', fields: { kind: 'result' }, citations })
    const agentKind = await cite([{ kind: 'artifact', ref: artifact.id }])
    expect(agentKind.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.kind' })
    expect(agentKind.body.data.createRecord.message).toContain('agent-origin text is never citable')
    const agentAsPassage = await cite([{ kind: 'document_passage', ref: artifact.id, locator: 'p1' }])
    expect(agentAsPassage.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
    const recordAsEntry = await cite([{ kind: 'eln_entry', ref: ok.body.data.createRecord.record.id }])
    expect(recordAsEntry.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
    const foreignEntry = await cite([{ kind: 'eln_entry', ref: foreign.id }])
    expect(foreignEntry.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
    await expectRowsExist(db(), 'literature_clusters', other.organization.id)
    const foreignCluster = await cite([{ kind: 'literature_cluster', ref: '10.1038/foreign.1' }])
    expect(foreignCluster.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
    const unknownCluster = await cite([{ kind: 'literature_cluster', ref: 'pmid:1' }])
    expect(unknownCluster.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
    const byAlias = await cite([{ kind: 'literature_cluster', ref: 'pmid:26888229' }])
    expect(byAlias.body.data.createRecord.record.id).toBeTruthy()
    const noLocator = await cite([{ kind: 'document_passage', ref: doc.id }])
    expect(noLocator.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.locator' })
    expect(await db().recordCitation.count({ where: { organizationId: t.organization.id } })).toBe(4)
  })

  it('keeps the link of records from a connector and names their source system', async () => {
    const t = await createTenant(db(), 'Connector links')
    const entry = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-2', title: 'Dose range finding' } })
    // The notebook sync made the experiment before any record existed: the record adopts it, never a second row.
    const synced = await db().experiment.create({ data: { organizationId: t.organization.id, programId: t.program.id, title: 'Dose range finding', elnSourceId: entry.id } })
    const e = await call(t, 'scientist', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id sourceSystem source { id sourceType sourceSystem } ... on ExperimentRecord { elnSourceId objective } } } } }`,
      { i: { programId: t.program.id, recordType: 'plans.experiments', title: 'DRF in rat', fields: { eln_source_id: entry.id, objective: 'MTD' } } })
    expect(e.body.data.createRecord.record).toMatchObject({ sourceSystem: 'eln_provider', source: { id: entry.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider' }, elnSourceId: entry.id, objective: 'MTD' })
    const row = await db().programRecord.findUniqueOrThrow({ where: { id: e.body.data.createRecord.record.id } })
    expect(row.experimentId).toBe(synced.id)
    expect(await db().experiment.count({ where: { programId: t.program.id } })).toBe(1)
    expect((await db().experiment.findUniqueOrThrow({ where: { id: synced.id } })).title).toBe('DRF in rat')
    const twice = await create(t, 'scientist', { programId: t.program.id, recordType: 'plans.experiments', title: 'Again', fields: { eln_source_id: entry.id } })
    expect(twice.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.fields.eln_source_id' })
    // An experiment written here gets its own experiments row and no source system.
    const own = (await create(t, 'scientist', { programId: t.program.id, recordType: 'plans.experiments', title: 'Solubility screen' })).body.data.createRecord.record
    expect(own.sourceSystem).toBeNull()
    expect(await db().experiment.count({ where: { programId: t.program.id } })).toBe(2)
    const s = await create(t, 'scientist', { programId: t.program.id, recordType: 'evidence.sources', title: 'DRF entry', fields: { source_id: entry.id, source_kind: 'notebook_entry' } })
    expect(s.body.data.createRecord.record).toMatchObject({ sourceSystem: 'eln_provider', fields: { source_id: entry.id, source_kind: 'notebook_entry' } })
  })

  it('reads a program\'s records in cursor pages filtered by type and status', async () => {
    const t = await createTenant(db(), 'Pages')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.push((await create(t, 'program_lead', { programId: t.program.id, recordType: 'evidence.questions', title: `Q${i}` })).body.data.createRecord.record.id)
    await create(t, 'program_lead', { programId: t.program.id, recordType: 'evidence.gaps', title: 'G', fields: { severity: 'low' } })
    await decide(t, 'program_lead', { id: ids[0], outcome: 'answer' })
    const q = `query($p: ID!, $type: String, $status: String, $after: String) { program(id: $p) { records(type: $type, status: $status, first: 2, after: $after) { nodes { title status } pageInfo { endCursor hasNextPage } } } }`
    const seen: string[] = []
    let after: string | null = null
    for (;;) {
      const page: any = (await call(t, 'viewer', q, { p: t.program.id, type: 'evidence.questions', status: 'open', after })).body.data.program.records
      seen.push(...page.nodes.map((n: any) => n.title))
      if (!page.pageInfo.hasNextPage) break
      after = page.pageInfo.endCursor
    }
    expect(seen).toEqual(['Q4', 'Q3', 'Q2', 'Q1'])
    const all = await call(t, 'viewer', `query($p: ID!) { program(id: $p) { records(first: 100) { nodes { recordType } } } }`, { p: t.program.id })
    expect(all.body.data.program.records.nodes).toHaveLength(6)
    const forged = await call(t, 'viewer', q, { p: t.program.id, type: 'evidence.questions', after: 'bm90LWEtY3Vyc29y' })
    expect(forged.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
    const badType = await call(t, 'viewer', q, { p: t.program.id, type: 'evidence.rumours' })
    expect(badType.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'type' })
  })

  it("shows the footer of a change applied from a twin's proposal: 'Proposed by <Name>'s twin (agent); decided by <Name>'", async () => {
    const t = await createTenant(db(), 'Footer')
    const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
    const { recordId } = await applyRecordChange(lead, { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title: 'Proposed by a twin' },
      { provenance: { proposalId: randomUUID(), proposedByUserId: t.users.scientist.id, proposedByTwinId: randomUUID() } })
    const r = await call(t, 'viewer', `query($id: ID!) { record(id: $id) { footer history { footer proposedBy { name } decidedBy { name } } } }`, { id: recordId })
    const footer = `Proposed by ${t.users.scientist.name}'s twin (agent); decided by ${t.users.program_lead.name}`
    expect(r.body.data.record).toEqual({ footer, history: [{ footer, proposedBy: { name: t.users.scientist.name }, decidedBy: { name: t.users.program_lead.name } }] })
    // A later change the lead makes themselves carries no footer; the first version keeps its own.
    await update(t, 'program_lead', { id: recordId, body: 'Edited by hand.' })
    const after = await call(t, 'viewer', `query($id: ID!) { record(id: $id) { footer history { version footer } } }`, { id: recordId })
    expect(after.body.data.record).toEqual({ footer: null, history: [{ version: 2, footer: null }, { version: 1, footer }] })
  })

  it('resolves a record as a federation entity by id, through the interface or its own type, only for a reader', async () => {
    const a = await createTenant(db(), 'Entities A')
    const b = await createTenant(db(), 'Entities B')
    const mine = (await create(a, 'program_lead', { programId: a.program.id, recordType: 'plans.plans', title: 'Plan', fields: { plan_kind: 'cmc' } })).body.data.createRecord.record
    const theirs = (await create(b, 'program_lead', { programId: b.program.id, recordType: 'plans.plans', title: 'Their plan', fields: { plan_kind: 'cmc' } })).body.data.createRecord.record
    const asUser = async (userId: string, organizationId: string, representations: unknown[]) => gql(stack.current.subgraphUrls.workbench,
      'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on ProgramRecord { id title status } } }', { r: representations }, undefined,
      { [INTERNAL_HEADER]: await signInternalToken({ userId, organizationId, requestId: randomUUID() }) })
    const r = await asUser(a.users.viewer.id, a.organization.id, [
      { __typename: 'ProgramRecord', id: mine.id }, { __typename: 'PlanRecord', id: mine.id }, { __typename: 'ProgramRecord', id: theirs.id },
    ])
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data._entities).toEqual([
      { __typename: 'PlanRecord', id: mine.id, title: 'Plan', status: 'draft' }, { __typename: 'PlanRecord', id: mine.id, title: 'Plan', status: 'draft' }, null,
    ])
  })

  it('applies nothing when the write fails part-way: no record, no experiments row, no citation, no audit row', async () => {
    const t = await createTenant(db(), 'Half')
    const entry = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-3', title: 'Entry' } })
    const before = await db().auditEvent.count({ where: { programId: t.program.id } })
    await db().$executeRawUnsafe(`CREATE FUNCTION refuse_record_version() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`)
    await db().$executeRawUnsafe('CREATE TRIGGER refuse_record_version BEFORE INSERT ON program_record_versions FOR EACH ROW EXECUTE FUNCTION refuse_record_version()')
    try {
      const r = await create(t, 'scientist', { programId: t.program.id, recordType: 'plans.experiments', title: 'E', fields: { eln_source_id: entry.id }, citations: [{ kind: 'eln_entry', ref: entry.id }] })
      expect(r.body.errors?.[0].extensions?.code).toBe('INTERNAL_SERVER_ERROR')
    } finally {
      await db().$executeRawUnsafe('DROP TRIGGER refuse_record_version ON program_record_versions')
      await db().$executeRawUnsafe('DROP FUNCTION refuse_record_version()')
    }
    expect(await db().programRecord.count({ where: { programId: t.program.id } })).toBe(0)
    expect(await db().experiment.count({ where: { programId: t.program.id } })).toBe(0)
    expect(await db().recordCitation.count({ where: { organizationId: t.organization.id } })).toBe(0)
    expect(await db().auditEvent.count({ where: { programId: t.program.id } })).toBe(before)
  })

  it('lets exactly one of two simultaneous decisions on a record win; the other is refused with invalid_transition', async () => {
    const t = await createTenant(db(), 'Race')
    const h = (await create(t, 'program_lead', { programId: t.program.id, recordType: 'evidence.hypotheses', title: 'H' })).body.data.createRecord.record
    const [x, y] = await Promise.all([decide(t, 'program_lead', { id: h.id, outcome: 'withdraw' }), decide(t, 'program_owner', { id: h.id, outcome: 'withdraw' })])
    const names = [x.body.data.decideRecord.__typename, y.body.data.decideRecord.__typename].sort()
    expect(names).toEqual(['InvalidTransition', 'MutationDecideRecordSuccess'])
    expect(await db().programRecord.findUniqueOrThrow({ where: { id: h.id } })).toMatchObject({ status: 'withdrawn', version: 2 })
    expect(await db().auditEvent.count({ where: { targetId: h.id, action: 'hypothesis.decision' } })).toBe(1)
  })
})
