// The four knowledge sources (trial registry, drug safety, target-disease, bioactivity) against the fake over HTTP:
// each client's records with their provenance scheme and snapshot stamp, each one's rate rule, the optional policy steps
// when the query asks for them, fetch_object by scheme, escaping, and each source failing (timeout, 429, malformed
// JSON, a missing stamp) as a per-source status while the literature still answers.
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { literatureClients } from '../../domain/literature'
import { runPolicy } from '../../domain/literature'
import { PROVIDER } from '../../domain/literature'
import { KNOWLEDGE_SOURCES } from '../../domain/literature'
import { adapterFor } from '../../domain/adapters'
import { RateLimited } from '../../domain/adapters'
import type { IntegrationContext } from '../../domain/adapters'
import { FAKE_STAMPS } from '../../fakes/literature/knowledge'
import { CONTACT, inert, setWindow, useFakeLiterature } from './helpers'
import { configureLiterature } from '../../domain/literature'

const t = useTestDatabase()
const db = () => t.current.db
const fake = useFakeLiterature(db)

const org = async (name: string) => (await createTenant(db(), name)).organization.id
const clients = async (name: string) => literatureClients(db(), await org(name)).knowledge

describe('the knowledge source clients', () => {
  it('reads trials by NCT with the registry\'s dataTimestamp on every record, summaries through the sanitiser', async () => {
    const k = await clients('Trials')
    const found = await k.trial_registry.search('allosteric kinase inhibitor', 10)
    expect(found.map((r) => r.id)).toEqual(['NCT09000001', 'NCT09000002'])
    for (const r of found) expect(r).toMatchObject({ source: 'trial_registry', scheme: 'NCT', ids: { NCT: r.id }, snapshot: { field: 'dataTimestamp', value: FAKE_STAMPS.dataTimestamp } })
    const expansion = found[1]
    expect(inert(expansion.summary!)).toEqual([])
    expect(expansion.sanitised.map((s) => s.field)).toEqual(['summary'])
    // The words went as quoted terms; no operator of the caller's reached the registry's query language.
    await k.trial_registry.search('kinase OR AREA[Phase]"x" \\', 10)
    expect(fake.current.control.requests('trial-registry').at(-1)!.query['query.term']).toBe('"kinase" AND "OR" AND "AREA[Phase]" AND "x"')
  })

  it('reads drug safety reports with report id and NDC, meta.last_updated stamped, the api key sent, nothing found as empty', async () => {
    configureLiterature({ keys: { contact_email: CONTACT, citation_graph_api_key: 'illustrative-graph-key', drug_safety_api_key: 'illustrative-safety-key' } })
    const k = await clients('Safety')
    const found = await k.drug_safety.search('illustrativinib', 10).finally(() =>
      configureLiterature({ keys: { contact_email: CONTACT, citation_graph_api_key: 'illustrative-graph-key' } }))
    expect(found.map((r) => [r.id, r.ids.NDC, r.summary])).toEqual([
      ['30000001', '99999-001-01', 'Electrocardiogram QT prolonged'], ['30000002', '99999-001-01', 'Hepatic enzyme increased'],
    ])
    for (const r of found) expect(r.snapshot).toEqual({ field: 'meta.last_updated', value: FAKE_STAMPS.lastUpdated })
    expect(fake.current.control.requests('drug-safety')[0].query).toMatchObject({ search: 'patient.drug.medicinalproduct:"illustrativinib"', api_key: 'illustrative-safety-key' })
    expect(await k.drug_safety.search('no such drug', 10)).toEqual([])
  })

  it('reads targets and diseases by gene id and ontology term id, meta.dataVersion stamped, the text only as a GraphQL variable', async () => {
    const k = await clients('Targets')
    const text = 'kinase" } } mutation { drop'
    await k.target_disease.search(text, 10)
    const sent = fake.current.control.requests('target-disease')[0].body as { query: string; variables: Record<string, unknown> }
    expect(sent.query).not.toContain('drop')
    expect(sent.variables.q).toBe(text)
    const found = await k.target_disease.search('illustrative kinase', 10)
    expect(found.map((r) => [r.scheme, r.id])).toEqual([['gene id', 'ENSG00000999001'], ['ontology term id', 'EFO_0999001']])
    for (const r of found) expect(r.snapshot).toEqual({ field: 'meta.dataVersion', value: '26.09' })
  })

  it('reads compounds by compound id with the InChIKey, stamped with the database\'s <bioactivity>_db_version', async () => {
    const k = await clients('Compounds')
    const found = await k.bioactivity.search('allosteric kinase inhibitor', 10)
    expect(found.map((r) => [r.id, r.ids.InChIKey])).toEqual([['CHEMBL9900001', 'AAAAAAAAAAAAAA-BBBBBBBBBB-N'], ['CHEMBL9900002', 'CCCCCCCCCCCCCC-DDDDDDDDDD-N']])
    for (const r of found) expect(r.snapshot).toEqual({ field: '<bioactivity>_db_version', value: FAKE_STAMPS.dbVersion })
  })
})

