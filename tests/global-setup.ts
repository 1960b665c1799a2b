// Test database server: DATABASE_URL when set, else a private embedded PostgreSQL for this run. Builds one
// migrated template database; every test file clones its own database from it (tests/helpers/db.ts).
import fs from 'node:fs/promises'
import path from 'node:path'
import { createHash } from 'node:crypto'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { parseEnv, setEnv, ROOT_DIR } from '../core/config'
import { freePort, removeEmbeddedData, startEmbeddedPostgres, withDatabase, type DatabaseHandle } from '../core/database'
import { prepareDatabase } from '../jobs/prepare-database'

declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
  }
}


async function migrationsFingerprint(): Promise<string> {
  const hash = createHash('sha256')
  const dir = path.join(ROOT_DIR, 'prisma/migrations')
  for (const name of (await fs.readdir(dir)).sort()) {
    const file = path.join(dir, name, 'migration.sql')
    hash.update(name).update(await fs.readFile(file, 'utf8').catch(() => ''))
  }
  hash.update(JSON.parse(await fs.readFile(path.join(ROOT_DIR, 'node_modules/graphile-worker/package.json'), 'utf8')).version)
  return hash.digest('hex').slice(0, 16)
}

let handle: DatabaseHandle | undefined
let dataDir: string | undefined

export default async function setup(project: TestProject) {
  const e = parseEnv({ ...process.env, NODE_ENV: 'test' })
  setEnv(e)
  if (e.DATABASE_URL) {
    handle = { url: e.DATABASE_URL, embedded: false, stop: async () => {} }
  } else {
    // A private server per run: concurrent runs never stop each other's database.
    const base = path.join(e.DATA_DIR, 'test-postgres')
    await fs.mkdir(base, { recursive: true })
    for (const stale of await fs.readdir(base)) {
      const pid = Number(stale.split('-')[1])
      let alive = false
      try { process.kill(pid, 0); alive = true } catch { /* gone */ }
      if (!alive) await removeEmbeddedData(path.join(base, stale))
    }
    dataDir = path.join(base, `run-${process.pid}`)
    handle = await startEmbeddedPostgres({ dataDir, port: await freePort() })
  }
  const template = `ew_template_${await migrationsFingerprint()}`
  const admin = new pg.Client({ connectionString: handle.url })
  await admin.connect()
  try {
    await admin.query('SELECT pg_advisory_lock(727274)') // concurrent runs build the template once
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount
    if (!exists) {
      const building = `${template}_building_${process.pid}`
      await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`)
      await admin.query(`CREATE DATABASE "${building}"`)
      const url = withDatabase(handle.url, building)
      await prepareDatabase(url)
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`)
    }
    await admin.query('SELECT pg_advisory_unlock(727274)')
  } finally {
    await admin.end()
  }
  project.provide('databaseServerUrl', handle.url)
  project.provide('templateDatabase', template)
  return async function teardown() {
    await handle?.stop()
    if (dataDir) await removeEmbeddedData(dataDir)
  }
}
