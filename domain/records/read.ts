// Owns the reads of program records: one record, a program's records in cursor pages (filtered by type and status),
// a record's history and citations, the source system it came from, and the footer of its current version.
import DataLoader from 'dataloader'
import type { DomainContext } from '../../core/jobs'
import { InvalidInput } from '../../core/errors'
import { decisionFooter } from '../../core/text'
import { isId } from '../../core/text'
import { assertCan, can } from '../../core/identity'
import type { ProgramRecord, ProgramRecordVersion } from '../../generated/prisma/client'
import { keysetPage, type Page, type PageArgs } from '../../core/database'
import { getProgram } from '../programs'
import { isRecordType, RECORD_TYPE_KEYS, RECORD_TYPES, type RecordTypeKey } from './types'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

const readable = (ctx: Ctx, r: Pick<ProgramRecord, 'recordType' | 'programId'>) =>
  isRecordType(r.recordType) && can(ctx.session, RECORD_TYPES[r.recordType].permissions.read, r.programId)

/** A record the caller may read, or null (absent, another organisation's or program's, or a type they may not read). */
export async function findRecord(ctx: Ctx, id: string): Promise<ProgramRecord | null> {
  if (!isId(id)) return null
  const record = await ctx.tdb.programRecord.findFirst({ where: { id } })
  return record && readable(ctx, record) ? record : null
}

export interface ListArgs extends PageArgs {
  recordType?: string | null; status?: string | null
  /** Words the title or the body contains (case-insensitive, as written: no pattern characters). */
  search?: string | null
}
const SEARCH_MAX = 200

/**
 * A program's records, newest first, in cursor pages. With a type: its .read key is required (FORBIDDEN otherwise);
 * without one: every type the caller may read there. A program the caller may not read is not found.
 */
export async function listRecords(ctx: Ctx, programId: string, args: ListArgs = {}): Promise<Page<ProgramRecord>> {
  await getProgram(ctx, { id: programId })
  let types: RecordTypeKey[]
  if (args.recordType != null) {
    if (!isRecordType(args.recordType)) throw InvalidInput.of('type', `use one of ${RECORD_TYPE_KEYS.join(', ')}`)
    assertCan(ctx.session, RECORD_TYPES[args.recordType].permissions.read, programId)
    types = [args.recordType]
  } else {
    types = RECORD_TYPE_KEYS.filter((k) => can(ctx.session, RECORD_TYPES[k].permissions.read, programId))
  }
  if (args.status != null) {
    const known = new Set(types.flatMap((k) => RECORD_TYPES[k].machine.states as readonly string[]))
    if (!known.has(args.status)) throw InvalidInput.of('status', `use one of ${[...known].join(', ')}`)
  }
  const search = args.search?.trim() ?? ''
  if (search.length > SEARCH_MAX) throw InvalidInput.of('search', `at most ${SEARCH_MAX} characters`)
  // The keyset's own OR stays at the top level; the search's OR sits under AND.
  // LIKE's own characters (%, _ and the backslash) are escaped: a person's words are searched for as written.
  const literal = search.replace(/[\\%_]/g, (c) => `\\${c}`)
  const matching = search ? { AND: [{ OR: [{ title: { contains: literal, mode: 'insensitive' as const } }, { body: { contains: literal, mode: 'insensitive' as const } }] }] } : {}
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.programRecord.findMany({
    ...q,
    where: { programId, recordType: types.length === 1 ? types[0] : { in: types }, ...(args.status != null ? { status: args.status } : {}), ...matching, ...q.where },
  }))
}

/** Every version of a record, newest first (the record itself was checked readable by whoever holds it). */
export function recordHistory(ctx: Ctx, recordId: string): Promise<ProgramRecordVersion[]> {
  return ctx.tdb.programRecordVersion.findMany({ where: { recordId }, orderBy: { version: 'desc' } })
}

// Per-request batch loaders, keyed by the context object: a page of 100 records reads its footers, sources and
// citations in one query each.
const loaders = new WeakMap<object, ReturnType<typeof createLoaders>>()
function createLoaders(ctx: Ctx) {
  return {
    version: new DataLoader<string, ProgramRecordVersion | null, string>(async (keys) => {
      const pairs = keys.map((k) => k.split('@'))
      const rows = await ctx.tdb.programRecordVersion.findMany({
        where: { OR: pairs.map(([recordId, version]) => ({ recordId, version: Number(version) })) },
      })
      const by = new Map(rows.map((r) => [`${r.recordId}@${r.version}`, r]))
      return keys.map((k) => by.get(k) ?? null)
    }),
    source: new DataLoader<string, { id: string; sourceSystem: string; sourceType: string; title: string; targetRef: string | null; url: string | null } | null>(async (ids) => {
      const rows = await ctx.tdb.source.findMany({ where: { id: { in: [...ids] } }, select: { id: true, sourceSystem: true, sourceType: true, title: true, targetRef: true, url: true } })
      const by = new Map(rows.map((r) => [r.id, r]))
      return ids.map((id) => by.get(id) ?? null)
    }),
    experiment: new DataLoader<string, { id: string; elnSourceId: string | null } | null>(async (ids) => {
      const rows = await ctx.tdb.experiment.findMany({ where: { id: { in: [...ids] } }, select: { id: true, elnSourceId: true } })
      const by = new Map(rows.map((r) => [r.id, r]))
      return ids.map((id) => by.get(id) ?? null)
    }),
    citations: new DataLoader<string, Citation[]>(async (recordIds) => {
      const rows = await ctx.tdb.recordCitation.findMany({
        where: { recordId: { in: [...recordIds] } }, orderBy: [{ recordId: 'asc' }, { position: 'asc' }],
        include: {
          source: { select: { title: true, sourceSystem: true, targetRef: true, url: true } },
          document: { select: { title: true, sourceSystem: true, targetRef: true, version: true, source: { select: { url: true } } } },
        },
      })
      // Literature clusters are the organisation's (what its literature searches found): their title, read in one query.
      const keys = [...new Set(rows.map((r) => r.clusterKey).filter((k): k is string => !!k))]
      const clusters = keys.length ? await ctx.tdb.literatureCluster.findMany({ where: { clusterKey: { in: keys } }, select: { clusterKey: true, title: true } }) : []
      const clusterTitle = new Map(clusters.map((c) => [c.clusterKey, c.title]))
      return recordIds.map((id) => rows.filter((r) => r.recordId === id).map((r) => {
        const target = r.source ?? r.document
        return {
          kind: r.citedKind, ref: r.sourceId ?? r.documentId ?? r.clusterKey ?? '', locator: r.locator,
          title: target?.title ?? (r.clusterKey ? clusterTitle.get(r.clusterKey) ?? null : null), sourceSystem: target?.sourceSystem ?? (r.citedKind === 'literature_cluster' ? 'literature_search' : null),
          targetRef: target?.targetRef ?? null,
          href: r.source?.url ?? r.document?.source.url ?? (r.clusterKey ? clusterHref(r.clusterKey) : null),
          place: placeOf(r.locator),
          documentVersion: r.document?.version ?? null,
        }
      }))
    }),
    user: new DataLoader<string, { id: string; name: string } | null>(async (ids) => {
      const rows = await ctx.tdb.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } })
      const by = new Map(rows.map((r) => [r.id, r]))
      return ids.map((id) => by.get(id) ?? null)
    }),
  }
}
const loadersFor = (ctx: Ctx) => {
  let l = loaders.get(ctx)
  if (!l) loaders.set(ctx, l = createLoaders(ctx))
  return l
}

