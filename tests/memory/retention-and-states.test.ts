// Retention windows through the real worker (memory_expire) and with a controllable clock, every transition of the
// memory state table, and the promise that no operation aggregates memory or feedback per person.
import fs from 'node:fs'
import path from 'node:path'
import { Kind, parse, type TypeNode } from 'graphql'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { startTestWorker } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { enqueue } from '../../core/jobs'
import { memoryRecordStatus } from '../../core/states'
import { keepMemoryNote, keepNote, promoteMemory, proposeNote, proposePromotion, forgetMemory, removeMemory } from '../../domain/memory'
import { sweepMemory } from '../../domain/memory'
import { ctxOf, fileKeepQuestion } from './helpers'

const t = useTestDatabase()
const db = () => t.current.db
const DAY = 86_400_000

async function decided(tenant: Tenant, userId: string, id: string) {
  await db().auditEvent.create({ data: { organizationId: tenant.organization.id, programId: tenant.program.id, action: 'hypothesis.decision', actorType: 'user', actorUserId: userId, targetType: 'hypothesis', targetId: id } })
  return `hypothesis:${id}`
}

async function episodic(tenant: Tenant, n: number) {
  const ctx = await ctxOf(db(), tenant, 'scientist')
  const ref = await decided(tenant, tenant.users.scientist.id, `3111111${n}-2222-4333-8444-555555555555`)
  return keepMemoryNote(ctx, { programId: tenant.program.id, kind: 'episodic', summary: `Decision note number ${n}.`, sourceRef: ref })
}

