// The literature connector against the fake literature sources over HTTP: the query policy's order, each licence rule
// (never the open_access field), clusters with aliases and preprint successors, each source's rate rule and headers,
// fair shares between two organisations, RateLimited's text, and sources failing mid-search.
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createTenant, expectRowsExist } from '../helpers/factories'
import { literatureClients } from '../../domain/literature'
import { runPolicy, type SearchOutcome } from '../../domain/literature'
import { searchPage, getCluster } from '../../domain/literature'
import { SourceBudget, ensureSourceBudgets, PROVIDER, parseInterval } from '../../domain/literature'
import { SOURCES, SOURCE_IDS, EXCLUDED_SOURCES } from '../../domain/literature'
import { adapterFor } from '../../domain/adapters'
import { RateLimited } from '../../domain/adapters'
import type { IntegrationContext } from '../../domain/adapters'
import { CONTACT, setWindow, useFakeLiterature } from './helpers'

const t = useTestDatabase()
const db = () => t.current.db
const fake = useFakeLiterature(db)

const search = async (orgId: string, query = 'allosteric kinase inhibitor', first = 25) =>
  runPolicy(literatureClients(db(), orgId), { query, first })
const cluster = (o: SearchOutcome, key: string) => o.clusters.find((c) => c.clusterKey === key)!
const rows = (source: string) => db().$queryRaw<{ scope: string; scope_key: string; limit_per_window: number; window_seconds: number; used: number; remote_limit: number | null; remote_remaining: number | null }[]>`
  SELECT scope, scope_key, limit_per_window, window_seconds, used, remote_limit, remote_remaining FROM rate_budgets WHERE provider_id = ${PROVIDER} AND (scope_key = ${source} OR scope_key LIKE ${`${source}:%`}) ORDER BY (scope = 'platform') DESC, scope_key`

describe('the literature_search provider', () => {
  it('describes itself: literature, platform keys, no events, read only, eight sources and the four excluded kinds with reasons', () => {
    const d = adapterFor('literature_search')!.describe() as unknown as Record<string, any>
    expect(d).toMatchObject({ id: 'literature_search', category: 'literature', credentialClass: 'platform_keys', events: 'none', writePolicy: 'read_only', budgetScope: 'platform', apiVersionDefault: 'per source' })
    expect(Object.keys(d.sources)).toEqual([...SOURCE_IDS])
    expect(d.excludedSources.map((e: { kind: string }) => e.kind)).toEqual(['a citation search engine', 'a commercial drug database', 'a patent and scholarly index', 'a preprint server'])
    for (const e of EXCLUDED_SOURCES) expect(e.reason.length).toBeGreaterThan(20)
    expect(SOURCES.literature_index.snapshotStamp).toBe('retrieved_at')
    expect([SOURCES.trial_registry.snapshotStamp, SOURCES.drug_safety.snapshotStamp, SOURCES.target_disease.snapshotStamp, SOURCES.bioactivity.snapshotStamp])
      .toEqual(['dataTimestamp', 'meta.last_updated', 'meta.dataVersion', '<bioactivity>_db_version'])
  })

  it('keeps one platform row per source with the Limits table: 5/s, 3/s header-driven, 8/s, 3/s, 120,000 a day', async () => {
    await ensureSourceBudgets(db())
    const all = await db().$queryRaw<{ scope_key: string; limit_per_window: number; window_seconds: number; organization_id: string | null }[]>`
      SELECT scope_key, limit_per_window, window_seconds, organization_id FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'platform' ORDER BY scope_key`
    expect(Object.fromEntries(all.map((r) => [r.scope_key, [r.limit_per_window, r.window_seconds]]))).toEqual({
      literature_index: [5, 1], doi_registry: [3, 1], citation_graph: [10, 1], fulltext_archive: [8, 1],
      trial_registry: [3, 1], drug_safety: [120_000, 86_400], target_disease: [3, 1], bioactivity: [3, 1],
    })
    expect(all.every((r) => r.organization_id === null)).toBe(true)
    expect(parseInterval('1s')).toBe(1)
    expect(parseInterval('2m')).toBe(120)
    expect(parseInterval('soon')).toBeNull()
  })
})

