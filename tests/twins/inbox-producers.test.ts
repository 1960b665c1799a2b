// The inbox's signature, question and information items (issue 29, item 6), through the gateway and live over
// graphql-ws: a local SOP waiting for approval, a requirement set waiting for QA acceptance, a stage gate waiting for
// its closing signature, a question put to a person, and what comes back to the asker; each resolves when the thing it
// points to is done.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql, wsClient, collect } from '../helpers/stack'
import { createTenant, type PersonaKey, type Tenant } from '../helpers/factories'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
let t: Tenant
beforeAll(async () => { t = await createTenant(db(), 'Producers') })

const ERR = `__typename ... on Error { code message field }`
async function call(persona: PersonaKey, query: string, variables: Record<string, unknown> = {}) {
  const r = await gql(url(), query, variables, await t.token(persona))
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}
const INBOX = `{ myInbox(first: 50) { nodes { id kind status title sourceType sourceId dueAt priority resolvable } } }`
async function inbox(persona: PersonaKey) {
  return (await call(persona, INBOX)).myInbox.nodes as { id: string; kind: string; status: string; title: string; sourceType: string; sourceId: string; dueAt: string | null; resolvable: boolean }[]
}
const itemsFor = (persona: PersonaKey, sourceId: string) => db().inboxItem.findMany({ where: { userId: t.users[persona].id, sourceId }, orderBy: { createdAt: 'asc' } })

const SOP_TEXT = 'Purpose. The analyst shall record every weighing in the notebook. The reviewer must countersign each batch record within two days.'

describe('signature items', () => {
  it('files a signature item for each approver when a local SOP waits for approval, delivered live, and resolves it for all when one approves', async () => {
    const client = wsClient(url(), await t.token('quality_reviewer'))
    const live = collect(client, 'subscription { inboxChanged { id kind status change title } }', 2)
    await new Promise((r) => setTimeout(r, 300))
    const created = await call('program_lead', `mutation($i: CreateLocalSopInput!) { createLocalSop(input: $i) { ${ERR} ... on MutationCreateLocalSopSuccess { sop { id } } } }`,
      { i: { programId: t.program.id, documentNumber: 'SOP-LAB-001', documentType: 'lab_records', title: 'Weighing records', text: SOP_TEXT } })
    const sopId = created.createLocalSop.sop.id as string

    const qa = (await inbox('quality_reviewer')).find((i) => i.sourceId === sopId)!
    expect(qa).toMatchObject({ kind: 'signature', status: 'open', sourceType: 'sop', resolvable: false, title: 'Local SOP waiting for approval: SOP-LAB-001 Weighing records' })
    expect(new Date(qa.dueAt!).getTime()).toBeGreaterThan(Date.now() + 13 * 86_400_000)
    expect(await itemsFor('program_owner', sopId)).toHaveLength(1)
    expect(await itemsFor('program_lead', sopId)).toHaveLength(0) // its author
    expect(await itemsFor('scientist', sopId)).toHaveLength(0) // cannot approve SOPs

    // resolve cannot stand in for the signature
    const refused = await call('quality_reviewer', `mutation($id: ID!) { resolveInboxItem(id: $id) { ${ERR} } }`, { id: qa.id })
    expect(refused.resolveInboxItem).toMatchObject({ code: 'decision_required' })

    await call('program_owner', `mutation($id: ID!) { approveSop(id: $id) { ${ERR} } }`, { id: sopId })
    await live.finished
    await client.dispose()
    expect(live.received.map((m) => m.data!.inboxChanged)).toEqual([
      expect.objectContaining({ id: qa.id, kind: 'signature', change: 'created', status: 'open' }),
      expect.objectContaining({ id: qa.id, kind: 'signature', change: 'resolved', status: 'done' }),
    ])
    for (const persona of ['quality_reviewer', 'program_owner'] as const) {
      expect((await itemsFor(persona, sopId)).map((i) => [i.status, i.doneBy])).toEqual([['done', t.users.program_owner.id]])
    }
  })

  it('files a signature item for the quality reviewers when a requirement set of an effective version waits for acceptance, and resolves it on acceptance', async () => {
    const created = await call('program_owner', `mutation($i: CreateLocalSopInput!) { createLocalSop(input: $i) { ${ERR} ... on MutationCreateLocalSopSuccess { sop { id } } } }`,
      { i: { programId: t.program.id, documentNumber: 'SOP-LAB-002', documentType: 'batch_records', title: 'Batch records', text: SOP_TEXT } })
    const sopId = created.createLocalSop.sop.id as string
    await call('program_lead', `mutation($id: ID!) { approveSop(id: $id) { ${ERR} } }`, { id: sopId })
    const version = await db().sopVersion.findFirstOrThrow({ where: { sopId } })
    expect(version.lifecycleState).toBe('effective')
    const ex = await call('program_lead', `mutation($v: ID!) { extractRequirementSet(sopVersionId: $v) { ${ERR} ... on MutationExtractRequirementSetSuccess { requirementSet { id } } } }`, { v: version.id })
    const setId = ex.extractRequirementSet.requirementSet.id as string

    const [item] = await itemsFor('quality_reviewer', setId)
    expect(item).toMatchObject({ kind: 'signature', status: 'open', sourceType: 'requirement_set', title: 'Requirement set waiting for your acceptance: SOP-LAB-002 v1.0 requirements (version 1)' })
    // QA acceptance: the quality reviewer, not every holder of the key
    expect(await itemsFor('program_owner', setId)).toHaveLength(0)

    await call('quality_reviewer', `mutation($id: ID!) { acceptRequirementSet(id: $id) { ${ERR} } }`, { id: setId })
    expect((await itemsFor('quality_reviewer', setId))[0]).toMatchObject({ status: 'done', doneBy: t.users.quality_reviewer.id })
  })
})

