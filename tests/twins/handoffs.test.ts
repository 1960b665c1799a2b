// Hand-offs through the gateway and the tool server: a twin proposes (console.propose_handoff), its author approves,
// the recipient sees it live, accepts, and the recipient's twin runs; handoff_exists, self_handoff, party-scoped moves,
// the decline reason, accepted twice, two recipients racing, message redaction, bound_user_only, PLANNING_TOOLS, and
// two-organisation and two-program isolation.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { env, setEnv } from '../../core/config'
import { contextForUser } from '../../core/jobs'
import { applyRecordChange } from '../../domain/records'
import { PLANNING_TOOLS } from '../../subgraphs/twins/tools/toolset'
import { toolByName } from '../../subgraphs/twins/tools/catalogue'
import { useStack, gql, wsClient, collect, waitFor, startTestWorker } from '../helpers/stack'
import { addMember, createProgram, createTenant, createUser, expectRowsExist, type Tenant } from '../helpers/factories'
import { mintDevToken } from '../../core/identity'
import { connect, runningRun, writeRecord } from './tools-helpers'
import { recordingHarness, waitForRun } from './twin-helpers'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db
type Persona = Parameters<Tenant['token']>[0]

const HANDOFF_FIELDS = 'id kind status toPersonaKey linkedType linkedId messageMd redactions { kind count } proposalId fromTwinId reason decidedAt'
const DECIDE = `mutation($id: ID!, $decision: ProposalDecision!, $reason: String) {
  decideProposal(id: $id, decision: $decision, reason: $reason) {
    __typename
    ... on MutationDecideProposalSuccess { proposal { id status recordType changeKind decision { outcome handoffId footer } } }
    ... on Error { code message field }
  }
}`
const CREATE = `mutation($programId: ID!, $input: HandoffInput!) {
  createHandoff(programId: $programId, input: $input) {
    __typename
    ... on MutationCreateHandoffSuccess { handoff { ${HANDOFF_FIELDS} } }
    ... on HandoffExists { code handoffId message }
    ... on Error { code message field }
  }
}`
const ACCEPT = `mutation($id: ID!) { acceptHandoff(id: $id) { __typename
  ... on MutationAcceptHandoffSuccess { runId handoff { ${HANDOFF_FIELDS} } }
  ... on InvalidTransition { code from to } ... on Error { code message field } } }`
const DECLINE = `mutation($id: ID!, $reason: String) { declineHandoff(id: $id, reason: $reason) { __typename
  ... on MutationDeclineHandoffSuccess { handoff { ${HANDOFF_FIELDS} } } ... on Error { code message field } } }`
const COMPLETE = `mutation($id: ID!) { completeHandoff(id: $id) { __typename
  ... on MutationCompleteHandoffSuccess { handoff { id status } } ... on Error { code message field } } }`
const WITHDRAW = `mutation($id: ID!) { withdrawHandoff(id: $id) { __typename
  ... on MutationWithdrawHandoffSuccess { handoff { id status } } ... on Error { code message field } } }`
const LIST = `query($programId: ID!, $status: [HandoffStatus!]) { handoffs(programId: $programId, status: $status) { nodes { id status kind } } }`
const ONE = `query($id: ID!) { handoff(id: $id) { id status messageMd } }`

const as = async (t: Tenant, p: Persona, q: string, v: Record<string, unknown>) => gql(url(), q, v, await t.token(p))

async function record(t: Tenant, title: string, programId = t.program.id) {
  const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
  return (await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title, fields: { kind: 'observation' } })).recordId
}

/** A hand-off trigger on the twin of `persona` (approved plan), run by a recording harness under `harness`. */
async function handoffTrigger(t: Tenant, persona: Persona, harness: string) {
  const user = t.users[persona]
  const twin = await db().twinDefinition.create({ data: { organizationId: t.organization.id, programId: t.program.id, userId: user.id, personaKey: persona, duties: ['pre_read'] } })
  const plan = { duty: 'pre_read', on: 'handoff' }
  const trigger = await db().twinTrigger.create({
    data: {
      organizationId: t.organization.id, programId: t.program.id, twinId: twin.id, dutyKey: 'pre_read', kind: 'handoff', spec: { harness }, priority: 'now',
      standingPlanJson: plan, standingPlanHash: createHash('sha256').update(JSON.stringify(plan)).digest('hex'),
      standingPlanApprovedAt: new Date(), standingPlanApprovedBy: user.id,
    },
  })
  return { twin, trigger }
}