describe('their rate rules', () => {
  for (const [source, fakeSource, run] of [
    ['trial_registry', 'trial-registry', (k: Awaited<ReturnType<typeof clients>>) => k.trial_registry.search('kinase', 5)],
    ['target_disease', 'target-disease', (k: Awaited<ReturnType<typeof clients>>) => k.target_disease.search('kinase', 5)],
    ['bioactivity', 'bioactivity', (k: Awaited<ReturnType<typeof clients>>) => k.bioactivity.search('kinase', 5)],
  ] as const) {
    it(`draws ${source} from its own 3-per-second window, pacing the requests beyond it rather than refusing`, async () => {
      const k = await clients(`Pace ${source}`)
      const windows = new Map<number, number>()
      for (let i = 0; i < 5; i++) {
        await run(k)
        const [platform] = await db().$queryRaw<{ limit_per_window: number; window_seconds: number; used: number; window_started_at: Date }[]>`
          SELECT limit_per_window, window_seconds, used, window_started_at FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = ${source}`
        expect(platform).toMatchObject({ limit_per_window: 3, window_seconds: 1 })
        windows.set(platform.window_started_at.getTime(), platform.used)
      }
      // Every request reached the source, no window held more than 3, and the fourth onwards started new windows.
      expect(fake.current.control.requests(fakeSource).length).toBeGreaterThanOrEqual(5)
      expect(Math.max(...windows.values())).toBeLessThanOrEqual(3)
      expect(windows.size).toBeGreaterThanOrEqual(2)
    }, 20_000)
  }

  it('draws drug safety from its 120,000-a-day window and refuses past it with RateLimited for the day', async () => {
    const k = await clients('Daily')
    await k.drug_safety.search('illustrativinib', 5)
    const [platform] = await db().$queryRaw<{ limit_per_window: number; window_seconds: number; used: number }[]>`
      SELECT limit_per_window, window_seconds, used FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'platform' AND scope_key = 'drug_safety'`
    expect(platform).toEqual({ limit_per_window: 120_000, window_seconds: 86_400, used: 1 })
    await setWindow(db(), 'drug_safety', 1, 86_400)
    const e = await k.drug_safety.search('illustrativinib', 5).then(() => null, (x) => x)
    expect(e).toBeInstanceOf(RateLimited)
    expect(e.message).toMatch(/^budget exhausted for source drug_safety, retry after \d+ s$/)
    expect(e.retryAfterSeconds).toBeGreaterThan(86_000)
    expect(fake.current.control.requests('drug-safety')).toHaveLength(1)
  })
})

