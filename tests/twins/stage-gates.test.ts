// Stage gates through the gateway (issue 18): open -> records decided (the readiness stream live over graphql-ws) ->
// ready -> review signed -> close signed by another person -> the program's stage moved, footer as specified; the stage
// refused everywhere else (stage_via_gate, in code and in the database); every error code, the transition table,
// supersede, two people closing at once, readiness briefs and notifications, and isolation.
import { describe, expect, it } from 'vitest'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { addMember, createProgram, createTenant, createTwoOrganizations, createUser, expectRowsExist, type Tenant } from '../helpers/factories'
import { refreshStageReadiness } from '../../domain/gates'
import { FIXED_PHRASES } from '../../core/text'
import { printSubgraphs } from '../../subgraphs/supergraph'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
type Persona = Parameters<Tenant['token']>[0]

const ERR = `__typename ... on Error { code message field } ... on InvalidInput { issues { field message } }`
const GERR = `${ERR} ... on InvalidTransition { from to }`
const GATE = `id version status card present total footer supersedesId stage { key } nextStage { key }
  requiredRecords { key kind label present missing found }
  reviewSignature { printedName meaning manifestation } closeSignature { printedName meaning manifestation }`

async function call(t: Tenant, persona: Persona, query: string, variables: Record<string, unknown> = {}) {
  const r = await gql(url(), query, variables, await t.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}

async function withStages(t: { program: { id: string; organizationId: string } }) {
  const rows = await Promise.all(['discovery', 'preclinical', 'clinical'].map((key, position) =>
    db().programStage.create({ data: { organizationId: t.program.organizationId, programId: t.program.id, key, name: key[0].toUpperCase() + key.slice(1), position } })))
  return { discovery: rows[0], preclinical: rows[1], clinical: rows[2] }
}

async function finding(t: Tenant, title: string) {
  const d = await call(t, 'program_owner', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`,
    { i: { programId: t.program.id, recordType: 'evidence.findings', title, fields: { kind: 'result', species: 'rat', dose_mg_per_kg: 30 } } })
  return d.createRecord.record.id as string
}
const confirm = (t: Tenant, id: string) =>
  call(t, 'program_owner', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${GERR} ... on MutationDecideRecordSuccess { record { status } } } }`, { i: { id, outcome: 'confirm' } })

const open = (t: Tenant, persona: Persona, input: Record<string, unknown>) =>
  call(t, persona, `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { ${GERR} ... on MutationOpenStageGateSuccess { gate { ${GATE} } } } }`, { i: input }).then((d) => d.openStageGate)
const ready = (t: Tenant, persona: Persona, id: string) =>
  call(t, persona, `mutation($id: ID!) { markStageGateReady(id: $id) { ${GERR} ... on GateIncomplete { missing } ... on MutationMarkStageGateReadySuccess { gate { ${GATE} } } } }`, { id }).then((d) => d.markStageGateReady)
const review = (t: Tenant, persona: Persona, id: string, meaning = 'review') =>
  call(t, persona, `mutation($id: ID!, $m: StageGateSignatureMeaning!) { reviewStageGate(id: $id, signature: { meaning: $m }) { ${GERR} ... on MutationReviewStageGateSuccess { gate { ${GATE} } } } }`, { id, m: meaning }).then((d) => d.reviewStageGate)
const close = (t: Tenant, persona: Persona, id: string, meaning = 'approval') =>
  call(t, persona, `mutation($id: ID!, $m: StageGateSignatureMeaning!) { closeStageGate(id: $id, signature: { meaning: $m }) { ${GERR} ... on MutationCloseStageGateSuccess { gate { ${GATE} } } } }`, { id, m: meaning }).then((d) => d.closeStageGate)
const reopen = (t: Tenant, persona: Persona, id: string) =>
  call(t, persona, `mutation($id: ID!) { reopenStageGate(id: $id, reason: "one more study") { ${GERR} ... on MutationReopenStageGateSuccess { gate { ${GATE} } } } }`, { id }).then((d) => d.reopenStageGate)
const supersede = (t: Tenant, persona: Persona, id: string, requiredRecords?: unknown[]) =>
  call(t, persona, `mutation($id: ID!, $r: [RequiredRecordInput!]) { supersedeStageGate(id: $id, reason: "scope changed", requiredRecords: $r) { ${GERR} ... on MutationSupersedeStageGateSuccess { gate { ${GATE} } superseded { ${GATE} } } } }`, { id, r: requiredRecords ?? null }).then((d) => d.supersedeStageGate)

const counts = async (gateId: string) => ({
  signatures: await db().signature.count({ where: { targetType: 'stage_gate', targetId: gateId } }),
  approvals: await db().approval.count({ where: { targetType: 'stage_gate', targetId: gateId } }),
})

/** A tenant whose program has a stage plan and one open gate requiring `n` findings, each to be confirmed. */
async function gateWith(n: number, name = 'Gate') {
  const t = await createTenant(db(), name)
  const stages = await withStages(t)
  const records = [] as string[]
  for (let i = 0; i < n; i++) records.push(await finding(t, `Finding ${i + 1}`))
  const opened = await open(t, 'program_lead', {
    programId: t.program.id, stageId: stages.discovery.id, nextStageId: stages.preclinical.id,
    requiredRecords: records.map((recordId) => ({ kind: 'decided_record', recordType: 'evidence.findings', recordId })),
  })
  expect(opened.__typename).toBe('MutationOpenStageGateSuccess')
  return { t, stages, records, gate: opened.gate as { id: string; card: string } }
}

describe('a stage gate through the gateway', () => {
  it('walks open -> records decided (1 of 3, 2 of 3, 3 of 3 live over graphql-ws) -> ready -> review signed -> close signed by another person -> the stage moved, with the footer', async () => {
    const { t, stages, records, gate } = await gateWith(3, 'Walk')
    expect(gate.card).toBe('0 of 3 required records present')

    const client = wsClient(url(), await t.token('scientist'))
    try {
      const sub = collect(client, `subscription { stageGateReadinessChanged(programId: "${t.program.id}") { id status card present total } }`, 3, 20_000)
      await waitFor(() => stack.current.subgraphs.twins.stageGateEvents.subscriberCount >= 1, 10_000, 'the subscriber')
      for (const id of records) {
        const before = sub.received.length
        expect((await confirm(t, id)).decideRecord.record.status).toBe('confirmed')
        await waitFor(() => sub.received.length > before, 10_000, 'the readiness event')
      }
      await sub.finished
      expect(sub.received.map((m) => m.data?.stageGateReadinessChanged.card)).toEqual([
        '1 of 3 required records present', '2 of 3 required records present', '3 of 3 required records present',
      ])
      sub.unsubscribe()
    } finally { await client.dispose() }

    const r = await ready(t, 'manufacturing_specialist', gate.id)
    expect(r.gate).toMatchObject({ status: 'ready', card: '3 of 3 required records present' })
    // The people who can review it get a stage inbox item and a stage_ready notification.
    const reviewers = [t.users.program_owner.id, t.users.program_lead.id, t.users.quality_reviewer.id].sort()
    expect((await db().inboxItem.findMany({ where: { sourceId: gate.id, kind: 'stage' } })).map((i) => i.userId).sort()).toEqual(reviewers)
    expect((await db().notification.findMany({ where: { kind: 'stage_ready', programId: t.program.id } })).map((n) => n.userId).sort()).toEqual(reviewers)

    const rv = await review(t, 'quality_reviewer', gate.id)
    expect(rv.gate.status).toBe('reviewed')
    expect(rv.gate.reviewSignature).toMatchObject({ printedName: t.users.quality_reviewer.name, meaning: 'review' })
    expect(rv.gate.reviewSignature.manifestation).toMatch(new RegExp(`^${t.users.quality_reviewer.name}, \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, review$`))
    // The stage items closed with the review; those who can close the gate (not its reviewer: same_signer) now have a
    // signature item, which the close resolves (issue 29, item 6).
    const waiting = await db().inboxItem.findMany({ where: { sourceId: gate.id, status: 'open' } })
    expect(waiting.map((i) => `${i.kind} ${i.userId}`).sort()).toEqual([`signature ${t.users.program_owner.id}`, `signature ${t.users.program_lead.id}`].sort())

    const c = await close(t, 'program_owner', gate.id)
    expect(await db().inboxItem.count({ where: { sourceId: gate.id, status: 'open' } })).toBe(0)
    expect(await db().inboxItem.count({ where: { sourceId: gate.id, kind: 'signature', status: 'done', doneBy: t.users.program_owner.id } })).toBe(2)
    expect(c.gate).toMatchObject({ status: 'closed', closeSignature: { printedName: t.users.program_owner.name, meaning: 'approval' } })
    expect(c.gate.footer).toBe(`Stage gate reviewed by ${t.users.quality_reviewer.name} (reviewed) and closed by ${t.users.program_owner.name} (approved)`)
    const program = await call(t, 'viewer', `query($id: ID!) { program(id: $id) { currentStage { key } } }`, { id: t.program.id })
    expect(program.program.currentStage.key).toBe('preclinical')
    expect((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).currentStageId).toBe(stages.preclinical.id)
    expect(await counts(gate.id)).toEqual({ signatures: 2, approvals: 1 })
    const actions = (await db().auditEvent.findMany({ where: { targetId: gate.id }, orderBy: { entrySeq: 'asc' } })).map((a) => a.action)
    expect(actions).toEqual(['stage_gate.open', 'stage_gate.ready', 'stage_gate.review', 'approval.create', 'stage_gate.close'])

    // A direct attempt to change the stage answers stage_via_gate, in the API and in the database.
    const direct = await call(t, 'program_owner', `mutation($p: ID!, $s: JSON!) { updateProgramSettings(programId: $p, settings: $s) { ${ERR} } }`,
      { p: t.program.id, s: { current_stage_id: stages.clinical.id } })
    expect(direct.updateProgramSettings).toMatchObject({ __typename: 'StageViaGate', code: 'stage_via_gate', field: 'settings.current_stage_id' })
    await expect(db().$executeRaw`UPDATE programs SET current_stage_id = ${stages.clinical.id}::uuid WHERE id = ${t.program.id}::uuid`).rejects.toThrow(/stage_via_gate/)
    // Even with the close operation's setting, a gate that is not closed and signed for that stage does not let it through.
    await expect(db().$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('app.stage_gate_close', ${gate.id}, true)`
      await tx.$executeRaw`UPDATE programs SET current_stage_id = ${stages.clinical.id}::uuid WHERE id = ${t.program.id}::uuid`
    })).rejects.toThrow(/stage_via_gate/)
    expect((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).currentStageId).toBe(stages.preclinical.id)
  })

  it("updates other program settings, and describes program.settings.update as 'Update program settings'", async () => {
    const t = await createTenant(db(), 'Settings')
    const d = await call(t, 'program_lead', `mutation($p: ID!, $s: JSON!) { updateProgramSettings(programId: $p, settings: $s) { ${ERR} ... on MutationUpdateProgramSettingsSuccess { program { settings } } } }`,
      { p: t.program.id, s: { gate_critical_milestone_tag: 'gate-critical-2' } })
    expect(d.updateProgramSettings.program.settings.gate_critical_milestone_tag).toBe('gate-critical-2')
    expect(printSubgraphs().workbench).toContain('Update program settings (program.settings.update)')
  })

  it('refuses marking ready with gate_incomplete naming what is missing, writing nothing', async () => {
    const { t, gate, records } = await gateWith(2, 'Incomplete')
    await confirm(t, records[0])
    const r = await ready(t, 'program_lead', gate.id)
    expect(r).toMatchObject({ __typename: 'GateIncomplete', code: 'gate_incomplete' })
    expect(r.message).toContain('1 of 2 required records present')
    expect(r.missing).toEqual([`evidence.findings record ${records[1]}: not decided (confirmed)`])
    expect((await db().stageGate.findUniqueOrThrow({ where: { id: gate.id } })).status).toBe('open')
    expect(await db().inboxItem.count({ where: { sourceId: gate.id } })).toBe(0)
  })

  it('refuses a review without review.stage_reviews.approve (reviewer_role_required) and a close by the reviewer (same_signer), recording no signature', async () => {
    const { t, gate, records } = await gateWith(1, 'Signers')
    await confirm(t, records[0])
    await ready(t, 'program_lead', gate.id)
    for (const persona of ['scientist', 'manufacturing_specialist', 'viewer'] as const) {
      expect(await review(t, persona, gate.id)).toMatchObject({ __typename: 'ReviewerRoleRequired', code: 'reviewer_role_required' })
    }
    expect(await review(t, 'program_lead', gate.id, 'approval')).toMatchObject({ __typename: 'InvalidInput', field: 'signature.meaning' })
    expect(await counts(gate.id)).toEqual({ signatures: 0, approvals: 0 })
    expect((await review(t, 'program_lead', gate.id)).gate.status).toBe('reviewed')
    expect(await close(t, 'program_lead', gate.id)).toMatchObject({ __typename: 'SameSigner', code: 'same_signer' })
    // close needs progress.stages.approve: a quality reviewer may review but not close.
    const q = await gql(url(), `mutation($id: ID!) { closeStageGate(id: $id, signature: { meaning: approval }) { __typename } }`, { id: gate.id }, await t.token('quality_reviewer'))
    expect(q.body.errors?.[0].extensions?.code).toBe('FORBIDDEN')
    expect(await counts(gate.id)).toEqual({ signatures: 1, approvals: 0 })
    expect((await db().stageGate.findUniqueOrThrow({ where: { id: gate.id } })).status).toBe('reviewed')
  })

  it('refuses a gate for a stage other than the current one, to a stage the plan does not allow next, or a close once its stage is no longer current (gate_stage_restricted)', async () => {
    const t = await createTenant(db(), 'Restricted')
    const s = await withStages(t)
    const rec = [{ kind: 'critical_milestones' }]
    expect(await open(t, 'program_owner', { programId: t.program.id, stageId: s.preclinical.id, nextStageId: s.clinical.id, requiredRecords: rec }))
      .toMatchObject({ __typename: 'GateStageRestricted', code: 'gate_stage_restricted', field: 'input.stageId' })
    expect(await open(t, 'program_owner', { programId: t.program.id, stageId: s.discovery.id, nextStageId: s.clinical.id, requiredRecords: rec }))
      .toMatchObject({ __typename: 'GateStageRestricted', field: 'input.nextStageId' })
    expect(await open(t, 'program_owner', { programId: t.program.id, stageId: s.discovery.id, nextStageId: s.preclinical.id, requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.sources' }] }))
      .toMatchObject({ __typename: 'InvalidInput', field: 'input.requiredRecords.0.recordType' })
    expect(await db().stageGate.count({ where: { programId: t.program.id } })).toBe(0)

    // Close: only while the gate's stage is still the program's current stage. A program without a stage is at the
    // first stage of its plan; a stage added before it afterwards makes the reviewed gate's stage no longer current.
    const opened = await open(t, 'program_owner', { programId: t.program.id, stageId: s.discovery.id, nextStageId: s.preclinical.id, requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.findings' }] })
    await confirm(t, await finding(t, 'Any finding'))
    await ready(t, 'program_lead', opened.gate.id)
    await review(t, 'quality_reviewer', opened.gate.id)
    await db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key: 'target_id', name: 'Target identification', position: -1 } })
    expect(await close(t, 'program_owner', opened.gate.id)).toMatchObject({ __typename: 'GateStageRestricted', code: 'gate_stage_restricted', field: 'id' })
    expect(await counts(opened.gate.id)).toEqual({ signatures: 1, approvals: 0 })
    expect((await db().stageGate.findUniqueOrThrow({ where: { id: opened.gate.id } })).status).toBe('reviewed')
  })

  it('follows the transition table: illegal moves are invalid_transition with nothing written, reopen goes back to open, a second live gate is refused', async () => {
    const { t, gate, records, stages } = await gateWith(1, 'Table')
    expect(await review(t, 'quality_reviewer', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'open', to: 'reviewed' })
    expect(await close(t, 'program_owner', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'open', to: 'closed' })
    expect(await reopen(t, 'program_lead', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'open', to: 'open' })
    expect(await open(t, 'program_lead', { programId: t.program.id, stageId: stages.discovery.id, nextStageId: stages.preclinical.id, requiredRecords: [{ kind: 'critical_milestones' }] }))
      .toMatchObject({ __typename: 'InvalidTransition', from: 'open' })
    await confirm(t, records[0])
    expect((await ready(t, 'program_lead', gate.id)).gate.status).toBe('ready')
    expect(await ready(t, 'program_lead', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'ready' })
    expect(await close(t, 'program_owner', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'ready', to: 'closed' })
    expect((await review(t, 'quality_reviewer', gate.id)).gate.status).toBe('reviewed')
    const back = await reopen(t, 'program_lead', gate.id)
    expect(back.gate).toMatchObject({ status: 'open', reviewSignature: null })
    // The earlier review signature stays on record; a new review is needed before a close.
    expect(await counts(gate.id)).toEqual({ signatures: 1, approvals: 0 })
    expect(await close(t, 'program_owner', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'open' })
    expect((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).currentStageId).toBeNull()
  })

  it('supersedes a gate with a new version that records what it supersedes, without moving the stage', async () => {
    const { t, gate, records } = await gateWith(2, 'Supersede')
    const s = await supersede(t, 'manufacturing_specialist', gate.id, [{ kind: 'decided_record', recordType: 'evidence.findings', recordId: records[0] }])
    expect(s.superseded).toMatchObject({ id: gate.id, status: 'closed', footer: null })
    expect(s.gate).toMatchObject({ version: 2, status: 'open', supersedesId: gate.id, card: '0 of 1 required records present' })
    expect((await db().auditEvent.findFirstOrThrow({ where: { targetId: gate.id, action: 'stage_gate.supersede' } })).details).toMatchObject({ superseded_by: s.gate.id })
    expect((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).currentStageId).toBeNull()
    expect(await supersede(t, 'program_lead', gate.id)).toMatchObject({ __typename: 'InvalidTransition', from: 'closed' })
  })

  it('lets exactly one of two people closing at once close the gate, with one approval signature', async () => {
    const { t, gate, records, stages } = await gateWith(1, 'Race')
    await confirm(t, records[0])
    await ready(t, 'program_lead', gate.id)
    await review(t, 'quality_reviewer', gate.id)
    const outcomes = await Promise.all([close(t, 'program_owner', gate.id), close(t, 'program_lead', gate.id)])
    expect(outcomes.map((o) => o.__typename).sort()).toEqual(['InvalidTransition', 'MutationCloseStageGateSuccess'])
    expect(await counts(gate.id)).toEqual({ signatures: 2, approvals: 1 })
    expect((await db().program.findUniqueOrThrow({ where: { id: t.program.id } })).currentStageId).toBe(stages.preclinical.id)
  })

  it("writes a readiness_brief through a stage_readiness run for open gates only: 'Agent-generated draft, unsigned.'", async () => {
    const { t, gate, records } = await gateWith(2, 'Brief')
    const first = await refreshStageReadiness(db(), { gateId: gate.id })
    expect(first.briefs).toBe(1)
    const q = await call(t, 'viewer', `query($id: ID!) { stageGateBrief(id: $id) { label card missing runId } stageGate(id: $id) { briefVersion } }`, { id: gate.id })
    expect(q.stageGateBrief).toMatchObject({ label: FIXED_PHRASES.agentGeneratedDraft, card: '0 of 2 required records present' })
    expect(q.stageGateBrief.missing).toHaveLength(2)
    const run = await db().agentRun.findUniqueOrThrow({ where: { id: q.stageGateBrief.runId } })
    expect(run).toMatchObject({ kind: 'stage_readiness', status: 'succeeded', targetId: gate.id })
    // Nothing changed: no new brief. A decision moves the card at once (the audit hook), and the next pass writes a brief.
    expect((await refreshStageReadiness(db(), { gateId: gate.id })).briefs).toBe(0)
    await confirm(t, records[0])
    expect((await db().stageGate.findUniqueOrThrow({ where: { id: gate.id } })).requiredRecords).toMatchObject({ present: 1, total: 2 })
    await db().stageGate.update({ where: { id: gate.id }, data: { requiredRecords: { ...(await db().stageGate.findUniqueOrThrow({ where: { id: gate.id } })).requiredRecords as object, present: 0 } } })
    expect((await refreshStageReadiness(db(), { gateId: gate.id })).briefs).toBe(1)
    // A ready gate is not recomputed by the job.
    await confirm(t, records[1])
    await ready(t, 'program_lead', gate.id)
    expect((await refreshStageReadiness(db(), { gateId: gate.id })).gates).toBe(0)
  })

  it('counts skill results, accepted requirement sets and gate-critical milestones as required records', async () => {
    const t = await createTenant(db(), 'Kinds')
    const s = await withStages(t)
    const opened = await open(t, 'program_owner', {
      programId: t.program.id, stageId: s.discovery.id, nextStageId: s.preclinical.id,
      requiredRecords: [{ kind: 'skill_result', skillKey: 'tox.fih_dose_projection' }, { kind: 'critical_milestones' }, { kind: 'requirement_set' }],
    })
    expect(opened.gate.requiredRecords.map((r: { missing: string }) => r.missing)).toEqual([
      'no skill result in this program', 'no milestone is tagged gate-critical', 'no accepted requirement set in this program',
    ])
    // A projection a person ran citing a notebook entry of the program (gate evidence: gate-evidence.ts).
    const source = await db().source.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceType: 'eln_entry', sourceSystem: 'eln_provider', externalId: 'etr_noael', title: 'Rat GLP study' } })
    const doc = await db().document.create({ data: { organizationId: t.organization.id, programId: t.program.id, sourceId: source.id, sourceSystem: 'eln_provider', classification: 'customer_internal', title: 'Rat GLP study', text: 'Rat GLP study\n', contentJson: {}, contentHash: 'h' } })
    const run = await call(t, 'scientist', `mutation($p: ID!, $i: SkillRunInput!) { runSkill(programId: $p, input: $i) { __typename } }`,
      { p: t.program.id, i: { skillKey: 'tox.fih_dose_projection', inputs: { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: `document:${doc.id}@v1` }] } } })
    expect(run.runSkill.__typename).toBe('MutationRunSkillSuccess')
    const m = await call(t, 'program_owner', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`,
      { i: { programId: t.program.id, recordType: 'progress.milestones', title: 'IND-enabling tox done', fields: { due_on: '2027-03-31', tags: ['gate-critical'] } } })
    const after = await call(t, 'viewer', `query($id: ID!) { stageGate(id: $id) { card requiredRecords { present missing } } }`, { id: opened.gate.id })
    expect(after.stageGate.card).toBe('1 of 3 required records present')
    expect(after.stageGate.requiredRecords[1].missing).toBe('1 tagged gate-critical not done')
    await call(t, 'program_owner', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id: m.createRecord.record.id, outcome: 'complete' } })
    expect((await call(t, 'viewer', `query($id: ID!) { stageGate(id: $id) { card } }`, { id: opened.gate.id })).stageGate.card).toBe('2 of 3 required records present')
    // An accepted requirement set (QMS contract tables, written here as the QMS acceptance would leave them).
    const org = t.organization.id
    const sop = await db().sop.create({ data: { organizationId: org, programId: t.program.id, origin: 'local', documentNumber: 'SOP-QA-001', documentType: 'sop', title: 'Study conduct' } })
    const version = await db().sopVersion.create({ data: { organizationId: org, programId: t.program.id, sopId: sop.id, major: 1, minor: 0, lifecycleState: 'effective' } as never })
    const draft = { organizationId: org, programId: t.program.id, sopVersionId: version.id, title: 'Requirements', textHash: 'h', extractedFrom: 'text', createdByUserId: t.users.quality_reviewer.id }
    await db().requirementSet.create({ data: { ...draft, version: 1 } })
    await gql(url(), `mutation($i: CreateRecordInput!) { createRecord(input: $i) { __typename } }`, { i: { programId: t.program.id, recordType: 'evidence.questions', title: 'Touch', fields: { due_on: '2026-12-15' } } }, await t.token('program_owner'))
    expect((await call(t, 'viewer', `query($id: ID!) { stageGate(id: $id) { card } }`, { id: opened.gate.id })).stageGate.card).toBe('2 of 3 required records present')
    const sig = await db().signature.create({ data: { organizationId: org, programId: t.program.id, signerUserId: t.users.quality_reviewer.id, printedName: 'Q', meaning: 'approval', targetType: 'sop_version', targetId: version.id } })
    const accepted = await db().requirementSet.create({ data: { ...draft, version: 2, status: 'accepted', acceptedByUserId: t.users.quality_reviewer.id, acceptedAt: new Date(), signatureId: sig.id, signatureMeaning: 'approval' } })
    await gql(url(), `mutation($i: CreateRecordInput!) { createRecord(input: $i) { __typename } }`, { i: { programId: t.program.id, recordType: 'evidence.questions', title: 'Touch again', fields: { due_on: '2026-12-15' } } }, await t.token('program_owner'))
    const done = await call(t, 'viewer', `query($id: ID!) { stageGate(id: $id) { card requiredRecords { found } } }`, { id: opened.gate.id })
    expect(done.stageGate.card).toBe('3 of 3 required records present')
    expect(done.stageGate.requiredRecords[2].found).toEqual([accepted.id])
  })
})

