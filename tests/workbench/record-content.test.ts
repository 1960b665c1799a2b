// A record's content and what the caller may do, through the gateway (issue 34, items 4 and 5): each typed field with
// its label and its value in words, citations resolved to what they name with their links, what each version changed,
// a program's records by type with status filters, search and cursor pages, and the viewerCan… fields agreeing with
// the mutations they stand for, persona by persona.
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, createTwoOrganizations, PROGRAM_PERSONA_KEYS, type PersonaKey, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const ERR = `__typename ... on Error { code message field }`

async function call(t: Tenant, persona: PersonaKey, query: string, variables: Record<string, unknown> = {}) {
  return gql(url(), query, variables, await t.token(persona))
}
async function create(t: Tenant, persona: PersonaKey, input: Record<string, unknown>): Promise<string> {
  const r = await call(t, persona, `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`, { i: { programId: t.program.id, ...input } })
  const id = r.body.data?.createRecord?.record?.id
  if (!id) throw new Error(`create failed: ${JSON.stringify(r.body)}`)
  return id
}

const CONTENT = `query($id: ID!) { record(id: $id) {
  title body status statusLabel
  content { name label kind value recordId href }
  citations { kind title place href sourceSystem documentVersion }
  history { version change changes { label before after } }
} }`

describe('a record with its content', () => {
  it('reads each field with its label and its value in words, citations resolved with their links, and what each version changed', async () => {
    const t = await createTenant(db(), 'Content')
    const entry = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'E-1', title: 'hERG patch clamp', url: 'https://notebook.example/entries/E-1' } })
    const sop = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'sop_version', sourceSystem: 'qms_provider', externalId: 'SOP-7@3', title: 'SOP-7 Dose formulation, version 3' } })
    const doc = await db().document.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceId: entry.id, sourceSystem: 'eln_provider', classification: 'customer_internal', title: 'hERG patch clamp', text: 'IC50 12 µM', contentJson: {}, contentHash: 'h', version: 2 } })
    await db().literatureCluster.create({ data: { organizationId: t.organization.id, clusterKey: '10.1038/nrd.2016.1', title: 'Safety pharmacology review', licence: 'cc_by' } })

    const milestone = await create(t, 'program_lead', { recordType: 'progress.milestones', title: 'IND filed', fields: { due_on: '2027-06-30', owner_user_id: t.users.scientist.id } })
    const approval = await create(t, 'program_lead', { recordType: 'progress.approvals', title: 'Approve the IND plan', fields: { target_record_id: milestone } })
    const finding = await create(t, 'program_lead', {
      recordType: 'evidence.findings', title: 'QT prolongation at the high dose', body: 'Seen in 3 of 4 dogs; <5% at 10 mg/kg.',
      fields: { kind: 'oos_candidate', species: 'dog', dose_mg_per_kg: 30 },
      citations: [
        { kind: 'eln_entry', ref: entry.id }, { kind: 'sop_version', ref: sop.id },
        { kind: 'literature_cluster', ref: '10.1038/nrd.2016.1' }, { kind: 'document_passage', ref: doc.id, locator: 'table=0' },
      ],
    })

    const read = (await call(t, 'viewer', CONTENT, { id: finding })).body.data.record
    expect(read.statusLabel).toBe('Draft')
    expect(read.body).toBe('Seen in 3 of 4 dogs; <5% at 10 mg/kg.')
    expect(read.content).toEqual([
      { name: 'kind', label: 'Kind of finding', kind: 'enum', value: 'OOS candidate', recordId: null, href: null },
      { name: 'species', label: 'Species', kind: 'text', value: 'dog', recordId: null, href: null },
      { name: 'dose_mg_per_kg', label: 'Dose', kind: 'number', value: '30 mg/kg', recordId: null, href: null },
      { name: 'summary', label: 'Summary', kind: 'text', value: null, recordId: null, href: null },
    ])
    expect(read.citations).toEqual([
      { kind: 'eln_entry', title: 'hERG patch clamp', place: null, href: 'https://notebook.example/entries/E-1', sourceSystem: 'eln_provider', documentVersion: null },
      { kind: 'sop_version', title: 'SOP-7 Dose formulation, version 3', place: null, href: null, sourceSystem: 'qms_provider', documentVersion: null },
      { kind: 'literature_cluster', title: 'Safety pharmacology review', place: null, href: 'https://doi.org/10.1038/nrd.2016.1', sourceSystem: 'literature_search', documentVersion: null },
      { kind: 'document_passage', title: 'hERG patch clamp', place: 'Table 1', href: 'https://notebook.example/entries/E-1', sourceSystem: 'eln_provider', documentVersion: 2 },
    ])

    const links = (await call(t, 'viewer', CONTENT, { id: approval })).body.data.record.content
    expect(links.find((f: { name: string }) => f.name === 'target_record_id')).toEqual({ name: 'target_record_id', label: 'Record to approve', kind: 'record', value: 'IND filed', recordId: milestone, href: null })
    const owner = (await call(t, 'viewer', CONTENT, { id: milestone })).body.data.record.content
    expect(owner.find((f: { name: string }) => f.name === 'owner_user_id')).toMatchObject({ label: 'Owner', value: t.users.scientist.name })

    const updated = await call(t, 'program_lead', `mutation($i: UpdateRecordInput!) { updateRecord(input: $i) { ${ERR} } }`,
      { i: { id: finding, title: 'QT prolongation at 30 mg/kg', body: 'Seen in 4 of 4 dogs.', fields: { species: 'beagle dog', summary: 'QTc +25 ms' } } })
    expect(updated.body.data.updateRecord.__typename).toBe('MutationUpdateRecordSuccess')
    await call(t, 'program_lead', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${ERR} } }`, { i: { id: finding, outcome: 'confirm' } })
    const history = (await call(t, 'viewer', CONTENT, { id: finding })).body.data.record.history
    expect(history.map((v: { version: number }) => v.version)).toEqual([3, 2, 1])
    expect(history[2].changes).toEqual([])
    expect(history[1].changes).toEqual([
      { label: 'Title', before: 'QT prolongation at the high dose', after: 'QT prolongation at 30 mg/kg' },
      { label: 'Species', before: 'dog', after: 'beagle dog' },
      { label: 'Summary', before: null, after: 'QTc +25 ms' },
      { label: 'Content', before: 'Seen in 3 of 4 dogs; <5% at 10 mg/kg.', after: 'Seen in 4 of 4 dogs.' },
    ])
    expect(history[0].changes).toEqual([{ label: 'Status', before: 'Draft', after: 'Confirmed' }])
  })
})

const LIST = `query($slug: String!, $type: String, $status: String, $search: String, $after: String, $first: Int) {
  program(slug: $slug) {
    recordTypes(product: "evidence") { key name statuses { key label } }
    records(type: $type, status: $status, search: $search, first: $first, after: $after) { nodes { id title status } pageInfo { hasNextPage endCursor } }
  }
}`

describe("a program's records by type", () => {
  it('lists one type with a status filter, search in title and body, and cursor pages, never another organisation\'s', async () => {
    const { a: t, b: other } = await createTwoOrganizations(db())
    for (let i = 1; i <= 5; i++) await create(t, 'program_lead', { recordType: 'evidence.findings', title: `Liver finding ${i}`, body: i === 3 ? 'ALT rose 3-fold' : '', fields: { kind: 'observation' } })
    const gap = await create(t, 'program_lead', { recordType: 'evidence.gaps', title: 'No liver data in dogs', fields: { severity: 'high' } })
    await create(other, 'program_lead', { recordType: 'evidence.findings', title: 'Liver finding elsewhere', fields: { kind: 'observation' } })
    const confirmed = (await call(t, 'program_lead', LIST, { slug: t.program.slug, type: 'evidence.findings' })).body.data.program.records.nodes[0]
    await call(t, 'program_lead', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${ERR} } }`, { i: { id: confirmed.id, outcome: 'confirm' } })

    const list = async (vars: Record<string, unknown>) => (await call(t, 'scientist', LIST, { slug: t.program.slug, ...vars })).body
    const first = await list({ type: 'evidence.findings', first: 2 })
    expect(first.data.program.recordTypes.map((x: { key: string }) => x.key)).toEqual(['evidence.hypotheses', 'evidence.findings', 'evidence.questions', 'evidence.gaps', 'evidence.sources'])
    expect(first.data.program.recordTypes[1]).toEqual({ key: 'evidence.findings', name: 'Findings', statuses: [{ key: 'draft', label: 'Draft' }, { key: 'confirmed', label: 'Confirmed' }, { key: 'retracted', label: 'Retracted' }] })
    const titles: string[] = first.data.program.records.nodes.map((n: { title: string }) => n.title)
    let page = first.data.program.records
    while (page.pageInfo.hasNextPage) {
      page = (await list({ type: 'evidence.findings', first: 2, after: page.pageInfo.endCursor })).data.program.records
      titles.push(...page.nodes.map((n: { title: string }) => n.title))
    }
    expect(titles).toEqual(['Liver finding 5', 'Liver finding 4', 'Liver finding 3', 'Liver finding 2', 'Liver finding 1'])

    expect((await list({ type: 'evidence.findings', status: 'confirmed' })).data.program.records.nodes.map((n: { id: string }) => n.id)).toEqual([confirmed.id])
    expect((await list({ type: 'evidence.findings', search: 'alt ROSE' })).data.program.records.nodes.map((n: { title: string }) => n.title)).toEqual(['Liver finding 3'])
    expect((await list({ search: 'liver' })).data.program.records.nodes.map((n: { title: string }) => n.title)).toEqual(['No liver data in dogs', 'Liver finding 5', 'Liver finding 4', 'Liver finding 3', 'Liver finding 2', 'Liver finding 1'])
    expect((await list({ search: '%' })).data.program.records.nodes).toEqual([])
    const percent = await create(t, 'program_lead', { recordType: 'evidence.findings', title: 'Body weight fell 10% in males', fields: { kind: 'observation' } })
    expect((await list({ search: '10%' })).data.program.records.nodes.map((n: { id: string }) => n.id)).toEqual([percent])
    const long = await list({ search: 'x'.repeat(201) })
    expect(long.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT' })
    expect(gap).toBeTruthy()
  })
})

