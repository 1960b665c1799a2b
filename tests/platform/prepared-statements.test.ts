// Prisma's statements are prepared once per connection and reused (core/database/db.ts, DATABASE_STATEMENT_CACHE):
// PostgreSQL then parses each once instead of on every call. What must hold: the same text always gets the same name,
// a bounded number of texts get one, statements without parameters stay unprepared (they may carry several
// statements), 0 turns it off, and answers are the ones an unprepared statement gives.
import { afterEach, describe, expect, it } from 'vitest'
import { createPrisma, preparedStatementNames, type Db } from '../../core/database'
import { env, parseEnv, setEnv } from '../../core/config'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'

const t = useTestDatabase()
const opened: Db[] = []
afterEach(async () => { await Promise.all(opened.splice(0).map((db) => db.$disconnect())) })

/** A client with one connection, so what it prepared can be read from pg_prepared_statements on that connection. */
function singleConnection(statementCache: number): Db {
  const before = env()
  setEnv(parseEnv({ ...process.env, NODE_ENV: 'test', DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, DATABASE_STATEMENT_CACHE: String(statementCache) }))
  try {
    const db = createPrisma(t.current.url, 1)
    opened.push(db)
    return db
  } finally {
    setEnv(before)
  }
}
/** The prepared statements of the client's one connection (this read has no parameters, so it is not one of them). */
const preparedOn = (db: Db) => db.$queryRawUnsafe<{ name: string; statement: string }[]>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')

describe('prepared statements', () => {
  it('names each distinct statement once, the same name every time, and only as many texts as the limit allows', () => {
    const name = preparedStatementNames(2)
    const a = { sql: 'SELECT $1', args: [1] }
    const b = { sql: 'SELECT $1, $2', args: [1, 2] }
    const c = { sql: 'SELECT $1, $2, $3', args: [1, 2, 3] }
    expect(name(a)).toBe('ew_0')
    expect(name(b)).toBe('ew_1')
    expect(name({ ...a, args: [7] })).toBe('ew_0')
    expect(name(c)).toBeUndefined()
    expect(name(b)).toBe('ew_1')
    expect(name({ sql: 'SELECT 1; SELECT 2', args: [] })).toBeUndefined()
    expect(preparedStatementNames(0)(a)).toBeUndefined()
  })

  it('prepares a Prisma read on the connection once and answers it the same as an unprepared one', async () => {
    const tenant = await createTenant(t.current.db, 'Prepared')
    const db = singleConnection(256)
    const read = () => db.user.findMany({ where: { organizationId: tenant.organization.id }, orderBy: { id: 'asc' } })
    const first = await read()
    const second = await read()
    expect(second).toEqual(first)
    expect(first).toEqual(await t.current.db.user.findMany({ where: { organizationId: tenant.organization.id }, orderBy: { id: 'asc' } }))
    const prepared = await preparedOn(db)
    const users = prepared.filter((p) => p.statement.includes('FROM "public"."users"'))
    expect(users).toHaveLength(1)
    expect(users[0].name).toMatch(/^ew_\d+$/)
  })

  it('leaves a statement without parameters unprepared, so several statements in one text still run', async () => {
    const db = singleConnection(256)
    await db.$executeRawUnsafe('SELECT 1; SELECT 2')
    expect(await preparedOn(db)).toEqual([])
  })

  it('prepares nothing when DATABASE_STATEMENT_CACHE is 0, as a pooler in transaction mode needs', async () => {
    const tenant = await createTenant(t.current.db, 'Unprepared')
    const db = singleConnection(0)
    await db.user.findMany({ where: { organizationId: tenant.organization.id } })
    await db.user.findMany({ where: { organizationId: tenant.organization.id } })
    expect(await preparedOn(db)).toEqual([])
  })
})
