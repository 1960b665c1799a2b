// Issue 26: the documented scripts on a machine with nothing but Node, run as a user runs them (a child process) against
// a fresh, empty database; and npm run token's stdout carrying the token only.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createPrisma } from '../../core/database'
import { prepareDatabase } from '../../jobs/prepare-database'
import { freePort, removeEmbeddedData, startEmbeddedPostgres } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { createEmptyDatabase, useTestDatabase } from '../helpers/db'
import { runEntry } from '../helpers/processes'

const t = useTestDatabase() // the environment (setEnv) for what this file does in-process

async function query<T = any>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { return (await c.query(sql)).rows } finally { await c.end() }
}

const NO_STACK = /\n\s+at /

describe('the documented scripts on a fresh, empty database', () => {
  it('npm run seed prepares the database (migrations, then the worker\'s schema) and seeds it, exiting 0', async () => {
    const fresh = await createEmptyDatabase()
    try {
      const r = await runEntry('scripts/seed.ts', { env: { DATABASE_URL: fresh.url, DATA_DIR: t.current.dataDir } })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toContain('graphile_worker')
      expect(r.stdout).toMatch(/^Seeded Illustrative Therapeutics/)
      const users = await query<{ email: string }>(fresh.url, 'SELECT email FROM users ORDER BY email')
      expect(users.map((u) => u.email)).toEqual(expect.arrayContaining(['lead@illustrative.example', 'owner@illustrative.example', 'admin@illustrative.example']))
      // The stage gate the seed opens enqueued its job in the worker's schema.
      expect(Number((await query(fresh.url, 'SELECT count(*) AS n FROM graphile_worker.jobs'))[0].n)).toBeGreaterThan(0)
    } finally {
      await fresh.drop()
    }
  }, 120_000)

  it('npm run migrate -- deploy (the release step) leaves a database the components can enqueue jobs in', async () => {
    const fresh = await createEmptyDatabase()
    try {
      const r = await runEntry('prisma/migrate.ts', { args: ['deploy'], env: { DATABASE_URL: fresh.url, DATA_DIR: t.current.dataDir } })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^Applied: \[/)
      expect(await query(fresh.url, "SELECT 1 FROM information_schema.routines WHERE routine_schema = 'graphile_worker' AND routine_name = 'add_job'")).toHaveLength(1)
    } finally {
      await fresh.drop()
    }
  }, 120_000)

  it('npm run token says in one sentence that the database has no users yet and how to seed it, exiting 1', async () => {
    const fresh = await createEmptyDatabase()
    try {
      const r = await runEntry('scripts/token.ts', { args: ['--user', 'lead@illustrative.example'], env: { DATABASE_URL: fresh.url, DATA_DIR: t.current.dataDir } })
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr.trim()).toBe('No user lead@illustrative.example: the database has no tables yet; run npm run seed (or npm start) once, then ask again.')
    } finally {
      await fresh.drop()
    }
  }, 60_000)
})

describe('npm run token', () => {
  it('writes only the token to stdout, one JWT line, with the embedded PostgreSQL\'s log lines on stderr', async () => {
    // The default set-up: no DATABASE_URL, the embedded server (already running, as beside npm start), logs at info.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-token-'))
    const port = await freePort()
    const server = await startEmbeddedPostgres({ dataDir, port })
    try {
      await prepareDatabase(server.url)
      const db = createPrisma(server.url, 2)
      try { await seedIllustrative(db) } finally { await db.$disconnect() }
      const r = await runEntry('scripts/token.ts', {
        args: ['--user', 'lead@illustrative.example', '--ttl', '30m'],
        env: { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), LOG_LEVEL: 'info' },
      })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/)
      expect(r.stderr).toContain('"event":"postgres.reuse"')
      const claims = JSON.parse(Buffer.from(r.stdout.split('.')[1], 'base64url').toString())
      expect(claims.exp - claims.iat).toBe(30 * 60)
    } finally {
      await server.stop()
      await removeEmbeddedData(dataDir)
    }
  }, 120_000)

  it('documents every flag in --help, on stdout, and refuses an unknown flag or a bad --ttl in one sentence with exit 2', async () => {
    const [help, unknown, ttl] = await Promise.all([
      runEntry('scripts/token.ts', { args: ['--help'] }),
      runEntry('scripts/token.ts', { args: ['--user', 'lead@illustrative.example', '--tll', '1h'] }),
      runEntry('scripts/token.ts', { args: ['--user', 'lead@illustrative.example', '--ttl', 'forever'] }),
    ])
    expect(help.code).toBe(0)
    for (const flag of ['--user <email>', '--ttl <duration>', '--help']) expect(help.stdout).toContain(flag)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("Unknown option '--tll'")
    expect(ttl.code).toBe(2)
    expect(ttl.stderr.trim()).toBe('--ttl forever: expected a number and a unit, e.g. 30m, 12h or 7d.')
    for (const r of [help, unknown, ttl]) expect(r.stderr).not.toMatch(NO_STACK)
  }, 60_000)
})
