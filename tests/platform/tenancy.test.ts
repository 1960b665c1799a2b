import { describe, expect, it } from 'vitest'
import { forOrganization, TenancyViolation, TENANT_MODELS } from '../../core/database'
import { useTestDatabase } from '../helpers/db'
import { createTwoOrganizations, expectRowsExist } from '../helpers/factories'

const t = useTestDatabase()

describe('organisation isolation', () => {
  it('shows one organisation only its own programs, users and memberships although the other rows exist', async () => {
    const { a, b } = await createTwoOrganizations(t.current.db)
    await expectRowsExist(t.current.db, 'programs', b.organization.id)
    await expectRowsExist(t.current.db, 'users', b.organization.id)
    const scoped = forOrganization(t.current.db, a.organization.id)
    const programs = await scoped.program.findMany()
    expect(programs.map((p) => p.id)).toEqual([a.program.id])
    expect((await scoped.user.findMany()).every((u) => u.organizationId === a.organization.id)).toBe(true)
    expect(await scoped.program.findUnique({ where: { id: b.program.id } })).toBeNull()
    expect(await scoped.programMembership.count({ where: { programId: b.program.id } })).toBe(0)
  })

  it('refuses to write a row for another organisation and cannot update or delete its rows', async () => {
    const { a, b } = await createTwoOrganizations(t.current.db)
    const scoped = forOrganization(t.current.db, a.organization.id)
    await expect(scoped.artifact.create({ data: { organizationId: b.organization.id, kind: 'note', content: {} } })).rejects.toBeInstanceOf(TenancyViolation)
    const made = await scoped.artifact.create({ data: { kind: 'note', content: {} } as any })
    expect(made.organizationId).toBe(a.organization.id)
    const renamed = await scoped.program.updateMany({ where: { id: b.program.id }, data: { name: 'hijacked' } })
    expect(renamed.count).toBe(0)
    expect((await t.current.db.program.findUniqueOrThrow({ where: { id: b.program.id } })).name).not.toBe('hijacked')
    await expect(scoped.program.delete({ where: { id: b.program.id } })).rejects.toThrow()
  })

  it('keeps the filter inside an interactive transaction', async () => {
    const { a, b } = await createTwoOrganizations(t.current.db)
    const scoped = forOrganization(t.current.db, b.organization.id)
    const ids = await scoped.$transaction(async (tx) => (await tx.program.findMany()).map((p) => p.id))
    expect(ids).toEqual([b.program.id])
    expect(ids).not.toContain(a.program.id)
  })

  it('covers every table that carries organization_id', async () => {
    const rows = await t.current.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'organization_id'`
    expect(TENANT_MODELS.size).toBe(rows.length)
  })

  // Each operation the tenant client filters, one by one against another organisation's row that exists: removing
  // any one of them from the filter fails its own case here (issue 41, item 3), not some feature's test by luck.
  type Scoped = ReturnType<typeof forOrganization>
  const theirs = async () => {
    const { a, b } = await createTwoOrganizations(t.current.db)
    const row = await t.current.db.artifact.create({ data: { organizationId: b.organization.id, kind: 'note', content: { owner: 'b' } } })
    return { a, b, row, scoped: forOrganization(t.current.db, a.organization.id) }
  }
  const unchanged = async (id: string) => expect(await t.current.db.artifact.findUniqueOrThrow({ where: { id } })).toMatchObject({ kind: 'note', content: { owner: 'b' } })
  const READS: [string, (s: Scoped, id: string) => Promise<unknown>, unknown][] = [
    ['findFirst', (s, id) => s.artifact.findFirst({ where: { id } }), null],
    ['findMany', (s, id) => s.artifact.findMany({ where: { id } }), []],
    ['findUnique', (s, id) => s.artifact.findUnique({ where: { id } }), null],
    ['count', (s, id) => s.artifact.count({ where: { id } }), 0],
    ['aggregate', (s, id) => s.artifact.aggregate({ where: { id }, _count: { _all: true } }).then((r) => r._count._all), 0],
    ['groupBy', (s, id) => s.artifact.groupBy({ by: ['kind'], where: { id } }), []],
    ['updateMany', (s, id) => s.artifact.updateMany({ where: { id }, data: { kind: 'hijacked' } }).then((r) => r.count), 0],
    ['updateManyAndReturn', (s, id) => s.artifact.updateManyAndReturn({ where: { id }, data: { kind: 'hijacked' } }), []],
    ['deleteMany', (s, id) => s.artifact.deleteMany({ where: { id } }).then((r) => r.count), 0],
  ]
  it.each(READS)('filters %s by organisation: another organisation\'s row is not seen, changed or removed', async (_op, run, nothing) => {
    const { row, scoped } = await theirs()
    expect(await run(scoped, row.id)).toEqual(nothing)
    await unchanged(row.id)
  })

  const REFUSED: [string, (s: Scoped, id: string) => Promise<unknown>][] = [
    ['findFirstOrThrow', (s, id) => s.artifact.findFirstOrThrow({ where: { id } })],
    ['findUniqueOrThrow', (s, id) => s.artifact.findUniqueOrThrow({ where: { id } })],
    ['update', (s, id) => s.artifact.update({ where: { id }, data: { kind: 'hijacked' } })],
    ['delete', (s, id) => s.artifact.delete({ where: { id } })],
  ]
  it.each(REFUSED)('filters %s by organisation: another organisation\'s row is not found, and stays as it was', async (_op, run) => {
    const { row, scoped } = await theirs()
    await expect(run(scoped, row.id)).rejects.toMatchObject({ code: 'P2025' })
    await unchanged(row.id)
  })

  it('filters upsert by organisation: another organisation\'s row is not updated; the created row is stamped with ours', async () => {
    const { a, row, scoped } = await theirs()
    const made = await scoped.artifact.upsert({ where: { id: row.id }, update: { kind: 'hijacked' }, create: { kind: 'mine', content: {} } as never })
    expect(made).toMatchObject({ kind: 'mine', organizationId: a.organization.id })
    expect(made.id).not.toBe(row.id)
    await unchanged(row.id)
    await expect(scoped.artifact.upsert({ where: { id: row.id }, update: {}, create: { organizationId: row.organizationId, kind: 'x', content: {} } })).rejects.toBeInstanceOf(TenancyViolation)
  })

  const CREATES: [string, (s: Scoped, data: { organizationId?: string; kind: string; content: object }) => Promise<unknown>][] = [
    ['create', (s, data) => s.artifact.create({ data: data as never })],
    ['createMany', (s, data) => s.artifact.createMany({ data: [data as never] })],
    ['createManyAndReturn', (s, data) => s.artifact.createManyAndReturn({ data: [data as never] })],
  ]
  it.each(CREATES)('stamps %s with the organisation and refuses a row for another one', async (_op, run) => {
    const { a, b, scoped } = await theirs()
    await expect(run(scoped, { organizationId: b.organization.id, kind: 'planted', content: {} })).rejects.toBeInstanceOf(TenancyViolation)
    await run(scoped, { kind: 'stamped', content: {} })
    expect(await t.current.db.artifact.findMany({ where: { kind: { in: ['planted', 'stamped'] }, organizationId: { in: [a.organization.id, b.organization.id] } }, select: { kind: true, organizationId: true } }))
      .toEqual([{ kind: 'stamped', organizationId: a.organization.id }])
  })
})
