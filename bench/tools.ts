// Tool server benchmark: one tool call's round trip over MCP (Streamable HTTP, run token, toolset and budget checks,
// the tool_calls row and the audit row committed) for a read, a propose_* (fileProposal: draft, interrupt, decision
// item) and a class A skill, client-side, p50 and p99. Run alone with `npx tsx bench/tools.ts`.
import { pathToFileURL } from 'node:url'
import { provisionBenchDatabase } from './database'
import { knobs, out, percentile, quietLogs } from './figures'
import { createPrisma, type Db } from '../core/database'
import { transitionAll } from '../core/states'
import { inboxItemStatus } from '../core/states'
import { parseEnv, setEnv } from '../core/config'
import { resetAuthKeys } from '../core/identity'
import { createToolServer } from '../subgraphs/twins/tools/server'
import { mintRunToken } from '../subgraphs/twins/tools/run-tokens'
import { ToolClient } from '../subgraphs/twins/harness/tool-client'
import { createTenant } from '../tests/helpers/factories'

const ms = (x: number) => x.toFixed(2)
const fih = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] }

async function time(n: number, warmup: number, call: (i: number) => Promise<{ ok: boolean }>, before?: (i: number) => Promise<unknown>): Promise<number[]> {
  const xs: number[] = []
  for (let i = 0; i < warmup + n; i++) {
    await before?.(i) // untimed
    const t0 = performance.now()
    const r = await call(i)
    if (!r.ok) throw new Error(`call ${i} refused: ${JSON.stringify(r)}`)
    if (i >= warmup) xs.push(performance.now() - t0)
  }
  return xs
}

export async function benchTools(): Promise<void> {
  const restoreLogs = quietLogs()
  const { READS, PROPOSALS, SKILLS, WARMUP } = knobs('BENCH_TOOLS', { READS: 500, PROPOSALS: 200, SKILLS: 200, WARMUP: 30 }, { READS: 5, PROPOSALS: 3, SKILLS: 3, WARMUP: 1 })
  const database = await provisionBenchDatabase('tools')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  resetAuthKeys()
  const db: Db = createPrisma(database.url, 10)
  const server = createToolServer(db)
  let client: ToolClient | undefined
  try {
    const url = await server.listen(0, '127.0.0.1')
    out('tools.setup.database', process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded')
    const tenant = await createTenant(db, 'Bench tools')
    const person = tenant.users.program_lead
    const twin = await db.twinDefinition.create({
      data: { organizationId: tenant.organization.id, programId: tenant.program.id, userId: person.id, personaKey: 'program_lead', duties: ['blocker_scan'], budgetToolCallsMonth: 1_000_000 },
    })
    const run = await db.agentRun.create({
      data: { organizationId: tenant.organization.id, programId: tenant.program.id, kind: 'twin_cycle', status: 'running', initiatedBy: 'user', twinId: twin.id, startedAt: new Date() },
    })
    const token = await mintRunToken({ runId: run.id, twinId: twin.id, userId: person.id, organizationId: tenant.organization.id }, 3600)
    client = await ToolClient.connect(new URL(`/runs/${run.id}/mcp`, url), token)
    out('tools.toolset_size', client.tools.size)

    const reads = await time(READS, WARMUP, () => client!.call('console.list_decisions_waiting', { first: 10 }))
    out('tools.read.calls', READS)
    out('tools.read.p50_ms', ms(percentile(reads, 50)))
    out('tools.read.p99_ms', ms(percentile(reads, 99)))

    const proposals = await time(PROPOSALS, WARMUP, (i) => client!.call('plans.propose_plan_change', {
      change: { kind: 'create', title: `Bench plan ${i}`, fields: { plan_kind: 'development' } }, draft: `Bench draft ${i}`,
    }, { duty: 'bench' }), (i) => (i % 20 === 0
      // A person's twins stop filing at 25 decisions waiting: the bench dismisses its own before that (untimed).
      ? transitionAll(db, inboxItemStatus, 'dismiss', { organizationId: tenant.organization.id, userId: person.id, kind: 'decision' })
      : Promise.resolve()))
    out('tools.propose.calls', PROPOSALS)
    out('tools.propose.p50_ms', ms(percentile(proposals, 50)))
    out('tools.propose.p99_ms', ms(percentile(proposals, 99)))

    const skills = await time(SKILLS, WARMUP, (i) => {
      if (i % 4 === 0) client!.nextTurn() // max_skill_runs_per_turn 4
      return client!.call('tox.fih_dose_projection', { inputs: fih })
    })
    out('tools.skill_class_a.calls', SKILLS)
    out('tools.skill_class_a.p50_ms', ms(percentile(skills, 50)))
    out('tools.skill_class_a.p99_ms', ms(percentile(skills, 99)))
    out('tools.tool_calls_rows', await db.toolCall.count({ where: { runId: run.id } }))
  } finally {
    await client?.close().catch(() => {})
    await server.close()
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchTools()