describe('the literature_search adapter operations', () => {
  it('checks health, searches, fetches a kept cluster and reports its budgets, drawing from the same rows', async () => {
    const org = await createTenant(db(), 'Adapter')
    const adapter = adapterFor('literature_search')!
    const ctx = { db: db(), connection: { organizationId: org.organization.id }, now: () => new Date() } as unknown as IntegrationContext
    expect(await adapter.healthCheck(ctx)).toMatchObject({ status: 'ok', checks: [{ name: 'literature_index', ok: true }, { name: 'citation_graph', ok: true }] })
    const found = await adapter.search(ctx, { text: 'hERG liability', limit: 5 }) as { clusterKey: string }[]
    expect(found.map((c) => c.clusterKey)).toEqual(['10.5555/ill.2023.002'])
    expect(await adapter.fetchObject(ctx, { externalType: 'literature_cluster', externalId: 'W4000000002' })).toMatchObject({ clusterKey: '10.5555/ill.2023.002', organizationId: org.organization.id })
    const budgets = await adapter.budget(ctx)
    expect(budgets.filter((b) => b.scope === 'platform')).toHaveLength(8)
    expect(budgets.filter((b) => b.scope === 'organization')).toHaveLength(8)
    fake.current.control.setFaults('citation-graph', { malformedNext: 4 })
    expect(await adapter.healthCheck(ctx)).toMatchObject({ status: 'degraded', checks: [{ ok: true }, { name: 'citation_graph', ok: false }] })
  })
})

describe('the query policy', () => {
  it('runs the index first, then the DOI registry, the citation graph, the archive metadata and full text, as steps', async () => {
    const org = await createTenant(db(), 'Order')
    const o = await search(org.organization.id)
    expect(o.steps.map((s) => [s.step, s.source, s.status])).toEqual([
      ['search', 'literature_index', 'ok'], ['doi_metadata', 'doi_registry', 'ok'], ['citations_and_oa', 'citation_graph', 'ok'],
      ['archive_licence', 'fulltext_archive', 'ok'], ['full_text', 'literature_index', 'ok'],
    ])
    const log = fake.current.control.log.map((l) => `${l.source}${l.path.includes('fullTextXML') ? ':fulltext' : ''}`)
    expect(log[0]).toBe('literature-index')
    expect(log.indexOf('doi-registry')).toBeLessThan(log.indexOf('citation-graph'))
    expect(log.indexOf('citation-graph')).toBeLessThan(log.indexOf('fulltext-archive'))
    expect(log.indexOf('fulltext-archive')).toBeLessThan(log.indexOf('literature-index:fulltext'))
    expect(o.sources.every((s) => s.status === 'ok')).toBe(true)
    expect(o.clusters).toHaveLength(10)
  })

  it('always sends the contact address to the DOI registry, and the api key to the citation graph', async () => {
    const org = await createTenant(db(), 'Contact')
    await search(org.organization.id)
    const doi = fake.current.control.requests('doi-registry')
    expect(doi.length).toBeGreaterThan(0)
    for (const r of doi) {
      expect(r.query.mailto).toBe(CONTACT)
      expect(r.userAgent).toContain(`mailto:${CONTACT}`)
    }
    expect(fake.current.control.requests('citation-graph')[0].query.api_key).toBe('illustrative-graph-key')
  })

  it('never interpolates the query string into the index query language: each word is a quoted term', async () => {
    const org = await createTenant(db(), 'Escape')
    const o = await search(org.organization.id, 'kinase OR AUTH:"x" (DOI:10.1/evil) \\" inhibitor')
    const sent = fake.current.control.requests('literature-index')[0].query.query
    expect(sent).toBe('"kinase" "OR" "AUTH:" "x" "(DOI:10.1/evil)" "inhibitor"')
    // Operators became words to match, so nothing matches; no field query reached the source.
    expect(o.clusters).toHaveLength(0)
    await expect(search(org.organization.id, '  " \\ ')).rejects.toMatchObject({ code: 'invalid_input', field: 'query' })
  })
})

