// The hot-read path (core/database/hot-reads.ts) answers the rows Prisma would: camelCased keys, the same values, the same
// instants, for every timestamp form PostgreSQL may write.
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { hotRows, parseTimestamptz } from '../../core/database'
import { fileInboxItem } from '../../domain/inbox'

const t = useTestDatabase()
const pgDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null

describe('hot reads', () => {
  it('answers the rows Prisma answers, dates and nulls included', async () => {
    const db = t.current.db
    const tenant = await createTenant(db, 'Hot')
    const item = await db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: tenant.organization.id, userId: tenant.users.program_lead.id, programId: tenant.program.id,
      kind: 'decision', sourceType: 'test', sourceId: 'q-1', title: 'A title', dueAt: new Date('2026-11-24T10:20:30.045Z'),
    }))
    await db.inboxItem.update({ where: { id: item!.id }, data: { remindedAt: new Date('2026-11-24T10:20:30.100Z'), snoozedUntil: new Date('2026-12-01T00:00:00.000Z') } })
    const rows = await hotRows(tenant.organization.id, db, 'test.inbox', 'SELECT * FROM inbox_items WHERE organization_id = $1::uuid', [])
    expect(rows).toEqual(await db.inboxItem.findMany({ where: { organizationId: tenant.organization.id } }))
    expect(await hotRows(tenant.organization.id, db, 'test.none', 'SELECT * FROM inbox_items WHERE organization_id = $1::uuid AND false', [])).toEqual([])
  })

  it('refuses a hot read whose statement does not filter on the organisation it was given', async () => {
    const db = t.current.db
    const tenant = await createTenant(db, 'Unbound')
    await expect(hotRows(tenant.organization.id, db, 'test.unbound', 'SELECT * FROM inbox_items WHERE user_id = $2::uuid', [tenant.users.program_lead.id]))
      .rejects.toThrow('hot read test.unbound does not filter on organization_id = $1')
  })

  it('reads a timestamptz as the same instant as pg does, in UTC and in any other form', () => {
    const forms = [
      '2026-11-24 00:50:44+00', '2026-11-24 00:50:44.1+00', '2026-11-24 00:50:44.12+00', '2026-11-24 00:50:44.123+00',
      '2026-11-24 00:50:44.009+00', '2026-11-24 00:50:44.123456+00', '2026-11-24 00:50:44.123+05:30', '2026-11-24 00:50:44-08',
      '0099-01-01 00:00:00+00', '0001-01-01 00:00:00+00 BC', '12026-11-24 00:50:44+00', 'infinity', '-infinity',
    ]
    for (let ms = Date.UTC(1990, 0, 1); ms < Date.UTC(2040, 0, 1); ms += 86_400_000 * 37 + 3_600_123) {
      const iso = new Date(ms).toISOString()
      forms.push(`${iso.slice(0, 10)} ${iso.slice(11, 23).replace(/\.?0+$/, '')}+00`)
    }
    for (const form of forms) {
      const ours = parseTimestamptz(form)
      const theirs = pgDate(form)
      expect(ours instanceof Date ? ours.getTime() : ours, form).toEqual(theirs instanceof Date ? theirs.getTime() : theirs)
    }
  })
})
