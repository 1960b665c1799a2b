// Owns the path of the hottest reads (an inbox page, the programs of `me`, open counts, entity loaders) to PostgreSQL
// without Prisma's query compiler: a small pg pool per Prisma client, named prepared statements, rows with camelCase
// keys like Prisma's. Prisma cost about a third of a subgraph's CPU under the console's load (issue 20 profile): one
// 50-row inbox page took 1.5 CPU ms through Prisma and 0.4 ms here. Only for tables whose columns are named
// snake_case for camelCase fields and hold no int8 / numeric (pg hands those back as strings, Prisma as bigint /
// Decimal). There is no tenancy extension on this path, so tenancy is by construction: hotRows takes the organisation
// first and binds it as $1 of every statement, and refuses a statement that does not filter on `organization_id = $1`
// (checked once per statement name, so the hot path pays a Set lookup). Only `sql.ts` modules call it
// (tests/platform/sql-road.test.ts).
import pg from 'pg'
// The client type itself, not core/db's alias: core/database/db.ts installs the hot reads on each client it creates.
import type { PrismaClient as Db } from '../../generated/prisma/client'

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
    pool = new pg.Pool({ connectionString: url, max: POOL_MAX, idleTimeoutMillis: 30_000, allowExitOnIdle: true, connectionTimeoutMillis: 5_000, types: HOT_TYPES })
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
 * A timestamptz as PostgreSQL writes it in a UTC session (`2026-11-24 00:50:44.123+00`), parsed without
 * postgres-date's regular expressions (they were 4 % of the twins subgraph's CPU under the console's load: two per
 * inbox row). The same Date as postgres-date: the same Date.UTC arguments; any other form (another offset, BC, a
 * year outside 1000..9999, infinity) goes to postgres-date itself.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const n = text.length
  if (n >= 22 && n <= 29 && text.charCodeAt(n - 3) === 43 /* + */ && text.charCodeAt(n - 2) === 48 && text.charCodeAt(n - 1) === 48
    && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58
    && (n === 22 || text.charCodeAt(19) === 46 /* . */)) {
    const year = digits(text, 0, 4)
    const month = digits(text, 5, 2)
    const day = digits(text, 8, 2)
    const hour = digits(text, 11, 2)
    const minute = digits(text, 14, 2)
    const second = digits(text, 17, 2)
    if (year >= 1000 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0) {
      const ms = n === 22 ? 0 : 1000 * parseFloat(text.slice(19, n - 3))
      return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms))
    }
  }
  return parseDate(text)
}
const parseDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null

/** The decimal number of `length` ASCII digits of `text` from `at`, or -1 when one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let v = 0
  for (let i = at; i < at + length; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}

/** The hot pool's type parsers: pg's, with the faster timestamptz one. */
const HOT_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary'
    ? parseTimestamptz
    : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/**
 * A function making one camelCased row object of an array row, per column list: a literal of fixed keys, so every
 * row of a statement shares one shape (copying keys one by one into `{}` was 9 % of the twins subgraph's CPU). Keys
 * are column names, written as JSON string literals.
 */
const rowMakers = new Map<string, (values: unknown[]) => Record<string, unknown>>()
function rowMaker(columns: string[]) {
  const key = columns.join(',')
  let make = rowMakers.get(key)
  if (!make && columns.includes('__proto__')) make = (v) => Object.fromEntries(columns.map((c, i) => [camel(c), v[i]]))
  if (!make) {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- column names only, each a JSON string literal
    make = new Function('v', `return { ${columns.map((c, i) => `${JSON.stringify(camel(c))}: v[${i}]`).join(', ')} }`) as (values: unknown[]) => Record<string, unknown>
    rowMakers.set(key, make)
  }
  return make
}

/** Statement names whose text was seen to filter on `organization_id = $1`. */
const boundStatements = new Set<string>()
const FILTERS_ON_ORGANISATION = /\borganization_id\s*=\s*\$1(?!\d)/

/**
 * The rows of one statement of `organizationId`, keys camelCased (`created_at` → `createdAt`). The organisation is $1
 * (`values` are $2 onwards) and the text must filter on `organization_id = $1`. `name` makes it a prepared statement per
 * connection (one name, one text). A client made without createPrisma (no URL known) reads through Prisma's raw query.
 */
export function hotRows<T>(organizationId: string, db: Db, name: string, text: string, values: unknown[]): Promise<T[]>
export function hotRows<T>(organizationId: string, db: Db, name: string, text: string, values: unknown[]): Promise<T[]> {
  return boundRows<T>(db, name, text, [organizationId, ...values])
}

async function boundRows<T>(db: Db, name: string, text: string, values: unknown[]): Promise<T[]> {
  if (!boundStatements.has(name)) {
    if (!FILTERS_ON_ORGANISATION.test(text) || typeof values[0] !== 'string') throw new Error(`hot read ${name} does not filter on organization_id = $1`)
    boundStatements.add(name)
  }
  const pool = poolOf(db)
  if (pool) {
    // arrays, not pg's row objects: one object per row, made by the statement's row maker
    const result = await pool.query<unknown[]>({ name, text, values, rowMode: 'array' })
    if (!result.rows.length) return []
    const make = rowMaker(result.fields.map((f) => f.name))
    return result.rows.map(make) as T[]
  }
  const rows = await db.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values)
  if (!rows.length) return []
  const keys = Object.keys(rows[0])
  const names = keys.map(camel)
  return rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (let i = 0; i < keys.length; i++) out[names[i]] = row[keys[i]]
    return out as T
  })
}
