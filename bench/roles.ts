// Roles benchmark: the role home of a person with two personas wearing a workbench role, opened through the gateway in
// one query that fills every region from the three subgraphs (workbench: questions, board, status lines, memory
// summary, set by; twins: decisions, other decisions, twin; connectors: sources). p50 and p99 over repeated opens.
// Loopback only; prints `name value` lines and never asserts timings. Run alone with `npx tsx bench/roles.ts`.
//
// Knobs (environment): BENCH_ROLES_RECORDS (1000 program records), BENCH_ROLES_DECISIONS (40 waiting decisions),
// BENCH_ROLES_OPENS (200), BENCH_ROLES_WARMUP (20).
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { closeStackBench, openStackBench } from './database'
import { knobs, out, percentile, quietLogs, runIfMain } from './figures'
import { mintDevToken } from '../core/identity'
import { contextForUser } from '../core/jobs'
import { startStack } from '../services'
import { RECORD_TYPES, RECORD_TYPE_KEYS } from '../domain/records'
import { keepMemoryNote } from '../domain/memory'
import { assignWorkbenchRole } from '../domain/programs'
import { fileProposal } from '../domain/proposals'
import { addMember, createTenant, createUser } from '../tests/helpers/factories'

const ms = (x: number) => x.toFixed(2)

export const ROLE_HOME_QUERY = `query($p: ID!) { workbench(programId: $p) {
  workbenchRoleKey name fallback personaKey prompt regions recordTypes
  decisions { id title proposal { id } } otherDecisionCount
  questions { id title } pins { id title }
  statusLines { text asOf recordRef { recordType recordId href } }
  memorySummary { id summary } twin { id personaKey status } sources { provider status verifiedOn }
  setBy { line }
} }`

