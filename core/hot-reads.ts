// Owns the path of the hottest reads (an inbox page, the programs of `me`, open counts, entity loaders) to PostgreSQL
// without Prisma's query compiler: a small pg pool per Prisma client, named prepared statements, rows with camelCase
// keys like Prisma's. Prisma cost about a third of a subgraph's CPU under the console's load (issue 20 profile): one
// 50-row inbox page took 1.5 CPU ms through Prisma and 0.4 ms here. Only for tables whose columns are named
// snake_case for camelCase fields and hold no int8 / numeric (pg hands those back as strings, Prisma as bigint /
// Decimal). Every query filters by organisation itself: there is no tenancy extension on this path.
import pg from 'pg'
import type { Db } from './db'

/** Enough for the few reads in flight per process; the Prisma pool keeps serving everything else. */
const POOL_MAX = 4

const urls = new WeakMap<Db, string>()
const pools = new WeakMap<Db, pg.Pool>()

/** Called by createPrisma: the client's reads may use a pool of their own on the same database. */
export function registerHotReads(db: Db, url: string) {
  urls.set(db, url)
  const disconnect = db.$disconnect.bind(db)
  // the pool goes with the client (tests check that nothing is left connected)
  Object.defineProperty(db, '$disconnect', {
    configurable: true,
    value: async () => {
      const pool = pools.get(db)
      pools.delete(db)
      await Promise.all([pool?.end(), disconnect()])
    },
  })
}

function poolOf(db: Db): pg.Pool | undefined {
  let pool = pools.get(db)
  if (!pool) {
    const url = urls.get(db)
    if (!url) return undefined
    pool = new pg.Pool({ connectionString: url, max: POOL_MAX, idleTimeoutMillis: 30_000, allowExitOnIdle: true, connectionTimeoutMillis: 5_000 })
    pool.on('error', () => { /* an idle client's connection dropped: the pool replaces it on the next query */ })
    pools.set(db, pool)
  }
  return pool
}

const camelNames = new Map<string, string>()
const camel = (column: string) => {
  let name = camelNames.get(column)
  if (name === undefined) camelNames.set(column, (name = column.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())))
  return name
}

/**
 * The rows of one statement, keys camelCased (`created_at` → `createdAt`). `name` makes it a prepared statement per
 * connection (one name, one text). A client made without createPrisma (no URL known) reads through Prisma's raw query.
 */
export async function hotRows<T>(db: Db, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = poolOf(db)
  const rows: Record<string, unknown>[] = pool
    ? (await pool.query({ name, text, values })).rows
    : await db.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values)
  if (!rows.length) return []
  const keys = Object.keys(rows[0])
  const names = keys.map(camel)
  return rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) out[names[i]] = row[keys[i]]
    return out as T
  })
}