describe('retention (memory_expire)', () => {
  it('runs through the real worker: soft-forgets tier 1 90 days after membership ended, expires unpinned episodic records after 180 days', async () => {
    const tenant = await createTenant(db(), 'Retention')
    const lead = await ctxOf(db(), tenant, 'program_lead')
    const leftEarly = await keepMemoryNote(lead, { programId: tenant.program.id, kind: 'preference', summary: 'Prefers weekly digests.' })
    const old = await episodic(tenant, 1)
    const pinned = await episodic(tenant, 2)
    const fresh = await episodic(tenant, 3)
    await db().memoryRecord.update({ where: { id: old.id }, data: { createdAt: new Date(Date.now() - 181 * DAY), expiresAt: new Date(Date.now() - DAY) } })
    await db().memoryRecord.update({ where: { id: pinned.id }, data: { createdAt: new Date(Date.now() - 181 * DAY), expiresAt: null, pinned: true } })
    await db().programMembership.updateMany({ where: { programId: tenant.program.id, userId: tenant.users.program_lead.id }, data: { endedAt: new Date(Date.now() - 91 * DAY) } })

    await db().$transaction((tx) => enqueue(tx, 'memory_expire', {}))
    await using worker = await startTestWorker(t.current)
    for (let i = 0; i < 100; i++) {
      const left = await db().$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = 'memory_expire'`
      if (left[0]!.n === 0n) break
      await new Promise((r) => setTimeout(r, 100))
    }
    void worker
    const status = async (id: string) => db().memoryRecord.findUniqueOrThrow({ where: { id } })
    expect(await status(leftEarly.id)).toMatchObject({ status: 'forgotten', summary: '', body: null })
    expect(await status(old.id)).toMatchObject({ status: 'forgotten', summary: '' })
    expect((await status(pinned.id)).status).toBe('kept')
    expect((await status(fresh.id)).status).toBe('kept')
    expect(await db().auditEvent.count({ where: { organizationId: tenant.organization.id, action: { startsWith: 'memory.' }, targetId: { in: [leftEarly.id, old.id] }, NOT: { action: 'memory.keep' } } })).toBe(0)
  })

  it('applies the windows at their edges with a controllable clock', async () => {
    const tenant = await createTenant(db(), 'Edges')
    const ctx = await ctxOf(db(), tenant, 'scientist')
    const note = await keepMemoryNote(ctx, { programId: tenant.program.id, kind: 'preference', summary: 'Prefers SI units.' })
    const ep = await episodic(tenant, 4)
    const ended = new Date()
    await db().programMembership.updateMany({ where: { programId: tenant.program.id, userId: tenant.users.scientist.id }, data: { endedAt: ended } })
    const at = (days: number) => new Date(ended.getTime() + days * DAY)
    expect(await sweepMemory(db(), at(89))).toMatchObject({ membershipEnded: 0, episodicExpired: 0 })
    expect((await db().memoryRecord.findUniqueOrThrow({ where: { id: note.id } })).status).toBe('kept')
    // Membership ended 90 days ago: both of the person's tier-1 records of the program are soft-forgotten.
    expect(await sweepMemory(db(), at(90))).toMatchObject({ membershipEnded: 2, episodicExpired: 0 })
    expect((await db().memoryRecord.findUniqueOrThrow({ where: { id: ep.id } })).status).toBe('forgotten')

    const other = await createTenant(db(), 'Episodic180')
    const e2 = await episodic(other, 5)
    const created = (await db().memoryRecord.findUniqueOrThrow({ where: { id: e2.id } })).createdAt
    await sweepMemory(db(), new Date(created.getTime() + 179 * DAY))
    expect((await db().memoryRecord.findUniqueOrThrow({ where: { id: e2.id } })).status).toBe('kept')
    await sweepMemory(db(), new Date(created.getTime() + 180 * DAY))
    expect((await db().memoryRecord.findUniqueOrThrow({ where: { id: e2.id } })).status).toBe('forgotten')
  })
})

describe('Keep questions that expire unanswered', () => {
  it('lose their note at the sweep after they expire (controllable clock); answered and open ones are left alone', async () => {
    const tenant = await createTenant(db(), 'QuestionsExpire')
    const ctx = await ctxOf(db(), tenant, 'scientist')
    const p = await proposeNote(ctx, { programId: tenant.program.id, kind: 'preference', summary: 'Prefers the hamster study first.' })
    if (!p.proposed) throw new Error('not proposed')
    const question = { type: 'memory_note', ...p.question, userId: tenant.users.scientist.id, twinId: null }
    const expiresAt = new Date(Date.now() + DAY)
    const open = await fileKeepQuestion(db(), tenant, question, null, { expiresAt })
    const kept = await fileKeepQuestion(db(), tenant, question, { by: tenant.users.scientist.id, choice: 'keep' }, { expiresAt })
    const before = await sweepMemory(db(), new Date(expiresAt.getTime() - 1000))
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: open.id } })).question).toMatchObject({ memory_note: { summary: 'Prefers the hamster study first.' } })
    expect(before.questionsErased).toBe(0)
    expect((await sweepMemory(db(), expiresAt)).questionsErased).toBeGreaterThanOrEqual(1)
    const erased = await db().runInterrupt.findUniqueOrThrow({ where: { id: open.id } })
    expect(erased.question).toEqual({ type: 'memory_note', userId: tenant.users.scientist.id, twinId: null, erased: true })
    expect((await db().runInterrupt.findUniqueOrThrow({ where: { id: kept.id } })).question).toMatchObject({ memory_note: { summary: 'Prefers the hamster study first.' } })
    expect(await db().memoryRecord.count({ where: { organizationId: tenant.organization.id } })).toBe(0)
  })
})

describe('the memory state table', () => {
  it('covers every transition: keep, discard, promote, forget, remove, expire, and accept_promotion (R5) has no way in', async () => {
    const tenant = await createTenant(db(), 'States')
    const ctx = await ctxOf(db(), tenant, 'scientist')
    const seen = new Set<string>()
    const kept = await keepMemoryNote(ctx, { programId: tenant.program.id, kind: 'preference', summary: 'Prefers tables by month.' })
    expect(kept.status).toBe('kept'); seen.add('keep')
    // discard: a proposed note answered Not now (or expired with its run) stores nothing; no row is ever proposed.
    const before = await db().memoryRecord.count({ where: { organizationId: tenant.organization.id } })
    const proposed = await proposeNote(ctx, { programId: tenant.program.id, kind: 'vocabulary', summary: 'DRF means dose-range finding.' })
    if (!proposed.proposed) throw new Error('not proposed')
    const notNow = await fileKeepQuestion(db(), tenant, proposed.question, { by: tenant.users.scientist.id, choice: 'not_now' })
    const expired = await fileKeepQuestion(db(), tenant, proposed.question, { by: tenant.users.scientist.id, choice: 'keep' }, { expiresAt: new Date(Date.now() - 60_000) })
    expect(await keepNote(ctx, { interruptId: notNow.id })).toBeNull()
    expect(await keepNote(ctx, { interruptId: expired.id })).toBeNull()
    expect(await db().memoryRecord.count({ where: { organizationId: tenant.organization.id } })).toBe(before)
    expect(await db().memoryRecord.count({ where: { status: 'proposed' } })).toBe(0); seen.add('discard')
    const promoted = await promoteMemory(ctx, { programId: tenant.program.id, recordId: kept.id })
    expect([promoted.source.status, promoted.record.status]).toEqual(['promoted', 'kept']); seen.add('promote')
    expect((await forgetMemory(ctx, { recordId: promoted.record.id })).status).toBe('forgotten'); seen.add('forget')
    const another = await keepMemoryNote(ctx, { programId: tenant.program.id, kind: 'lesson', summary: 'Book the stability chamber early.' })
    expect((await removeMemory(await ctxOf(db(), tenant, 'program_owner'), { programId: tenant.program.id, recordId: another.id, reason: 'Chamber retired.' })).status).toBe('forgotten'); seen.add('remove')
    const third = await episodic(tenant, 6)
    await db().memoryRecord.update({ where: { id: third.id }, data: { expiresAt: new Date(Date.now() - 1000) } })
    expect((await sweepMemory(db())).episodicExpired).toBe(1); seen.add('expire')
    // accept_promotion starts from promotion_requested, which only an R5 tier-3 copy can be: memory.propose_promotion
    // answers not_implemented for every target tier, and no row is ever promotion_requested.
    for (const targetTier of ['individual', 'person', 'role']) {
      await expect(proposePromotion(ctx, { recordId: kept.id, targetTier })).rejects.toMatchObject({ code: 'not_implemented' })
    }
    expect(await db().memoryRecord.count({ where: { status: 'promotion_requested' } })).toBe(0); seen.add('accept_promotion')
    expect([...seen].sort()).toEqual(Object.keys(memoryRecordStatus.transitions).sort())
    await expect(forgetMemory(ctx, { recordId: kept.id })).resolves.toMatchObject({ status: 'forgotten' })
    await expect(promoteMemory(ctx, { programId: tenant.program.id, recordId: kept.id })).rejects.toMatchObject({ code: 'invalid_transition' })
  })
})

describe('nothing evaluates people', () => {
  const ROOT = path.resolve(__dirname, '../..')
  const supergraph = parse(fs.readFileSync(path.join(ROOT, 'schema/supergraph.graphql'), 'utf8'))
  const named = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : named(type.type))

  it('answers no count, score or aggregate of memory or feedback per person anywhere in the API', () => {
    const memoryish = (name: string) => /^(Memory|MutationKeepMemory|MutationForgetMemory|MutationPromoteMemory|MutationDeleteAgentMemory|MutationSetMemoryPinned)/.test(name)
    const numeric = new Set<string>()
    let types = 0
    for (const def of supergraph.definitions) {
      if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue
      types++
      for (const field of def.fields ?? []) {
        const isNumber = ['Int', 'Float'].includes(named(field.type))
        if (memoryish(def.name.value) && isNumber) numeric.add(`${def.name.value}.${field.name.value}`)
        // Anything counting or scoring memory, feedback or people is refused outright.
        if (isNumber && /memor|feedback|scorecard|evaluat|rating|performance/i.test(field.name.value)) numeric.add(`${def.name.value}.${field.name.value}`)
      }
    }
    expect(types).toBeGreaterThan(50)
    // The record's own version and the promote answer's count of removed terms are the only numbers.
    expect([...numeric].sort()).toEqual(['MemoryRecord.version', 'MutationPromoteMemorySuccess.scrubbedTermsCount'])
  })

  it('reads memory records only in the memory modules (no export or training path elsewhere)', () => {
    const allowed = [/^domain\/memory\//, /^jobs\/tasks\/memory_expire\.ts$/, /^bench\//]
    const offenders: string[] = []
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.join(dir, entry.name)
        if (entry.isDirectory()) { if (!['node_modules', 'generated', 'tests', '.data', '.git', 'schema', 'clients'].includes(entry.name)) walk(rel); continue }
        if (!rel.endsWith('.ts')) continue
        const text = fs.readFileSync(path.join(ROOT, rel), 'utf8')
        if (/memoryRecord\b|memory_records|memoryView\b|memory_views/.test(text) && !allowed.some((re) => re.test(rel))) offenders.push(rel)
      }
    }
    walk('.')
    // The state machine names the model for guarded transitions only; the schema module only translates.
    expect(offenders.sort()).toEqual(['core/states/memory.ts', 'core/states/state-machine.ts'])
  })

  it('never groups or counts memory records per person in the memory modules', () => {
    const dir = path.join(ROOT, 'domain/memory')
    for (const file of fs.readdirSync(dir)) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8')
      expect(text, file).not.toMatch(/memoryRecord\.(groupBy|aggregate|count)\b|GROUP BY|count\(/i)
    }
  })
})
