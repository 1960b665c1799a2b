// Issue 35: the append-only tables refuse change in PostgreSQL, every audit entry is hash-chained per organisation in
// its writer's transaction, and the verifier (npm run audit:verify, verifyChain) names the first entry that does not
// verify when someone with full rights rewrites the trail.
import { randomUUID } from 'node:crypto'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import { promisify } from 'node:util'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { recordAudit } from '../../core/audit'
import { verifyChain } from '../../core/audit'
import { contextForUser } from '../../core/jobs'
import { createRecord } from '../../domain/records'
import { createPrisma } from '../../core/database'
import { deployMigrations } from '../../prisma/migrations'
import { createEmptyDatabase, useTestDatabase } from '../helpers/db'
import { createTenant, type Tenant } from '../helpers/factories'

const run = promisify(execFile)
const ROOT = path.resolve(__dirname, '../..')
const t = useTestDatabase()
const db = () => t.current.db

const audit = (tenant: Tenant, extra: Partial<Parameters<typeof recordAudit>[1]> = {}) => db().$transaction((tx) => recordAudit(tx, {
  organizationId: tenant.organization.id, programId: tenant.program.id, action: 'program.update',
  actor: { type: 'user', userId: tenant.users.program_lead.id }, target: { type: 'program', id: tenant.program.id }, details: { n: 1 }, ...extra,
}))

async function signatureOf(tenant: Tenant) {
  return db().signature.create({ data: {
    organizationId: tenant.organization.id, programId: tenant.program.id, signerUserId: tenant.users.program_lead.id, printedName: 'Lead',
    meaning: 'approval', targetType: 'plan', targetId: randomUUID(),
  } })
}

/** One row of each append-only table, written the ordinary way. */
async function oneOfEach(tenant: Tenant) {
  const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
  const record = await createRecord(lead, { programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'Series B binds', fields: { confidence: 'medium' } })
  const version = await db().programRecordVersion.findFirstOrThrow({ where: { recordId: record.id } })
  const signature = await signatureOf(tenant)
  const approval = await db().approval.create({ data: {
    organizationId: tenant.organization.id, programId: tenant.program.id, targetType: 'plan', targetId: signature.targetId,
    approverUserId: tenant.users.program_lead.id, decision: 'approved', signatureId: signature.id,
  } })
  const event = await db().auditEvent.findFirstOrThrow({ where: { organizationId: tenant.organization.id }, orderBy: { entrySeq: 'desc' } })
  return { audit_events: event.id, program_record_versions: version.id, signatures: signature.id, approvals: approval.id }
}

/** The organisation's chain positions in order (audit_chain_entries). */
const chainOf = (tenant: Tenant) => db().auditChainEntry.findMany({ where: { organizationId: tenant.organization.id }, orderBy: { chainSeq: 'asc' } })

/** What someone with full rights on the database does: switch the guard off, change a row, switch it on again. */
async function tamper(table: string, sql: string, ...values: unknown[]) {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`ALTER TABLE ${table} DISABLE TRIGGER USER`)
    await tx.$executeRawUnsafe(sql, ...values)
    await tx.$executeRawUnsafe(`ALTER TABLE ${table} ENABLE TRIGGER USER`)
  })
}

async function auditVerify(...args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: t.current.url } })
    return { code: 0, out: r.stdout }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, out: err.stdout + err.stderr }
  }
}

