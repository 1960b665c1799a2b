// SOP review over the gateway: approving a connector SOP answers sop_external, a local SOP is approved (signed),
// requirement extraction into numbered anchored rows, acceptance as the signed and audited binding decision, a check
// created from a notebook canvas launch, its rows met or not met, and qa.check_readiness reading them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTenant, type Tenant } from '../helpers/factories'
import { gql } from '../helpers/stack'
import { runQmsSync } from '../../domain/qms'
import { CHECK_BUTTON_ID } from '../../domain/notebook'
import { sampleEntry, useNotebookStack, type ConnectedNotebook } from '../connectors/helpers'
import type { FakeQms } from '../../fakes/qms/server'
import { MUTATION_ERR, connectQms, seedSop, startTestFakeQms } from './helpers'

const { stack, fake: notebook, db, work, connect } = useNotebookStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
let vault: FakeQms
let tenant: Tenant
let nb: ConnectedNotebook
let qa: string
beforeAll(async () => {
  vault = await startTestFakeQms()
  seedSop(vault)
  tenant = await createTenant(db(), 'Review')
  const c = await connectQms(url(), tenant, vault)
  await runQmsSync(db(), c.id, 'poll')
  nb = await connect(tenant)
  qa = await tenant.token('quality_reviewer')
})
afterAll(async () => { await vault?.close() })

const effective = () => db().sopVersion.findFirstOrThrow({ where: { programId: tenant.program.id, lifecycleState: 'effective', connectionId: { not: null } } })
const SET = `id status version signatureMeaning acceptedAt signature { meaning printedName manifestation } requirements { number ref text section anchorStart anchorEnd }`