const input = (linkedId: string, over: Record<string, unknown> = {}) => ({ toPersonaKey: 'quality_reviewer', kind: 'review', linkedType: 'program_record', linkedId, messageMd: 'Please review the liver finding.', ...over })

describe('a hand-off proposed by a twin, sent by its author, accepted by the recipient', () => {
  it('runs end to end: propose over MCP, approve, live inbox item with e-mail, accept, the twin_handoff run; duplicate and decline refusals', async () => {
    const t = await createTenant(db(), 'Handoff')
    const findingId = await record(t, 'Liver weight up')
    const recorder = recordingHarness('handoff-e2e')
    await using _worker = await startTestWorker(stack.db)
    try {
      const { twin: qaTwin, trigger } = await handoffTrigger(t, 'quality_reviewer', 'handoff-e2e')
      // The scientist's twin proposes over MCP; nothing is sent yet.
      const sci = await runningRun(db(), t, 'scientist')
      const client = await connect(stack.current.toolsUrl, sci)
      expect(client.has('console.propose_handoff')).toBe(true)
      expect(client.has('console.list_handoffs')).toBe(true)
      const proposed = await client.call('console.propose_handoff', { toPersonaKey: 'quality_reviewer', kind: 'review', linkedId: findingId, messageMd: 'Please review the liver finding; token=abc123secret.' })
      expect(proposed.ok).toBe(true)
      const proposalId = (proposed as any).value.proposalId as string
      expect(await db().handoffRequest.count({ where: { organizationId: t.organization.id } })).toBe(0)
      const authorItem = await db().inboxItem.findFirstOrThrow({ where: { interruptId: proposalId } })
      expect(authorItem).toMatchObject({ userId: t.users.scientist.id, kind: 'decision', delegatedFromUserId: null })
      // A duplicate proposal of the same item (another run) is fine until sent; a direct duplicate send is refused later.

      // The recipient listens before the author approves.
      const ws = wsClient(url(), await t.token('quality_reviewer'))
      const subscribers = stack.current.subgraphs.twins.inboxEvents.subscriberCount
      const live = collect(ws, 'subscription { inboxChanged { id kind status title sourceType sourceId change } }', 1)
      await waitFor(() => stack.current.subgraphs.twins.inboxEvents.subscriberCount > subscribers, 10_000, 'the subscription')

      // Only the author approves (bound_user_only for anyone else, the lead included).
      const byLead = await as(t, 'program_lead', DECIDE, { id: proposalId, decision: 'APPROVE' })
      expect(byLead.body.data.decideProposal).toMatchObject({ __typename: 'BoundUserOnly', code: 'bound_user_only' })
      const approved = await as(t, 'scientist', DECIDE, { id: proposalId, decision: 'APPROVE' })
      expect(approved.body.errors).toBeUndefined()
      const decided = approved.body.data.decideProposal.proposal
      expect(decided).toMatchObject({ status: 'decided', recordType: 'handoff', changeKind: 'handoff', decision: { outcome: 'approved' } })
      const handoffId = decided.decision.handoffId as string
      const sent = await db().handoffRequest.findUniqueOrThrow({ where: { id: handoffId } })
      expect(sent).toMatchObject({ status: 'sent', fromUserId: t.users.scientist.id, fromTwinId: sci.twin.id, proposalId, toPersonaKey: 'quality_reviewer', kind: 'review' })
      expect(sent.messageMd).not.toContain('abc123secret')
      expect(await db().auditEvent.count({ where: { action: 'handoff.send', targetId: handoffId } })).toBe(1)

      // Live, e-mailed, and in the recipient's inbox as a hand-off item.
      await live.finished
      expect(live.received[0].data!.inboxChanged).toMatchObject({ kind: 'handoff', status: 'open', sourceType: 'handoff', sourceId: handoffId, change: 'created' })
      await ws.dispose()
      const note = await db().notification.findFirstOrThrow({ where: { userId: t.users.quality_reviewer.id, kind: 'handoff_received' }, include: { emails: true } })
      expect(note.emails).toHaveLength(1)
      expect(note.emails[0].toAddress).toBe(t.users.quality_reviewer.email)

      // A duplicate (same record, persona and kind) is refused with the existing id, nothing written.
      const dup = await as(t, 'program_lead', CREATE, { programId: t.program.id, input: input(findingId) })
      expect(dup.body.data.createHandoff).toMatchObject({ __typename: 'HandoffExists', code: 'handoff_exists', handoffId })
      const dupTool = await client.call('console.propose_handoff', { toPersonaKey: 'quality_reviewer', kind: 'review', linkedId: findingId, messageMd: 'Again.' }, { duty: 'other' })
      expect(dupTool).toMatchObject({ ok: false, error: { code: 'handoff_exists' } })
      await client.close()
      expect(await db().handoffRequest.count({ where: { organizationId: t.organization.id } })).toBe(1)

      // Declining without a reason is refused with the fixed phrase; nothing moves.
      const noReason = await as(t, 'quality_reviewer', DECLINE, { id: handoffId })
      expect(noReason.body.data.declineHandoff).toMatchObject({ code: 'reason_required', field: 'reason', message: 'Declining needs a reason; it is stored as evaluation data.' })
      expect((await db().handoffRequest.findUniqueOrThrow({ where: { id: handoffId } })).status).toBe('sent')

      // The recipient accepts: their twin's hand-off trigger starts a twin_handoff run, which the worker runs.
      const accepted = await as(t, 'quality_reviewer', ACCEPT, { id: handoffId })
      expect(accepted.body.errors).toBeUndefined()
      const acceptance = accepted.body.data.acceptHandoff
      expect(acceptance.handoff).toMatchObject({ status: 'accepted' })
      const run = await waitForRun(db(), acceptance.runId, ['succeeded', 'failed'])
      expect(run).toMatchObject({ status: 'succeeded', kind: 'twin_handoff', initiatedBy: 'handoff', twinId: qaTwin.id, triggerId: trigger.id, targetId: handoffId })
      expect(recorder.seen.map((r) => r.run.id)).toEqual([run.id])
      const acceptAudit = await db().auditEvent.findFirstOrThrow({ where: { action: 'handoff.accept', targetId: handoffId } })
      expect(acceptAudit).toMatchObject({ actorUserId: t.users.quality_reviewer.id, programId: t.program.id })
      expect((await db().inboxItem.findFirstOrThrow({ where: { sourceId: handoffId, userId: t.users.quality_reviewer.id } })).status).toBe('done')

      // Accepted twice: the first outcome, no second run or audit row.
      const again = await as(t, 'quality_reviewer', ACCEPT, { id: handoffId })
      expect(again.body.data.acceptHandoff).toMatchObject({ runId: null, handoff: { status: 'accepted', decidedAt: acceptance.handoff.decidedAt } })
      expect(await db().auditEvent.count({ where: { action: 'handoff.accept', targetId: handoffId } })).toBe(1)

      // Completed by the recipient who accepted it; a second accept after that is an invalid transition.
      expect((await as(t, 'program_lead', COMPLETE, { id: handoffId })).body.data.completeHandoff)
        .toEqual({ __typename: 'NotAParty', code: 'not_a_party', field: 'id', message: 'Only the recipient who accepted this hand-off can complete it.' })
      expect((await as(t, 'quality_reviewer', COMPLETE, { id: handoffId })).body.data.completeHandoff.handoff.status).toBe('done')
      expect(await db().auditEvent.count({ where: { action: 'handoff.complete', targetId: handoffId } })).toBe(1)
      // Done, the pair (record, persona, kind) is free again.
      const resent = await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(findingId) })
      expect(resent.body.data.createHandoff.__typename).toBe('MutationCreateHandoffSuccess')
    } finally {
      recorder.off()
    }
  })
})

