// The role home's reads in the workbench subgraph: the questions, the evidence board and the status lines are the rows
// the tenant client reads for them (same rows, fields, order, limits and ties), the person's side (worn role, the
// audited fallback, who set the role) answers as before, a program the request already read is held to getProgram's
// check, and a home of a program already read costs two statements.
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { useTestDatabase } from '../helpers/db'
import { addMember, createProgram, createTenant, type Tenant } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { NotFoundError } from '../../core/errors'
import { forOrganization } from '../../core/database'
import { HOME_BOARD, HOME_QUESTIONS, recordHref, workbenchHome } from '../../domain/home'
import { assignWorkbenchRole, findProgram, updateMySettings } from '../../domain/programs'

const t = useTestDatabase()
const db = () => t.current.db

const ctxOf = (tenant: Tenant, persona: keyof Tenant['users']) => contextForUser(db(), tenant.users[persona].id, tenant.organization.id)
/** The program's whole row, as Query.program hands it to Program.workbench. */
const programRow = (id: string) => db().program.findUniqueOrThrow({ where: { id } })

/** Records written straight to the table, with the times given (many equal: the id breaks ties). */
async function seedRecords(tenant: Tenant, programId: string, rows: { recordType: string; status: string; title: string; fields?: object; by: string; minute: number }[]) {
  const base = Date.UTC(2026, 10, 20, 9, 0, 0, 123)
  await db().programRecord.createMany({
    data: rows.map((r) => ({
      organizationId: tenant.organization.id, programId, recordType: r.recordType, status: r.status, title: r.title, body: `Body of ${r.title} — «as written»`,
      fields: r.fields ?? {}, createdByUserId: r.by, updatedByUserId: r.by, createdAt: new Date(base), updatedAt: new Date(base + r.minute * 60_000),
    })),
  })
}

/** The SQL statements sent while `fn` runs (every statement of every pg client: Prisma's and the plain reads). */
async function statementsOf<T>(fn: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const statements: string[] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text ?? ''
    statements.push(text)
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    return { value: await fn(), statements }
  } finally {
    pg.Client.prototype.query = query
  }
}