const PERMS = `query($id: ID!) { record(id: $id) { status viewerCanUpdate viewerCanDecide viewerOutcomes } }`

describe('what the caller may do, asked before they try', () => {
  it('gives each persona viewerCanUpdate, viewerCanDecide and viewerOutcomes that agree with updateRecord and decideRecord', async () => {
    const t = await createTenant(db(), 'Agree')
    for (const recordType of ['evidence.hypotheses', 'evidence.findings', 'plans.plans', 'review.findings'] as const) {
      const fields = { 'evidence.hypotheses': { confidence: 'low' }, 'evidence.findings': { kind: 'result' }, 'plans.plans': { plan_kind: 'clinical' }, 'review.findings': { severity: 'minor' } }[recordType]
      for (const persona of PROGRAM_PERSONA_KEYS) {
        const id = await create(t, 'program_owner', { recordType, title: `${recordType} for ${persona}`, fields })
        const asked = (await call(t, persona, PERMS, { id })).body.data.record
        const updated = await call(t, persona, `mutation($i: UpdateRecordInput!) { updateRecord(input: $i) { ${ERR} } }`, { i: { id, title: `${recordType} for ${persona}, changed` } })
        const didUpdate = updated.body.data?.updateRecord?.__typename === 'MutationUpdateRecordSuccess'
        expect({ recordType, persona, update: asked.viewerCanUpdate }).toEqual({ recordType, persona, update: didUpdate })
        if (!didUpdate) expect(updated.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
        // Every transition from the status: the ones offered succeed, the others are refused FORBIDDEN.
        const machineOutcomes = { 'evidence.hypotheses': ['support', 'refute', 'withdraw'], 'evidence.findings': ['confirm', 'retract'], 'plans.plans': ['approve', 'withdraw'], 'review.findings': ['resolve', 'dismiss'] }[recordType]
        expect(asked.viewerCanDecide).toBe(asked.viewerOutcomes.length > 0)
        expect(asked.viewerOutcomes.every((o: string) => machineOutcomes.includes(o))).toBe(true)
        const outcome = machineOutcomes[0]
        const decided = await call(t, persona, `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${ERR} } }`, { i: { id, outcome } })
        const didDecide = decided.body.data?.decideRecord?.__typename === 'MutationDecideRecordSuccess'
        expect({ recordType, persona, decide: asked.viewerOutcomes.includes(outcome) }).toEqual({ recordType, persona, decide: didDecide })
        if (!didDecide) expect(decided.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
        const after = (await call(t, persona, PERMS, { id })).body.data.record
        if (didDecide) expect(after.viewerOutcomes).not.toContain(outcome) // a decided record offers only what its new status allows
      }
    }
  })

  it('gives each persona viewerCanCreate per record type that agrees with createRecord', async () => {
    const t = await createTenant(db(), 'Create')
    for (const persona of PROGRAM_PERSONA_KEYS) {
      const types = (await call(t, persona, `query($s: String!) { program(slug: $s) { recordTypes { key viewerCanCreate } } }`, { s: t.program.slug })).body.data.program.recordTypes
      for (const { key, viewerCanCreate } of types.filter((x: { key: string }) => ['evidence.questions', 'progress.open_items', 'review.deviations'].includes(x.key))) {
        const r = await call(t, persona, `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} } }`, { i: { programId: t.program.id, recordType: key, title: `${key} by ${persona}` } })
        expect({ persona, key, create: viewerCanCreate }).toEqual({ persona, key, create: r.body.data?.createRecord?.__typename === 'MutationCreateRecordSuccess' })
      }
    }
  })

  it("gives each persona a stage gate's viewerCan… fields and a reason that agree with mark ready, review and close", async () => {
    const t = await createTenant(db(), 'Gate')
    const stages = await Promise.all(['discovery', 'preclinical'].map((key, position) =>
      db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })))
    const opened = await call(t, 'program_owner', `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { ${ERR} ... on MutationOpenStageGateSuccess { gate { id } } } }`,
      { i: { programId: t.program.id, stageId: stages[0].id, nextStageId: stages[1].id, requiredRecords: [{ kind: 'critical_milestones' }] } })
    const gateId = opened.body.data.openStageGate.gate.id
    const GATE = `query($id: ID!) { stageGate(id: $id) { status viewerCanMarkReady viewerCanReview viewerCanClose viewerCannotReason } }`
    for (const persona of PROGRAM_PERSONA_KEYS) {
      const asked = (await call(t, persona, GATE, { id: gateId })).body.data.stageGate
      expect(asked.viewerCanReview).toBe(false)
      expect(asked.viewerCanClose).toBe(false)
      // The gate misses its milestones: a person who may mark it ready is told what is missing, anyone else FORBIDDEN.
      const r = await call(t, persona, `mutation($id: ID!) { markStageGateReady(id: $id) { ${ERR} } }`, { id: gateId })
      const allowed = r.body.data?.markStageGateReady?.__typename === 'GateIncomplete'
      if (!allowed) expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
      expect({ persona, markReady: asked.viewerCanMarkReady }).toEqual({ persona, markReady: allowed })
      expect(asked.viewerCannotReason === null).toBe(allowed)
    }
    expect((await call(t, 'scientist', GATE, { id: gateId })).body.data.stageGate.viewerCannotReason).toBe('Marking a gate ready for review is for the program lead, the owner or the manufacturing specialist.')
  })

  it('tells a viewer they have no twin memory, as agentMemory itself refuses them, and every other persona that they have one', async () => {
    const t = await createTenant(db(), 'Memory')
    for (const persona of PROGRAM_PERSONA_KEYS) {
      const asked = (await call(t, persona, `query($s: String!) { program(slug: $s) { viewerHasTwinMemory } }`, { s: t.program.slug })).body.data.program.viewerHasTwinMemory
      const read = await call(t, persona, `query($p: ID!) { agentMemory(programId: $p) { nodes { id } } }`, { p: t.program.id })
      const allowed = !read.body.errors?.length
      expect({ persona, asked }).toEqual({ persona, asked: allowed })
      expect(asked).toBe(persona !== 'viewer')
    }
  })
})

