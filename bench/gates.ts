// Bench `gates` (issue 18): (1) readiness recomputation for 1,000 open stage gates: stage_readiness_refresh's first pass
// (recompute, store and a readiness_brief through a stage_readiness run per gate), its second pass (recompute, nothing
// changed) and the pure recompute (no writes); (2) the readiness stream's commit-to-client latency: a person decides
// records one at a time (in-process, the same write path as decideRecord) while a graphql-ws client subscribed through
// the gateway to stageGateReadinessChanged waits for 'k of N'. Prints `name value` lines; never asserts timings.
// Alone: `npx tsx bench/gates.ts`. Knobs: BENCH_GATES_GATES (1000), BENCH_GATES_PER_PROGRAM (10), BENCH_GATES_SAMPLES (200).
import os from 'node:os'
import { createClient } from 'graphql-ws'
import WebSocket from 'ws'
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { contextForUser } from '../core/jobs'
import { startStack } from '../services'
import { applyRecordChange } from '../domain/records'
import { computeReadinessForProgram, initialRequired, refreshStageReadiness } from '../domain/gates'
import { createTenant } from '../tests/helpers/factories'

export async function benchGates(): Promise<void> {
  const k = knobs('BENCH_GATES', { GATES: 1000, PER_PROGRAM: 10, SAMPLES: 200 }, { GATES: 20, SAMPLES: 5 })
  const restoreLogs = quietLogs()
  const bench = await openStackBench('gates')
  const { database, db, writer } = bench
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    // ---- (1) 1,000 open gates: each needs 3 decided findings, a skill result and the gate-critical milestones ----
    const programs = Math.ceil(k.GATES / k.PER_PROGRAM)
    const [org] = await writer.$queryRaw<{ id: string }[]>`INSERT INTO organizations (slug, name) VALUES ('bench-gates', 'Bench gates') RETURNING id`
    const [user] = await writer.$queryRaw<{ id: string }[]>`INSERT INTO users (organization_id, email, name) VALUES (${org.id}::uuid, 'bench-gates@bench.example', 'Bench') RETURNING id`
    const required = initialRequired([
      { kind: 'decided_record', recordType: 'evidence.findings', min: 3 },
      { kind: 'skill_result', skillKey: 'tox.fih_dose_projection' },
      { kind: 'critical_milestones' },
    ])
    await writer.$executeRaw`
      WITH p AS (
        INSERT INTO programs (organization_id, slug, name, settings)
        SELECT ${org.id}::uuid, 'bench-' || i, 'Bench ' || i, '{"gate_critical_milestone_tag":"gate-critical"}'::jsonb FROM generate_series(1, ${programs}) i
        RETURNING id
      ), s AS (
        INSERT INTO program_stages (organization_id, program_id, key, name, position)
        SELECT ${org.id}::uuid, p.id, 'stage-' || j, 'Stage ' || j, j FROM p, generate_series(0, ${k.PER_PROGRAM}) j
        RETURNING id, program_id, position
      )
      INSERT INTO stage_gates (organization_id, program_id, stage_id, next_stage_id, required_records)
      SELECT ${org.id}::uuid, a.program_id, a.id, b.id, ${JSON.stringify(required)}::jsonb
      FROM s a JOIN s b ON b.program_id = a.program_id AND b.position = a.position + 1`
    await writer.$executeRaw`
      INSERT INTO program_records (organization_id, program_id, record_type, title, status, fields, created_by_user_id, updated_by_user_id)
      SELECT ${org.id}::uuid, p.id, 'evidence.findings', 'Finding ' || i, CASE WHEN i <= 2 THEN 'confirmed' ELSE 'draft' END, '{"kind":"result"}'::jsonb, ${user.id}::uuid, ${user.id}::uuid
      FROM programs p, generate_series(1, 20) i WHERE p.organization_id = ${org.id}::uuid`
    await writer.$executeRaw`
      INSERT INTO program_records (organization_id, program_id, record_type, title, status, fields, created_by_user_id, updated_by_user_id)
      SELECT ${org.id}::uuid, p.id, 'progress.milestones', 'Milestone ' || i, CASE WHEN i = 1 THEN 'done' ELSE 'planned' END, '{"due_on":"2027-01-01","tags":["gate-critical"]}'::jsonb, ${user.id}::uuid, ${user.id}::uuid
      FROM programs p, generate_series(1, 3) i WHERE p.organization_id = ${org.id}::uuid`
    await writer.$executeRaw`ANALYZE`
    const [{ n: gates }] = await writer.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM stage_gates WHERE status = 'open'`
    out('gates.refresh.open_gates', gates)
    out('gates.refresh.programs', programs)
    out('gates.refresh.load_avg_1m_before', os.loadavg()[0].toFixed(2))

    const pure0 = performance.now()
    const byProgram = await writer.stageGate.findMany({ where: { organizationId: org.id, status: 'open' } })
    const grouped = new Map<string, typeof byProgram>()
    for (const g of byProgram) grouped.set(g.programId, [...(grouped.get(g.programId) ?? []), g])
    for (const [programId, list] of grouped) await computeReadinessForProgram(writer, org.id, programId, list)
    out('gates.recompute_only.total_ms', (performance.now() - pure0).toFixed(0))

    const t0 = performance.now()
    const first = await refreshStageReadiness(writer)
    out('gates.refresh.first_pass_total_ms', (performance.now() - t0).toFixed(0))
    out('gates.refresh.first_pass_briefs', first.briefs)
    const t1 = performance.now()
    const second = await refreshStageReadiness(writer)
    out('gates.refresh.second_pass_total_ms', (performance.now() - t1).toFixed(0))
    out('gates.refresh.second_pass_changed', second.changed)

    // ---- (2) commit-to-client latency of the readiness stream through the gateway ----
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    const tenant = await createTenant(writer, 'Bench stream')
    const stages = await Promise.all(['a', 'b'].map((key, position) => writer.programStage.create({
      data: { organizationId: tenant.organization.id, programId: tenant.program.id, key, name: key, position },
    })))
    const owner = await contextForUser(writer, tenant.users.program_owner.id, tenant.organization.id)
    const ids: string[] = []
    for (let i = 0; i < k.SAMPLES; i++) {
      ids.push((await applyRecordChange(owner, { kind: 'create', programId: tenant.program.id, recordType: 'evidence.findings', title: `F${i}`, fields: { kind: 'result' } })).recordId)
    }
    const gate = await writer.stageGate.create({
      data: {
        organizationId: tenant.organization.id, programId: tenant.program.id, stageId: stages[0].id, nextStageId: stages[1].id,
        requiredRecords: initialRequired(ids.map((recordId) => ({ kind: 'decided_record' as const, recordType: 'evidence.findings' as const, recordId }))) as object,
      },
    })
    const received = new Map<number, number>()
    let wake: (() => void) | undefined
    const client = createClient({ url: `${stack.gatewayUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { authorization: `Bearer ${await tenant.token('scientist')}` } })
    const unsubscribe = client.subscribe<{ stageGateReadinessChanged: { id: string; present: number } }>(
      { query: `subscription { stageGateReadinessChanged(programId: "${tenant.program.id}") { id present card } }` },
      { next: (m) => { const p = m.data?.stageGateReadinessChanged.present; if (p != null && !received.has(p)) received.set(p, performance.now()); wake?.() }, error: () => {}, complete: () => {} },
    )
    // Wait for the subscriber at the subgraph before writing.
    for (let i = 0; i < 400 && stack.subgraphs.twins.stageGateEvents.subscriberCount < 1; i++) await new Promise((r) => setTimeout(r, 25))
    const commitToClient: number[] = []
    const writeToClient: number[] = []
    let lost = 0
    for (let i = 0; i < ids.length; i++) {
      const w0 = performance.now()
      await applyRecordChange(owner, { kind: 'decide', recordId: ids[i], outcome: 'confirm' })
      const committed = performance.now()
      const until = committed + 5000
      while (!received.has(i + 1) && performance.now() < until) await new Promise<void>((r) => { wake = r; setTimeout(r, 50) })
      const at = received.get(i + 1)
      if (at === undefined) { lost++; continue }
      commitToClient.push(Math.max(0, at - committed))
      writeToClient.push(at - w0)
    }
    unsubscribe()
    await client.dispose()
    out('gates.stream.samples', commitToClient.length)
    out('gates.stream.lost', lost)
    out('gates.stream.commit_to_client_p50_ms', percentile(commitToClient, 50).toFixed(2))
    out('gates.stream.commit_to_client_p99_ms', percentile(commitToClient, 99).toFixed(2))
    out('gates.stream.write_to_client_p50_ms', percentile(writeToClient, 50).toFixed(2))
    out('gates.stream.write_to_client_p99_ms', percentile(writeToClient, 99).toFixed(2))
    out('gates.stream.gate', gate.id.slice(0, 8))
    out('gates.load_avg_1m_after', os.loadavg()[0].toFixed(2))
  } finally {
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchGates)
