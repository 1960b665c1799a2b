// Each test file gets its own database cloned from the migrated template, dropped when the file ends.
import os from 'node:os'
import path from 'node:path'
import fs from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { createPrisma, type Db } from '../../core/database'
import { parseEnv, setEnv, type Env } from '../../core/config'
import { withDatabase } from '../../core/database'
import { resetAuthKeys } from '../../core/identity'

export interface TestDatabase {
  url: string
  db: Db
  dataDir: string
  env: Env
}

export async function createTestDatabase(overrides: Record<string, string> = {}): Promise<TestDatabase & { drop(): Promise<void> }> {
  const server = inject('databaseServerUrl')
  const template = inject('templateDatabase')
  const name = `ew_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    // CREATE DATABASE ... TEMPLATE fails while anything else is connected to the template: retry briefly.
    for (let attempt = 0; ; attempt++) {
      try { await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`); break } catch (e) {
        if (attempt > 20 || !/being accessed by other users/.test((e as Error).message)) throw e
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  } finally {
    await admin.end()
  }
  const url = withDatabase(server, name)
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-test-'))
  const env = parseEnv({ ...process.env, NODE_ENV: 'test', DATABASE_URL: url, DATA_DIR: dataDir, ...overrides })
  setEnv(env)
  resetAuthKeys()
  const db = createPrisma(url, 5)
  return {
    url, db, dataDir, env,
    async drop() {
      await db.$disconnect()
      const a = new pg.Client({ connectionString: server })
      await a.connect()
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => a.end())
      await fs.rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** Registers beforeAll/afterAll for a per-file database; read `.current` inside tests. */
export function useTestDatabase(overrides: Record<string, string> = {}) {
  const holder = {} as { current: TestDatabase }
  let drop: (() => Promise<void>) | undefined
  beforeAll(async () => {
    const t = await createTestDatabase(overrides)
    drop = t.drop
    holder.current = t
  })
  afterAll(async () => { await drop?.() })
  return holder
}

/** An empty database (not cloned from the migrated template) on the test server: what a first start meets. */
export async function createEmptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = inject('databaseServerUrl')
  const name = `ew_empty_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end())
  return {
    url: withDatabase(server, name),
    async drop() {
      const a = new pg.Client({ connectionString: server })
      await a.connect()
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => a.end())
    },
  }
}