export interface Citation {
  kind: string; ref: string; locator: string | null; title: string | null; sourceSystem: string | null; targetRef: string | null
  /** Where a person can read what is cited: the source's own address, or a literature cluster's DOI or PubMed page. */
  href: string | null
  /** The locator in words: 'table=0' (the grammar of domain/citations/index.ts) reads 'Table 1'. */
  place: string | null
  /** The version of a cited document as mirrored now. */
  documentVersion: number | null
}

/** A literature cluster key's public page: a DOI at doi.org, a PubMed or PubMed Central id at NCBI; else none. */
function clusterHref(key: string): string | null {
  if (/^10\./.test(key)) return `https://doi.org/${key}`
  const pmid = /^pmid:(\d+)$/i.exec(key)
  if (pmid) return `https://pubmed.ncbi.nlm.nih.gov/${pmid[1]}/`
  const pmc = /^pmcid:(PMC\d+)$/i.exec(key)
  if (pmc) return `https://www.ncbi.nlm.nih.gov/pmc/articles/${pmc[1]}/`
  return null
}

function placeOf(locator: string | null): string | null {
  if (!locator) return null
  const table = /^table=(\d{1,4})$/.exec(locator)
  return table ? `Table ${Number(table[1]) + 1}` : locator
}

export const recordCitations = (ctx: Ctx, record: ProgramRecord) => loadersFor(ctx).citations.load(record.id)

/** The version row of the record's current version (its provenance). */
export const currentVersionRow = (ctx: Ctx, record: ProgramRecord) => loadersFor(ctx).version.load(`${record.id}@${record.version}`)

/**
 * The connector source a record came from (an evidence.sources record's source; an experiment's notebook entry through
 * experiments.eln_source_id), or null for a record written in this service.
 */
export async function recordSource(ctx: Ctx, record: ProgramRecord) {
  const l = loadersFor(ctx)
  let sourceId = record.sourceId
  if (!sourceId && record.experimentId) sourceId = (await l.experiment.load(record.experimentId))?.elnSourceId ?? null
  return sourceId ? l.source.load(sourceId) : null
}

/** The experiments row's eln_source_id (plans.experiments), read through the experiments table it lives in. */
export async function experimentElnSourceId(ctx: Ctx, record: ProgramRecord): Promise<string | null> {
  if (!record.experimentId) return null
  return (await loadersFor(ctx).experiment.load(record.experimentId))?.elnSourceId ?? null
}

/**
 * 'Proposed by <Name>'s twin (agent, working as <workbench role or persona name>); decided by <Name>', or the twins
 * document's 'Proposed by <Name>'s twin (agent); decided by <Name>' when the run recorded no harness: composed by
 * decisionFooter (core/text/footers.ts), the same function as a decided proposal's footer.
 */
export const recordFooter = (proposer: string, decider: string, workingAs: string | null = null) =>
  decisionFooter({ proposerName: proposer, workingAs, decidedByName: decider })

/** The footer of a version: only a version applied from a twin's proposal has one; a person's own change has none. */
export async function versionFooter(ctx: Ctx, v: ProgramRecordVersion | null): Promise<string | null> {
  if (!v?.proposedByTwinId || !v.proposedByUserId) return null
  const l = loadersFor(ctx)
  const [proposer, decider] = await Promise.all([l.user.load(v.proposedByUserId), l.user.load(v.decidedByUserId)])
  return proposer && decider ? recordFooter(proposer.name, decider.name, v.workingAs) : null
}

/** The source loader, for the content of a record's source fields. */
export const sourceById = (ctx: Ctx, id: string) => loadersFor(ctx).source.load(id)

/** One version row of a record (the version before another, for what changed). */
export const versionRow = (ctx: Ctx, recordId: string, version: number) => loadersFor(ctx).version.load(`${recordId}@${version}`)

export const userName = async (ctx: Ctx, id: string | null) => (id ? (await loadersFor(ctx).user.load(id))?.name ?? null : null)
