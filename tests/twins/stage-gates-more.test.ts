// Stage gates beyond the walk: the two tools over MCP (console.get_stage_gate, progress.list_stage_gates), the
// monthly QA oversight summary (review_audit_reviews: counts and ids only, accepted by a quality reviewer), and the R4
// pins the issue lists.
import { describe, expect, it } from 'vitest'
import { useStack, gql, wsClient, collect, waitFor } from '../helpers/stack'
import { createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'
import { connect, runningRun } from './tools-helpers'
import { PERMISSIONS_BY_VERSION, PERSONA_BUNDLES, PROGRAM_PERSONAS } from '../../core/permissions'
import { agentRunKinds, approvalTargetTypes, artifactKinds, notificationKinds, signatureTargetTypes, toneMap } from '../../core/config'
import { TOOLS } from '../../subgraphs/twins/tools/catalogue'
import routeMap from '../../schema/route-map.json'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const ERR = `__typename ... on Error { code message field }`

async function gateOf(t: Tenant) {
  const stages = await Promise.all(['discovery', 'preclinical'].map((key, position) =>
    db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })))
  const r = await gql(url(), `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { ${ERR} ... on MutationOpenStageGateSuccess { gate { id } } } }`,
    { i: { programId: t.program.id, stageId: stages[0].id, nextStageId: stages[1].id, requiredRecords: [{ kind: 'critical_milestones' }] } }, await t.token('program_owner'))
  return r.body.data.openStageGate.gate.id as string
}

describe('stage gate tools over MCP', () => {
  it("reads a gate and lists the program's gates under progress.stages.read, never another organisation's", async () => {
    const { a, b } = await createTwoOrganizations(db())
    const mine = await gateOf(a)
    const theirs = await gateOf(b)
    await expectRowsExist(db(), 'stage_gates', b.organization.id)
    const r = await runningRun(db(), a, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      expect(client.has('console.get_stage_gate')).toBe(true)
      expect(client.has('progress.list_stage_gates')).toBe(true)
      const got = await client.call<any>('console.get_stage_gate', { gateId: mine })
      expect(got).toMatchObject({ ok: true, value: { gate: { id: mine, status: 'open', card: '0 of 1 required records present' } } })
      expect(await client.call<any>('console.get_stage_gate', { gateId: theirs })).toMatchObject({ ok: true, value: { gate: null } })
      const list = await client.call<any>('progress.list_stage_gates', { status: 'open' })
      expect((list as any).value.gates.map((g: { id: string }) => g.id)).toEqual([mine])
    } finally { await client.close() }
    expect(TOOLS.map((t) => t.name)).toEqual(expect.arrayContaining(['console.get_stage_gate', 'progress.list_stage_gates']))
  })
})

