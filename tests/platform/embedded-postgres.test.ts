import { describe, expect, it } from 'vitest'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort, startEmbeddedPostgres } from '../../core/postgres'

const ping = async (url: string) => {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
  try { await c.connect(); return (await c.query('SELECT 1 AS ok')).rows[0].ok === 1 } catch { return false } finally { await c.end().catch(() => {}) }
}

describe('embedded PostgreSQL', () => {
  it('creates the data folder on first start, shares a running server with a second start, and stops only with its owner', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-embedded-'))
    await fs.chmod(dataDir, 0o755) // initdb runs as the 'postgres' user when we are root
    const port = await freePort()
    try {
      const first = await startEmbeddedPostgres({ dataDir, port })
      expect(await fs.stat(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBeTruthy()
      const second = await startEmbeddedPostgres({ dataDir, port })
      expect(second.url).toBe(first.url)
      await second.stop()
      expect(await ping(first.url)).toBe(true) // the second start did not own it
      await first.stop()
      expect(await ping(first.url)).toBe(false)
      const again = await startEmbeddedPostgres({ dataDir, port }) // reuses the folder: no initdb
      expect(await ping(again.url)).toBe(true)
      await again.stop()
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
