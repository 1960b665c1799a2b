// Hand-offs benchmark (issue 17): the program board through the gateway for a program with 1,000 open items (open
// decisions, sent hand-offs and twins), first page p50 / p99 and a walk of every page; and decisionMetrics through the
// gateway over 100,000 decided proposals (p50). Data is inserted set-based (generate_series), the way it would sit
// after months of use. Prints `name value` lines; never asserts timings. Alone: `npx tsx bench/handoffs.ts`.
//
// Knobs (environment): BENCH_HANDOFFS_BOARD_RUNS (200), BENCH_HANDOFFS_PROPOSALS (100000), BENCH_HANDOFFS_METRICS_RUNS (30).
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { startStack } from '../services'
import { createTenant, createUser, addMember } from '../tests/helpers/factories'

const BOARD = `query($p: ID!, $first: Int, $after: String) { board(programId: $p, first: $first, after: $after) {
  nodes { kind id title status personaKey } pageInfo { endCursor hasNextPage } } }`
const METRICS = `query($p: ID!, $since: DateTime) { decisionMetrics(programId: $p, since: $since) {
  perPersona { personaKey filed approvedUnchanged edited declined declinedByReason { reason count } refused expired } byUser { personaKey filed } } }`

export async function benchHandoffs(): Promise<void> {
  const k = knobs('BENCH_HANDOFFS', { BOARD_RUNS: 200, PROPOSALS: 100_000, METRICS_RUNS: 30 }, { BOARD_RUNS: 3, PROPOSALS: 200, METRICS_RUNS: 2 })
  const restoreLogs = quietLogs()
  const bench = await openStackBench('handoffs', { RELEASE: 'R3' })
  const { database, db, writer } = bench
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    out('handoffs.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const tenant = await createTenant(writer, 'Bench')
    const org = tenant.organization.id
    const p = tenant.program.id
    // Ten twins (one per person: the partial unique index allows one active twin per person and program).
    const people = [tenant.users.program_owner, tenant.users.program_lead, tenant.users.scientist, tenant.users.quality_reviewer, tenant.users.manufacturing_specialist]
    for (let i = 0; i < 5; i++) {
      const u = await createUser(writer, org, { name: `Bench scientist ${i}` })
      await addMember(writer, tenant.program, u.id, ['scientist'])
      people.push(u)
    }
    const personas = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer', 'manufacturing_specialist', 'scientist', 'scientist', 'scientist', 'scientist', 'scientist']
    const twins: string[] = []
    for (let i = 0; i < 10; i++) {
      const t = await writer.twinDefinition.create({ data: { organizationId: org, programId: p, userId: people[i].id, personaKey: personas[i], duties: ['blocker_scan'] } })
      twins.push(t.id)
    }
    // 700 open decision items and 290 sent hand-offs: with the 10 twins, 1,000 open items on the board.
    await writer.$executeRaw`
      INSERT INTO inbox_items (organization_id, user_id, program_id, kind, source_type, source_id, title, status, priority, due_at, created_at, updated_at)
      SELECT ${org}::uuid, ${tenant.users.program_lead.id}::uuid, ${p}::uuid, 'decision', 'proposal', gen_random_uuid()::text, 'Decision ' || g, 'open', 'now',
        now() + interval '3 days', now() - (g || ' seconds')::interval, now()
      FROM generate_series(1, 700) g`
    await writer.$executeRaw`
      INSERT INTO handoff_requests (organization_id, program_id, from_user_id, to_persona_key, kind, linked_type, linked_id, message_md, status, created_at, updated_at)
      SELECT ${org}::uuid, ${p}::uuid, ${tenant.users.scientist.id}::uuid, 'quality_reviewer', 'review', 'program_record', gen_random_uuid()::text, 'Please look', 'sent',
        now() - (g || ' seconds')::interval, now()
      FROM generate_series(1, 290) g`
    // Noise the board must skip: another program's items and closed ones.
    await writer.$executeRaw`
      INSERT INTO inbox_items (organization_id, user_id, program_id, kind, source_type, source_id, title, status, priority, created_at, updated_at)
      SELECT ${org}::uuid, ${tenant.users.program_lead.id}::uuid, ${p}::uuid, 'decision', 'proposal', gen_random_uuid()::text, 'Done ' || g, 'done', 'now', now() - (g || ' minutes')::interval, now()
      FROM generate_series(1, 5000) g`

    const token = await tenant.token('program_lead')
    const url = `${stack.gatewayUrl}/graphql`
    const ask = async (query: string, variables: Record<string, unknown>) => {
      const t0 = performance.now()
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) })
      const body = (await res.json()) as { data?: any; errors?: unknown[] }
      if (body.errors) throw new Error(JSON.stringify(body.errors))
      return { ms: performance.now() - t0, data: body.data }
    }
    for (let i = 0; i < 10; i++) await ask(BOARD, { p, first: 50 })
    const board: number[] = []
    for (let i = 0; i < k.BOARD_RUNS; i++) board.push((await ask(BOARD, { p, first: 50 })).ms)
    let after: string | null = null
    let items = 0
    let pages = 0
    const walk0 = performance.now()
    const pageMs: number[] = []
    for (;;) {
      const r = await ask(BOARD, { p, first: 100, after })
      pageMs.push(r.ms)
      items += r.data.board.nodes.length
      pages++
      if (!r.data.board.pageInfo.hasNextPage) break
      after = r.data.board.pageInfo.endCursor
    }
    out('handoffs.board.open_items', items)
    out('handoffs.board.first_page_size', 50)
    out('handoffs.board.first_page_p50_ms', percentile(board, 50).toFixed(2))
    out('handoffs.board.first_page_p99_ms', percentile(board, 99).toFixed(2))
    out('handoffs.board.walk_pages', pages)
    out('handoffs.board.walk_page_p50_ms', percentile(pageMs, 50).toFixed(2))
    out('handoffs.board.walk_total_ms', (performance.now() - walk0).toFixed(1))

    // 100,000 decided proposals over the ten twins (approved, edited, declined by reason), spread over 60 days.
    const run = await writer.agentRun.create({ data: { organizationId: org, programId: p, kind: 'twin_cycle', status: 'succeeded', twinId: twins[0], initiatedBy: 'schedule' } })
    const seed0 = performance.now()
    await writer.$executeRaw`
      INSERT INTO run_interrupts (organization_id, run_id, kind, detached, question, answer, answered_at, expires_at, created_at)
      SELECT ${org}::uuid, ${run.id}::uuid, 'write_approval', true,
        jsonb_build_object('type', 'proposal', 'programId', ${p}::text, 'recordType', 'evidence.findings', 'title', 'P' || g,
          'proposer', jsonb_build_object('userId', ${tenant.users.scientist.id}::text, 'name', 'Bench', 'twinId', (${twins}::text[])[1 + g % 10])),
        CASE g % 4
          WHEN 0 THEN jsonb_build_object('outcome', 'approved')
          WHEN 1 THEN jsonb_build_object('outcome', 'approved_with_edits')
          WHEN 2 THEN jsonb_build_object('outcome', 'declined', 'reason', jsonb_build_object('code', (ARRAY['incorrect', 'incomplete', 'not_needed', 'duplicate'])[1 + g % 4], 'text', 'x'))
          ELSE jsonb_build_object('outcome', 'approved') END,
        now() - ((g % 86400) || ' seconds')::interval, now() + interval '3 days', now() - ((g * 51) % 5184000 || ' seconds')::interval
      FROM generate_series(1, ${k.PROPOSALS}::int) g`
    await writer.$executeRawUnsafe('ANALYZE run_interrupts')
    out('handoffs.metrics.proposals', k.PROPOSALS)
    out('handoffs.metrics.seed_s', ((performance.now() - seed0) / 1000).toFixed(1))
    const since = new Date(Date.now() - 61 * 86_400_000).toISOString()
    const first = await ask(METRICS, { p, since })
    out('handoffs.metrics.filed_counted', first.data.decisionMetrics.perPersona.reduce((n: number, x: { filed: number }) => n + x.filed, 0))
    const metrics: number[] = []
    for (let i = 0; i < k.METRICS_RUNS; i++) metrics.push((await ask(METRICS, { p, since })).ms)
    out('handoffs.metrics.runs', k.METRICS_RUNS)
    out('handoffs.metrics.p50_ms', percentile(metrics, 50).toFixed(2))
    out('handoffs.metrics.max_ms', Math.max(...metrics).toFixed(2))
  } finally {
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchHandoffs)
