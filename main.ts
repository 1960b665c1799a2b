// npm start: the whole service in one process for the demo: PostgreSQL (embedded unless DATABASE_URL), migrations,
// the illustrative seed, the fake vendors, the three subgraphs, the gateway and the worker. Ctrl-C stops it all.
import { parseEnv, setEnv, EnvError, type Env } from './core/config'
import { recordRunningService, resolveDatabaseUrl } from './core/database'
import { reportStartFailure } from './core/config'
import { createPrisma } from './core/database'
import { prepareDatabase } from './jobs/prepare-database'
import { startWorker } from './jobs/worker'
import { seedIllustrative } from './subgraphs/seed'
import { mintDevToken } from './core/identity'
import { log, markShuttingDown } from './core/config'
import { installDomain } from './subgraphs/install'
import { startTracing, stopTracing } from './core/config'

type Stoppable = { name: string; stop: () => Promise<unknown> }

async function main() {
  let e: Env
  try {
    e = parseEnv()
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message)
      process.exit(1)
    }
    throw err
  }
  setEnv(e)
  installDomain() // the stack and the worker below share this process
  const running: Stoppable[] = []
  // traces when OTEL_* asks for them (core/config/tracing.ts); stopped last, after every part has flushed its spans
  if (await startTracing('evidence-workspace')) running.push({ name: 'tracing', stop: stopTracing })
  let stopping = false
  // A stop after a failed start exits 1: exiting 0 there made a second npm start (ports taken) look like a success.
  const shutdown = async (signal: string, code = 0) => {
    if (stopping) return
    stopping = true
    markShuttingDown()
    log.info('shutdown.start', { signal })
    for (const part of running.reverse()) {
      try { await part.stop() } catch (err) { log.error('shutdown.failed', { part: part.name, error: err }) }
    }
    log.info('shutdown.done')
    process.exit(code)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  try {
    const database = await resolveDatabaseUrl()
    running.push({ name: 'postgres', stop: database.stop })
    // Helper commands in another terminal (npm run -s token, npm run seed) find this database without any variable
    // (development only: production has no development tokens and no illustrative seed to apply).
    if (e.NODE_ENV !== 'production') running.push({ name: 'running-service record', stop: await recordRunningService(database.url) })
    const applied = await prepareDatabase(database.url)
    if (applied.length) log.info('migrations.applied', { names: applied })
    const db = createPrisma(database.url)
    running.push({ name: 'prisma', stop: () => db.$disconnect() })
    const seed = await seedIllustrative(db)

    const { startServices } = await import('./services')
    // The demo vendors (fakes/demos.ts) only outside production: a production process never imports a fake.
    const startDemos = e.NODE_ENV === 'production' ? undefined : (await import('./fakes/demos')).startConnectorDemos
    const services = await startServices({ db, databaseUrl: database.url, seed, startDemos })
    running.push(...services.stoppables)

    // Outside production a finished job is a debug line: the banner below and its token stay on screen.
    const worker = await startWorker({ db, databaseUrl: database.url }, { concurrency: e.WORKER_CONCURRENCY, jobSuccessLog: e.NODE_ENV === 'production' ? 'info' : 'debug' })
    running.push({ name: 'worker', stop: () => worker.stop() })

    // A token is printed only where this service mints them: never in production, never beside an identity provider.
    const devTokens = e.NODE_ENV !== 'production' && !e.AUTH_JWKS_URL
    console.log([
      '',
      'Evidence workspace is running (illustrative demo data).',
      ...services.urls.map(([name, url]) => `  ${name.padEnd(22)} ${url}`),
      `  ${'database'.padEnd(22)} ${database.embedded ? `embedded PostgreSQL on port ${e.EMBEDDED_PG_PORT}, data in ${e.DATA_DIR}/postgres` : 'DATABASE_URL'}`,
      '',
      ...(devTokens ? [
        `Development token for ${seed.users.program_owner.email} (program owner; valid 12 h):`,
        await mintDevToken(seed.users.program_owner),
        '',
        'Other users: npm run -s token -- --user <email>   Stop: Ctrl-C',
      ] : ['Tokens come from your identity provider (AUTH_JWKS_URL).   Stop: Ctrl-C']),
      '',
    ].join('\n'))
  } catch (err) {
    await reportStartFailure('startup.failed', err) // a port in use, no embedded PostgreSQL: one sentence that says what to do
    await shutdown('startup-failure', 1)
  }
}

// main() reports and handles its own failures (reportStartFailure, shutdown): nothing is left to await here.
void main()
