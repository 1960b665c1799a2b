// Two-organisation and two-program memory isolation (R4 gate list): each test first shows the other tenant's or
// program's rows exist, so none can pass vacuously. Also the organisation column plus namespace check, and what each
// tier never stores, enforced by the database.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { addMember, createProgram, createTenant, expectRowsExist, type Tenant } from '../helpers/factories'
import { keepMemoryNote, promoteMemory } from '../../domain/memory'
import { recallForRun, buildMemoryBrief } from '../../domain/memory'
import { namespaceFor } from '../../domain/memory'
import { MY, OVERSIGHT, FORGET, PROMOTE, REMOVE, ctxOf } from './helpers'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const as = async (t: Tenant, persona: keyof Tenant['users'], query: string, variables: Record<string, unknown> = {}) =>
  gql(url(), query, variables, await t.token(persona))

let a: Tenant
let b: Tenant
let bNote: { id: string }
let bTier2: { id: string }
beforeAll(async () => {
  a = await createTenant(db(), 'Alpha')
  b = await createTenant(db(), 'Beta')
  await keepMemoryNote(await ctxOf(db(), a, 'scientist'), { programId: a.program.id, kind: 'preference', summary: 'Alpha prefers compact tables.' })
  const bCtx = await ctxOf(db(), b, 'scientist')
  bNote = await keepMemoryNote(bCtx, { programId: b.program.id, kind: 'preference', summary: 'Beta prefers compact tables.' })
  const other = await keepMemoryNote(bCtx, { programId: b.program.id, kind: 'vocabulary', summary: 'Beta says DRF for dose-range finding.' })
  bTier2 = (await promoteMemory(bCtx, { programId: b.program.id, recordId: other.id })).record
})