describe("the role home's records", () => {
  it('answers the questions, the evidence board and the status lines with the rows the tenant client reads for them, in its order, limits and ties included', async () => {
    const a = await createTenant(db(), 'Home reads A')
    const b = await createTenant(db(), 'Home reads B')
    const other = await createProgram(db(), a.organization.id, { name: 'Other program' })
    const lead = a.users.program_lead.id
    const sci = a.users.scientist.id
    const q = (title: string, status: string, owner: string, by: string, minute: number) => ({ recordType: 'evidence.questions', status, title, fields: { owner_user_id: owner, due_on: '2026-12-01' }, by, minute })
    const f = (title: string, status: string, minute: number) => ({ recordType: 'evidence.findings', status, title, fields: { kind: 'observation', dose_mg_per_kg: 2.5 }, by: sci, minute })
    await seedRecords(a, a.program.id, [
      // 25 open questions the lead owns (more than the region shows), 2 the lead asked, and rows that must not appear
      ...Array.from({ length: 25 }, (_v, i) => q(`Owned question ${i}`, 'open', lead, sci, i % 4)),
      q('Asked by the lead', 'open', sci, lead, 2), q('Asked by the lead, later', 'open', sci, lead, 9),
      q('Answered, owned', 'answered', lead, sci, 30), q('Answered too', 'answered', lead, sci, 31), q('Answered three', 'answered', lead, sci, 32),
      q("The scientist's own", 'open', sci, sci, 40), q("The scientist's other", 'open', sci, sci, 41),
      // 14 findings (more than the board shows), many changed in the same minute
      ...Array.from({ length: 14 }, (_v, i) => f(`Finding ${i}`, i % 3 === 0 ? 'confirmed' : 'draft', i % 3)),
    ])
    await seedRecords(a, other.id, [q('Another program', 'open', lead, lead, 50), f('Another program finding', 'draft', 50)])
    await addMember(db(), b.program, b.users.program_lead.id, ['program_lead'])
    await seedRecords(b, b.program.id, [q('Another organisation', 'open', b.users.program_lead.id, b.users.program_lead.id, 60)])

    const ctx = await ctxOf(a, 'program_lead')
    const home = await workbenchHome(ctx, a.program.id)
    expect(home.worn.fallback).toBe(true)
    expect(home.recordTypes).toContain('evidence.questions')
    expect(home.recordTypes).toContain('evidence.findings')

    const tdb = forOrganization(db(), a.organization.id)
    const newestFirst = [{ updatedAt: 'desc' as const }, { id: 'desc' as const }]
    const questions = await tdb.programRecord.findMany({
      where: { programId: a.program.id, recordType: 'evidence.questions', status: 'open', OR: [{ fields: { path: ['owner_user_id'], equals: lead } }, { createdByUserId: lead }] },
      orderBy: newestFirst, take: HOME_QUESTIONS,
    })
    const boardTypes = home.recordTypes.filter((r) => r.startsWith('evidence.') && r !== 'evidence.questions')
    const pins = await tdb.programRecord.findMany({ where: { programId: a.program.id, recordType: { in: boardTypes } }, orderBy: newestFirst, take: HOME_BOARD })
    expect(questions).toHaveLength(HOME_QUESTIONS)
    expect(pins).toHaveLength(HOME_BOARD)
    // whole rows: every field, Date objects, JSON fields as values, a person's words exactly
    expect(home.questions).toStrictEqual(questions)
    expect(home.pins).toStrictEqual(pins)
    expect(home.questions[0].title).toBe('Asked by the lead, later')

    for (const line of home.statusLines) {
      const latest = await tdb.programRecord.findFirst({ where: { programId: a.program.id, recordType: line.recordType }, orderBy: newestFirst })
      expect(line.asOf, line.recordType).toStrictEqual(latest?.updatedAt ?? null)
      expect(line.recordRef, line.recordType).toStrictEqual(latest ? { recordType: line.recordType, recordId: latest.id, href: recordHref(a.program.slug, latest.id) } : null)
    }
    const text = (type: string) => home.statusLines.find((l) => l.recordType === type)?.text
    expect(text('evidence.questions')).toBe('32 questions: 29 open, 3 answered')
    expect(text('evidence.findings')).toBe('14 findings: 9 draft, 5 confirmed')
    expect(text('evidence.gaps')).toBe('No gaps yet')
    expect(home.statusLines.map((l) => l.recordType)).toEqual(home.recordTypes)
  })

  it('reads a home of a program the request already read in two statements, Query.program in one more, and a home by id in three', async () => {
    const a = await createTenant(db(), 'Home statements')
    await seedRecords(a, a.program.id, [{ recordType: 'evidence.findings', status: 'draft', title: 'A finding', fields: { kind: 'observation' }, by: a.users.scientist.id, minute: 1 }])
    const ctx = await ctxOf(a, 'scientist')
    await workbenchHome(ctx, a.program.id) // the first view audits the fallback once
    const { value: program, statements: programReads } = await statementsOf(() => findProgram(ctx, { slug: a.program.slug }))
    expect(programReads).toHaveLength(1)
    const { value: home, statements } = await statementsOf(() => workbenchHome(ctx, program!))
    expect(statements).toHaveLength(2)
    expect(home.pins.map((p) => p.title)).toEqual(['A finding'])
    // By id (Query.workbench): the program's read is the third.
    expect((await statementsOf(() => workbenchHome(ctx, a.program.id))).statements).toHaveLength(3)

    // Worn by a lead's assignment, 'Set by' included: still two.
    await assignWorkbenchRole(await ctxOf(a, 'program_lead'), { programId: a.program.id, userId: a.users.scientist.id, workbenchRoleKey: 'medicinal_chemist' })
    const wearing = await ctxOf(a, 'scientist')
    const worn = await statementsOf(() => workbenchHome(wearing, program!))
    expect(worn.value.setBy?.name).toBe(a.users.program_lead.name)
    expect(worn.statements).toHaveLength(2)
  })
})

