// An electronic signature needs a fresh sign-in (21 CFR 11.200): the caller's token must say it authenticated
// (auth_time) within SIGNATURE_AUTH_MAX_AGE_SECONDS; a stale one is refused with fresh_sign_in_required and nothing
// is written, a fresh one signs and the signature keeps when that authentication happened. Through the gateway.
import { describe, expect, it } from 'vitest'
import * as jose from 'jose'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { devKeyPair, mintDevToken } from '../../core/identity'
import { env } from '../../core/config'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const ERR = `__typename ... on Error { code message field }`
const GATE = 'id status reviewSignature { printedName authenticatedAt } closeSignature { printedName authenticatedAt }'

async function call(token: string, query: string, variables: Record<string, unknown> = {}) {
  const r = await gql(url(), query, variables, token)
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors))
  return r.body.data
}
const review = (token: string, id: string) =>
  call(token, `mutation($id: ID!) { reviewStageGate(id: $id, signature: { meaning: review }) { ${ERR} ... on MutationReviewStageGateSuccess { gate { ${GATE} } } } }`, { id }).then((d) => d.reviewStageGate)
const close = (token: string, id: string) =>
  call(token, `mutation($id: ID!) { closeStageGate(id: $id, signature: { meaning: approval }) { ${ERR} ... on MutationCloseStageGateSuccess { gate { ${GATE} } } } }`, { id }).then((d) => d.closeStageGate)

/** A token whose person signed in `secondsAgo` seconds ago (its auth_time), still valid for hours. */
const signedInAgo = (t: Tenant, persona: 'quality_reviewer' | 'program_owner', secondsAgo: number) =>
  mintDevToken(t.users[persona], '12h', { authTime: new Date(Date.now() - secondsAgo * 1000) })

/** A ready gate: one finding required and confirmed. */
async function readyGate(name: string) {
  const t = await createTenant(db(), name)
  const stages = await Promise.all(['discovery', 'preclinical'].map((key, position) =>
    db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })))
  const owner = await t.token('program_owner')
  const record = await call(owner, `mutation($i: CreateRecordInput!) { createRecord(input: $i) { ${ERR} ... on MutationCreateRecordSuccess { record { id } } } }`,
    { i: { programId: t.program.id, recordType: 'evidence.findings', title: 'Rat liver weights', fields: { kind: 'result', species: 'rat', dose_mg_per_kg: 30 } } })
  const recordId = record.createRecord.record.id as string
  const opened = await call(await t.token('program_lead'), `mutation($i: OpenStageGateInput!) { openStageGate(input: $i) { ${ERR} ... on MutationOpenStageGateSuccess { gate { id } } } }`,
    { i: { programId: t.program.id, stageId: stages[0].id, nextStageId: stages[1].id, requiredRecords: [{ kind: 'decided_record', recordType: 'evidence.findings', recordId }] } })
  const gateId = opened.openStageGate.gate.id as string
  await call(owner, `mutation($i: DecideRecordInput!) { decideRecord(input: $i) { __typename } }`, { i: { id: recordId, outcome: 'confirm' } })
  const ready = await call(owner, `mutation($id: ID!) { markStageGateReady(id: $id) { ${ERR} } }`, { id: gateId })
  expect(ready.markStageGateReady.__typename).toBe('MutationMarkStageGateReadySuccess')
  return { t, gateId }
}

describe('a signature asks for a fresh sign-in', () => {
  it('refuses to review a gate with a sign-in older than the allowed age, with fresh_sign_in_required and nothing written', async () => {
    const { t, gateId } = await readyGate('Stale review')
    const stale = await signedInAgo(t, 'quality_reviewer', env().SIGNATURE_AUTH_MAX_AGE_SECONDS + 60)
    const refused = await review(stale, gateId)
    expect(refused).toMatchObject({ __typename: 'FreshSignInRequired', code: 'fresh_sign_in_required' })
    expect(refused.message).toMatch(/sign in again, then sign/)
    expect(await db().signature.count({ where: { targetId: gateId } })).toBe(0)
    expect((await db().stageGate.findUniqueOrThrow({ where: { id: gateId } })).status).toBe('ready')
    // the same token reads on as before: only signing asks for the fresh sign-in
    expect((await call(stale, '{ me { user { id } } }')).me.user.id).toBe(t.users.quality_reviewer.id)
  })

  it('refuses a signature from a token that does not say when its person authenticated', async () => {
    const { t, gateId } = await readyGate('No auth_time')
    const { privateKey, kid } = await devKeyPair()
    const e = env()
    const bare = await new jose.SignJWT({ email: t.users.quality_reviewer.email }).setProtectedHeader({ alg: 'ES256', kid })
      .setSubject(t.users.quality_reviewer.id).setIssuer(e.AUTH_ISSUER).setAudience(e.AUTH_AUDIENCE).setIssuedAt().setExpirationTime('1h').sign(privateKey)
    expect(await review(bare, gateId)).toMatchObject({ __typename: 'FreshSignInRequired', code: 'fresh_sign_in_required' })
    expect(await db().signature.count({ where: { targetId: gateId } })).toBe(0)
  })

  it('after a fresh sign-in reviews and closes the gate, each signature keeping when its signer authenticated', async () => {
    const { t, gateId } = await readyGate('Fresh')
    const reviewerAt = new Date(Math.floor(Date.now() / 1000 - 20) * 1000)
    const reviewer = await mintDevToken(t.users.quality_reviewer, '12h', { authTime: reviewerAt })
    const reviewed = await review(reviewer, gateId)
    expect(reviewed.__typename).toBe('MutationReviewStageGateSuccess')
    expect(new Date(reviewed.gate.reviewSignature.authenticatedAt).toISOString()).toBe(reviewerAt.toISOString())

    expect(await close(await signedInAgo(t, 'program_owner', 3600), gateId)).toMatchObject({ code: 'fresh_sign_in_required' })
    const closed = await close(await t.token('program_owner'), gateId)
    expect(closed.gate.status).toBe('closed')
    const rows = await db().signature.findMany({ where: { targetId: gateId }, orderBy: { signedAt: 'asc' } })
    expect(rows.map((r) => r.meaning)).toEqual(['review', 'approval'])
    expect(rows[0].authenticatedAt?.toISOString()).toBe(reviewerAt.toISOString())
    expect(rows[1].authenticatedAt!.getTime()).toBeLessThanOrEqual(rows[1].signedAt.getTime() + 1000)
    expect(rows[1].signedAt.getTime() - rows[1].authenticatedAt!.getTime()).toBeLessThan(env().SIGNATURE_AUTH_MAX_AGE_SECONDS * 1000)
    // the audit trail of the signature says when its signer authenticated
    const audit = await db().auditEvent.findFirstOrThrow({ where: { action: 'signature.create', targetId: rows[0].id } })
    expect(audit.details).toMatchObject({ authenticated_at: reviewerAt.toISOString() })
  })
})
