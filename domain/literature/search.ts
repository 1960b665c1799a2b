// Owns literature search as people and twins reach it: program-scoped and permission-checked
// (evidence.literature.search), 25 results per query in cursor pages, the per-turn query budget of twin runs
// (programs.settings.evidence_query_budget, default three), and the clusters kept per organisation so records can cite
// them (literature_clusters, by cluster key or alias).
import { forOrganization, type Db } from '../../core/database'
import type { DomainContext } from '../../core/jobs'
import { InvalidInput, NotFoundError } from '../../core/errors'
import { assertCan } from '../../core/identity'
import type { Edge, Page } from '../../core/database'
import { literatureClients } from './clients'
import type { KnowledgeSourceId } from './knowledge'
import { runPolicy, type ClusterOut, type SearchOutcome } from './policy'
import { findCluster, keepClusters } from './sql'

export { findCluster, keepClusters }
import { QUERIES_PER_TURN_DEFAULT, RESULTS_PER_QUERY } from './sources'

export const SEARCH_PERMISSION = 'evidence.literature.search'

interface CursorState { q: string; m: string; s: number }

const encode = (c: CursorState) => Buffer.from(JSON.stringify(c)).toString('base64url')
function decode(after: string, query: string): CursorState {
  try {
    const c = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as CursorState
    if (c && c.q === query && typeof c.m === 'string' && c.m.length <= 500 && Number.isInteger(c.s) && c.s >= 0 && c.s <= RESULTS_PER_QUERY) return c
  } catch { /* fall through */ }
  throw InvalidInput.of('after', 'The cursor is not one this service gave out for this query.')
}

export interface LiteraturePage extends Page<ClusterOut> {
  outcome: SearchOutcome
}

/** One page of a search: `first` 1 to 25 (default 25), `after` a cursor this search gave out. */
export async function searchPage(db: Db, organizationId: string, args: { query: string; first?: number | null; after?: string | null; include?: readonly KnowledgeSourceId[] | null }): Promise<LiteraturePage> {
  const first = args.first ?? RESULTS_PER_QUERY
  if (!Number.isInteger(first) || first < 1 || first > RESULTS_PER_QUERY) throw InvalidInput.of('first', `Ask for 1 to ${RESULTS_PER_QUERY} results a query.`)
  const query = (args.query ?? '').trim()
  const cursor = args.after ? decode(args.after, query) : { q: query, m: '*', s: 0 }
  const outcome = await runPolicy(literatureClients(db, organizationId), { query, first, cursorMark: cursor.m, skip: cursor.s, include: args.include ?? [] })
  await keepClusters(db, organizationId, outcome.clusters)
  const edges: Edge<ClusterOut>[] = outcome.clusters.map((c) => ({ cursor: encode({ q: query, m: outcome.cursorMark, s: c.position }), node: c }))
  const hasNextPage = !outcome.fallback && outcome.nextCursorMark !== null
  const endCursor = hasNextPage ? encode({ q: query, m: outcome.nextCursorMark!, s: 0 }) : (edges.at(-1)?.cursor ?? null)
  return { edges, pageInfo: { endCursor, hasNextPage }, outcome }
}

/** A person's search in a program (evidence.literature.search there). */
export async function searchLiterature(ctx: Pick<DomainContext, 'session' | 'db'>, programId: string, args: { query: string; first?: number | null; after?: string | null; include?: readonly KnowledgeSourceId[] | null }) {
  assertCan(ctx.session, SEARCH_PERMISSION, programId)
  return searchPage(ctx.db, ctx.session.organizationId, args)
}

/** The per-turn query budget of a program: programs.settings.evidence_query_budget (1 to 25), else three. */
export function queriesPerTurn(settings: unknown): number {
  const v = (settings as Record<string, unknown> | null)?.evidence_query_budget
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 25 ? v : QUERIES_PER_TURN_DEFAULT
}

/** A kept cluster for the organisation (fetch_object), or NotFound. */
export async function getCluster(db: Db, organizationId: string, ref: string) {
  const found = await findCluster(db, organizationId, ref)
  if (!found) throw new NotFoundError('LiteratureCluster')
  return forOrganization(db, organizationId).literatureCluster.findFirstOrThrow({ where: { organizationId, clusterKey: found.cluster_key } })
}