export async function benchRoles(): Promise<void> {
  const restoreLogs = quietLogs()
  const { RECORDS, DECISIONS, OPENS, WARMUP } = knobs('BENCH_ROLES', { RECORDS: 1000, DECISIONS: 40, OPENS: 200, WARMUP: 20 }, { RECORDS: 30, DECISIONS: 2, OPENS: 3, WARMUP: 1 })
  const bench = await openStackBench('roles')
  const { database, db, writer } = bench
  let started: Awaited<ReturnType<typeof startStack>> | undefined
  try {
    const stack = (started = await startStack({ db, databaseUrl: database.url, dataDir: database.dataDir, production: true }))
    const tenant = await createTenant(writer, 'Bench')
    const org = tenant.organization.id
    const programId = tenant.program.id
    const leadId = tenant.users.program_lead.id
    const person = await createUser(writer, org, { name: 'Bench Process' })
    await addMember(writer, tenant.program, person.id, ['scientist', 'manufacturing_specialist'])
    const lead = await contextForUser(writer, leadId, org)
    await assignWorkbenchRole(lead, { programId, userId: person.id, workbenchRoleKey: 'cmc_process_scientist', reason: 'bench' })

    // Records in bulk over every type (a tenth of the questions are the person's).
    const t0 = Date.now() - RECORDS * 1000
    const rows = Array.from({ length: RECORDS }, (_, i) => {
      const type = RECORD_TYPE_KEYS[i % RECORD_TYPE_KEYS.length]
      const spec = RECORD_TYPES[type]
      const fields: Record<string, unknown> = {}
      for (const f of spec.fields) if (f.required) fields[f.name] = f.kind === 'enum' ? f.values[0] : f.kind === 'date' ? '2027-01-01' : 'x'
      if (type === 'evidence.questions' && i % 10 < 5) fields.owner_user_id = person.id
      return {
        id: randomUUID(), organizationId: org, programId, recordType: type, title: `Bench ${type} ${i}`, body: 'Bench body',
        status: spec.machine.initial[0], fields: fields as object, version: 1, createdByUserId: leadId, updatedByUserId: leadId,
        createdAt: new Date(t0 + i * 1000), updatedAt: new Date(t0 + i * 1000),
      }
    })
    await writer.programRecord.createMany({ data: rows })
    out('roles.setup.records', RECORDS)

    // Memory, twins and waiting decisions (half on the role's record types, half outside), and two connections.
    const me = await contextForUser(writer, person.id, org)
    for (let i = 0; i < 5; i++) await keepMemoryNote(me, { programId, kind: 'preference', summary: `Bench preference ${i}.` })
    const twin = await writer.twinDefinition.create({ data: { organizationId: org, programId, userId: person.id, personaKey: 'manufacturing_specialist', duties: ['blocker_scan'] } })
    const run = await writer.agentRun.create({ data: { organizationId: org, programId, kind: 'twin_cycle', status: 'running', twinId: twin.id, initiatedBy: 'user', startedByUserId: person.id, harnessKey: 'manufacturing_specialist', workbenchRoleKey: 'cmc_process_scientist' } })
    const asTwin = await contextForUser(writer, person.id, org, { twinId: twin.id })
    // Each proposal rests on two records (its basis), so showing it computes its staleness as a person's inbox does.
    const basisPool = rows.filter((r) => r.recordType === 'evidence.findings').map((r) => r.id)
    for (let i = 0; i < DECISIONS; i++) {
      const recordType = i % 2 ? 'evidence.findings' : 'evidence.gaps'
      const fields = recordType === 'evidence.gaps' ? { severity: 'low' } : { kind: 'observation' }
      const basisRecordIds = [basisPool[(2 * i) % basisPool.length], basisPool[(2 * i + 1) % basisPool.length]]
      await fileProposal(asTwin, { runId: run.id, change: { kind: 'create', programId, recordType, title: `Bench proposal ${i}`, fields }, basisRecordIds, draft: 'Bench draft.' })
    }
    const connection = (providerId: string, status: string) => writer.connection.create({
      data: {
        organizationId: org, programId, providerId, name: providerId, credentialClass: 'service', apiVersion: 'v1', consentedBy: leadId,
        consentedAt: new Date(), createdByUserId: leadId, health: { status }, healthCheckedAt: new Date(),
      },
    })
    await connection('eln_provider', 'ok')
    await connection('qms_provider', 'degraded')
    out('roles.setup.decisions', DECISIONS)

    const url = `${stack.gatewayUrl}/graphql`
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${await mintDevToken(person)}` }
    const open = async () => {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query: ROLE_HOME_QUERY, variables: { p: programId } }) })
      const body = await res.json() as any
      if (body.errors?.length || !body.data?.workbench) throw new Error(`unexpected answer: ${JSON.stringify(body).slice(0, 500)}`)
      return body.data.workbench
    }
    const first = await open()
    if (!first.decisions.length || !first.sources.length || !first.statusLines.length || !first.memorySummary.length || !first.twin || !first.setBy) {
      throw new Error(`a region is empty: ${JSON.stringify(first).slice(0, 500)}`)
    }
    const times: number[] = []
    for (let i = 0; i < WARMUP + OPENS; i++) {
      const s = performance.now()
      await open()
      if (i >= WARMUP) times.push(performance.now() - s)
    }
    // SQL statements per open: every pg query the in-process subgraphs send while one request runs (the median of 10
    // opens, so a job poller's query landing in one does not count). Not noisy, unlike the times under load.
    const sqlCounts: number[] = []
    const seen = new Map<string, number>()
    const query = pg.Client.prototype.query
    let counting = false
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (counting) {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text ?? ''
        sqlCounts[sqlCounts.length - 1]++
        seen.set(text, (seen.get(text) ?? 0) + 1)
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args)
    } as typeof query
    try {
      for (let i = 0; i < 10; i++) {
        sqlCounts.push(0)
        counting = true
        await open()
        counting = false
      }
    } finally {
      pg.Client.prototype.query = query
    }
    if (process.env.BENCH_ROLES_TRACE) {
      for (const [text, n] of [...seen].sort((a, b) => b[1] - a[1])) console.error(`${n / 10}\t${text.replace(/\s+/g, ' ').slice(0, 220)}`)
    }
    out('roles.home.opens', OPENS)
    out('roles.home.sql_queries', percentile(sqlCounts, 50))
    out('roles.home.decisions_shown', first.decisions.length)
    out('roles.home.other_decisions', first.otherDecisionCount)
    out('roles.home.status_lines', first.statusLines.length)
    out('roles.home_p50_ms', ms(percentile(times, 50)))
    out('roles.home_p99_ms', ms(percentile(times, 99)))
  } finally {
    await closeStackBench(bench, started)
    restoreLogs()
  }
}

runIfMain(import.meta.url, benchRoles)