describe('SOP review', () => {
  it('answers sop_external when approve is called for a connector SOP, and changes nothing', async () => {
    const v = await effective()
    const r = await gql(url(), `mutation($id: ID!) { approveSop(id: $id) { __typename ${MUTATION_ERR} } }`, { id: v.sopId }, qa)
    expect(r.body.data.approveSop).toMatchObject({ __typename: 'SopExternal', code: 'sop_external' })
    expect(await db().sopVersion.findUniqueOrThrow({ where: { id: v.id } })).toMatchObject({ lifecycleState: 'effective', approvedByUserId: null })
    expect(await db().signature.count({ where: { targetId: v.id } })).toBe(0)
  })

  it('approves a local SOP: its draft becomes effective under a signature meaning approval', async () => {
    const created = await gql(url(), `mutation($input: CreateLocalSopInput!) { createLocalSop(input: $input) { __typename ... on MutationCreateLocalSopSuccess { sop { id origin sourceSystem versions { lifecycleState } } } ${MUTATION_ERR} } }`, {
      input: { programId: tenant.program.id, documentNumber: 'LOC-1', documentType: 'local_sop', title: 'Local bench cleaning', text: '1 Cleaning\n1.1 Benches shall be wiped daily.\n' },
    }, qa)
    const sop = created.body.data.createLocalSop.sop
    expect(sop).toMatchObject({ origin: 'local', sourceSystem: 'local', versions: [{ lifecycleState: 'draft' }] })
    const approved = await gql(url(), `mutation($id: ID!) { approveSop(id: $id) { __typename ... on MutationApproveSopSuccess { sop { versions { lifecycleState effectiveAt effectiveOnObserved } } } ${MUTATION_ERR} } }`, { id: sop.id }, qa)
    expect(approved.body.data.approveSop.sop.versions[0]).toMatchObject({ lifecycleState: 'effective', effectiveOnObserved: false })
    const v = await db().sopVersion.findFirstOrThrow({ where: { sopId: sop.id } })
    expect(await db().signature.findFirstOrThrow({ where: { id: v.approvalSignatureId! } })).toMatchObject({ meaning: 'approval', signerUserId: tenant.users.quality_reviewer.id })
    expect(await db().auditEvent.count({ where: { action: 'sop.approve', targetId: sop.id } })).toBe(1)
    // A second approve finds nothing to approve.
    const again = await gql(url(), `mutation($id: ID!) { approveSop(id: $id) { __typename } }`, { id: sop.id }, qa)
    expect(again.body.data.approveSop.__typename).toBe('InvalidTransition')
  })

  it('extracts numbered requirement rows anchored into the version text, and accepting the set is the signed, audited binding decision', async () => {
    const v = await effective()
    const ex = await gql(url(), `mutation($id: ID!) { extractRequirementSet(sopVersionId: $id) { __typename ... on MutationExtractRequirementSetSuccess { requirementSet { ${SET} } } ${MUTATION_ERR} } }`, { id: v.id }, qa)
    const set = ex.body.data.extractRequirementSet.requirementSet
    expect(set.status).toBe('draft')
    expect(set.requirements.map((r: { ref: string; section: string }) => [r.ref, r.section])).toEqual([['R1', '2.1'], ['R2', '2.2']])
    for (const r of set.requirements) expect(v.text.slice(r.anchorStart, r.anchorEnd)).toBe(r.text)
    expect(set.requirements[1].text).toBe('Reagent lots must be named.')
    // The scientist lacks review.sops.manage.
    const denied = await gql(url(), `mutation($id: ID!) { acceptRequirementSet(id: $id) { __typename } }`, { id: set.id }, await tenant.token('scientist'))
    expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    const acc = await gql(url(), `mutation($id: ID!) { acceptRequirementSet(id: $id) { __typename ... on MutationAcceptRequirementSetSuccess { requirementSet { ${SET} } } ${MUTATION_ERR} } }`, { id: set.id }, qa)
    const accepted = acc.body.data.acceptRequirementSet.requirementSet
    expect(accepted).toMatchObject({ status: 'accepted', signatureMeaning: 'approval', signature: { meaning: 'approval' } })
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'requirement_set.accept', targetId: set.id } })
    expect(audit.signatureId).toBeTruthy()
    expect(audit.actorUserId).toBe(tenant.users.quality_reviewer.id)
    // A set of a version that does not bind (draft) cannot be accepted.
    const draft = await db().sopVersion.findFirstOrThrow({ where: { sopId: v.sopId, lifecycleState: 'draft' } })
    const dx = await gql(url(), `mutation($id: ID!) { extractRequirementSet(sopVersionId: $id) { ... on MutationExtractRequirementSetSuccess { requirementSet { id } } } }`, { id: draft.id }, qa)
    const refused = await gql(url(), `mutation($id: ID!) { acceptRequirementSet(id: $id) { __typename ${MUTATION_ERR} } }`, { id: dx.body.data.extractRequirementSet.requirementSet.id }, qa)
    expect(refused.body.data.acceptRequirementSet).toMatchObject({ __typename: 'InvalidInput', issues: [{ message: expect.stringMatching(/only effective versions bind checks/) }] })
  })

  it('creates a check from a notebook canvas launch; its rows are met or not met and qa.check_readiness reads them', async () => {
    sampleEntry(notebook, 'etr_qms_check')
    const canvasId = `cnvs_qms${Date.now()}`
    notebook.control.canvases.set(canvasId, { id: canvasId, appId: nb.app.appId, featureId: nb.app.featureId, resourceId: 'etr_qms_check', blocks: [], enabled: true, sessionId: null, data: null, archiveRecord: null, illustrative: true })
    expect((await nb.send({ type: 'v2.canvas.userInteracted', canvasId, buttonId: CHECK_BUTTON_ID, userId: 'ent_user' })).status).toBe(202)
    await work()
    const launch = await db().launchId.findFirstOrThrow({ where: { canvasId } })
    const opened = await gql(url(), `mutation($id: ID!) { openLaunch(launchId: $id) { __typename ... on MutationOpenLaunchSuccess { target { checkId checkNote sourceId } } ${MUTATION_ERR} } }`, { id: launch.id }, await tenant.token('scientist'))
    const target = opened.body.data.openLaunch.target
    expect(target.checkId).toBeTruthy()
    const CHECK = `query($id: ID!) { sopCheck(id: $id) { sourceType documentType launchId sopVersion { major minor lifecycleState } requirementSet { status } rows { outcome requirement { id ref } } } }`
    const check = (await gql(url(), CHECK, { id: target.checkId }, qa)).body.data.sopCheck
    expect(check).toMatchObject({ sourceType: 'eln_entry', documentType: 'sop__c', launchId: launch.id, sopVersion: { major: 2, minor: 0, lifecycleState: 'effective' }, requirementSet: { status: 'accepted' } })
    expect(check.rows.map((r: { outcome: string }) => r.outcome)).toEqual(['pending', 'pending'])
    const SETROW = `mutation($input: SetSopCheckRowInput!) { setSopCheckRow(input: $input) { __typename ... on MutationSetSopCheckRowSuccess { row { outcome } } ${MUTATION_ERR} } }`
    const met = await gql(url(), SETROW, { input: { checkId: target.checkId, requirementId: check.rows[0].requirement.id, outcome: 'met', evidence: [{ kind: 'record', ref: 'eln_provider:entry:etr_qms_check' }] } }, qa)
    expect(met.body.data.setSopCheckRow.row.outcome).toBe('met')
    // The reviewer's note is kept exactly (issue 34): scientific notation, spaces around it included.
    const note = ' no lot numbers; stored at T >25 °C & RH <60 % (≤ 2 µm filter) '
    await gql(url(), SETROW, { input: { checkId: target.checkId, requirementId: check.rows[1].requirement.id, outcome: 'not_met', note } }, qa)
    expect((await db().sopCheckRow.findFirstOrThrow({ where: { checkId: target.checkId, requirementId: check.rows[1].requirement.id } })).note).toBe(note)
    const run = await gql(url(), `mutation($p: ID!, $input: SkillRunInput!) { runSkill(programId: $p, input: $input) { __typename ... on MutationRunSkillSuccess { skillResult { outputs tables } } ${MUTATION_ERR} } }`,
      { p: tenant.program.id, input: { skillKey: 'qa.check_readiness', inputs: { check_id: target.checkId } } }, qa)
    expect(run.body.errors).toBeUndefined()
    const result = JSON.stringify(run.body.data.runSkill)
    expect(result).toMatch(/1 of 2 requirements met/)
    expect(result).toMatch(/SOP-0100 v2\.0 §2\.1/)
  })
})
