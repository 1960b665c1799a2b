// Owns cursor pages for every list that can grow: the page arguments (`first` 1 to 100, default 50; `after`), opaque
// cursors (base64url of a row's timestamp and id) and the keyset read, newest first. Domain code calls it; no GraphQL.
import { InvalidInput } from '../errors'
import { isId } from '../text'

export const PAGE_SIZE_DEFAULT = 50
export const PAGE_SIZE_MAX = 100
/** The twins export's pages are larger (metadata rows for a download); the gateway's cost rule knows it too. */
export const EXPORT_PAGE_MAX = 300

export interface PageArgs { first?: number | null; after?: string | null }
export interface Edge<T> { cursor: string; node: T }
export interface Page<T> { edges: Edge<T>[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } }

/** Where a keyset page starts: the timestamp and id of the row before it (what a cursor encodes). */
export interface Position { at: Date; id: string }

export const encodeCursor = (p: Position) => Buffer.from(`${p.at.toISOString()}|${p.id}`).toString('base64url')

/** A cursor this service gave out, or invalid_input on `after`: never a database error on a forged one. */
export function decodeCursor(cursor: string): Position {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  const date = new Date(at ?? '')
  if (rest.length || !isId(id) || Number.isNaN(date.getTime())) {
    throw InvalidInput.of('after', 'The cursor is not one this service gave out.')
  }
  return { at: date, id }
}

/** The page size asked for: default 50, and outside 1..100 invalid_input on `first` (never silently clamped). */
export function pageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return PAGE_SIZE_DEFAULT
  if (!Number.isInteger(first) || first < 1 || first > PAGE_SIZE_MAX) {
    throw InvalidInput.of('first', `Ask for 1 to ${PAGE_SIZE_MAX} items a page (default ${PAGE_SIZE_DEFAULT}).`)
  }
  return first
}

/**
 * An edge of a keyset page whose cursor is written when read: a page asked for `nodes` only (the console's inbox)
 * writes none (a cursor per row was 3 % of the twins subgraph's CPU). The position is the row's at the time of the read.
 */
class KeysetEdge<T> implements Edge<T> {
  readonly #at: Date
  readonly #id: string
  constructor(readonly node: T, at: Date, id: string) { this.#at = at; this.#id = id }
  get cursor() { return encodeCursor({ at: this.#at, id: this.#id }) }
  /** The same position over another node (mapPage). */
  over<U>(node: U): KeysetEdge<U> { return new KeysetEdge(node, this.#at, this.#id) }
}

/**
 * One keyset page in a form neither road owns: where it starts (the position of the last row of the page before it,
 * or null for the first page) and how many rows to read (the page size and one more, to know whether another page
 * follows). A Prisma read gets it as Prisma arguments (keysetArgs), a raw SQL read as a clause (keysetSql): both
 * from this, neither from the other.
 */
export interface Keyset { after: Position | null; take: number }

/** The Prisma arguments of one keyset page on the timestamp column `A`: spread `where` into the list's own filter. */
export interface KeysetQuery<A extends string> {
  where: { OR?: ({ [K in A]: { lt: Date } } | ({ [K in A]: Date } & { id: { lt: string } }))[] }
  orderBy: [{ [K in A]: 'desc' }, { id: 'desc' }]
  take: number
}

/** A keyset page as Prisma arguments: rows before the position (older, or as old with a smaller id), newest first. */
export function keysetArgs<A extends string>(k: Keyset, at: A): KeysetQuery<A> {
  const where: KeysetQuery<A>['where'] = k.after
    ? { OR: [{ [at]: { lt: k.after.at } } as { [K in A]: { lt: Date } }, { [at]: k.after.at, id: { lt: k.after.id } } as { [K in A]: Date } & { id: { lt: string } }] }
    : {}
  return { where, orderBy: [{ [at]: 'desc' } as { [K in A]: 'desc' }, { id: 'desc' }], take: k.take }
}

/**
 * One page of a list ordered newest first by `at` then id (ids break ties, so rows sharing a timestamp are neither
 * skipped nor repeated across pages). `read` runs the query with the list's own filter, which must not use `OR`:
 *   keysetPage(args, 'receivedAt', (q) => tdb.webhookDelivery.findMany({ ...q, where: { connectionId, ...q.where } }))
 * A raw SQL read takes the page's Keyset, the second argument, to keysetSql. Arguments are checked before anything
 * is read.
 */
export async function keysetPage<A extends string, T extends { id: string } & { [K in A]: Date }>(
  args: PageArgs, at: A, read: (q: KeysetQuery<A>, keyset: Keyset) => Promise<T[]>,
): Promise<Page<T>> {
  const first = pageSize(args.first)
  const keyset: Keyset = { after: args.after ? decodeCursor(args.after) : null, take: first + 1 }
  const rows = await read(keysetArgs(keyset, at), keyset)
  const edges = rows.slice(0, first).map((node) => new KeysetEdge(node, node[at], node.id))
  return { edges, pageInfo: { endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: rows.length > first } }
}

/** A keyset page as SQL for a hot read (core/database/hot-reads.ts), its parameters numbered from the `next` it was given. */
export interface KeysetSql {
  /** ` AND (position)`, or '' on the first page: rows older than the position. */
  position: string
  /** ` ORDER BY column DESC, id DESC LIMIT $n::int`: newest first, the page size as the last parameter. */
  order: string
  /** position + order, to append to the list's own WHERE. */
  sql: string
  /** The position's parameters (timestamp, id) when there is one, then the page size. */
  values: unknown[]
}

/** `k` as SQL on the timestamp column `column` (its SQL name), parameters numbered from `next`. */
export function keysetSql(k: Keyset, column: string, next: number): KeysetSql {
  // the page size is a parameter too: one statement text per name (they are prepared per connection)
  const position = k.after ? ` AND (${column} < $${next} OR (${column} = $${next} AND id < $${next + 1}::uuid))` : ''
  const order = ` ORDER BY ${column} DESC, id DESC LIMIT $${k.after ? next + 2 : next}::int`
  return { position, order, sql: position + order, values: k.after ? [k.after.at, k.after.id, k.take] : [k.take] }
}

/** The same page with its nodes replaced (e.g. rows joined with what the page shows), cursors unchanged. */
export async function mapPage<T, U>(page: Page<T>, map: (nodes: T[]) => U[] | Promise<U[]>): Promise<Page<U>> {
  const nodes = await map(page.edges.map((e) => e.node))
  return { edges: page.edges.map((e, i) => (e instanceof KeysetEdge ? e.over(nodes[i]) : { cursor: e.cursor, node: nodes[i] })), pageInfo: page.pageInfo }
}