describe('licences', () => {
  it('shows full text only for cc0, cc_by and cc_by_sa, with the share-alike notice; metadata and a link otherwise', async () => {
    const org = await createTenant(db(), 'Licences')
    const o = await search(org.organization.id)
    const mode = (key: string) => [cluster(o, key).licence, cluster(o, key).rendering.mode, cluster(o, key).rendering.notice !== null]
    expect(mode('10.5555/ill.2024.001')).toEqual(['cc_by', 'full_text', false])
    expect(mode('10.5555/ill.2023.002')).toEqual(['cc0', 'full_text', false])
    expect(mode('10.5555/ill.2022.003')).toEqual(['cc_by_sa', 'full_text', true])
    expect(cluster(o, '10.5555/ill.2022.003').rendering.notice).toContain('Share-alike')
    expect(cluster(o, '10.5555/ill.2024.001').rendering.fullText).toContain('allosteric kinase inhibitor occupies the pocket')
    for (const [key, licence] of [['10.5555/ill.2021.004', 'cc_by_nc'], ['10.5555/ill.2020.005', 'cc_by_nc_nd'], ['10.5555/ill.2017.010', 'cc_by_nc_sa'], ['10.1101/ill.2024.008', 'cc_by_nd']] as const) {
      expect(mode(key)).toEqual([licence, 'metadata', false])
      expect(cluster(o, key).rendering.fullText).toBeNull()
      expect(cluster(o, key).rendering.link).toMatch(/^https:\/\//)
    }
    // The non-commercial work's full text exists at the source and was never fetched.
    expect(fake.current.control.log.some((l) => l.path.includes('PMC9000004'))).toBe(false)
  })

  it('never reads the open_access field: a work the citation graph calls open access without a licence stays unknown', async () => {
    const org = await createTenant(db(), 'Never OA')
    const o = await search(org.organization.id)
    const closed = cluster(o, '10.5555/ill.2019.006')
    expect(closed.licence).toBe('unknown')
    expect(closed.rendering).toMatchObject({ mode: 'metadata', fullText: null })
    // gold open access but CC BY-NC in its locations: not open.
    expect(cluster(o, '10.5555/ill.2021.004').licence).toBe('cc_by_nc')
    // An author manuscript with a TDM code in the archive and no licence elsewhere: metadata only.
    expect(cluster(o, '10.5555/ill.2018.007').rendering.mode).toBe('metadata')
  })

  it('reads a changed licence field as unknown, never as open, while the other sources still answer', async () => {
    const org = await createTenant(db(), 'Changed')
    fake.current.control.setFaults('literature-index', { licenceFieldChanged: true })
    fake.current.control.setFaults('citation-graph', { licenceFieldChanged: true })
    const o = await search(org.organization.id)
    expect(o.clusters).toHaveLength(10)
    for (const c of o.clusters) {
      expect(c.licence).toBe('unknown')
      expect(c.rendering.mode).toBe('metadata')
    }
    expect(cluster(o, '10.5555/ill.2024.001').provenance.find((p) => p.provider === 'literature_index')!.licence).toMatchObject({ licence: 'unknown', unreadable: true })
    for (const source of ['literature_index', 'citation_graph']) {
      expect(o.sources.find((s) => s.source === source)).toMatchObject({ status: 'ok', detail: 'licence field unreadable (the source changed its shape); read as unknown' })
    }
    expect(fake.current.control.log.some((l) => l.path.includes('fullTextXML'))).toBe(false)
  })

  it('takes no full text when the archive metadata changed shape, though index and graph say cc by', async () => {
    const org = await createTenant(db(), 'Archive changed')
    fake.current.control.setFaults('fulltext-archive', { licenceFieldChanged: true })
    const o = await search(org.organization.id)
    for (const key of ['10.5555/ill.2024.001', '10.5555/ill.2023.002', '10.5555/ill.2022.003']) {
      expect(cluster(o, key).rendering.mode).toBe('metadata')
      expect(cluster(o, key).provenance.find((p) => p.provider === 'fulltext_archive')!.licence).toMatchObject({ licence: 'unknown', unreadable: true })
    }
  })
})

describe('clusters', () => {
  it('makes one cluster per work keyed by its DOI, with PMID, PMCID and W-id aliases and each provider\'s provenance and stamp', async () => {
    const org = await createTenant(db(), 'Clusters')
    const o = await search(org.organization.id)
    const c = cluster(o, '10.5555/ill.2024.001')
    expect(c.aliases).toEqual(['pmid:39000001', 'pmcid:PMC9000001', 'W4000000001'])
    expect(c.provenance.map((p) => p.provider)).toEqual(['literature_index', 'doi_registry', 'citation_graph', 'fulltext_archive'])
    const index = c.provenance[0]
    expect(index.ids).toEqual({ DOI: '10.5555/ill.2024.001', PMID: '39000001', PMCID: 'PMC9000001' })
    expect(index.snapshot).toMatchObject({ field: 'retrieved_at' })
    expect(new Date(index.snapshot!.value).getTime()).toBeGreaterThan(Date.now() - 60_000)
    expect(c.provenance[2]).toMatchObject({ ids: { 'W-id': 'W4000000001', DOI: '10.5555/ill.2024.001', PMID: '39000001' }, snapshot: null })
    expect(new Set(o.clusters.map((x) => x.clusterKey)).size).toBe(o.clusters.length)
    // Kept for the organisation: fetch_object by an alias finds it.
    const page = await searchPage(db(), org.organization.id, { query: 'allosteric pocket' })
    expect(page.edges.length).toBeGreaterThan(0)
    expect((await getCluster(db(), org.organization.id, 'pmcid:PMC9000001')).clusterKey).toBe('10.5555/ill.2024.001')
    await expectRowsExist(db(), 'literature_clusters', org.organization.id)
    const other = await createTenant(db(), 'Clusters other')
    await expect(getCluster(db(), other.organization.id, 'pmcid:PMC9000001')).rejects.toMatchObject({ code: 'not_found' })
  })

  it('resolves a preprint to its published successor from the index PPR record', async () => {
    const org = await createTenant(db(), 'Preprints')
    const o = await search(org.organization.id, 'in vivo efficacy')
    const preprint = cluster(o, '10.1101/ill.2024.008')
    expect(preprint).toMatchObject({ isPreprint: true, successorKey: '10.5555/ill.2025.009' })
    expect(preprint.aliases).toContain('ppr:PPR800008')
    expect(cluster(o, '10.5555/ill.2025.009')).toMatchObject({ isPreprint: false, successorKey: null })
  })
})

describe('rate rules', () => {
  it('refuses beyond a source window with RateLimited naming the source and the retry delay', async () => {
    const org = await createTenant(db(), 'Window')
    await setWindow(db(), 'literature_index', 2, 60)
    const b = new SourceBudget(db(), 'literature_index', org.organization.id)
    await b.take()
    await b.take()
    const e = await b.take().then(() => null, (x) => x)
    expect(e).toBeInstanceOf(RateLimited)
    expect(e.message).toMatch(/^budget exhausted for source literature_index, retry after \d+ s$/)
    expect(e.retryAfterSeconds).toBeGreaterThan(50)
  })

  for (const [source, perSecond] of [['literature_index', 5], ['fulltext_archive', 8], ['trial_registry', 3]] as const) {
    it(`paces ${source} at its ${perSecond} per second instead of refusing`, async () => {
      const org = await createTenant(db(), `Pace ${source}`)
      const b = new SourceBudget(db(), source, org.organization.id)
      const windows = new Set<number>()
      for (let i = 0; i < perSecond + 2; i++) {
        await b.take()
        const [platform] = await rows(source)
        expect(platform).toMatchObject({ scope: 'platform', limit_per_window: perSecond, window_seconds: 1 })
        expect(platform.used).toBeLessThanOrEqual(perSecond)
        windows.add(platform.used === 1 ? i : -1)
      }
      // The draws beyond the cap started a new window rather than failing.
      expect([...windows].filter((i) => i > 0).length).toBeGreaterThanOrEqual(1)
    })
  }

  it('follows the DOI registry headers for its window', async () => {
    const org = await createTenant(db(), 'DOI headers')
    fake.current.control.doiRate = { limit: 7, interval: '2s' }
    await search(org.organization.id)
    const [platform] = await rows('doi_registry')
    expect(platform).toMatchObject({ limit_per_window: 7, window_seconds: 2, remote_limit: 7 })
  })

  it('stops the citation graph at 90 % of its daily credits, from its headers, and the search goes on without it', async () => {
    const org = await createTenant(db(), 'Credits')
    fake.current.control.credits = { limit: 100, used: 88, resetSeconds: 3_600 }
    await search(org.organization.id)
    const [platform] = await rows('citation_graph')
    expect(platform).toMatchObject({ remote_limit: 100, remote_remaining: 11 })
    const before = fake.current.control.requests('citation-graph').length
    await search(org.organization.id, 'hERG')
    const o = await search(org.organization.id)
    expect(fake.current.control.requests('citation-graph').length).toBe(before + 1) // 89 -> 90 used, then stopped
    const graph = o.sources.find((s) => s.source === 'citation_graph')!
    expect(graph.status).toBe('rate_limited')
    expect(graph.detail).toMatch(/^budget exhausted for source citation_graph, retry after \d+ s$/)
    expect(graph.retryAfterSeconds).toBeGreaterThan(3_500)
    expect(o.clusters).toHaveLength(10)
  })

  it('holds a source after its 429 for every organisation, and reports it per source', async () => {
    const a = await createTenant(db(), '429 a')
    const b = await createTenant(db(), '429 b')
    fake.current.control.setFaults('citation-graph', { rateLimitNext: 1, retryAfterSeconds: 30 })
    const first = await search(a.organization.id)
    expect(first.sources.find((s) => s.source === 'citation_graph')).toMatchObject({ status: 'rate_limited', retryAfterSeconds: 30 })
    expect(first.clusters).toHaveLength(10)
    const calls = fake.current.control.requests('citation-graph').length
    const second = await search(b.organization.id)
    expect(second.sources.find((s) => s.source === 'citation_graph')!.status).toBe('rate_limited')
    expect(fake.current.control.requests('citation-graph').length).toBe(calls)
  })

  it('answers 429 above 100 requests per second at the fake citation graph', async () => {
    fake.current.control.citationRate.configure({ limit: 2, windowSeconds: 60 })
    const url = `${fake.current.url}/citation-graph/works?filter=doi:10.5555/ill.2024.001`
    expect((await fetch(url)).status).toBe(200)
    expect((await fetch(url)).status).toBe(200)
    const third = await fetch(url)
    expect(third.status).toBe(429)
    expect(third.headers.get('x-ratelimit-limit')).toBe('100000')
  })

  it('splits a window fairly between the organisations that used the source, at least 1 each', async () => {
    const a = await createTenant(db(), 'Fair a')
    const b = await createTenant(db(), 'Fair b')
    await setWindow(db(), 'literature_index', 10, 60)
    const ga = new SourceBudget(db(), 'literature_index', a.organization.id)
    const gb = new SourceBudget(db(), 'literature_index', b.organization.id)
    for (let i = 0; i < 3; i++) await ga.take()
    // b joins: two organisations used the source in this window, 5 each.
    for (let i = 0; i < 5; i++) await gb.take()
    await expect(gb.take()).rejects.toMatchObject({ code: 'RateLimited', source: 'literature_index' })
    await ga.take()
    await ga.take()
    await expect(ga.take()).rejects.toBeInstanceOf(RateLimited)
    const r = await rows('literature_index')
    expect(r.map((x) => [x.scope, x.used, x.limit_per_window])).toEqual([['platform', 10, 10], ['organization', 5, 5], ['organization', 5, 5]])
    // A window of 1 shared by two still gives each at least 1 (and the platform window refuses the third).
    await db().$executeRaw`DELETE FROM rate_budgets WHERE provider_id = ${PROVIDER}`
    await setWindow(db(), 'doi_registry', 1, 60)
    await new SourceBudget(db(), 'doi_registry', a.organization.id).take()
    await expect(new SourceBudget(db(), 'doi_registry', b.organization.id).take()).rejects.toBeInstanceOf(RateLimited)
  })
})

describe('a source failing mid-search', () => {
  it('returns the other sources\' results when the DOI registry answers malformed JSON', async () => {
    const org = await createTenant(db(), 'Malformed')
    fake.current.control.setFaults('doi-registry', { malformedNext: 5 })
    const o = await search(org.organization.id)
    expect(o.sources.find((s) => s.source === 'doi_registry')).toMatchObject({ status: 'failed' })
    expect(o.sources.find((s) => s.source === 'doi_registry')!.detail).toContain('unexpected shape')
    expect(o.clusters).toHaveLength(10)
    expect(cluster(o, '10.5555/ill.2024.001').rendering.mode).toBe('full_text')
  })

  it('falls back to the citation graph\'s search when the index times out, with the index step failed', async () => {
    const org = await createTenant(db(), 'Timeout')
    fake.current.control.setFaults('literature-index', { delayMs: 2_000 })
    const o = await search(org.organization.id, 'kinase inhibitor')
    expect(o.steps[0]).toMatchObject({ step: 'search', source: 'literature_index', status: 'failed' })
    expect(o.steps[0].detail).toContain('timeout')
    expect(o.steps[1]).toMatchObject({ step: 'search_fallback', source: 'citation_graph', status: 'ok' })
    expect(o.clusters.length).toBeGreaterThan(0)
    expect(o.fallback).toBe(true)
    // Without the index nothing was read from it for licences; the graph's locations still decide, never open_access.
    expect(cluster(o, '10.5555/ill.2019.006').licence).toBe('unknown')
  }, 20_000)

  it('is RateLimited, not an empty result, when every source that could answer is exhausted', async () => {
    const org = await createTenant(db(), 'Exhausted')
    await setWindow(db(), 'literature_index', 1, 60)
    await setWindow(db(), 'citation_graph', 1, 60)
    await new SourceBudget(db(), 'literature_index', org.organization.id).take()
    await new SourceBudget(db(), 'citation_graph', org.organization.id).take()
    const e = await search(org.organization.id).then(() => null, (x) => x)
    expect(e).toBeInstanceOf(RateLimited)
    expect(e.message).toMatch(/^budget exhausted for source (literature_index|citation_graph), retry after \d+ s$/)
  })
})