describe('two organisations', () => {
  it("never shows one organisation's memory to the other, through any route", async () => {
    // The other organisation's rows exist.
    expect(await expectRowsExist(db(), 'memory_records', b.organization.id)).toBe(3)
    expect(await db().memoryRecord.count({ where: { organizationId: b.organization.id, status: { in: ['kept', 'promoted'] } } })).toBe(3)
    const mine = (await as(a, 'scientist', MY)).body.data.myMemory.nodes
    expect(mine.map((n: any) => n.summary)).toEqual(['Alpha prefers compact tables.'])
    expect(mine.every((n: any) => n.namespace.startsWith(`org/${a.organization.id}/`))).toBe(true)
    // Oversight naming the other organisation's person and program finds nothing.
    const cross = await as(a, 'program_lead', OVERSIGHT, { p: a.program.id, u: b.users.scientist.id })
    expect(cross.body.data.agentMemory.nodes).toEqual([])
    const foreignProgram = await as(a, 'program_lead', OVERSIGHT, { p: b.program.id, u: b.users.scientist.id })
    expect(foreignProgram.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN' })
    // Writes on the other organisation's records answer not found and change nothing.
    expect((await as(a, 'scientist', FORGET, { id: bNote.id })).body.data.forgetMemory.__typename).toBe('NotFound')
    expect((await as(a, 'program_owner', REMOVE, { p: a.program.id, id: bNote.id, reason: 'x' })).body.data.deleteAgentMemory.__typename).toBe('NotFound')
    expect((await as(a, 'scientist', PROMOTE, { p: a.program.id, id: bNote.id })).body.data.promoteMemory.__typename).toBe('NotFound')
    expect((await db().memoryRecord.findUniqueOrThrow({ where: { id: bNote.id } })).status).toBe('kept')
    // Recall for a run of organisation A never returns B's.
    const recall = await recallForRun(await ctxOf(db(), a, 'scientist'), { programId: a.program.id, query: 'compact tables DRF' })
    expect(recall.records.map((r) => r.summary)).toEqual(['Alpha prefers compact tables.'])
    expect(recall.records.map((r) => r.id)).not.toContain(bTier2.id)
  })

  it('refuses a row whose namespace names another organisation: the database CHECK, and the read check behind it', async () => {
    const ns = namespaceFor({ organizationId: b.organization.id, userId: a.users.scientist.id, tier: 'person' })
    const write = db().memoryRecord.create({ data: { organizationId: a.organization.id, userId: a.users.scientist.id, tier: 'person', kind: 'preference', origin: 'human', status: 'kept', summary: 'x', contentHash: 'x', namespace: ns } })
    await expect(write).rejects.toThrow(/memory_records_namespace_of_organization/)
    // With the CHECK gone (a bad migration, a restore), the organisation column plus namespace check still refuses to
    // hand the row to anyone: the read fails instead of showing it.
    await db().$executeRawUnsafe('ALTER TABLE memory_records DROP CONSTRAINT memory_records_namespace_of_organization')
    let row: { id: string } | undefined
    try {
      row = await db().memoryRecord.create({ data: { organizationId: a.organization.id, userId: a.users.scientist.id, tier: 'person', kind: 'preference', origin: 'human', status: 'kept', summary: 'Smuggled note.', contentHash: 'y', namespace: ns } })
      const r = await as(a, 'scientist', MY)
      expect(r.body.errors?.[0].message).toMatch(/Unexpected error/)
      expect(JSON.stringify(r.body)).not.toContain('Smuggled note.')
      await expect(recallForRun(await ctxOf(db(), a, 'scientist'), { programId: null })).rejects.toThrow(/namespace/)
    } finally {
      if (row) await db().memoryRecord.delete({ where: { id: row.id } })
      await db().$executeRawUnsafe(`ALTER TABLE memory_records ADD CONSTRAINT memory_records_namespace_of_organization CHECK (starts_with("namespace", 'org/' || "organization_id"::text || '/'))`)
    }
  })
})

describe('two programs', () => {
  it("keeps a person's tier 1 of one program out of the other program's list, oversight and brief", async () => {
    const t = await createTenant(db(), 'TwoPrograms')
    const second = await createProgram(db(), t.organization.id)
    await addMember(db(), second, t.users.scientist.id, ['scientist'])
    await addMember(db(), second, t.users.program_lead.id, ['program_lead'])
    const ctx = await ctxOf(db(), t, 'scientist')
    const first = await keepMemoryNote(ctx, { programId: t.program.id, kind: 'lesson', summary: 'The first program runs assays on Tuesdays.' })
    // The other program's row exists.
    expect(await db().memoryRecord.count({ where: { programId: t.program.id, userId: t.users.scientist.id } })).toBe(1)
    expect((await as(t, 'scientist', MY, { p: second.id })).body.data.myMemory.nodes).toEqual([])
    expect((await as(t, 'program_lead', OVERSIGHT, { p: second.id, u: t.users.scientist.id })).body.data.agentMemory.nodes).toEqual([])
    expect((await as(t, 'scientist', PROMOTE, { p: second.id, id: first.id })).body.data.promoteMemory.__typename).toBe('NotFound')
    const brief = await buildMemoryBrief(ctx, { programId: second.id, query: 'assays Tuesdays' })
    expect(brief.records).toEqual([])
    expect(brief.text).not.toContain('Tuesdays')
  })

  it("drops a tier-2 record that carries a reference from a program run's brief", async () => {
    const t = await createTenant(db(), 'Tier2Refs')
    const ctx = await ctxOf(db(), t, 'scientist')
    const { organizationId, userId } = ctx.session
    const ns = namespaceFor({ organizationId, userId, tier: 'person' })
    // The CHECK forbids the row; the brief's own rule is shown with the CHECK out of the way.
    await expect(db().memoryRecord.create({ data: { organizationId, userId, tier: 'person', kind: 'preference', origin: 'human', status: 'kept', summary: 'A fact of program A.', contentHash: 'r', namespace: ns, sourceRef: 'hypothesis:11111111-2222-4333-8444-555555555555' } }))
      .rejects.toThrow(/memory_records_person_without_program_or_reference/)
    await db().$executeRawUnsafe('ALTER TABLE memory_records DROP CONSTRAINT memory_records_person_without_program_or_reference')
    try {
      await db().memoryRecord.create({ data: { organizationId, userId, tier: 'person', kind: 'preference', origin: 'human', status: 'kept', summary: 'A fact of program A.', contentHash: 'r', namespace: ns, sourceRef: 'hypothesis:11111111-2222-4333-8444-555555555555' } })
      await db().memoryRecord.create({ data: { organizationId, userId, tier: 'person', kind: 'preference', origin: 'human', status: 'kept', summary: 'Prefers SI units.', contentHash: 's', namespace: ns } })
      const brief = await buildMemoryBrief(ctx, { programId: t.program.id })
      expect(brief.records.map((r) => r.summary)).toEqual(['Prefers SI units.'])
    } finally {
      await db().memoryRecord.deleteMany({ where: { userId, tier: 'person', sourceRef: { not: null } } })
      await db().$executeRawUnsafe(`ALTER TABLE memory_records ADD CONSTRAINT memory_records_person_without_program_or_reference CHECK ("tier" <> 'person' OR ("program_id" IS NULL AND "source_ref" IS NULL AND cardinality(coalesce("passage_refs", ARRAY[]::TEXT[])) = 0))`)
    }
  })
})

describe('what each tier admits and never stores (database)', () => {
  it('refuses a kind the tier does not admit, tier 3 rows, proposed rows, unerased tombstones and long summaries', async () => {
    const t = await createTenant(db(), 'Checks')
    const { id: userId } = t.users.scientist
    const organizationId = t.organization.id
    const base = { organizationId, userId, origin: 'human' as const, status: 'kept' as const, summary: 'x', contentHash: 'x' }
    const ind = { ...base, tier: 'individual' as const, programId: t.program.id, namespace: namespaceFor({ organizationId, userId, tier: 'individual', programId: t.program.id }) }
    const per = { ...base, tier: 'person' as const, namespace: namespaceFor({ organizationId, userId, tier: 'person' }) }
    await expect(db().memoryRecord.create({ data: { ...per, kind: 'episodic' } })).rejects.toThrow(/memory_records_kind_admitted_by_tier/)
    await expect(db().memoryRecord.create({ data: { ...per, kind: 'lesson' } })).rejects.toThrow(/memory_records_kind_admitted_by_tier/)
    await expect(db().memoryRecord.create({ data: { ...ind, kind: 'rubric_version' } })).rejects.toThrow(/memory_records_kind_admitted_by_tier/)
    await expect(db().memoryRecord.create({ data: { ...per, kind: 'preference', programId: t.program.id } })).rejects.toThrow(/memory_records_person_without_program_or_reference/)
    await expect(db().memoryRecord.create({ data: { ...base, tier: 'role', kind: 'lesson', workbenchRoleKey: 'medicinal_chemist', namespace: `org/${organizationId}/roles/medicinal_chemist` } })).rejects.toThrow(/memory_records_role_tier_reserved/)
    await expect(db().memoryRecord.create({ data: { ...ind, kind: 'preference', status: 'proposed' } })).rejects.toThrow(/memory_records_nothing_unkept/)
    await expect(db().memoryRecord.create({ data: { ...ind, kind: 'preference', status: 'forgotten', forgottenAt: new Date() } })).rejects.toThrow(/memory_records_forgotten_erased/)
    await expect(db().memoryRecord.create({ data: { ...ind, kind: 'preference', summary: 'x'.repeat(601) } })).rejects.toThrow(/memory_records_summary_length/)
    await expect(db().memoryRecord.create({ data: { ...ind, kind: 'preference', programId: null } })).rejects.toThrow(/memory_records_individual_in_a_program/)
    expect(await db().memoryRecord.count({ where: { organizationId } })).toBe(0)
  })

  it("deletes a person's tier 2 (and tier 1) with the user", async () => {
    const t = await createTenant(db(), 'UserDeleted')
    const ctx = await ctxOf(db(), t, 'scientist')
    const kept = await keepMemoryNote(ctx, { programId: t.program.id, kind: 'preference', summary: 'Prefers SI units.' })
    await promoteMemory(ctx, { programId: t.program.id, recordId: kept.id })
    expect(await db().memoryRecord.count({ where: { userId: t.users.scientist.id } })).toBe(2)
    await db().$transaction([
      db().roleAssignment.deleteMany({ where: { userId: t.users.scientist.id } }),
      db().programMembership.deleteMany({ where: { userId: t.users.scientist.id } }),
      db().user.delete({ where: { id: t.users.scientist.id } }),
    ])
    expect(await db().memoryRecord.count({ where: { userId: t.users.scientist.id } })).toBe(0)
  })
})
