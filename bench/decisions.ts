// Decisions benchmark: the latency of deciding one proposal through the gateway (decideProposal APPROVE: lock, basis
// check, record write, version row, interrupt answer, inbox resolution, audit), one decision at a time, each on a
// fresh proposal filed beforehand. Prints `name value` lines; never asserts timings. Alone: `npx tsx bench/decisions.ts`.
//
// Knobs (environment): BENCH_DECISIONS_COUNT (300), BENCH_DECISIONS_WARMUP (20).
import { randomUUID } from 'node:crypto'
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { contextForUser } from '../core/jobs'
import { startStack } from '../services'
import { applyRecordChange } from '../domain/records'
import { fileProposal } from '../domain/proposals'
import { BACKPRESSURE_OPEN_DECISIONS } from '../domain/inbox'
import { createTenant } from '../tests/helpers/factories'
import { backendCpuMs } from './throughput'

const DECIDE = `mutation($id: ID!) { decideProposal(id: $id, decision: APPROVE) {
  __typename ... on MutationDecideProposalSuccess { proposal { status decision { outcome version footer } } } ... on Error { code } } }`

export async function benchDecisions(): Promise<void> {
  const k = knobs('BENCH_DECISIONS', { COUNT: 300, WARMUP: 20 }, { COUNT: 5, WARMUP: 1 })
  const restoreLogs = quietLogs()
  const bench = await openStackBench('decisions')
  const { database, db, writer } = bench
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    out('decisions.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const tenant = await createTenant(writer, 'Bench')
    const orgId = tenant.organization.id
    const programId = tenant.program.id
    const lead = await contextForUser(writer, tenant.users.program_lead.id, orgId)
    const twinId = randomUUID()
    const twin = await contextForUser(writer, tenant.users.scientist.id, orgId, { twinId })
    const run = await writer.agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'schedule' } })
    const total = k.COUNT + k.WARMUP
    const basis = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Basis finding', fields: { kind: 'observation' } })
    const token = await tenant.token('program_lead')
    const url = `${stack.gatewayUrl}/graphql`
    const samples: number[] = []
    let refused = 0
    // CPU per decision (this process: gateway, subgraphs and client; the bench database's PostgreSQL backends), over
    // the deciding only: unlike latency it hardly moves with what else the machine runs, so versions compare on it.
    let nodeCpuMs = 0
    let pgCpuMs = 0
    // A person's twins stop filing at BACKPRESSURE_OPEN_DECISIONS decisions waiting: proposals are filed and decided in
    // rounds below it (filing all of them first crashed the full run on harness_denied).
    const round = BACKPRESSURE_OPEN_DECISIONS - 5
    for (let start = 0; start < total; start += round) {
      const proposals: string[] = []
      for (let i = start; i < Math.min(total, start + round); i++) {
        const record = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.hypotheses', title: `Hypothesis ${i}`, fields: { confidence: 'low' } })
        const filed = await fileProposal(twin, { runId: run.id, change: { kind: 'update', recordId: record.recordId, fields: { confidence: 'high' } }, basisRecordIds: [basis.recordId], draft: 'Raise the confidence.' })
        proposals.push(filed.proposalId)
      }
      const [nodeBefore, pgBefore] = [process.cpuUsage(), await backendCpuMs(writer)]
      for (const [j, id] of proposals.entries()) {
        const t0 = performance.now()
        const res = await fetch(url, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: DECIDE, variables: { id } }),
        })
        const body = (await res.json()) as { data?: { decideProposal?: { __typename: string } } }
        const ms = performance.now() - t0
        if (body.data?.decideProposal?.__typename !== 'MutationDecideProposalSuccess') refused++
        if (start + j >= k.WARMUP) samples.push(ms)
      }
      const used = process.cpuUsage(nodeBefore)
      nodeCpuMs += (used.user + used.system) / 1000
      for (const [pid, ms] of await backendCpuMs(writer)) pgCpuMs += ms - (pgBefore.get(pid) ?? 0)
    }
    out('decisions.decide.count', samples.length)
    out('decisions.decide.refused', refused)
    out('decisions.decide.p50_ms', percentile(samples, 50).toFixed(2))
    out('decisions.decide.p99_ms', percentile(samples, 99).toFixed(2))
    out('decisions.decide.max_ms', Math.max(...samples).toFixed(2))
    // over every decision, warm-up included (CPU is counted per round); PostgreSQL: backends alive at both ends
    out('decisions.decide.cpu_ms_per_decision.node', (nodeCpuMs / total).toFixed(2))
    out('decisions.decide.cpu_ms_per_decision.postgres', (pgCpuMs / total).toFixed(2))
  } finally {
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchDecisions)