/** The twin of `persona` holding the twin_handoff duty, with an approved hand-off trigger run by the deterministic harness. */
async function handoffDutyTwin(t: Tenant, persona: Persona) {
  const user = t.users[persona]
  const twin = await db().twinDefinition.create({ data: { organizationId: t.organization.id, programId: t.program.id, userId: user.id, personaKey: persona, duties: ['twin_handoff'] } })
  const plan = { duty: 'twin_handoff', on: 'handoff' }
  const trigger = await db().twinTrigger.create({
    data: {
      organizationId: t.organization.id, programId: t.program.id, twinId: twin.id, dutyKey: 'twin_handoff', kind: 'handoff', spec: {}, priority: 'now',
      standingPlanJson: plan, standingPlanHash: createHash('sha256').update(JSON.stringify(plan)).digest('hex'),
      standingPlanApprovedAt: new Date(), standingPlanApprovedBy: user.id,
    },
  })
  return { twin, trigger }
}

const preReadsOf = async (runId: string) => (await db().runInterrupt.findMany({ where: { runId, kind: 'write_approval' }, orderBy: { createdAt: 'asc' } }))
  .map((i) => i.question as { recordType: string; title: string; change: { kind: string; body?: string }; basis: { recordId: string }[] })

describe("the recipient's twin on an accepted hand-off (twin_handoff duty, deterministic harness)", () => {
  it('reads the hand-off and the linked plans record over MCP and files a pre-read in the recipient\'s inbox, with no denial', async () => {
    const t = await createTenant(db(), 'Handoff duty')
    await using _worker = await startTestWorker(stack.db)
    const { twin } = await handoffDutyTwin(t, 'program_lead')
    const protocol = await writeRecord(db(), t, 'scientist', { recordType: 'plans.protocols', title: '28-day rat GLP tox', body: 'Dose groups 0, 10, 30, 100 mg/kg.', fields: { protocol_kind: 'study', species: 'rat', glp: true } })
    const sent = await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(protocol.id, { toPersonaKey: 'program_lead', messageMd: 'Please review the dose groups.' }) })
    const handoffId = sent.body.data.createHandoff.handoff.id as string
    const accepted = await as(t, 'program_lead', ACCEPT, { id: handoffId })
    const runId = accepted.body.data.acceptHandoff.runId as string
    expect(runId).toBeTruthy()
    const run = await waitForRun(db(), runId, ['succeeded', 'failed'], 60_000)
    expect(run).toMatchObject({ status: 'succeeded', kind: 'twin_handoff', targetId: handoffId, outcome: expect.objectContaining({ proposals_filed: 1, denied: 0, refused: 0 }) })

    // Tool calls recorded, every one allowed; only console, plans and always-allowed tools were called.
    const calls = await db().toolCall.findMany({ where: { runId }, orderBy: { createdAt: 'asc' } })
    expect(calls.map((c) => c.tool)).toEqual(['console.get_twin', 'memory.recall', 'console.list_handoffs', 'plans.list_reports', 'plans.list_experiments', 'plans.list_plans', 'plans.list_protocols', 'plans.propose_report'])
    expect(calls.every((c) => c.status === 'ok' && c.twinId === twin.id)).toBe(true)

    // The pre-read cites what it read: the hand-off id in the text, the linked record as basis.
    const [proposal] = await preReadsOf(runId)
    expect(proposal).toMatchObject({ recordType: 'plans.reports', title: 'Hand-off pre-read: review of 28-day rat GLP tox', change: { kind: 'create' }, basis: [{ recordId: protocol.id }] })
    expect(proposal.change.body).toContain(handoffId)
    expect(proposal.change.body).toContain('Dose groups 0, 10, 30, 100 mg/kg.')
    const item = await db().inboxItem.findFirstOrThrow({ where: { userId: t.users.program_lead.id, kind: 'decision', twinId: twin.id } })
    expect(item).toMatchObject({ status: 'open', programId: t.program.id, title: expect.stringContaining('Hand-off pre-read') })
    expect(await db().inboxItem.count({ where: { organizationId: t.organization.id, userId: { not: t.users.program_lead.id }, twinId: twin.id } })).toBe(0)
  })

  it('names a linked record outside its toolset by id without reading it, and still files the pre-read with no denial', async () => {
    const t = await createTenant(db(), 'Handoff duty evidence')
    await using _worker = await startTestWorker(stack.db)
    await handoffDutyTwin(t, 'program_lead')
    const findingId = await record(t, 'Liver weight up (unread)')
    const sent = await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(findingId, { toPersonaKey: 'program_lead' }) })
    const handoffId = sent.body.data.createHandoff.handoff.id as string
    const runId = (await as(t, 'program_lead', ACCEPT, { id: handoffId })).body.data.acceptHandoff.runId as string
    const run = await waitForRun(db(), runId, ['succeeded', 'failed'], 60_000)
    expect(run).toMatchObject({ status: 'succeeded', outcome: expect.objectContaining({ proposals_filed: 1, denied: 0, refused: 0 }) })
    const tools = (await db().toolCall.findMany({ where: { runId } })).map((c) => c.tool)
    expect(tools.some((x) => x.startsWith('evidence.'))).toBe(false)
    const [proposal] = await preReadsOf(runId)
    expect(proposal).toMatchObject({ title: `Hand-off pre-read: review of program_record ${findingId}`, basis: [] })
    expect(proposal.change.body).not.toContain('Liver weight up')
  })
})

