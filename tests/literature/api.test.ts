// Literature search as people and twins reach it, through the gateway and the tool server: Program.literatureSearch
// (permission, cursor pages, per-source status, RateLimited), evidence.search_literature (same budgets, the per-turn
// query budget and its program override), the injection fixture through the tool's handler, the twin_literature_watch
// duty, and records citing the clusters found.
import { beforeAll, describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { contextForUser } from '../../core/jobs'
import { INJECTION_FIXTURES } from '../fixtures/injection'
import { deterministicHarness } from '../../subgraphs/twins/harness/deterministic'
import type { RunContext } from '../../domain/twins'
import { SourceBudget, PROVIDER } from '../../domain/literature'
import { connect, runningRun, writeRecord } from '../twins/tools-helpers'
import type { FakeWork } from '../../fakes/literature/corpus'
import { inert, setWindow, useFakeLiterature } from './helpers'

const stack = useStack()
const db = () => stack.db.db
const fake = useFakeLiterature(db)
const url = () => `${stack.current.gatewayUrl}/graphql`

const SEARCH = `query($id: ID!, $q: String!, $first: Int, $after: String) { program(id: $id) { literatureSearch(query: $q, first: $first, after: $after) {
  hitCount nodes { clusterKey aliases title licence isPreprint successorKey sourceSystem rendering { mode fullText link notice }
    provenance { provider ids snapshotField snapshotValue licence } }
  edges { cursor } pageInfo { endCursor hasNextPage } sources { source status detail records retryAfterSeconds } steps { step source status detail }
  excludedSources } } }`

async function searchAs(t: Tenant, persona: Parameters<Tenant['token']>[0], variables: Record<string, unknown>) {
  return gql(url(), SEARCH, { id: t.program.id, ...variables }, await t.token(persona))
}

describe('Program.literatureSearch', () => {
  it('searches the knowledge sources a person asks for as optional steps, their records with scheme and snapshot stamp', async () => {
    const t = await createTenant(db(), 'People knowledge')
    const q = `query($id: ID!, $q: String!, $include: [String!]) { program(id: $id) { literatureSearch(query: $q, include: $include) {
      nodes { clusterKey } steps { step status } knowledge { source scheme id ids title snapshotField snapshotValue } } } }`
    const token = await t.token('scientist')
    const r = await gql(url(), q, { id: t.program.id, q: 'allosteric kinase inhibitor', include: ['trial_registry', 'bioactivity'] }, token)
    expect(r.body.errors).toBeUndefined()
    const page = r.body.data.program.literatureSearch
    expect(page.nodes).toHaveLength(10)
    expect(page.steps.map((s: { step: string }) => s.step).slice(-2)).toEqual(['trials', 'compounds'])
    expect(page.knowledge.map((k: { scheme: string; id: string; snapshotField: string }) => [k.scheme, k.id, k.snapshotField])).toEqual([
      ['NCT', 'NCT09000001', 'dataTimestamp'], ['NCT', 'NCT09000002', 'dataTimestamp'],
      ['compound id', 'CHEMBL9900001', '<bioactivity>_db_version'], ['compound id', 'CHEMBL9900002', '<bioactivity>_db_version'],
    ])
    const bad = await gql(url(), q, { id: t.program.id, q: 'kinase', include: ['a commercial drug database'] }, token)
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'include' })
  })

  it('returns clusters with provenance and licence, the per-source status and the policy steps, in cursor pages', async () => {
    const t = await createTenant(db(), 'People search')
    const first = await searchAs(t, 'scientist', { q: 'allosteric kinase inhibitor', first: 4 })
    expect(first.body.errors).toBeUndefined()
    const page = first.body.data.program.literatureSearch
    expect(page.hitCount).toBe(10)
    expect(page.nodes).toHaveLength(4)
    expect(page.nodes[0]).toMatchObject({ clusterKey: '10.5555/ill.2024.001', licence: 'cc_by', sourceSystem: 'literature_search', rendering: { mode: 'full_text' } })
    expect(page.nodes[0].provenance[0]).toMatchObject({ provider: 'literature_index', snapshotField: 'retrieved_at', licence: 'cc_by' })
    expect(page.steps.map((s: { step: string }) => s.step)).toEqual(['search', 'doi_metadata', 'citations_and_oa', 'archive_licence', 'full_text'])
    expect(page.sources.map((s: { source: string; status: string }) => `${s.source}:${s.status}`)).toEqual(['literature_index:ok', 'doi_registry:ok', 'citation_graph:ok', 'fulltext_archive:ok'])
    expect(page.excludedSources).toHaveLength(4)
    expect(page.pageInfo.hasNextPage).toBe(true)
    const keys = new Set(page.nodes.map((n: { clusterKey: string }) => n.clusterKey))
    let after = page.pageInfo.endCursor
    for (let i = 0; i < 5 && after; i++) {
      const next = (await searchAs(t, 'scientist', { q: 'allosteric kinase inhibitor', first: 4, after })).body.data.program.literatureSearch
      for (const n of next.nodes) {
        expect(keys.has(n.clusterKey)).toBe(false)
        keys.add(n.clusterKey)
      }
      after = next.pageInfo.hasNextPage ? next.pageInfo.endCursor : null
    }
    expect(keys.size).toBe(10)
    // An edge's cursor resumes right after that edge.
    const fromEdge = (await searchAs(t, 'scientist', { q: 'allosteric kinase inhibitor', first: 2, after: page.edges[1].cursor })).body.data.program.literatureSearch
    expect(fromEdge.nodes.map((n: { clusterKey: string }) => n.clusterKey)).toEqual(page.nodes.slice(2, 4).map((n: { clusterKey: string }) => n.clusterKey))
  })

  it('is checked: a viewer may not search, and bad paging is invalid_input on first or after', async () => {
    const t = await createTenant(db(), 'People search checks')
    const viewer = await searchAs(t, 'viewer', { q: 'kinase' })
    expect(viewer.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'evidence.literature.search' })
    const tooMany = await searchAs(t, 'scientist', { q: 'kinase', first: 26 })
    expect(tooMany.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'first' })
    const forged = await searchAs(t, 'scientist', { q: 'kinase', after: 'bm90LWEtY3Vyc29y' })
    expect(forged.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
    const otherQuery = (await searchAs(t, 'scientist', { q: 'kinase', first: 2 })).body.data.program.literatureSearch.pageInfo.endCursor
    const reused = await searchAs(t, 'scientist', { q: 'hERG', after: otherQuery })
    expect(reused.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
    // Another organisation's scientist reaches no search in this program.
    const other = await createTenant(db(), 'People search outsider')
    const outsider = await gql(url(), SEARCH, { id: t.program.id, q: 'kinase' }, await other.token('scientist'))
    expect(outsider.body.data?.program?.literatureSearch ?? null).toBeNull()
    expect(fake.current.control.requests('literature-index').filter((l) => l.path === '/search')).toHaveLength(1)
  })

  it('answers RateLimited with the source and retry delay when the budgets are exhausted, never an empty page', async () => {
    const t = await createTenant(db(), 'People exhausted')
    await setWindow(db(), 'literature_index', 1, 60)
    await setWindow(db(), 'citation_graph', 1, 60)
    await new SourceBudget(db(), 'literature_index', t.organization.id).take()
    await new SourceBudget(db(), 'citation_graph', t.organization.id).take()
    const r = await searchAs(t, 'scientist', { q: 'kinase' })
    expect(r.body.errors?.[0].message).toMatch(/^budget exhausted for source (literature_index|citation_graph), retry after \d+ s$/)
    expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', errorCode: 'RateLimited' })
  })

  it('never draws past the platform window or the fair shares when two organisations search at once', async () => {
    const t1 = await createTenant(db(), 'People at once 1')
    const t2 = await createTenant(db(), 'People at once 2')
    await setWindow(db(), 'literature_index', 4, 60)
    const searches = () => fake.current.control.requests('literature-index').filter((l) => l.path === '/search').length
    const before = searches()
    const answers = await Promise.all([t1, t2].flatMap((t) => Array.from({ length: 5 }, (_, i) => searchAs(t, 'scientist', { q: `kinase ${i}`, first: 2 }))))
    // Every answer is a page (with the source's status) or RateLimited; nothing else.
    for (const a of answers) if (a.body.errors) expect(a.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', errorCode: 'RateLimited' })
    const drawn = await db().$queryRaw<{ scope: string; used: number; limit_per_window: number }[]>`
      SELECT scope, used, limit_per_window FROM rate_budgets WHERE provider_id = ${PROVIDER} AND (scope_key = 'literature_index' OR scope_key LIKE 'literature_index:%')`
    const platform = drawn.find((r) => r.scope === 'platform')!
    const orgs = drawn.filter((r) => r.scope === 'organization')
    expect(platform.used).toBe(4)
    expect(searches() - before).toBe(4)
    expect(orgs.reduce((n, r) => n + r.used, 0)).toBe(4)
    // Each organisation's row holds within the share it was last given.
    for (const r of orgs) expect(r.used).toBeLessThanOrEqual(r.limit_per_window)
  }, 30_000)

  it('shows the other sources\' results with a failed source\'s status', async () => {
    const t = await createTenant(db(), 'People failing')
    fake.current.control.setFaults('citation-graph', { malformedNext: 3 })
    const page = (await searchAs(t, 'program_lead', { q: 'allosteric kinase inhibitor' })).body.data.program.literatureSearch
    expect(page.nodes).toHaveLength(10)
    expect(page.sources.find((s: { source: string }) => s.source === 'citation_graph')).toMatchObject({ status: 'failed' })
  })
})