describe('question and information items', () => {
  const createQuestion = async (fields: Record<string, unknown>) => (await call('scientist',
    `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`,
    { i: { programId: t.program.id, recordType: 'evidence.questions', title: 'Which vehicle did the 28-day rat study use?', fields } })).createRecord.record.id as string

  it('puts a question to its owner (due the end of its due_on), moves it when the owner changes, and tells the asker when it is answered', async () => {
    const client = wsClient(url(), await t.token('manufacturing_specialist'))
    const live = collect(client, 'subscription { inboxChanged { id kind change sourceId } }', 2)
    await new Promise((r) => setTimeout(r, 300))
    const id = await createQuestion({ owner_user_id: t.users.manufacturing_specialist.id, due_on: '2030-01-15' })
    const [asked] = await itemsFor('manufacturing_specialist', id)
    expect(asked).toMatchObject({ kind: 'question', status: 'open', sourceType: 'program_record', title: 'A question for you: Which vehicle did the 28-day rat study use?' })
    expect(asked.dueAt?.toISOString()).toBe('2030-01-15T23:59:59.999Z')
    const mine = (await inbox('manufacturing_specialist')).find((i) => i.id === asked.id)!
    expect(mine).toMatchObject({ kind: 'question', resolvable: true })

    // the owner changes: the item moves to the new owner
    const upd = await call('scientist', `mutation($i: UpdateRecordInput!) { updateRecord(input: $i) { ${ERR} } }`, { i: { id, fields: { owner_user_id: t.users.program_lead.id } } })
    expect(upd.updateRecord.__typename).not.toMatch(/Error|Invalid|Forbidden/)
    await live.finished
    await client.dispose()
    expect(live.received.map((m) => [m.data!.inboxChanged.kind, m.data!.inboxChanged.change])).toEqual([['question', 'created'], ['question', 'resolved']])
    expect((await itemsFor('manufacturing_specialist', id))[0]).toMatchObject({ status: 'done', doneBy: null })
    const [moved] = await itemsFor('program_lead', id)
    expect(moved).toMatchObject({ kind: 'question', status: 'open' })

    // answered by the lead: the lead's item closes, the scientist who asked is told
    await call('program_lead', `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { ${ERR} } }`, { i: { id, outcome: 'answer' } })
    expect((await itemsFor('program_lead', id))[0]).toMatchObject({ status: 'done', doneBy: t.users.program_lead.id })
    const told = (await inbox('scientist')).find((i) => i.sourceId === id)!
    expect(told).toMatchObject({ kind: 'information', status: 'open', title: 'Your question was answered: Which vehicle did the 28-day rat study use?', resolvable: true })
    const done = await call('scientist', `mutation($id: ID!) { resolveInboxItem(id: $id) { ${ERR} ... on MutationResolveInboxItemSuccess { item { status } } } }`, { id: told.id })
    expect(done.resolveInboxItem.item.status).toBe('done')
  })

  it('files no question for a question without an owner, nor for one its asker owns', async () => {
    const none = await createQuestion({})
    const own = await createQuestion({ owner_user_id: t.users.scientist.id })
    expect(await db().inboxItem.count({ where: { sourceId: { in: [none, own] } } })).toBe(0)
  })

  it("tells a hand-off's sender when it is declined (with the reason) or completed", async () => {
    const finding = async (title: string) => (await call('program_lead', `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`,
      { i: { programId: t.program.id, recordType: 'evidence.findings', title, fields: { kind: 'observation' } } })).createRecord.record.id as string
    const send = async (linkedId: string) => (await call('scientist', `mutation($p: ID!, $i: HandoffInput!) { createHandoff(programId: $p, input: $i) { ${ERR} ... on MutationCreateHandoffSuccess { handoff { id } } } }`,
      { p: t.program.id, i: { toPersonaKey: 'quality_reviewer', kind: 'review', linkedType: 'program_record', linkedId, messageMd: 'Please review.' } })).createHandoff.handoff.id as string
    const declined = await send(await finding('Liver weight up'))
    await call('quality_reviewer', `mutation($id: ID!, $r: String) { declineHandoff(id: $id, reason: $r) { ${ERR} } }`, { id: declined, r: 'Out of my area; ask manufacturing.' })
    const completed = await send(await finding('Kidney weight up'))
    await call('quality_reviewer', `mutation($id: ID!) { acceptHandoff(id: $id) { ${ERR} } }`, { id: completed })
    await call('quality_reviewer', `mutation($id: ID!) { completeHandoff(id: $id) { ${ERR} } }`, { id: completed })
    const mine = await inbox('scientist')
    expect(mine.find((i) => i.sourceId === declined)).toMatchObject({ kind: 'information', sourceType: 'handoff', title: 'Your review hand-off was declined: Out of my area; ask manufacturing.' })
    expect(mine.find((i) => i.sourceId === completed)).toMatchObject({ kind: 'information', sourceType: 'handoff', title: 'Your review hand-off was completed' })
  })
})
