// Owns bringing a database to what this code expects, in one order for every caller: the Prisma migrations, then
// graphile-worker's schema. Both are needed before anything runs: jobs are enqueued inside the transactions of domain
// commands (a seed that opens a stage gate, a webhook delivery, a schedule), not only by the worker, so a database with
// the tables but without the worker's schema fails the first command that enqueues ("schema graphile_worker does not
// exist"). Used by npm start, npm run seed, npm run migrate -- deploy (the production release step), the tests'
// template, the benches and the soak. Idempotent: on a prepared database it applies nothing.
import { deployMigrations } from '../prisma/migrations'
import { migrateWorkerSchema } from './worker'

/** Applies pending migrations and installs (or upgrades) the worker's schema; returns the migrations applied. */
export async function prepareDatabase(url: string): Promise<string[]> {
  const applied = await deployMigrations(url)
  await migrateWorkerSchema(url)
  return applied
}
