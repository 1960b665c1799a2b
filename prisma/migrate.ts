// The migrate command line (npm run migrate -- <command>; prisma/migrations.ts is the library it drives).
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createMigration, diffMigrationsToSchema, filters, listMigrations, MIGRATIONS, PROJECT, withEngine } from './migrations'

const USAGE = `Usage: npm run migrate -- <command>
  deploy          apply pending migrations and install graphile-worker's schema (the default; the release step)
  dev <name>      create a migration from prisma/schema.prisma and apply it (the role needs CREATEDB: shadow database)
  create <name>   create the migration only
  diff            print the SQL that would take the migrations to schema.prisma (empty: no drift)
  status          the migration history diagnosis as JSON
  --help          this text
The database: DATABASE_URL, else the embedded PostgreSQL (EMBEDDED_PG_PORT, DATA_DIR).`

async function cli(cmd = 'deploy', name = 'migration') {
  // Before any database work: an unknown command used to do nothing and exit 0.
  if (cmd === '--help' || cmd === '-h') return void console.log(USAGE)
  if (!['deploy', 'dev', 'create', 'diff', 'status'].includes(cmd)) {
    console.error(`Unknown command ${cmd}.\n${USAGE}`)
    process.exit(2)
  }
  const { resolveDatabaseUrl } = await import('../core/database')
  const { exitOnStartFailure } = await import('../core/config')
  const db = await resolveDatabaseUrl().catch(exitOnStartFailure)
  try {
    if (cmd === 'dev' || cmd === 'create') {
      const created = await createMigration(db.url, name, cmd === 'create')
      console.log(created ? `Created ${created}` : 'No schema changes; nothing to create.')
    }
    if (cmd === 'dev' || cmd === 'deploy') {
      const { prepareDatabase } = await import('../jobs/prepare-database')
      console.log('Applied:', await prepareDatabase(db.url))
    }
    if (cmd === 'diff') process.stdout.write(await diffMigrationsToSchema(db.url))
    if (cmd === 'status') {
      const res = await withEngine(db.url, PROJECT, async (engine) => engine.diagnoseMigrationHistory({
        migrationsList: await listMigrations(MIGRATIONS), optInToShadowDatabase: false, filters }))
      console.log(JSON.stringify(res, null, 2))
    }
  } finally {
    await db.stop()
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Explicit exit: the wasm engine leaves a 10 s timer pending after the last command.
  cli(...(process.argv.slice(2) as [string, string])).then(() => process.exit(0), (err) => { console.error(err); process.exit(1) })
}
