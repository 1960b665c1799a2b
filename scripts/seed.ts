// npm run seed: prepares the database (migrations, the worker's schema) and applies the illustrative seed without
// starting the service (idempotent). The seed opens a stage gate, which enqueues a job: the worker's schema must exist.
import { parseEnv, setEnv, EnvError } from '../core/config'
import { resolveDatabaseUrl } from '../core/database'
import { createPrisma } from '../core/database'
import { prepareDatabase } from '../jobs/prepare-database'
import { seedIllustrative } from '../subgraphs/seed'
import { exitOnStartFailure } from '../core/config'
import { installDomain } from '../subgraphs/install'

// This process calls domain functions (connections, the inbox, the seed): it installs the domain first, as every
// entry point does (the adapter registry, the audit hooks).
installDomain()

try { setEnv(parseEnv()) } catch (e) { console.error((e as EnvError).message); process.exit(1) }
const database = await resolveDatabaseUrl({ helper: true }).catch(exitOnStartFailure)
const db = createPrisma(database.url, 2)
try {
  await prepareDatabase(database.url)
  const seed = await seedIllustrative(db)
  console.log(`Seeded ${seed.organization.name}: program ${seed.program.slug}; users ${Object.values(seed.users).map((u) => u.email).join(', ')}`)
} finally {
  await db.$disconnect()
  await database.stop()
}
process.exit(0)
