// Owns database access: the Prisma client, and the one tenancy helper every domain query goes through.
import { PrismaPg } from '@prisma/adapter-pg'
import { PrismaClient, Prisma } from '../../generated/prisma/client'
import { boundedCache, env, type BoundedCache } from '../config'
import { registerHotReads } from './hot-reads'

export { Prisma }
export type Db = PrismaClient
export type Tx = Prisma.TransactionClient

export function createPrisma(url: string, max = 10): PrismaClient {
  // connectionTimeoutMillis: an unreachable database fails a request within 5 s (answered 503), never hangs it
  const statementNameGenerator = preparedStatementNames(env().DATABASE_STATEMENT_CACHE)
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max, connectionTimeoutMillis: 5_000 }, { statementNameGenerator }) })
  registerHotReads(client, url) // core/database/hot-reads.ts: the request path's hottest reads skip Prisma's query compiler
  return client
}

/**
 * Names for Prisma's statements, so that each connection prepares a statement once and then only binds and executes
 * it: PostgreSQL skips parsing it again and, once its generic plan proves as cheap, planning it. Without names every
 * statement was parsed and planned on every call; on the role home that was most of PostgreSQL's CPU (parse + bind
 * 0.2 to 1.3 ms against an execute of 0.02 ms per statement, from the server's statement log).
 * - One name per distinct SQL text, the same in every connection of the process (pg refuses a name reused for
 *   another text). Only `limit` texts get a name, so each connection holds at most `limit` prepared statements;
 *   later texts run unnamed as before. 0 names none (a pooler in transaction mode cannot keep prepared statements).
 * - Only statements with parameters: they already travel by the extended protocol. One without parameters goes by
 *   the simple protocol, which may carry several statements; preparing it would refuse those.
 */
export function preparedStatementNames(limit: number): (query: { sql: string; args: unknown[] }) => string {
  const names = new Map<string, string>()
  return (query) => {
    if (!limit || !query.args.length) return undefined as unknown as string // unnamed: pg sends it unprepared
    let name = names.get(query.sql)
    if (name === undefined && names.size < limit) names.set(query.sql, (name = `ew_${names.size}`))
    return name as string
  }
}

/** Models whose rows belong to one organisation (they carry organization_id). */
export const TENANT_MODELS: ReadonlySet<string> = new Set(
  Object.values(Prisma.ModelName).filter((model) => {
    const fields = (Prisma as unknown as Record<string, Record<string, string> | undefined>)[`${model}ScalarFieldEnum`]
    return Boolean(fields && 'organizationId' in fields)
  }),
)

const WHERE_OPS = new Set([
  'findFirst', 'findFirstOrThrow', 'findMany', 'findUnique', 'findUniqueOrThrow', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany', 'upsert',
])
const DATA_OPS = new Set(['create', 'createMany', 'createManyAndReturn', 'upsert'])

export class TenancyViolation extends Error {}

function stamp(data: Record<string, unknown>, organizationId: string, model: string) {
  if (data.organizationId !== undefined && data.organizationId !== organizationId) {
    throw new TenancyViolation(`refused to write a ${model} row for another organisation`)
  }
  return { ...data, organizationId }
}

/**
 * A client that can only see and write the given organisation's rows: every tenant model's query gets
 * `organizationId` added to its filter, every create gets it stamped (a different one is refused).
 * Interactive transactions on the returned client keep the filter.
 */
export function forOrganization(db: PrismaClient, organizationId: string): TenantDb {
  if (!organizationId) throw new TenancyViolation('an organisation is required')
  // One client per organisation and database, built once: $extends is costly enough to show in a request's profile.
  let clients = tenantClients.get(db)
  if (!clients) tenantClients.set(db, (clients = boundedCache({ max: 1_000 })))
  let client = clients.get(organizationId)
  if (!client) clients.set(organizationId, (client = extendForOrganization(db, organizationId)))
  return client
}

function extendForOrganization(db: PrismaClient, organizationId: string) {
  return db.$extends({
    name: 'tenancy',
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          if (!TENANT_MODELS.has(model)) return query(args)
          const a = { ...(args as Record<string, any>) }
          if (WHERE_OPS.has(operation)) a.where = { ...(a.where ?? {}), organizationId }
          if (DATA_OPS.has(operation)) {
            if (operation === 'upsert') a.create = stamp(a.create ?? {}, organizationId, model)
            else if (Array.isArray(a.data)) a.data = a.data.map((d: Record<string, unknown>) => stamp(d, organizationId, model))
            else a.data = stamp(a.data ?? {}, organizationId, model)
          }
          return query(a)
        },
      },
    },
  })
}
export type TenantDb = ReturnType<typeof extendForOrganization>
const tenantClients = new WeakMap<PrismaClient, BoundedCache<string, TenantDb>>()
/** The client inside `tenantDb.$transaction(async (tx) => ...)`. */
export type TenantTx = Omit<TenantDb, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends' | '$use'>
/** Any transaction client, plain or organisation-scoped: what recorders (audit, notify, enqueue) accept. */
export type AnyTx = Tx | TenantTx
/** Recorders write through the plain type; an organisation-scoped client behaves the same at run time. */
export const asTx = (tx: AnyTx) => tx as Tx

/**
 * An interactive transaction on the organisation's client (forOrganization), handed to `fn` typed as the plain Tx
 * that recorders and sql.ts modules take: at run time every tenant model call in it keeps the organisation filter.
 */
export function transactionFor<R>(
  db: PrismaClient, organizationId: string, fn: (tx: Tx) => Promise<R>,
  options?: { maxWait?: number; timeout?: number; isolationLevel?: Prisma.TransactionIsolationLevel },
): Promise<R> {
  return forOrganization(db, organizationId).$transaction((tx) => fn(asTx(tx)), options)
}