describe('the readiness stream checks permission for every event', () => {
  it('stops delivering to a person who left the program, while others keep receiving', async () => {
    const t = await createTenant(db(), 'Per event')
    const stages = await Promise.all(['s0', 's1'].map((key, position) =>
      db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })))
    const created = await gql(url(), `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ... on MutationCreateRecordSuccess { record { id } } } }`,
      { i: { programId: t.program.id, recordType: 'evidence.findings', title: 'F', fields: { kind: 'result' } } }, await t.token('program_owner'))
    const recordId = created.body.data.createRecord.record.id
    await gql(url(), `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { __typename } }`,
      { i: { programId: t.program.id, stageId: stages[0].id, nextStageId: stages[1].id, requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.findings', recordId }] } }, await t.token('program_owner'))
    const stays = wsClient(url(), await t.token('scientist'))
    const leaves = wsClient(url(), await t.token('viewer'))
    try {
      const before = stack.current.subgraphs.twins.stageGateEvents.subscriberCount
      const kept = collect(stays, `subscription { stageGateReadinessChanged(programId: "${t.program.id}") { card } }`, 1, 15_000)
      const gone = collect(leaves, `subscription { stageGateReadinessChanged(programId: "${t.program.id}") { card } }`, 1, 15_000)
      await waitFor(() => stack.current.subgraphs.twins.stageGateEvents.subscriberCount >= before + 2, 10_000, 'both subscribers')
      await db().programMembership.update({ where: { programId_userId: { programId: t.program.id, userId: t.users.viewer.id } }, data: { endedAt: new Date() } })
      await gql(url(), `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id: recordId, outcome: 'confirm' } }, await t.token('program_owner'))
      await kept.finished
      expect(kept.received[0].data?.stageGateReadinessChanged.card).toBe('1 of 1 required records present')
      await new Promise((r) => setTimeout(r, 500))
      expect(gone.received.filter((m) => m.data)).toEqual([])
      kept.unsubscribe(); gone.unsubscribe()
    } finally { await stays.dispose(); await leaves.dispose() }
  })
})

describe('review_audit_reviews (monthly QA oversight)', () => {
  it('produces a summary of a period with counts and ids only, accepted once by a quality reviewer and by nobody else', async () => {
    const t = await createTenant(db(), 'QA oversight')
    const gateId = await gateOf(t)
    const today = new Date()
    const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)).toISOString().slice(0, 10)
    const end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
    const REVIEW = 'id periodStart periodEnd summary artifactId acceptedAt acceptedBy { id }'
    const produce = await gql(url(), `mutation($p: ID!, $s: String, $e: String) { produceReviewAuditReview(programId: $p, periodStart: $s, periodEnd: $e) { ${ERR} ... on MutationProduceReviewAuditReviewSuccess { review { ${REVIEW} } } } }`,
      { p: t.program.id, s: start, e: end }, await t.token('program_lead'))
    const review = produce.body.data.produceReviewAuditReview.review
    expect(review.summary.actions['stage_gate.open']).toEqual({ count: 1, target_ids: [gateId] })
    expect(review.summary.stage_gates.by_status).toEqual({ open: 1 })
    // Counts and ids only: no titles, names or text anywhere in it.
    const text = JSON.stringify(review.summary)
    expect(text).not.toContain(t.users.program_owner.name)
    expect(text).not.toContain('discovery')
    const accept = async (persona: Parameters<Tenant['token']>[0]) => (
      gql(url(), `mutation($id: ID!) { acceptReviewAuditReview(id: $id) { ${ERR} ... on InvalidTransition { from } ... on MutationAcceptReviewAuditReviewSuccess { review { ${REVIEW} } } } }`, { id: review.id }, await t.token(persona)))
    expect((await accept('program_lead')).body.data.acceptReviewAuditReview).toMatchObject({ __typename: 'ReviewerRoleRequired', code: 'reviewer_role_required' })
    const ok = (await accept('quality_reviewer')).body.data.acceptReviewAuditReview
    expect(ok.review).toMatchObject({ acceptedBy: { id: t.users.quality_reviewer.id } })
    expect((await accept('quality_reviewer')).body.data.acceptReviewAuditReview).toMatchObject({ __typename: 'InvalidTransition', from: 'accepted' })
    expect((await gql(url(), `query($p: ID!) { reviewAuditReviews(programId: $p) { id } }`, { p: t.program.id }, await t.token('scientist'))).body.errors?.[0].extensions?.code).toBe('NOT_FOUND')
  })
})

describe('the illustrative seed', () => {
  it('opens one stage gate for the illustrative program, once, at its first stage', async () => {
    const { seedIllustrative } = await import('../../subgraphs/seed')
    const seed = await seedIllustrative(db())
    await seedIllustrative(db())
    const gates = await db().stageGate.findMany({ where: { programId: seed.program.id }, include: { stage: true, nextStage: true } })
    expect(gates.map((g) => [g.stage.key, g.nextStage.key, g.status, (g.requiredRecords as { total: number }).total])).toEqual([['discovery', 'lead_optimisation', 'open', 3]])
    expect(await db().auditEvent.count({ where: { targetId: gates[0].id, action: 'stage_gate.open' } })).toBe(1)
  })
})

describe('R4 pins for stage gates', () => {
  it('holds 91 permissions with the R4 groups and persona v4 counts, target types 4 and 6, tone map 62, notification kinds 13, artifact kinds 12, and the seven routes available', () => {
    const v4 = PERMISSIONS_BY_VERSION[4]
    expect(v4).toHaveLength(91)
    const group = (p: string) => v4.filter((k) => k.startsWith(`${p}.`)).length
    expect(['org', 'program', 'evidence', 'plans', 'review', 'progress'].map(group)).toEqual([13, 27, 13, 14, 11, 13])
    expect(v4).toEqual(expect.arrayContaining(['review.stage_reviews.approve', 'progress.stages.read', 'progress.stages.manage', 'progress.stages.approve']))
    expect(Object.fromEntries(PROGRAM_PERSONAS.map((p) => [p, PERSONA_BUNDLES[4][p].size]))).toEqual({
      program_owner: 78, program_lead: 77, scientist: 50, quality_reviewer: 45, manufacturing_specialist: 40, viewer: 30,
    })
    expect([signatureTargetTypes('R4').length, approvalTargetTypes('R4').length]).toEqual([4, 6])
    expect(toneMap('R4')).toHaveLength(62)
    expect(toneMap('R4').find((e) => e.status === 'reviewed')?.tone).toBe('pass')
    expect(notificationKinds('R4')).toHaveLength(13)
    expect(artifactKinds('R4')).toHaveLength(12)
    expect(agentRunKinds('R4')).toContain('stage_readiness')
    const gates = routeMap.routes.filter((r) => r.path.includes('/progress/stage-gates'))
    expect(gates.map((r) => [r.method, r.operation, r.status])).toEqual([
      ['GET', 'Query.stageGates', 'available'], ['POST', 'Mutation.openStageGate', 'available'], ['GET', 'Query.stageGate', 'available'],
      ['POST', 'Mutation.markStageGateReady', 'available'], ['POST', 'Mutation.reviewStageGate', 'available'],
      ['POST', 'Mutation.closeStageGate', 'available'], ['GET', 'Query.stageGateBrief', 'available'],
    ])
  })
})
