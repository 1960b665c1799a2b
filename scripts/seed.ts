// npm run seed: applies migrations and the illustrative seed without starting the service (idempotent).
import { parseEnv, setEnv, EnvError } from '../core/env'
import { resolveDatabaseUrl } from '../core/postgres'
import { createPrisma } from '../core/db'
import { deployMigrations } from '../prisma/migrate'
import { seedIllustrative } from '../core/seed'

try { setEnv(parseEnv()) } catch (e) { console.error((e as EnvError).message); process.exit(1) }
const database = await resolveDatabaseUrl()
const db = createPrisma(database.url, 2)
try {
  await deployMigrations(database.url)
  const seed = await seedIllustrative(db)
  console.log(`Seeded ${seed.organization.name}: program ${seed.program.slug}; users ${Object.values(seed.users).map((u) => u.email).join(', ')}`)
} finally {
  await db.$disconnect()
  await database.stop()
}
process.exit(0)