describe('the optional policy steps', () => {
  it('runs no knowledge source unless the query asks for it', async () => {
    const o = await runPolicy(literatureClients(db(), await org('Plain')), { query: 'allosteric kinase inhibitor', first: 25 })
    expect(o.steps.map((s) => s.step)).toEqual(['search', 'doi_metadata', 'citations_and_oa', 'archive_licence', 'full_text'])
    expect(o.knowledge).toEqual([])
    for (const s of ['trial-registry', 'drug-safety', 'target-disease', 'bioactivity'] as const) expect(fake.current.control.requests(s)).toHaveLength(0)
  })

  it('runs the asked-for sources after the literature steps, each with its status and stamped records', async () => {
    const o = await runPolicy(literatureClients(db(), await org('Asked')), { query: 'allosteric kinase inhibitor', first: 25, include: [...KNOWLEDGE_SOURCES] })
    expect(o.steps.map((s) => [s.step, s.status])).toEqual([
      ['search', 'ok'], ['doi_metadata', 'ok'], ['citations_and_oa', 'ok'], ['archive_licence', 'ok'], ['full_text', 'ok'],
      ['trials', 'ok'], ['drug_safety_reports', 'ok'], ['targets_and_diseases', 'ok'], ['compounds', 'ok'],
    ])
    expect(o.clusters).toHaveLength(10)
    expect(new Set(o.knowledge.map((r) => r.source))).toEqual(new Set(['trial_registry', 'bioactivity', 'target_disease']))
    expect(o.sources.find((s) => s.source === 'drug_safety')).toMatchObject({ status: 'ok', records: 0 })
    for (const r of o.knowledge) expect(r.snapshot.value).toBeTruthy()
  })

  it('reports a timeout, a 429, malformed JSON and a missing stamp per source, and the literature still answers', async () => {
    fake.current.control.setFaults('trial-registry', { delayMs: 2_000 })
    fake.current.control.setFaults('target-disease', { rateLimitNext: 5, retryAfterSeconds: 40 })
    fake.current.control.setFaults('bioactivity', { malformedNext: 5 })
    fake.current.control.setFaults('drug-safety', { stampDropped: true })
    const o = await runPolicy(literatureClients(db(), await org('Failing')), { query: 'allosteric kinase inhibitor', first: 25, include: [...KNOWLEDGE_SOURCES] })
    const status = (s: string) => o.sources.find((x) => x.source === s)!
    expect(status('trial_registry').status).toBe('failed')
    expect(status('trial_registry').detail).toContain('timeout')
    expect(status('target_disease')).toMatchObject({ status: 'rate_limited', retryAfterSeconds: 40 })
    expect(status('bioactivity').status).toBe('failed')
    expect(status('bioactivity').detail).toContain('unexpected shape')
    expect(o.knowledge).toEqual([])
    expect(status('literature_index').status).toBe('ok')
    expect(o.clusters).toHaveLength(10)
    // An answer without its snapshot stamp cannot be cited with provenance: the step fails, naming the field.
    const unstamped = await runPolicy(literatureClients(db(), await org('Unstamped')), { query: 'illustrativinib', first: 25, include: ['drug_safety'] })
    expect(unstamped.sources.find((x) => x.source === 'drug_safety')).toMatchObject({ status: 'failed', detail: expect.stringContaining('meta.last_updated missing') })
    // The 429 holds the source: nothing more is sent to it before its Retry-After.
    const calls = fake.current.control.requests('target-disease').length
    const again = await runPolicy(literatureClients(db(), await org('Failing again')), { query: 'kinase', first: 5, include: ['target_disease'] })
    expect(again.sources.find((x) => x.source === 'target_disease')!.status).toBe('rate_limited')
    expect(fake.current.control.requests('target-disease')).toHaveLength(calls)
  }, 20_000)
})

describe('fetch_object by the source\'s identifier scheme', () => {
  it('reads a trial, a report, a target, a disease and a compound live with their stamps; unknown ids are NotFound, bad ones invalid', async () => {
    const adapter = adapterFor('literature_search')!
    const ctx = { db: db(), connection: { organizationId: await org('Fetch') }, now: () => new Date() } as unknown as IntegrationContext
    expect(await adapter.fetchObject(ctx, { externalType: 'NCT', externalId: 'NCT09000001' })).toMatchObject({ source: 'trial_registry', id: 'NCT09000001', snapshot: { field: 'dataTimestamp' } })
    expect(await adapter.fetchObject(ctx, { externalType: 'drug_safety', externalId: '30000002' })).toMatchObject({ id: '30000002', snapshot: { field: 'meta.last_updated' } })
    expect(await adapter.fetchObject(ctx, { externalType: 'gene id', externalId: 'ENSG00000999001' })).toMatchObject({ title: 'ILK1', snapshot: { value: '26.09' } })
    expect(await adapter.fetchObject(ctx, { externalType: 'ontology term id', externalId: 'EFO_0999001' })).toMatchObject({ scheme: 'ontology term id' })
    expect(await adapter.fetchObject(ctx, { externalType: 'InChIKey', externalId: 'AAAAAAAAAAAAAA-BBBBBBBBBB-N' })).toMatchObject({ id: 'CHEMBL9900001', snapshot: { value: FAKE_STAMPS.dbVersion } })
    await expect(adapter.fetchObject(ctx, { externalType: 'NCT', externalId: 'NCT09999999' })).rejects.toMatchObject({ code: 'not_found' })
    await expect(adapter.fetchObject(ctx, { externalType: 'compound id', externalId: '../status' })).rejects.toMatchObject({ code: 'invalid_input', field: 'externalId' })
    expect(fake.current.control.requests('bioactivity').some((r) => r.path.includes('..'))).toBe(false)
  })
})