describe("a twin's proposal: viewerCanDecide", () => {
  it('agrees with decideProposal for each persona: the twin\'s person where their keys allow, an approver, and nobody else', async () => {
    const { contextForUser } = await import('../../core/jobs')
    const { applyRecordChange } = await import('../../domain/records')
    const { fileProposal } = await import('../../domain/proposals')
    const t = await createTenant(db(), 'Proposal')
    const owner = await contextForUser(db(), t.users.program_owner.id, t.organization.id)
    const deciders: string[] = []
    for (const [recordType, fields, change] of [
      ['evidence.hypotheses', { confidence: 'low' }, { confidence: 'high' }],
      ['evidence.findings', { kind: 'observation' }, { species: 'rat' }],
    ] as const) {
      for (const persona of PROGRAM_PERSONA_KEYS) {
        const record = await applyRecordChange(owner, { kind: 'create', programId: t.program.id, recordType, title: `${recordType} for ${persona}`, fields })
        // The scientist's twin proposes; each persona is asked, then tries to decline.
        const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'running', twinId: crypto.randomUUID(), initiatedBy: 'user', startedByUserId: t.users.scientist.id } })
        const twin = await contextForUser(db(), t.users.scientist.id, t.organization.id, { twinId: run.twinId! })
        const filed = await fileProposal(twin, { runId: run.id, change: { kind: 'update', recordId: record.recordId, fields: change }, basisRecordIds: [record.recordId], draft: 'The new data say so.', tool: 'evidence.propose_hypothesis_change' })
        const asked = (await call(t, persona, `query($id: ID!) { proposal(id: $id) { viewerCanDecide } }`, { id: filed.proposalId })).body.data?.proposal
        const r = await call(t, persona, `mutation($id: ID!) { decideProposal(id: $id, decision: DECLINE, reasonCode: not_needed, reason: "Not now") { ${ERR} } }`, { id: filed.proposalId })
        const decided = r.body.data?.decideProposal?.__typename === 'MutationDecideProposalSuccess'
        expect({ recordType, persona, asked: asked?.viewerCanDecide ?? false }).toEqual({ recordType, persona, asked: decided })
        if (decided) expect((await call(t, persona, `query($id: ID!) { proposal(id: $id) { viewerCanDecide } }`, { id: filed.proposalId })).body.data.proposal.viewerCanDecide).toBe(false)
        if (decided) deciders.push(`${recordType} ${persona}`)
      }
    }
    // The twin's person decides their finding; a hypothesis needs its approval key, which the owner and lead hold.
    expect(deciders).toContain('evidence.findings scientist')
    expect(deciders).toContain('evidence.hypotheses program_owner')
    expect(deciders).not.toContain('evidence.findings viewer')
  })
})