describe('stage gate isolation', () => {
  it("never shows another organisation's or another program's gates, in queries, mutations or the live stream", async () => {
    const { a, b } = await createTwoOrganizations(db())
    const sb = await withStages(b)
    const other = await open(b, 'program_owner', { programId: b.program.id, stageId: sb.discovery.id, nextStageId: sb.preclinical.id, requiredRecords: [{ kind: 'critical_milestones' }] })
    expect(await expectRowsExist(db(), 'stage_gates', b.organization.id)).toBe(1)
    const q = await gql(url(), `query($id: ID!) { stageGate(id: $id) { id } stageGateBrief(id: $id) { artifactId } }`, { id: other.gate.id }, await a.token('program_owner'))
    expect(q.body.data).toEqual({ stageGate: null, stageGateBrief: null })
    const list = await gql(url(), `query($p: ID!) { stageGates(programId: $p) { nodes { id } } }`, { p: b.program.id }, await a.token('program_owner'))
    expect(list.body.errors?.[0].extensions?.code).toBe('NOT_FOUND')
    expect(await ready(a, 'program_owner', other.gate.id)).toMatchObject({ __typename: 'NotFound' })
    expect(await close(a, 'program_owner', other.gate.id)).toMatchObject({ __typename: 'NotFound' })

    // Another program of the same organisation, where the person is not a member.
    const p2 = await createProgram(db(), b.organization.id)
    const outsider = await createUser(db(), b.organization.id, { name: 'Outsider' })
    await addMember(db(), p2, outsider.id, ['program_owner'])
    const { mintDevToken } = await import('../../core/identity')
    const token = await mintDevToken(outsider)
    expect((await gql(url(), `query($id: ID!) { stageGate(id: $id) { id } }`, { id: other.gate.id }, token)).body.data.stageGate).toBeNull()
    const client = wsClient(url(), token)
    try {
      const refused = collect(client, `subscription { stageGateReadinessChanged(programId: "${b.program.id}") { id } }`, 1, 10_000)
      await refused.finished
      expect(JSON.stringify(refused.received[0].errors)).toMatch(/FORBIDDEN|permission/i)
    } finally { await client.dispose() }
    // b's own members see it.
    expect((await call(b, 'viewer', `query($p: ID!) { stageGates(programId: $p) { nodes { id card } } }`, { p: b.program.id })).stageGates.nodes).toEqual([{ id: other.gate.id, card: '0 of 1 required records present' }])
  })
})