describe('evidence.search_literature (twins)', () => {
  it('draws from the same budget rows as people, within three queries per turn', async () => {
    const t = await createTenant(db(), 'Tool budget')
    // The registry's headers set a one-minute window here, so the organisation's use adds up across the calls.
    fake.current.control.doiRate = { limit: 100, interval: '60s' }
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      client.nextTurn()
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(await client.call('evidence.search_literature', { query: 'kinase inhibitor', first: 3 }))
      expect(answers.slice(0, 3).every((a) => a.ok)).toBe(true)
      const ok = answers[0] as { ok: true; value: any }
      expect(ok.value.clusters).toHaveLength(3)
      expect(ok.value.steps[0]).toMatchObject({ step: 'search', source: 'literature_index', status: 'ok' })
      expect(answers[3]).toMatchObject({ ok: false, error: { code: 'evidence_query_budget_exhausted' } })
      // A new turn has its budget again.
      client.nextTurn()
      expect((await client.call('evidence.search_literature', { query: 'hERG' })).ok).toBe(true)
    } finally {
      await client.close()
    }
    const [org] = await db().$queryRaw<{ used: number }[]>`
      SELECT used FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'organization' AND scope_key = ${`doi_registry:${t.organization.id}`}`
    expect(org.used).toBeGreaterThanOrEqual(4)
    // People and the twin share the organisation's fair share of one platform row per source.
    await searchAs(t, 'scientist', { q: 'hERG' })
    const [after] = await db().$queryRaw<{ used: number }[]>`
      SELECT used FROM rate_budgets WHERE provider_id = ${PROVIDER} AND scope = 'organization' AND scope_key = ${`doi_registry:${t.organization.id}`}`
    expect(after.used).toBe(org.used + 1)
  }, 30_000)

  it('admits three of five queries sent at once in one turn and refuses the rest evidence_query_budget_exhausted, searching three times', async () => {
    const t = await createTenant(db(), 'Tool budget at once')
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    const searches = () => fake.current.control.requests('literature-index').filter((l) => l.path === '/search').length
    const before = searches()
    try {
      client.nextTurn()
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => client.call('evidence.search_literature', { query: `kinase ${i}`, first: 2 })))
      const codes = answers.map((a) => (a.ok ? 'ok' : a.error.code)).sort()
      expect(codes).toEqual(['evidence_query_budget_exhausted', 'evidence_query_budget_exhausted', 'ok', 'ok', 'ok'])
    } finally {
      await client.close()
    }
    // The refused queries reached no source and left only their trace.
    expect(searches() - before).toBe(3)
    const rows = await db().toolCall.findMany({ where: { runId: r.run.id } })
    expect(rows.filter((x) => x.status === 'ok')).toHaveLength(3)
    expect(rows.filter((x) => x.status === 'refused').map((x) => x.outputViolations)).toEqual([
      [expect.objectContaining({ code: 'evidence_query_budget_exhausted' })], [expect.objectContaining({ code: 'evidence_query_budget_exhausted' })],
    ])
  }, 30_000)

  it('answers nine queries sent at once by three runs, each within its turn, without running out of connections', async () => {
    const t = await createTenant(db(), 'Tool runs at once')
    const runs = await Promise.all((['scientist', 'program_lead', 'program_owner'] as const).map((p) => runningRun(db(), t, p)))
    const clients = await Promise.all(runs.map((r) => connect(stack.current.toolsUrl, r)))
    try {
      for (const c of clients) c.nextTurn()
      const answers = await Promise.all(clients.flatMap((c) => [0, 1, 2].map((i) => c.call('evidence.search_literature', { query: `kinase ${i}`, first: 2 }))))
      expect(answers.map((a) => (a.ok ? 'ok' : a.error.code))).toEqual(Array(9).fill('ok'))
    } finally {
      await Promise.all(clients.map((c) => c.close()))
    }
  }, 60_000)

  it('takes the per-turn budget from programs.settings.evidence_query_budget', async () => {
    const t = await createTenant(db(), 'Tool override')
    const program = await db().program.findUniqueOrThrow({ where: { id: t.program.id } })
    await db().program.update({ where: { id: t.program.id }, data: { settings: { ...(program.settings as object), evidence_query_budget: 1 } } })
    const r = await runningRun(db(), t, 'program_lead')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      client.nextTurn()
      expect((await client.call('evidence.search_literature', { query: 'kinase' })).ok).toBe(true)
      const second = await client.call('evidence.search_literature', { query: 'kinase' })
      expect(second).toMatchObject({ ok: false, error: { code: 'evidence_query_budget_exhausted' } })
    } finally {
      await client.close()
    }
  })

  describe('the injection fixture through the tool handler', () => {
    const answers = new Map<string, Record<string, any>>()
    beforeAll(async () => {
      const t = await createTenant(db(), 'Injection')
      const works: FakeWork[] = INJECTION_FIXTURES.map((c, i) => ({
        doi: `10.5555/inj.${i}`, pmid: String(48_000_000 + i), pmcid: `PMC${48_000_000 + i}`, ppr: null, wid: `W48${String(i).padStart(6, '0')}`,
        title: c.text, abstract: `zzinjection case ${i}: ${c.text}`, year: 2024, journal: 'Illustrative', indexLicense: 'cc by',
        primaryLicense: 'cc-by', bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'gold' },
        archive: { license_code: 'CC BY', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 0, fullText: c.text,
      }))
      fake.current.control.addWorks(works)
      const r = await runningRun(db(), t, 'scientist')
      const client = await connect(stack.current.toolsUrl, r)
      try {
        let after: string | undefined
        // A page per turn: the fixture outgrew one turn's query budget.
        for (let page = 0; page < 10; page++) {
          client.nextTurn()
          const a = await client.call<any>('evidence.search_literature', { query: 'zzinjection', ...(after ? { after } : {}) })
          if (!a.ok) throw new Error(JSON.stringify(a.error))
          for (const c of a.value.clusters) answers.set(c.clusterKey, c)
          if (!a.value.hasNextPage) break
          after = a.value.endCursor
        }
      } finally {
        await client.close()
      }
    }, 60_000)

    it('reaches every case', () => expect(answers.size).toBe(INJECTION_FIXTURES.length))
    for (const [i, c] of INJECTION_FIXTURES.entries()) {
      it(`neutralises the title, abstract and full text: ${c.category} / ${c.name}`, () => {
        const got = answers.get(`10.5555/inj.${i}`)!
        expect(inert(got.title ?? '')).toEqual([])
        expect(inert(got.abstract ?? '')).toEqual([])
        expect(inert(got.rendering.fullText ?? '')).toEqual([])
      })
    }
  })
})

