// Owns what every subgraph resolver receives: the caller's session, the organisation-scoped database, loaders.
import DataLoader from 'dataloader'
import type { Db, TenantDb } from '../../core/database'
import { domainContext, type Authentication, type DomainContext } from '../../core/jobs'
import type { Session } from '../../core/identity'
import type { Program, User } from '../../generated/prisma/client'
import { rowsByIds } from './sql'
import { isId } from '../../core/text'

/** The domain context (session, organisation-scoped client, actor) plus what only a request has. */
export interface GraphQLContext extends DomainContext {
  requestId: string
  loaders: Loaders
  /**
   * A DataLoader of this request, made on first use under `name`: a field resolved once per entity of an entity fetch
   * (Program.connections for every program of `me`) reads all of them in one query. Same name, same batch function.
   */
  loader<K, V>(name: string, batch: (keys: readonly K[]) => Promise<readonly (V | Error)[]>): DataLoader<K, V>
}

/** A loader by id; `read`, when given, also keeps what it read (null for an id not there) for synchronous lookups. */
function byId<T extends { id: string }>(load: (ids: string[]) => Promise<T[]>, read?: Map<string, T | null>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await load([...ids])
    const map = new Map(rows.map((r) => [r.id, r]))
    return ids.map((id) => {
      const row = map.get(id) ?? null
      read?.set(id, row)
      return row
    })
  })
}

/** Per-request batch loaders: one query for the 50 programs of a 50-item inbox page, not 50. */
export function createLoaders(db: Db, tdb: TenantDb, organizationId: string) {
  // hot reads (every entity fetch of a program or person): plain SQL, the organisation in the filter
  const rowsOf = <T>(table: 'programs' | 'users') => (ids: string[]) => rowsByIds<T>(organizationId, db, table, ids.filter(isId))
  const programsRead = new Map<string, Program | null>()
  return {
    program: byId(rowsOf<Program>('programs'), programsRead),
    /** The programs `program` has read in this execution, by id (null: not there): a field may answer without a promise. */
    programsRead: programsRead as ReadonlyMap<string, Program | null>,
    /** Programs' id, name and slug read along with other rows (an inbox page with its programs): programAt answers from them. */
    programNames: new Map<string, Pick<Program, 'id' | 'name' | 'slug'>>(),
    user: byId(rowsOf<User>('users')),
    // organizations carry no organization_id column: the caller may only ever see their own.
    organization: byId((ids) => db.organization.findMany({ where: { id: { in: ids.filter((id) => id === organizationId) } } })),
  }
}
export type Loaders = ReturnType<typeof createLoaders>

/** The loaders of one execution: `loaders` and the named `loader`s, all empty. */
function freshLoaders(db: Db, tdb: TenantDb, organizationId: string): Pick<GraphQLContext, 'loaders' | 'loader'> {
  const named = new Map<string, DataLoader<unknown, unknown>>()
  const loader = <K, V>(name: string, batch: (keys: readonly K[]) => Promise<readonly (V | Error)[]>) => {
    let l = named.get(name) as DataLoader<K, V> | undefined
    if (!l) named.set(name, (l = new DataLoader<K, V>(batch) as DataLoader<unknown, unknown> as DataLoader<K, V>) as DataLoader<unknown, unknown>)
    return l
  }
  return { loaders: createLoaders(db, tdb, organizationId), loader }
}

export function createContext(db: Db, session: Session, requestId: string, authentication?: Authentication): GraphQLContext {
  const ctx = domainContext(db, session, { authentication })
  return { ...ctx, requestId, ...freshLoaders(db, ctx.tdb, session.organizationId) }
}

/**
 * The same caller with empty loaders, for one event of a subscription: a subscription keeps one context for its
 * whole life (built in the server's onSubscribe), and a DataLoader caches what it read, so an event resolved on the first event's loaders would show
 * the rows as they were then (InboxItem.memoryNotes on the tenth inboxChanged event). Batching stays per execution.
 */
export function contextForEvent(ctx: GraphQLContext): GraphQLContext {
  return { ...ctx, ...freshLoaders(ctx.db, ctx.tdb, ctx.session.organizationId) }
}
