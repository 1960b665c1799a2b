// Issue 35: the daily verification files an inbox item for the organisation's owners and administrators when its
// chain breaks; forgetting a memory note leaves the chain verifiable; an export verifies offline with
// scripts/audit-verify-offline.mjs (no project code), which names a tampered entry.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { recordAudit } from '../../core/audit'
import { exportChain, verifyChain } from '../../core/audit'
import { contextForUser } from '../../core/jobs'
import { forgetMemory, keepMemoryNote } from '../../domain/memory'
import { createRecord } from '../../domain/records'
import { verifyEveryChain } from '../../jobs/tasks/audit_verify'
import { useTestDatabase } from '../helpers/db'
import { createTenant, createUser, type Tenant } from '../helpers/factories'

const run = promisify(execFile)
const OFFLINE = path.resolve(__dirname, '../../scripts/audit-verify-offline.mjs')
const t = useTestDatabase()
const db = () => t.current.db

const audit = (tenant: Tenant, details: Record<string, unknown> = {}) => db().$transaction((tx) => recordAudit(tx, {
  organizationId: tenant.organization.id, programId: tenant.program.id, action: 'program.update',
  actor: { type: 'user', userId: tenant.users.program_lead.id }, target: { type: 'program', id: tenant.program.id }, details,
}))

async function tamperDetails(id: string, details: string) {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER')
    await tx.$executeRawUnsafe('UPDATE audit_events SET details = $2::jsonb WHERE id = $1::uuid', id, details)
    await tx.$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER')
  })
}

async function offline(file: string, ...args: string[]) {
  try {
    return { code: 0, out: (await run(process.execPath, [OFFLINE, file, ...args])).stdout }
  } catch (e) {
    const err = e as { code: number; stdout: string }
    return { code: err.code, out: err.stdout }
  }
}

describe('the daily verification', () => {
  it('files one inbox item for each organisation owner and administrator when an entry does not verify, and none while it verifies', async () => {
    const tenant = await createTenant(db(), 'Daily')
    const admin = tenant.users.org_admin
    const owner = await createUser(db(), tenant.organization.id, { name: 'Olu Owner', orgPersonas: ['org_owner'] })
    const member = await createUser(db(), tenant.organization.id, { name: 'Mo Member', orgPersonas: ['org_member'] })
    const events = [await audit(tenant), await audit(tenant), await audit(tenant)]
    expect(await verifyEveryChain({ db: db() })).toMatchObject({ broken: 0, filed: 0 })
    expect(await db().inboxItem.count({ where: { organizationId: tenant.organization.id, sourceType: 'audit_chain' } })).toBe(0)

    await tamperDetails(events[1]!.id, '{"rewritten": true}')
    const deactivated = await createUser(db(), tenant.organization.id, { name: 'Gone Admin', orgPersonas: ['org_admin'] })
    await db().user.update({ where: { id: deactivated.id }, data: { deactivatedAt: new Date() } })
    expect(await verifyEveryChain({ db: db() })).toMatchObject({ broken: 1, filed: 2 })
    const items = await db().inboxItem.findMany({ where: { organizationId: tenant.organization.id, sourceType: 'audit_chain' } })
    expect(items.map((i) => i.userId).sort()).toEqual([admin.id, owner.id].sort())
    expect(items.every((i) => i.kind === 'information' && i.status === 'open' && i.sourceId === events[1]!.id)).toBe(true)
    expect(items[0]!.title).toBe('The audit trail does not verify at audit entry #2 (content changed). Run npm run audit:verify and see the operators\' guide.')
    expect(items.some((i) => i.userId === member.id)).toBe(false)
    // The next day, the same break files nothing new while the item is open.
    expect(await verifyEveryChain({ db: db() })).toMatchObject({ broken: 1, filed: 0 })
    const head = await db().auditChainHead.findUniqueOrThrow({ where: { organizationId: tenant.organization.id } })
    expect(head).toMatchObject({ brokenSeq: 2n, brokenEntryId: events[1]!.id, brokenReason: 'content_changed', verifiedSeq: 1n })
  })
})

describe('documented removals', () => {
  it('keeps the chain verifiable when a person forgets a memory note: the content goes, the fact and its hash stay', async () => {
    const tenant = await createTenant(db(), 'Forgetful')
    const me = await contextForUser(db(), tenant.users.scientist.id, tenant.organization.id)
    const kept = await keepMemoryNote(me, { programId: tenant.program.id, kind: 'preference', summary: 'Prefers NCA plots on a log scale.' })
    await forgetMemory(me, { recordId: kept.id })
    const row = await db().memoryRecord.findUniqueOrThrow({ where: { id: kept.id } })
    expect(row.summary).not.toContain('log scale')
    const forgot = await db().auditEvent.findFirstOrThrow({ where: { organizationId: tenant.organization.id, action: 'memory.forget' } })
    expect(forgot.details).toMatchObject({ content_hash: kept.contentHash })
    expect(await db().auditChainEntry.findUnique({ where: { eventId: forgot.id } })).not.toBeNull()
    expect(await verifyChain(db(), tenant.organization.id)).toMatchObject({ verified: true, firstBreak: null })
  })
})

describe('offline verification (scripts/audit-verify-offline.mjs)', () => {
  it('verifies an export with nothing but Node, names a tampered entry, and refuses a head kept from another chain', async () => {
    const tenant = await createTenant(db(), 'Exported')
    const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
    await createRecord(lead, { programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'Ĉu «naïve» 🧪 dose 0.1 mg/kg', fields: { confidence: 'medium' } })
    for (let i = 0; i < 3; i++) await audit(tenant, { ratio: 1e-7 * (i + 1), nested: { z: 1, a: [true, null, 'é'] } })
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'audit-export-'))
    const file = path.join(dir, 'chain.json')
    let text = ''
    const r = await exportChain(db(), tenant.organization.id, (s) => { text += s })
    await fs.writeFile(file, text)
    expect(r.entries).toBe(4)
    const x = JSON.parse(text)
    expect(x).toMatchObject({ format: 'audit-chain/1', organization_id: tenant.organization.id, head: { seq: 4 } })
    expect(x.daily_heads.at(-1)).toMatchObject({ seq: 4, hash: x.head.hash })
    expect(x.entries[0].subjects[0]).toMatchObject({ table: 'program_record_versions' })

    const good = await offline(file, '--head', `2:${x.entries[1].entry_hash}`)
    expect(good, good.out).toMatchObject({ code: 0 })
    expect(good.out).toContain(`verified: 4 entries of organisation ${tenant.organization.id}, head #4 ${x.head.hash}`)

    const forged = structuredClone(x)
    forged.entries[0].subjects[0].row.title = 'A different hypothesis'
    await fs.writeFile(file, JSON.stringify(forged))
    expect(await offline(file)).toEqual({ code: 1, out: `does not verify at entry #1 ${x.entries[0].entry.id}: content_changed\n` })

    const dropped = structuredClone(x)
    dropped.entries.splice(2, 1)
    await fs.writeFile(file, JSON.stringify(dropped))
    expect((await offline(file)).out).toMatch(/^does not verify at entry #4 .*: entries_missing/)

    await fs.writeFile(file, text)
    expect((await offline(file, '--head', `2:${'0'.repeat(64)}`)).out).toMatch(/the head you kept is not in this chain/)
    await fs.rm(dir, { recursive: true })
  })
})
