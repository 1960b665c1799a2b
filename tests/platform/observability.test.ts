// The deployment guide's promises: one request id from the gateway through the subgraph into the job the request
// enqueued (its payload and the worker's log line), Prometheus metrics on /metrics, readiness endpoints.
import { describe, expect, it } from 'vitest'
import { useStack, startTestWorker, waitFor } from '../helpers/stack'
import { createTenant } from '../helpers/factories'

const stack = useStack()

const RUN = `mutation($programId: ID!, $input: SkillRunInput!) { runSkill(programId: $programId, input: $input) { __typename } }`
const SAR = {
  core_smarts: '[*:1]c1ccc(cc1)C(=O)N[*:2]',
  compounds: [
    { id: 'BZ-1', smiles: 'Cc1ccc(cc1)C(=O)NC', source: 'chembl_34', licence: 'CC BY-SA 3.0' },
    { id: 'BZ-2', smiles: 'Clc1ccc(cc1)C(=O)NCC', source: 'eln:proj-7', licence: 'internal' },
  ],
  activities: [
    { compound_id: 'BZ-1', target: 'KDR', endpoint: 'IC50', value: { value: 120, unit: 'nmol/L' }, source: 'chembl_34', licence: 'CC BY-SA 3.0', citation: 'chembl:1' },
    { compound_id: 'BZ-2', target: 'KDR', endpoint: 'IC50', value: { value: 40, unit: 'nmol/L' }, source: 'eln:proj-7', licence: 'internal', citation: 'eln:2' },
  ],
}

describe('request ids, metrics and probes', () => {
  it('carries the gateway\'s request id into the job a request enqueued and into the worker\'s log line for it', async () => {
    const t = await createTenant(stack.db.db, 'Observed')
    const lines: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    const level = process.env.LOG_LEVEL
    process.env.LOG_LEVEL = 'info'
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => { lines.push(String(chunk)); return (write as any)(chunk, ...rest) }) as typeof process.stderr.write
    let requestId: string | null
    try {
      // a class B skill runs in the worker: the request enqueues skill_library_job and waits for its answer
      await using _worker = await startTestWorker(stack.db)
      const res = await fetch(`${stack.current.gatewayUrl}/graphql`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await t.token('scientist')}` },
        body: JSON.stringify({ query: RUN, variables: { programId: t.program.id, input: { skillKey: 'chem.sar_table_build', inputs: SAR } } }),
      })
      const body = await res.json() as any
      expect(body.data.runSkill.__typename).toBe('MutationRunSkillSuccess')
      requestId = res.headers.get('x-request-id')
      await waitFor(() => lines.some((l) => l.includes('"job.done"') && l.includes('skill_library_job')), 20_000, 'the job ran')
    } finally {
      process.stderr.write = write
      if (level === undefined) delete process.env.LOG_LEVEL; else process.env.LOG_LEVEL = level
    }
    expect(requestId).toMatch(/^[\w-]{8,64}$/)
    const done = JSON.parse(lines.find((l) => l.includes('"job.done"') && l.includes('skill_library_job'))!)
    expect(done).toMatchObject({ event: 'job.done', task: 'skill_library_job', requestId })
  })

  it('serves Prometheus metrics with request, job and subscription figures, and readiness on every server', async () => {
    await fetch(`${stack.current.gatewayUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })
    const gateway = await fetch(`${stack.current.gatewayUrl}/metrics`)
    expect(gateway.status).toBe(200)
    expect(gateway.headers.get('content-type')).toMatch(/^text\/plain/)
    const text = await gateway.text()
    expect(text).toMatch(/ew_http_requests_total\{[^}]*component="gateway"[^}]*route="graphql"[^}]*\} \d+/)
    expect(text).toContain('# TYPE ew_http_request_duration_seconds histogram')
    expect(text).toMatch(/ew_subscriptions_open(\{[^}]*\})? \d+/)
    expect(text).toContain('# TYPE ew_jobs_total counter')
    const twinsBase = new URL(stack.current.subgraphUrls.twins).origin
    expect(await (await fetch(`${twinsBase}/metrics`)).text()).toContain('ew_http_requests_total')
    const ready = await fetch(`${twinsBase}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ ok: true, checks: { database: true, listen: true } })
  })
})