describe('hand-off rules', () => {
  it('refuses a hand-off to yourself (self_handoff), by name or as the persona\'s only holder, writing nothing', async () => {
    const t = await createTenant(db(), 'Self')
    const rec = await record(t, 'Self finding')
    const byName = await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(rec, { toPersonaKey: 'scientist', toUserId: t.users.scientist.id }) })
    expect(byName.body.data.createHandoff).toMatchObject({ __typename: 'SelfHandoff', code: 'self_handoff', field: 'input.toUserId' })
    const onlyHolder = await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(rec, { toPersonaKey: 'scientist' }) })
    expect(onlyHolder.body.data.createHandoff).toMatchObject({ code: 'self_handoff', field: 'input.toPersonaKey' })
    expect(await db().handoffRequest.count({ where: { organizationId: t.organization.id } })).toBe(0)
    expect(await db().auditEvent.count({ where: { organizationId: t.organization.id, action: 'handoff.send' } })).toBe(0)
  })

  it('scopes moves by party: only a recipient accepts or declines, only the sender withdraws; a decline stores its reason as evaluation data', async () => {
    const t = await createTenant(db(), 'Party')
    const rec = await record(t, 'Party finding')
    const sent = (await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(rec) })).body.data.createHandoff.handoff
    // Not a party is not_a_party, saying who may and what to do: FORBIDDEN named program.handoffs.manage, which they hold.
    const notAParty = (message: string) => ({ __typename: 'NotAParty', code: 'not_a_party', field: 'id', message })
    expect((await as(t, 'scientist', ACCEPT, { id: sent.id })).body.data.acceptHandoff)
      .toEqual(notAParty('You sent this hand-off, so you cannot accept it: only a recipient can. Withdraw it if it is no longer needed.'))
    expect((await as(t, 'scientist', DECLINE, { id: sent.id, reason: 'no' })).body.data.declineHandoff)
      .toEqual(notAParty('You sent this hand-off, so you cannot decline it: only a recipient can. Withdraw it if it is no longer needed.'))
    expect((await as(t, 'program_lead', ACCEPT, { id: sent.id })).body.data.acceptHandoff)
      .toEqual(notAParty('This hand-off is addressed to whoever holds quality_reviewer in this program, not to you: only a recipient can accept it.'))
    expect((await as(t, 'program_lead', DECLINE, { id: sent.id, reason: 'no' })).body.data.declineHandoff).toMatchObject({ code: 'not_a_party' })
    expect((await as(t, 'quality_reviewer', WITHDRAW, { id: sent.id })).body.data.withdrawHandoff)
      .toEqual(notAParty('Only the person who sent this hand-off can withdraw it.'))
    // The viewer reads hand-offs but may not act on them.
    expect((await as(t, 'viewer', LIST, { programId: t.program.id })).body.data.handoffs.nodes).toHaveLength(1)
    expect((await as(t, 'viewer', ACCEPT, { id: sent.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    expect((await db().handoffRequest.findUniqueOrThrow({ where: { id: sent.id } })).status).toBe('sent')

    const declined = await as(t, 'quality_reviewer', DECLINE, { id: sent.id, reason: 'Out of my area; ask manufacturing.' })
    expect(declined.body.data.declineHandoff.handoff).toMatchObject({ status: 'declined', reason: 'Out of my area; ask manufacturing.' })
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'handoff.decline', targetId: sent.id } })
    expect(audit.details).toMatchObject({ reason: 'Out of my area; ask manufacturing.' })
    // Declined twice answers the first outcome; a withdrawal after it is an invalid transition.
    expect((await as(t, 'quality_reviewer', DECLINE, { id: sent.id, reason: 'again' })).body.data.declineHandoff.handoff.reason).toBe('Out of my area; ask manufacturing.')
    expect((await as(t, 'scientist', WITHDRAW, { id: sent.id })).body.data.withdrawHandoff).toMatchObject({ code: 'invalid_transition' })

    const second = (await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(rec, { kind: 'data' }) })).body.data.createHandoff.handoff
    expect((await as(t, 'scientist', WITHDRAW, { id: second.id })).body.data.withdrawHandoff.handoff.status).toBe('withdrawn')
    expect(await db().inboxItem.count({ where: { sourceId: second.id, status: 'open' } })).toBe(0)
    expect(await db().auditEvent.count({ where: { action: 'handoff.withdraw', targetId: second.id } })).toBe(1)
  })

  it('lets only one of two recipients racing to accept win; the other is refused with invalid_transition', async () => {
    const t = await createTenant(db(), 'Race')
    const qa2 = await createUser(db(), t.organization.id, { name: 'Race second reviewer' })
    await addMember(db(), t.program, qa2.id, ['quality_reviewer'])
    const rec = await record(t, 'Race finding')
    const sent = (await as(t, 'scientist', CREATE, { programId: t.program.id, input: input(rec) })).body.data.createHandoff.handoff
    expect(await db().inboxItem.count({ where: { sourceId: sent.id, kind: 'handoff' } })).toBe(2)
    const [one, two] = await Promise.all([
      as(t, 'quality_reviewer', ACCEPT, { id: sent.id }),
      gql(url(), ACCEPT, { id: sent.id }, await mintDevToken(qa2)),
    ])
    const outcomes = [one, two].map((r) => r.body.data.acceptHandoff.__typename).sort()
    expect(outcomes).toEqual(['InvalidTransition', 'MutationAcceptHandoffSuccess'])
    expect([one, two].find((r) => r.body.data.acceptHandoff.__typename === 'InvalidTransition')!.body.data.acceptHandoff).toMatchObject({ from: 'accepted', to: 'accepted' })
    expect(await db().auditEvent.count({ where: { action: 'handoff.accept', targetId: sent.id } })).toBe(1)
  })

  it('redacts message_md: secrets and records the recipients may not read, saying what was redacted', async () => {
    const t = await createTenant(db(), 'Redact')
    const rec = await record(t, 'Redact finding')
    const other = await createProgram(db(), t.organization.id, { slug: 'redact-other' })
    await addMember(db(), other, t.users.program_lead.id, ['program_lead'])
    const hidden = await record(t, 'Other program finding', other.id)
    const message = `See ${rec} and ${hidden}. Login: password=hunter2 and Authorization: Bearer abcdefghijklmnop123.`
    const sent = (await as(t, 'program_lead', CREATE, { programId: t.program.id, input: input(rec, { messageMd: message }) })).body.data.createHandoff.handoff
    expect(sent.messageMd).toContain(rec)
    expect(sent.messageMd).not.toContain(hidden)
    expect(sent.messageMd).not.toContain('hunter2')
    expect(sent.messageMd).not.toContain('abcdefghijklmnop123')
    expect(sent.messageMd).toContain('[redacted: a record the recipient may not read]')
    expect(sent.messageMd).toContain('[redacted: secret]')
    expect(sent.redactions).toEqual(expect.arrayContaining([{ kind: 'secret', count: 2 }, { kind: 'unreadable_record', count: 1 }]))
    const stored = await db().handoffRequest.findUniqueOrThrow({ where: { id: sent.id } })
    expect(stored.messageMd).toBe(sent.messageMd)
  })

  it('keeps console.propose_handoff a write tool that is never in PLANNING_TOOLS, and console.list_handoffs a read', () => {
    expect(toolByName('console.propose_handoff')).toMatchObject({ kind: 'write', permission: 'program.handoffs.manage' })
    expect(toolByName('console.list_handoffs')).toMatchObject({ kind: 'read', permission: 'program.handoffs.read' })
    expect(PLANNING_TOOLS).not.toContain('console.propose_handoff')
    expect(PLANNING_TOOLS).toContain('console.list_handoffs')
    expect(PLANNING_TOOLS.every((n) => toolByName(n)!.kind === 'read')).toBe(true)
  })

  it('lists hand-offs over MCP without their message', async () => {
    const t = await createTenant(db(), 'ListTool')
    const rec = await record(t, 'List finding')
    await as(t, 'program_lead', CREATE, { programId: t.program.id, input: input(rec, { messageMd: 'Secret-free but private words.' }) })
    const run = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, run)
    const listed = await client.call('console.list_handoffs', {})
    expect(listed.ok).toBe(true)
    expect((listed as any).value.handoffs).toHaveLength(1)
    expect(JSON.stringify(listed)).not.toContain('private words')
    await client.close()
  })
})

