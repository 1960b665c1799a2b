// The run rail through the gateway (issue 40, item 6): a twin run's tool calls, made over MCP against the fake
// literature sources, read back as TwinRun.steps in the order they were made, in words: the literature query policy
// step by step ("Query policy (visible in the run rail)"), an exhausted source's budget as 'budget exhausted for source
// X, retry after N s' with X in the specification's words, and refusals with their reasons. Organisation-scoped.
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant } from '../helpers/factories'
import { SourceBudget } from '../../domain/literature'
import { findPlumbingWords } from '../../core/text'
import { connect, runningRun } from './tools-helpers'
import { setWindow, useFakeLiterature } from '../literature/helpers'

const stack = useStack()
const db = () => stack.db.db
useFakeLiterature(db)
const url = () => `${stack.current.gatewayUrl}/graphql`

const STEPS = `query($id: ID!, $first: Int) { twin(id: $id) { runs { nodes { id stepCount
  steps(first: $first) { tool toolName at outcome reason summary details } } } } }`

/** Exhausts a source's budget for the organisation (a one-minute window of one request, taken). */
async function exhaust(source: 'literature_index' | 'citation_graph', organizationId: string) {
  await setWindow(db(), source, 1, 60)
  await new SourceBudget(db(), source, organizationId).take().catch(() => { /* already used up */ })
}

describe('TwinRun.steps (the run rail)', () => {
  it("lists a run's tool calls in order: the query policy in words, 'budget exhausted for source …, retry after N s', and refusals with their reasons", async () => {
    const t = await createTenant(db(), 'Run rail')
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      client.nextTurn()
      expect((await client.call('evidence.search_literature', { query: 'kinase inhibitor', first: 3 })).ok).toBe(true)
      await exhaust('citation_graph', t.organization.id)
      expect((await client.call('evidence.search_literature', { query: 'hERG', first: 3 })).ok).toBe(true)
      await exhaust('literature_index', t.organization.id)
      expect(await client.call('evidence.search_literature', { query: 'allosteric', first: 3 })).toMatchObject({ ok: false, error: { code: 'RateLimited' } })
      expect(await client.call('evidence.search_literature', { query: 'kinase' })).toMatchObject({ ok: false, error: { code: 'evidence_query_budget_exhausted' } })
      expect(await client.call('documents.not_a_tool', {})).toMatchObject({ ok: false, error: { code: 'harness_denied' } })
    } finally {
      await client.close()
    }

    const res = await gql(url(), STEPS, { id: r.twin.id }, await t.token('scientist'))
    expect(res.body.errors).toBeUndefined()
    const run = res.body.data.twin.runs.nodes.find((n: { id: string }) => n.id === r.run.id)
    expect(run.stepCount).toBe(5)
    const steps = run.steps as { tool: string; toolName: string; at: string; outcome: string; reason: string | null; summary: string | null; details: string[] }[]
    expect(steps.map((s) => s.outcome)).toEqual(['ok', 'ok', 'refused', 'refused', 'refused'])
    expect(steps.map((s) => Date.parse(s.at))).toEqual(steps.map((s) => Date.parse(s.at)).sort((a, b) => a - b))
    expect(steps[0]).toMatchObject({ tool: 'evidence.search_literature', toolName: 'Searched the open literature', reason: null, summary: 'Searched for “kinase inhibitor”: 3 works found.' })
    // The policy, in the specification's order and words, each step with what its source answered.
    expect(steps[0].details[0]).toMatch(/^search the European literature index first: \d+ records?$/)
    expect(steps[0].details[1]).toMatch(/^use the DOI metadata registry for DOI metadata: \d+ records?$/)
    expect(steps[0].details[2]).toMatch(/^use the citation-graph service for citations and open-access location: \d+ records?$/)
    expect(steps[0].details.some((d) => /^fetch full text only for licences cc0, cc_by and cc_by_sa: /.test(d))).toBe(true)
    // The exhausted citation graph: the search went on, and the rail says which source waits and for how long.
    expect(steps[1].details).toContainEqual(expect.stringMatching(
      /^use the citation-graph service for citations and open-access location: budget exhausted for source citation-graph service, retry after \d+ s$/))
    // Nothing left to search: the call was refused RateLimited, the source in words.
    expect(steps[2]).toMatchObject({ outcome: 'refused', summary: null, details: [] })
    expect(steps[2].reason).toMatch(/^budget exhausted for source European literature index, retry after \d+ s$/)
    expect(steps[3].reason).toBe('This turn has used its 3 literature queries.')
    expect(steps[4]).toMatchObject({ tool: 'documents.not_a_tool', toolName: 'Not a tool', reason: 'Not one of the tools this run may use.' })
    // Every line a person reads is words: no source id, code or key.
    // (The specification's own policy phrases, 'cc0, cc_by and cc_by_sa' among them, are fixed text: core/text/copy.ts.)
    const text = steps.flatMap((s) => [s.toolName, s.reason ?? '', s.summary ?? '', ...s.details])
    expect(text.flatMap((x) => findPlumbingWords(x).map((f) => `${f.name}: ${f.context}`))).toEqual([])

    // Bounded: the first two steps only; outside 1 to 100 is invalid_input on first.
    const two = await gql(url(), STEPS, { id: r.twin.id, first: 2 }, await t.token('scientist'))
    expect(two.body.data.twin.runs.nodes[0].steps.map((s: { outcome: string }) => s.outcome)).toEqual(['ok', 'ok'])
    const bad = await gql(url(), STEPS, { id: r.twin.id, first: 0 }, await t.token('scientist'))
    expect(bad.body.errors?.[0].extensions).toMatchObject({ errorCode: 'invalid_input', field: 'first' })
  }, 60_000)

  it("shows no step to another organisation, nor to a person of the program who may not read others' twins", async () => {
    const t = await createTenant(db(), 'Run rail scope')
    const r = await runningRun(db(), t, 'scientist')
    const client = await connect(stack.current.toolsUrl, r)
    try {
      client.nextTurn()
      expect((await client.call('evidence.search_literature', { query: 'kinase', first: 2 })).ok).toBe(true)
    } finally {
      await client.close()
    }
    const other = await createTenant(db(), 'Run rail outsider')
    const outsider = await gql(url(), STEPS, { id: r.twin.id }, await other.token('scientist'))
    expect(outsider.body.data?.twin ?? null).toBeNull()
    const viewer = await gql(url(), STEPS, { id: r.twin.id }, await t.token('viewer'))
    expect(viewer.body.data?.twin ?? null).toBeNull()
    const own = await gql(url(), STEPS, { id: r.twin.id }, await t.token('scientist'))
    expect(own.body.data.twin.runs.nodes[0].steps).toHaveLength(1)
  }, 60_000)
})