describe('twin_literature_watch', () => {
  it('searches for open hypotheses and proposes a finding citing the clusters found, which a record can cite', async () => {
    const t = await createTenant(db(), 'Watch')
    await writeRecord(db(), t, 'scientist', { recordType: 'evidence.hypotheses', title: 'Allosteric pocket binding of the kinase series', fields: { confidence: 'medium' } })
    const r = await runningRun(db(), t, 'scientist', { duty: 'twin_literature_watch' })
    const rc: RunContext = {
      run: r.run, twin: r.twin, trigger: null, duties: ['twin_literature_watch'], db: db(), footer: '',
      ctx: await contextForUser(db(), r.user.id, t.organization.id, { twinId: r.twin.id }),
    }
    await deterministicHarness.execute(rc)
    const [proposal] = (await db().runInterrupt.findMany({ where: { runId: r.run.id, kind: 'write_approval' } })).map((i) => i.question as any)
    expect(proposal.title).toBe('Literature watch: Allosteric pocket binding of the kinase series')
    const citations = proposal.change.citations as { kind: string; ref: string }[]
    expect(citations[0]).toEqual({ kind: 'literature_cluster', ref: '10.5555/ill.2024.001' })
    // The clusters are the organisation's now: a person's record can cite one by an alias.
    const cite = await gql(url(), `mutation($i: CreateRecordInput!) { createRecord(input: $i) { __typename ... on MutationCreateRecordSuccess { record { citations { kind ref sourceSystem } } } ... on InvalidInput { field } } }`,
      { i: { programId: t.program.id, recordType: 'evidence.findings', title: 'Pocket binding', fields: { kind: 'observation' }, citations: [{ kind: 'literature_cluster', ref: 'pmid:39000001' }] } }, await t.token('scientist'))
    expect(cite.body.data.createRecord.record.citations).toEqual([{ kind: 'literature_cluster', ref: '10.5555/ill.2024.001', sourceSystem: 'literature_search' }])
    const other = await createTenant(db(), 'Watch other')
    const foreign = await gql(url(), `mutation($i: CreateRecordInput!) { createRecord(input: $i) { __typename ... on InvalidInput { field } } }`,
      { i: { programId: other.program.id, recordType: 'evidence.findings', title: 'Pocket binding', fields: { kind: 'observation' }, citations: [{ kind: 'literature_cluster', ref: 'pmid:39000001' }] } }, await other.token('scientist'))
    expect(foreign.body.data.createRecord).toMatchObject({ __typename: 'InvalidInput', field: 'input.citations.0.ref' })
  }, 30_000)
})
