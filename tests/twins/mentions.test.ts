// Mentions through the gateway: a private thread's composer reads 'Share this thread to mention colleagues.' and
// refuses mentions; a shared thread's message mentions people (messages.mentions, audit mention.create, a mention
// inbox item and notification); a mention never starts a run by itself, 'Let my twin look at this' does (a mention
// trigger); isolation.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { env, setEnv } from '../../core/config'
import { useStack, gql } from '../helpers/stack'
import { createTenant, expectRowsExist, type Tenant } from '../helpers/factories'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db
type Persona = Parameters<Tenant['token']>[0]
const as = async (t: Tenant, p: Persona, q: string, v: Record<string, unknown> = {}) => gql(url(), q, v, await t.token(p))

const THREAD = `mutation($p: ID!, $title: String!) { createThread(programId: $p, title: $title) { __typename
  ... on MutationCreateThreadSuccess { thread { id private composerHint } } ... on Error { code message } } }`
const SHARE = `mutation($id: ID!) { shareThread(id: $id) { __typename ... on MutationShareThreadSuccess { thread { id private composerHint } } ... on Error { code } } }`
const POST = `mutation($t: ID!, $body: String!, $m: [ID!]) { postMessage(threadId: $t, bodyMd: $body, mentions: $m) { __typename
  ... on MutationPostMessageSuccess { threadMessage { id bodyMd mentions { id } } } ... on Error { code message field } } }`
const LOOK = `mutation($id: ID!) { letMyTwinLook(inboxItemId: $id) { __typename ... on MutationLetMyTwinLookSuccess { runId } ... on Error { code message } } }`
const READ = `query($id: ID!) { thread(id: $id) { id private composerHint messages { id mentions { id } } } }`

describe('mentions', () => {
  it("refuse mentions in a private thread with the composer's line, then notify once shared; only 'Let my twin look at this' starts a run", async () => {
    const t = await createTenant(db(), 'Mentions')
    const thread = (await as(t, 'scientist', THREAD, { p: t.program.id, title: 'Liver signal' })).body.data.createThread.thread
    expect(thread).toMatchObject({ private: true, composerHint: 'Share this thread to mention colleagues.' })
    // Private: nobody else reads it, and a mention is refused with the line, writing nothing.
    expect((await as(t, 'program_lead', READ, { id: thread.id })).body.data.thread).toBeNull()
    const refused = await as(t, 'scientist', POST, { t: thread.id, body: 'Lead, look?', m: [t.users.program_lead.id] })
    expect(refused.body.data.postMessage).toMatchObject({ code: 'invalid_input', field: 'mentions', message: 'mentions: Share this thread to mention colleagues.' })
    expect(await db().message.count({ where: { threadId: thread.id } })).toBe(0)

    const shared = (await as(t, 'scientist', SHARE, { id: thread.id })).body.data.shareThread.thread
    expect(shared).toMatchObject({ private: false, composerHint: null })
    const posted = await as(t, 'scientist', POST, { t: thread.id, body: 'Lead, can you look at the liver weights?', m: [t.users.program_lead.id] })
    const message = posted.body.data.postMessage.threadMessage
    expect(message.mentions).toEqual([{ id: t.users.program_lead.id }])
    expect((await db().message.findUniqueOrThrow({ where: { id: message.id } })).mentions).toEqual([t.users.program_lead.id])
    expect(await db().auditEvent.count({ where: { action: 'mention.create', targetId: message.id } })).toBe(1)
    const item = await db().inboxItem.findFirstOrThrow({ where: { userId: t.users.program_lead.id, kind: 'mention', sourceId: message.id } })
    expect(await db().notification.count({ where: { userId: t.users.program_lead.id, kind: 'mention' } })).toBe(1)
    expect((await as(t, 'program_lead', READ, { id: thread.id })).body.data.thread.messages).toHaveLength(1)
    // A mention of someone outside the program is refused.
    const outsider = await createTenant(db(), 'Mentions outsider')
    expect((await as(t, 'scientist', POST, { t: thread.id, body: 'x', m: [outsider.users.program_lead.id] })).body.data.postMessage).toMatchObject({ code: 'invalid_input', field: 'mentions' })

    // The mention alone started nothing.
    expect(await db().agentRun.count({ where: { organizationId: t.organization.id } })).toBe(0)
    // No twin: duty_unavailable. A twin without a mention trigger: duty_unavailable. With one: a run.
    expect((await as(t, 'program_lead', LOOK, { id: item.id })).body.data.letMyTwinLook).toMatchObject({ code: 'duty_unavailable' })
    const twin = await db().twinDefinition.create({ data: { organizationId: t.organization.id, programId: t.program.id, userId: t.users.program_lead.id, personaKey: 'program_lead', duties: ['pre_read'] } })
    expect((await as(t, 'program_lead', LOOK, { id: item.id })).body.data.letMyTwinLook).toMatchObject({ code: 'duty_unavailable' })
    const plan = { duty: 'pre_read', on: 'mention' }
    const trigger = await db().twinTrigger.create({
      data: {
        organizationId: t.organization.id, programId: t.program.id, twinId: twin.id, dutyKey: 'pre_read', kind: 'mention', priority: 'now',
        standingPlanJson: plan, standingPlanHash: createHash('sha256').update(JSON.stringify(plan)).digest('hex'), standingPlanApprovedAt: new Date(), standingPlanApprovedBy: t.users.program_lead.id,
      },
    })
    // Someone else's mention item is not theirs to use.
    expect((await as(t, 'scientist', LOOK, { id: item.id })).body.data.letMyTwinLook).toMatchObject({ code: 'not_found' })
    const look = await as(t, 'program_lead', LOOK, { id: item.id })
    const runId = look.body.data.letMyTwinLook.runId
    expect(await db().agentRun.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ twinId: twin.id, triggerId: trigger.id, initiatedBy: 'user', status: 'queued', targetId: message.id })
    expect(await db().auditEvent.count({ where: { action: 'twin.enqueue', targetId: runId } })).toBe(1)
  })

  it("keeps another organisation's threads and mention items out of reach (their rows exist)", async () => {
    const a = await createTenant(db(), 'MentIsoA')
    const b = await createTenant(db(), 'MentIsoB')
    const thread = (await as(b, 'scientist', THREAD, { p: b.program.id, title: 'B thread' })).body.data.createThread.thread
    await as(b, 'scientist', SHARE, { id: thread.id })
    await as(b, 'scientist', POST, { t: thread.id, body: 'hi', m: [b.users.program_lead.id] })
    await expectRowsExist(db(), 'messages', b.organization.id)
    const item = await db().inboxItem.findFirstOrThrow({ where: { organizationId: b.organization.id, kind: 'mention' } })
    expect((await as(a, 'program_lead', READ, { id: thread.id })).body.data.thread).toBeNull()
    expect((await as(a, 'scientist', POST, { t: thread.id, body: 'x' })).body.data.postMessage).toMatchObject({ code: 'not_found' })
    expect((await as(a, 'program_lead', LOOK, { id: item.id })).body.data.letMyTwinLook).toMatchObject({ code: 'not_found' })
  })
})
