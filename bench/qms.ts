// QMS benchmark: the first delta poll of 10,000 SOP versions from the fake QMS over HTTP (query pages of 1,000, the text
// endpoint and a rendition per version, the sanitiser, one transaction per page with its sop_version.update audit
// rows), then a poll with no change. Prints `name value` lines; never asserts timings. Run alone: `npx tsx bench/qms.ts`.
//
// Knobs (environment): BENCH_QMS_VERSIONS (10000), BENCH_QMS_PER_DOCUMENT (4).
import { pathToFileURL } from 'node:url'
import { provisionBenchDatabase } from './database'
import { knobs, out, quietLogs } from './figures'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { domainContext } from '../core/jobs'
import { loadSession } from '../core/identity'
import { startFakeQms } from '../fakes/qms/server'
import { createTenant } from '../tests/helpers/factories'
import { createConnection, setConnectionCredentials } from '../domain/connections'
import { configureQmsConnection } from '../domain/qms'
import { runQmsSync } from '../domain/qms'
import { DEMO_QMS } from '../domain/qms'

export async function benchQms(): Promise<void> {
  const restoreLogs = quietLogs()
  const { VERSIONS, PER_DOCUMENT } = knobs('BENCH_QMS', { VERSIONS: 10_000, PER_DOCUMENT: 4 }, { VERSIONS: 40 })
  const database = await provisionBenchDatabase('qms')
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir }))
  const db: Db = createPrisma(database.url, 10)
  // The vault's burst window would stop a first poll of this size after 2,000 requests (the job resumes in the next
  // window); the bench measures ingestion, so the fake's window and the connection's budget row are opened wide.
  const fake = await startFakeQms({ burstLimit: 1_000_000 })
  try {
    fake.state.addUser('bench', 'bench-password')
    const docs = Math.ceil(VERSIONS / PER_DOCUMENT)
    let n = 0
    for (let d = 0; d < docs && n < VERSIONS; d++) {
      const id = String(10_000 + d)
      fake.state.addDocument({ id, number: `SOP-${id}`, name: `Bench SOP ${d}` })
      for (let v = 0; v < PER_DOCUMENT && n < VERSIONS; v++, n++) {
        const last = v === PER_DOCUMENT - 1
        fake.state.addVersion(id, { major: v + 1, minor: 0, status: last ? 'Effective' : 'Superseded', text: `Bench SOP ${d} v${v + 1}\n1 Scope\n1.1 Each entry shall record the date.\n2 Review\n2.1 A reviewer must sign within 5 days.\n` })
      }
    }
    out('qms.setup.versions', n)
    const tenant = await createTenant(db, 'BenchQms')
    const ctx = domainContext(db, await loadSession(db, tenant.users.program_owner.id))
    const c = await createConnection(ctx, { programId: tenant.program.id, providerId: 'qms_provider', name: 'Bench vault', scopeRules: { documentTypes: ['sop__c'] }, baseUrl: fake.url, consent: true })
    await configureQmsConnection(ctx, { id: c.id, clientId: 'bench-client', instanceId: String(fake.state.vaultId), integrationUser: 'sandbox', lifecycleMap: DEMO_QMS.lifecycleMap.map((m) => ({ ...m })) })
    await setConnectionCredentials(ctx, c.id, { clientId: 'bench', clientSecret: 'bench-password' })
    await db.$executeRaw`INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
      VALUES (${tenant.organization.id}::uuid, 'qms_provider', 'connection', ${c.id}, 1000000, 300)`

    const t0 = performance.now()
    const first = await runQmsSync(db, c.id, 'poll')
    const firstMs = performance.now() - t0
    if (first.status !== 'synced') throw new Error(`first poll: ${JSON.stringify(first)}`)
    out('qms.first_poll.versions', first.report.created)
    out('qms.first_poll.pages', first.report.pages)
    out('qms.first_poll.seconds', (firstMs / 1000).toFixed(2))
    out('qms.first_poll.versions_per_second', Math.round(first.report.created / (firstMs / 1000)))
    out('qms.first_poll.requests', fake.state.log.length)
    const before = fake.state.log.length
    const t1 = performance.now()
    const again = await runQmsSync(db, c.id, 'poll')
    const againMs = performance.now() - t1
    if (again.status !== 'synced') throw new Error(`no-change poll: ${JSON.stringify(again)}`)
    out('qms.no_change_poll.ms', againMs.toFixed(1))
    out('qms.no_change_poll.seen', again.report.seen)
    out('qms.no_change_poll.requests', fake.state.log.length - before)
  } finally {
    await fake.close()
    await db.$disconnect()
    await database.cleanup()
    restoreLogs()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchQms().then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })
}
