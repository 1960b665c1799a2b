// Owns seeding the illustrative data across the subgraphs: the people (core/database/seed.ts), then a few program records
// through the records write path and an open stage gate from the first stage to the next (R4) through the gate's write
// path. It sits above the subgraphs because it composes them; core/ imports no subgraph code.
import type { Db } from '../core/database'
import { seedPeople } from '../core/database'
import { seedIllustrativeRecords } from '../domain/records'
import { seedIllustrativeGate } from '../domain/gates'

/** Idempotent: running it again changes nothing and creates no duplicates. */
export async function seedIllustrative(db: Db) {
  const seed = await seedPeople(db)
  await seedIllustrativeRecords(db, seed)
  await seedIllustrativeGate(db, seed)
  return seed
}