describe('append-only tables', () => {
  it('refuses a direct UPDATE, DELETE or TRUNCATE of audit events, decisions, signatures and record versions in the database', async () => {
    const tenant = await createTenant(db())
    const ids = await oneOfEach(tenant)
    const column: Record<string, string> = { audit_events: 'action', program_record_versions: 'title', signatures: 'printed_name', approvals: 'decision' }
    for (const [table, id] of Object.entries(ids)) {
      await expect(db().$executeRawUnsafe(`UPDATE ${table} SET ${column[table]} = 'rewritten' WHERE id = $1::uuid`, id), table).rejects.toThrow(/append_only: .* never update/)
      await expect(db().$executeRawUnsafe(`DELETE FROM ${table} WHERE id = $1::uuid`, id), table).rejects.toThrow(/append_only: .* never delete/)
      await expect(db().$executeRawUnsafe(`TRUNCATE ${table} CASCADE`), table).rejects.toThrow(/append_only: .* never truncated/)
      expect(await db().$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table} WHERE id = $1::uuid`, id)).toEqual([{ n: 1n }])
    }
    // Through the client as well: whatever code runs, the database is the one that says no.
    await expect(db().signature.update({ where: { id: ids.signatures }, data: { printedName: 'Someone else' } })).rejects.toThrow(/append_only/)
    await expect(db().auditEvent.deleteMany({ where: { organizationId: tenant.organization.id } })).rejects.toThrow(/append_only/)
    // A cascade from a parent is refused too: a program record with versions cannot be deleted.
    await expect(db().programRecord.deleteMany({ where: { programId: tenant.program.id } })).rejects.toThrow(/append_only/)
  })

  it('refuses rewriting, removing or truncating a chain position once it is written', async () => {
    const tenant = await createTenant(db())
    const e = await audit(tenant)
    await expect(db().$executeRaw`UPDATE audit_chain_entries SET entry_hash = 'x' WHERE event_id = ${e.id}::uuid`).rejects.toThrow(/append_only: audit_chain_entries rows are never update/)
    await expect(db().$executeRaw`DELETE FROM audit_chain_entries WHERE event_id = ${e.id}::uuid`).rejects.toThrow(/append_only: audit_chain_entries rows are never delete/)
    await expect(db().$executeRaw`TRUNCATE audit_chain_entries`).rejects.toThrow(/append_only: audit_chain_entries is never truncated/)
    expect(await chainOf(tenant)).toHaveLength(1)
  })

  it('allows no update of an audit row at all, not even of the columns the chain once set', async () => {
    const tenant = await createTenant(db())
    const e = await audit(tenant)
    await expect(db().$executeRaw`UPDATE audit_events SET subjects = subjects WHERE id = ${e.id}::uuid`).rejects.toThrow(/append_only: audit_events rows are never update/)
  })
})

describe('the hash chain', () => {
  it('numbers each organisation entries 1, 2, 3 with each entry linking the one before, and verifies', async () => {
    const a = await createTenant(db(), 'Alpha')
    const b = await createTenant(db(), 'Beta')
    for (let i = 0; i < 3; i++) { await audit(a); await audit(b) }
    const rows = await chainOf(a)
    expect(rows.map((r) => Number(r.chainSeq))).toEqual([1, 2, 3])
    rows.forEach((r, i) => expect(r.prevHash).toBe(i === 0 ? '' : rows[i - 1]!.entryHash))
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.entryHash))).toBe(true)
    for (const tenant of [a, b]) {
      const v = await verifyChain(db(), tenant.organization.id)
      expect(v).toMatchObject({ verified: true, firstBreak: null, headSeq: BigInt(rows.length) })
    }
  })

  it('leaves one chain with no fork and no gap when many writers of one organisation append at once', async () => {
    const tenant = await createTenant(db(), 'Parallel')
    const other = await createTenant(db(), 'Bystander')
    const writers = 24
    await Promise.all(Array.from({ length: writers }, (_, i) => audit(i % 4 === 0 ? other : tenant, { details: { writer: i } })))
    const rows = await chainOf(tenant)
    expect(rows.map((r) => Number(r.chainSeq))).toEqual(Array.from({ length: 18 }, (_, i) => i + 1))
    rows.forEach((r, i) => expect(r.prevHash).toBe(i === 0 ? '' : rows[i - 1]!.entryHash))
    expect(new Set(rows.map((r) => r.prevHash)).size).toBe(rows.length)
    expect((await verifyChain(db(), tenant.organization.id)).verified).toBe(true)
    expect((await verifyChain(db(), other.organization.id)).verified).toBe(true)
  })

  it('chains the entries of concurrent writes through the write path (chained at the end of each write) in one unbroken order', async () => {
    const tenant = await createTenant(db(), 'Writes')
    const lead = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id)
    await Promise.all(Array.from({ length: 12 }, (_, i) =>
      createRecord(lead, { programId: tenant.program.id, recordType: 'evidence.questions', title: `Question ${i}` })))
    const rows = await chainOf(tenant)
    expect(rows.map((r) => Number(r.chainSeq))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    rows.forEach((r, i) => expect(r.prevHash).toBe(i === 0 ? '' : rows[i - 1]!.entryHash))
    const events = await db().auditEvent.findMany({ where: { organizationId: tenant.organization.id } })
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(rows.map((r) => r.eventId)))
    expect(events.every((r) => (r.subjects as { table: string }[])[0]?.table === 'program_record_versions')).toBe(true)
    expect(await verifyChain(db(), tenant.organization.id)).toMatchObject({ verified: true, entries: 12 })
  })

  it('names exactly the entry whose content was changed in SQL with the trigger disabled, in npm run audit:verify', async () => {
    const tenant = await createTenant(db(), 'Tampered')
    for (let i = 0; i < 4; i++) await audit(tenant, { details: { n: i } })
    const victim = { id: (await chainOf(tenant))[2]!.eventId }
    const before = await auditVerify('--org', tenant.organization.slug)
    expect(before.code, before.out).toBe(0)
    expect(before.out).toMatch(/: verified, \d+ entries/)
    await tamper('audit_events', `UPDATE audit_events SET details = '{"n": 99}' WHERE id = $1::uuid`, victim.id)
    const after = await auditVerify('--org', tenant.organization.slug)
    expect(after.code).toBe(1)
    expect(after.out).toContain(`DOES NOT VERIFY at entry #3 ${victim.id}: content_changed`)
    expect((await verifyChain(db(), tenant.organization.id)).firstBreak).toEqual({ seq: 3n, entryId: victim.id, reason: 'content_changed' })
  })

  it('names the entry that records a signature whose meaning was changed behind its back', async () => {
    const tenant = await createTenant(db(), 'Resigned')
    await audit(tenant)
    const signature = await signatureOf(tenant)
    const signed = await audit(tenant, { action: 'signature.create', target: { type: 'signature', id: signature.id }, signatureId: signature.id })
    await audit(tenant)
    await tamper('signatures', `UPDATE signatures SET meaning = 'review' WHERE id = $1::uuid`, signature.id)
    expect((await verifyChain(db(), tenant.organization.id)).firstBreak).toEqual({ seq: 2n, entryId: signed.id, reason: 'content_changed' })
  })

  it('tells a removed entry, a removed tail and a row written around the chain', async () => {
    const tenant = await createTenant(db(), 'Removed')
    const events = []
    for (let i = 0; i < 4; i++) events.push(await audit(tenant))
    await tamper('audit_events', 'DELETE FROM audit_events WHERE id = $1::uuid', events[1]!.id)
    expect((await verifyChain(db(), tenant.organization.id)).firstBreak).toEqual({ seq: 3n, entryId: events[2]!.id, reason: 'entries_missing' })

    const tail = await createTenant(db(), 'Tail')
    const last = [await audit(tail), await audit(tail)]
    await tamper('audit_events', 'DELETE FROM audit_events WHERE id = $1::uuid', last[1]!.id)
    expect((await verifyChain(db(), tail.organization.id)).firstBreak).toMatchObject({ seq: 2n, reason: 'head_mismatch' })

    const around = await createTenant(db(), 'Around')
    await audit(around)
    const forged = await db().auditEvent.create({ data: { organizationId: around.organization.id, action: 'program.update', actorType: 'user', targetType: 'program', targetId: 'x' } })
    expect((await verifyChain(db(), around.organization.id)).firstBreak).toEqual({ seq: null, entryId: forged.id, reason: 'not_chained' })
  })

  it('names a chain position rewritten or removed behind the chain table\'s back', async () => {
    const tenant = await createTenant(db(), 'Repositioned')
    const events = []
    for (let i = 0; i < 4; i++) events.push(await audit(tenant))
    await tamper('audit_chain_entries', `UPDATE audit_chain_entries SET entry_hash = $1 WHERE event_id = $2::uuid`, 'f'.repeat(64), events[1]!.id)
    expect((await verifyChain(db(), tenant.organization.id)).firstBreak).toEqual({ seq: 2n, entryId: events[1]!.id, reason: 'content_changed' })

    const gap = await createTenant(db(), 'Unpositioned')
    const gapEvents = []
    for (let i = 0; i < 3; i++) gapEvents.push(await audit(gap))
    await tamper('audit_chain_entries', 'DELETE FROM audit_chain_entries WHERE event_id = $1::uuid', gapEvents[1]!.id)
    expect((await verifyChain(db(), gap.organization.id)).firstBreak).toEqual({ seq: 3n, entryId: gapEvents[2]!.id, reason: 'entries_missing' })
  })

  it('rolls the entry back with the change: a failed write leaves no chain position behind', async () => {
    const tenant = await createTenant(db(), 'Rollback')
    await audit(tenant)
    await expect(db().$transaction(async (tx) => {
      await recordAudit(tx, { organizationId: tenant.organization.id, action: 'program.update', actor: { type: 'user', userId: tenant.users.program_lead.id }, target: { type: 'program', id: 'x' } })
      throw new Error('the write failed')
    })).rejects.toThrow('the write failed')
    await audit(tenant)
    expect(await verifyChain(db(), tenant.organization.id)).toMatchObject({ verified: true, headSeq: 2n })
  })
})

describe('the upgrade that moved chain positions out of audit_events', () => {
  it('keeps every chain written before it: the positions move as they were and the same hashes verify after', async () => {
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-chain-upgrade-'))
    const empty = await createEmptyDatabase()
    const old = createPrisma(empty.url, 2)
    try {
      // The database as it was one migration before: every committed migration up to the move.
      const migrations = path.join(scratch, 'migrations')
      await fs.cp(path.join(ROOT, 'prisma', 'migrations'), migrations, { recursive: true })
      const moved = (await fs.readdir(migrations)).filter((d) => d.endsWith('_audit_chain_entries'))
      expect(moved).toHaveLength(1)
      const later = (await fs.readdir(migrations)).filter((d) => /^\d{14}_/.test(d) && d >= moved[0]!)
      for (const d of later) await fs.rm(path.join(migrations, d), { recursive: true })
      const paths = { schema: path.join(ROOT, 'prisma', 'schema.prisma'), migrations }
      await deployMigrations(empty.url, paths)
      // Entries chained the old way: the append's functions had the same names and arguments, and set the audit
      // row's own chain columns.
      const tenant = await createTenant(old, 'Upgraded')
      const lead = await contextForUser(old, tenant.users.program_lead.id, tenant.organization.id)
      await createRecord(lead, { programId: tenant.program.id, recordType: 'evidence.hypotheses', title: 'Series B binds', fields: { confidence: 'medium' } })
      for (let i = 0; i < 3; i++) {
        await old.$transaction((tx) => recordAudit(tx, { organizationId: tenant.organization.id, programId: tenant.program.id, action: 'program.update',
          actor: { type: 'user', userId: tenant.users.program_lead.id }, target: { type: 'program', id: tenant.program.id }, details: { n: i } }))
      }
      const before = await old.$queryRaw<{ id: string; chain_seq: bigint; prev_hash: string; entry_hash: string }[]>`
        SELECT id, chain_seq, prev_hash, entry_hash FROM audit_events WHERE organization_id = ${tenant.organization.id}::uuid ORDER BY chain_seq`
      expect(before.map((r) => Number(r.chain_seq))).toEqual([1, 2, 3, 4])

      await deployMigrations(empty.url, { ...paths, migrations: path.join(ROOT, 'prisma', 'migrations') })
      const after = await old.auditChainEntry.findMany({ where: { organizationId: tenant.organization.id }, orderBy: { chainSeq: 'asc' } })
      expect(after.map((r) => ({ id: r.eventId, chain_seq: r.chainSeq, prev_hash: r.prevHash, entry_hash: r.entryHash }))).toEqual(before)
      expect(await verifyChain(old, tenant.organization.id)).toMatchObject({ verified: true, entries: 4, headSeq: 4n, firstBreak: null })
      // And the chain goes on from where it was.
      await old.$transaction((tx) => recordAudit(tx, { organizationId: tenant.organization.id, action: 'program.update',
        actor: { type: 'user', userId: tenant.users.program_lead.id }, target: { type: 'program', id: tenant.program.id } }))
      expect(await verifyChain(old, tenant.organization.id)).toMatchObject({ verified: true, entries: 5 })
    } finally {
      await old.$disconnect()
      await empty.drop()
      await fs.rm(scratch, { recursive: true, force: true })
    }
  }, 240_000)
})
