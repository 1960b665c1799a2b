import { describe, expect, it } from 'vitest'
import { forOrganization, TenancyViolation, TENANT_MODELS } from '../../core/db'
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
})
