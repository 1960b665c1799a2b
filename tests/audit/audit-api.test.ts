// Issue 35 through the gateway: Query.auditChainVerification (org.audit.read) verifies the organisation's chain and
// names the first entry that does not verify; Query.auditTrail tells a program member when a record's trail verified.
import { describe, expect, it } from 'vitest'
import { contextForUser } from '../../core/jobs'
import { createRecord } from '../../domain/records'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db
const as = async (t: Tenant, p: Parameters<Tenant['token']>[0], q: string, v: Record<string, unknown> = {}) => gql(url(), q, v, await t.token(p))

const VERIFY = `{ auditChainVerification { verified entries headSeq headHash beforeChain verifiedAt firstBreak { seq entryId reason } } }`
const TRAIL = `query($p: ID!, $id: ID!) { auditTrail(programId: $p, targetId: $id) { state verifiedAt entrySeq } }`

describe('the audit chain through the API', () => {
  it('verifies the organisation chain for its auditors, names the changed entry, and refuses a program member without the audit permission', async () => {
    const t = await createTenant(db(), 'Api')
    const other = await createTenant(db(), 'Other')
    const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
    for (const title of ['First', 'Second', 'Third']) await createRecord(lead, { programId: t.program.id, recordType: 'evidence.questions', title })
    const otherLead = await contextForUser(db(), other.users.program_lead.id, other.organization.id)
    await createRecord(otherLead, { programId: other.program.id, recordType: 'evidence.questions', title: 'Elsewhere' })

    const ok = await as(t, 'org_admin', VERIFY)
    expect(ok.body.errors).toBeUndefined()
    expect(ok.body.data.auditChainVerification).toMatchObject({ verified: true, entries: 3, headSeq: 3, beforeChain: 0, firstBreak: null })
    expect(ok.body.data.auditChainVerification.headHash).toMatch(/^[0-9a-f]{64}$/)

    const position = await db().auditChainEntry.findUniqueOrThrow({ where: { organizationId_chainSeq: { organizationId: t.organization.id, chainSeq: 2 } } })
    const second = await db().auditEvent.findUniqueOrThrow({ where: { id: position.eventId } })
    const version = await db().programRecordVersion.findFirstOrThrow({ where: { recordId: second.targetId } })
    await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe('ALTER TABLE program_record_versions DISABLE TRIGGER USER')
      await tx.$executeRawUnsafe(`UPDATE program_record_versions SET title = 'Rewritten' WHERE id = $1::uuid`, version.id)
      await tx.$executeRawUnsafe('ALTER TABLE program_record_versions ENABLE TRIGGER USER')
    })
    const broken = await as(t, 'org_admin', VERIFY)
    expect(broken.body.data.auditChainVerification).toMatchObject({ verified: false, entries: 1, firstBreak: { seq: 2, entryId: second.id, reason: 'content_changed' } })
    // The other organisation's chain is its own: untouched, it verifies.
    expect((await as(other, 'org_admin', VERIFY)).body.data.auditChainVerification).toMatchObject({ verified: true, entries: 1 })

    expect((await as(t, 'scientist', VERIFY)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
  })

  it("says a record's trail is pending until the next verification, then verified with its time, and tells no one outside the program", async () => {
    const t = await createTenant(db(), 'Trail')
    const other = await createTenant(db(), 'Outsider')
    const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
    const record = await createRecord(lead, { programId: t.program.id, recordType: 'evidence.questions', title: 'Is the exposure linear?' })
    const pending = await as(t, 'viewer', TRAIL, { p: t.program.id, id: record.id })
    expect(pending.body.data.auditTrail).toEqual({ state: 'pending', verifiedAt: null, entrySeq: 1 })

    const verified = await as(t, 'org_admin', VERIFY)
    const trail = await as(t, 'viewer', TRAIL, { p: t.program.id, id: record.id })
    expect(trail.body.data.auditTrail).toEqual({ state: 'verified', verifiedAt: verified.body.data.auditChainVerification.verifiedAt, entrySeq: 1 })

    expect((await as(other, 'program_lead', TRAIL, { p: t.program.id, id: record.id })).body.data.auditTrail).toBeNull()
  })
})