describe('hand-off isolation', () => {
  it("keeps another organisation's and another program's hand-offs out of reach (their rows exist)", async () => {
    const a = await createTenant(db(), 'IsoA')
    const b = await createTenant(db(), 'IsoB')
    const recB = await record(b, 'B finding')
    const sentB = (await as(b, 'scientist', CREATE, { programId: b.program.id, input: input(recB) })).body.data.createHandoff.handoff
    await expectRowsExist(db(), 'handoff_requests', b.organization.id)
    expect((await as(a, 'program_owner', ONE, { id: sentB.id })).body.data.handoff).toBeNull()
    expect((await as(a, 'program_owner', LIST, { programId: b.program.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    expect((await as(a, 'quality_reviewer', ACCEPT, { id: sentB.id })).body.data.acceptHandoff).toMatchObject({ code: 'not_found' })
    // A record of another organisation cannot be linked.
    expect((await as(a, 'scientist', CREATE, { programId: a.program.id, input: input(recB) })).body.data.createHandoff).toMatchObject({ code: 'not_found', field: 'input.linkedId' })

    // Two programs of one organisation: a member of only the first sees nothing of the second.
    const second = await createProgram(db(), a.organization.id, { slug: 'iso-second' })
    await addMember(db(), second, a.users.program_lead.id, ['program_lead'])
    await addMember(db(), second, a.users.program_owner.id, ['quality_reviewer'])
    const rec2 = await record(a, 'Second program finding', second.id)
    const sent2 = (await as(a, 'program_lead', CREATE, { programId: second.id, input: input(rec2) })).body.data.createHandoff.handoff
    expect(sent2.status).toBe('sent')
    expect((await as(a, 'scientist', ONE, { id: sent2.id })).body.data.handoff).toBeNull()
    expect((await as(a, 'scientist', LIST, { programId: second.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    expect((await as(a, 'program_lead', LIST, { programId: a.program.id })).body.data.handoffs.nodes.map((n: any) => n.id)).not.toContain(sent2.id)
    // A record of the second program cannot be linked from the first.
    expect((await as(a, 'program_lead', CREATE, { programId: a.program.id, input: input(rec2) })).body.data.createHandoff).toMatchObject({ code: 'not_found' })
  })
})