describe("the role home's program and person", () => {
  it("holds a program the request already read to getProgram's check: another organisation's, or one the caller may not read, is not found", async () => {
    const a = await createTenant(db(), 'Home check A')
    const b = await createTenant(db(), 'Home check B')
    const notMine = await createProgram(db(), a.organization.id, { name: 'Not a member here' })
    const ctx = await ctxOf(a, 'scientist')
    await expect(workbenchHome(ctx, await programRow(b.program.id))).rejects.toBeInstanceOf(NotFoundError)
    await expect(workbenchHome(ctx, await programRow(notMine.id))).rejects.toBeInstanceOf(NotFoundError)
    await expect(workbenchHome(ctx, await programRow(a.program.id))).resolves.toMatchObject({ programId: a.program.id })
    // By id (Query.workbench), getProgram's errors: a malformed id names `id`, a program not readable `programId`.
    await expect(workbenchHome(ctx, 'not-a-uuid')).rejects.toMatchObject({ code: 'not_found', field: 'id' })
    await expect(workbenchHome(ctx, b.program.id)).rejects.toMatchObject({ code: 'not_found', field: 'programId' })
    await expect(workbenchHome(ctx, notMine.id)).rejects.toMatchObject({ code: 'not_found', field: 'programId' })
    // Query.program answers null for both, by slug and by id, and for an id that is not a UUID.
    expect(await findProgram(ctx, { slug: b.program.slug })).toBeNull()
    expect(await findProgram(ctx, { id: b.program.id })).toBeNull()
    expect(await findProgram(ctx, { slug: notMine.slug })).toBeNull()
    expect(await findProgram(ctx, { id: 'not-a-uuid' })).toBeNull()
    expect(await findProgram(ctx, { id: a.program.id })).toStrictEqual(await db().program.findUniqueOrThrow({ where: { id: a.program.id } }))
    await expect(findProgram(ctx, { id: a.program.id, slug: a.program.slug })).rejects.toMatchObject({ code: 'invalid_input' })
  })

  it("names who set the role only while the role worn is the one a lead's latest assignment set", async () => {
    const a = await createTenant(db(), 'Home set by')
    const leadCtx = await ctxOf(a, 'program_lead')
    const sci = a.users.scientist.id
    const homeOf = async () => workbenchHome(await ctxOf(a, 'scientist'), a.program.id)
    expect((await homeOf()).setBy).toBeNull()
    await assignWorkbenchRole(leadCtx, { programId: a.program.id, userId: sci, workbenchRoleKey: 'medicinal_chemist' })
    const assigned = await homeOf()
    expect(assigned.worn.workbenchRoleKey).toBe('medicinal_chemist')
    expect(assigned.setBy).toMatchObject({ userId: a.users.program_lead.id, name: a.users.program_lead.name })
    expect(assigned.setBy!.line).toContain(a.users.program_lead.name)
    // The person picks another role themselves: nobody else set it.
    await updateMySettings(await ctxOf(a, 'scientist'), { workbenchRoles: [{ programId: a.program.id, workbenchRoleKey: 'biostatistician' }] })
    expect((await homeOf()).setBy).toBeNull()
    // A lead assigns again, then the person removes it: nothing is worn, nothing was set by anyone.
    await assignWorkbenchRole(leadCtx, { programId: a.program.id, userId: sci, workbenchRoleKey: 'biostatistician' })
    expect((await homeOf()).setBy?.name).toBe(a.users.program_lead.name)
    await updateMySettings(await ctxOf(a, 'scientist'), { workbenchRoles: [{ programId: a.program.id, workbenchRoleKey: null }] })
    const removed = await homeOf()
    expect(removed.worn.fallback).toBe(true)
    expect(removed.setBy).toBeNull()
    // Another person's assignment in the program is not this person's.
    expect((await workbenchHome(leadCtx, a.program.id)).setBy).toBeNull()
  })

  it('audits the fallback once for concurrent first views of a program already read, and not again on a later view', async () => {
    const a = await createTenant(db(), 'Home audit')
    const ctx = await ctxOf(a, 'quality_reviewer')
    const program = await programRow(a.program.id)
    await Promise.all(Array.from({ length: 6 }, () => workbenchHome(ctx, program)))
    const applied = () => db().auditEvent.findMany({ where: { programId: a.program.id, targetId: a.users.quality_reviewer.id, action: 'workbench_role.default_applied' } })
    expect(await applied()).toHaveLength(1)
    expect((await applied())[0]).toMatchObject({ actorUserId: a.users.quality_reviewer.id, details: { harness_key: 'quality_reviewer' } })
    await workbenchHome(ctx, program)
    expect(await applied()).toHaveLength(1)
  })
})
