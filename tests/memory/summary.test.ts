// The memory summary a role home shows (WorkbenchOut.memory_summary, at most 3): the person's own latest kept tier-1
// records of one program, never another person's, program's or organisation's, never a forgotten one.
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createProgram, addMember, createTenant, expectRowsExist } from '../helpers/factories'
import { forgetMemory, keepMemoryNote, promoteMemory } from '../../domain/memory'
import { memorySummary, MEMORY_SUMMARY_LIMIT } from '../../domain/memory'
import { ctxOf } from './helpers'

const t = useTestDatabase()
const db = () => t.current.db

describe('memorySummary', () => {
  it("answers the person's latest three kept tier-1 records of the program, newest first, and nobody else's", async () => {
    const a = await createTenant(db(), 'Summary A')
    const b = await createTenant(db(), 'Summary B')
    const other = await createProgram(db(), a.organization.id, { name: 'Other program' })
    await addMember(db(), other, a.users.scientist.id, ['scientist'])
    const ctx = await ctxOf(db(), a, 'scientist')
    const kept = []
    for (const n of [1, 2, 3, 4, 5]) kept.push(await keepMemoryNote(ctx, { programId: a.program.id, kind: 'preference', summary: `Preference number ${n}.` }))
    // Rows that must not appear exist: a forgotten record, a tier-2 copy, another program, another person, another organisation.
    await forgetMemory(ctx, { recordId: kept[4]!.id })
    await promoteMemory(ctx, { programId: a.program.id, recordId: kept[0]!.id })
    await keepMemoryNote(ctx, { programId: other.id, kind: 'preference', summary: 'Other program note.' })
    await keepMemoryNote(await ctxOf(db(), a, 'program_lead'), { programId: a.program.id, kind: 'preference', summary: 'The lead prefers charts.' })
    await keepMemoryNote(await ctxOf(db(), b, 'scientist'), { programId: b.program.id, kind: 'preference', summary: 'Organisation B note.' })
    expect(await expectRowsExist(db(), 'memory_records', b.organization.id)).toBe(1)

    const summary = await memorySummary(ctx, { programId: a.program.id, userId: a.users.scientist.id })
    expect(summary).toHaveLength(MEMORY_SUMMARY_LIMIT)
    expect(summary.map((r) => r.summary)).toEqual(['Preference number 4.', 'Preference number 3.', 'Preference number 2.'])
    expect(summary[0]).toMatchObject({ kind: 'preference', tier: 'individual' })
    // Another organisation's program read with this organisation's id finds nothing.
    expect(await memorySummary(ctx, { programId: b.program.id, userId: b.users.scientist.id })).toEqual([])
  })
})
