import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { ROOT_DIR } from '../../core/config'
import { freePort, isDatabaseUnavailable, removeEmbeddedData, startEmbeddedPostgres } from '../../core/database'
import { waitFor } from '../helpers/stack'

const ping = async (url: string) => {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
  try { await c.connect(); return (await c.query('SELECT 1 AS ok')).rows[0].ok === 1 } catch { return false } finally { await c.end().catch(() => {}) }
}
const isRoot = process.getuid?.() === 0

describe('embedded PostgreSQL', () => {
  it('creates the data folder on first start, shares a running server with a second start, and stops only with its owner', async () => {
    // mkdtemp makes a mode-700 folder: as root, the server user cannot enter it, and start-up still works.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-embedded-'))
    const port = await freePort()
    try {
      const first = await startEmbeddedPostgres({ dataDir, port })
      expect(await fs.stat(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBeTruthy()
      const second = await startEmbeddedPostgres({ dataDir, port })
      expect(second.url).toBe(first.url)
      // room for two replicas of every kind (about 140 connections; PostgreSQL's default is 100)
      const c = new pg.Client({ connectionString: first.url })
      await c.connect()
      try { expect((await c.query('SHOW max_connections')).rows[0].max_connections).toBe('300') } finally { await c.end() }
      await second.stop()
      expect(await ping(first.url)).toBe(true) // the second start did not own it
      await first.stop()
      expect(await ping(first.url)).toBe(false)
      const again = await startEmbeddedPostgres({ dataDir, port }) // reuses the folder: no initdb
      expect(await ping(again.url)).toBe(true)
      await again.stop()
    } finally {
      await removeEmbeddedData(dataDir)
    }
  }, 60_000)

  it('a second start on the same data folder with another port uses the running server and leaves its files alone', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-embedded-second-'))
    const port = await freePort()
    try {
      const first = await startEmbeddedPostgres({ dataDir, port })
      const pidFile = path.join(await fs.realpath(path.join(dataDir, 'postgres')), 'postmaster.pid')
      const lockBefore = await fs.readFile(pidFile, 'utf8')
      // What `npm run token` with another EMBEDDED_PG_PORT did: it removed the live server's postmaster.pid and started
      // a second server on the same files; the first then shut itself down.
      const second = await startEmbeddedPostgres({ dataDir, port: await freePort() })
      expect(second.url).toBe(first.url)
      expect(await fs.readFile(pidFile, 'utf8')).toBe(lockBefore)
      await second.stop()
      expect(await ping(first.url)).toBe(true)
      expect(await fs.readFile(pidFile, 'utf8')).toBe(lockBefore)
      await first.stop()
    } finally {
      await removeEmbeddedData(dataDir)
    }
  }, 60_000)

  it('starts the embedded server again when it stops under the running service', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-embedded-restart-'))
    const port = await freePort()
    try {
      const server = await startEmbeddedPostgres({ dataDir, port })
      const pidFile = path.join(await fs.realpath(path.join(dataDir, 'postgres')), 'postmaster.pid')
      const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0])
      process.kill(pid, 'SIGQUIT') // an immediate shutdown, as after a crash or a kill by hand
      await waitFor(async () => !(await ping(server.url)), 10_000, 'the server to stop')
      await waitFor(() => ping(server.url), 30_000, 'the server to be started again')
      expect(Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0])).not.toBe(pid)
      await server.stop()
      expect(await ping(server.url)).toBe(false)
    } finally {
      await removeEmbeddedData(dataDir)
    }
  }, 90_000)

  it('starts afresh after the data folder was removed by hand (rm -rf .data), also as root where the data lives outside it', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-embedded-removed-'))
    const port = await freePort()
    try {
      const first = await startEmbeddedPostgres({ dataDir, port })
      expect(await ping(first.url)).toBe(true)
      await first.stop()
      await fs.rm(dataDir, { recursive: true, force: true }) // what a person does to reset; the root-side data stays
      const again = await startEmbeddedPostgres({ dataDir, port })
      expect(again.url).not.toBe(first.url) // a new password file
      expect(await ping(again.url)).toBe(true)
      await again.stop()
    } finally {
      await removeEmbeddedData(dataDir)
    }
  }, 90_000)

  it.skipIf(!isRoot)(`as root, migrates a checkout that sits inside a mode-700 folder with the embedded default${isRoot ? '' : ' (skipped: needs root)'}`, async () => {
    const outer = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-root-clone-'))
    await fs.chmod(outer, 0o700)
    const checkout = path.join(outer, 'checkout')
    try {
      await fs.cp(ROOT_DIR, checkout, { recursive: true, filter: (src) => !/\/(node_modules|\.git|\.data)$/.test(src) })
      await fs.symlink(await fs.realpath(path.join(ROOT_DIR, 'node_modules')), path.join(checkout, 'node_modules'))
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|DATA_DIR|NODE_ENV|VITEST)/.test(k)))
      const child = spawn(process.execPath, ['--import', 'tsx', 'prisma/migrate.ts', 'deploy'], {
        cwd: checkout, env: { ...clean, EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (c) => (output += c))
      child.stderr.on('data', (c) => (output += c))
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
      expect(output).not.toContain('EACCES')
      expect(output).toContain('Applied:')
      expect(code).toBe(0)
      // The server ran as the unprivileged user from a place it can reach; the checkout's DATA_DIR points at it.
      const data = await fs.realpath(path.join(checkout, '.data', 'postgres'))
      const st = await fs.stat(data)
      expect(st.uid).not.toBe(0)
      expect(await fs.stat(path.join(data, 'PG_VERSION'))).toBeTruthy()
    } finally {
      await removeEmbeddedData(path.join(checkout, '.data'))
      await fs.rm(outer, { recursive: true, force: true })
    }
  }, 180_000)
})

describe('a database that refuses new connections', () => {
  it('is an outage (answered 503 with Retry-After), not an internal error: nothing ran, a retry is safe', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }))).toBe(true)
    // as Prisma words it, with the code only in the message
    expect(isDatabaseUnavailable(new Error('Invalid `ctx.tdb.platformSourceHealth.findMany()` invocation:\n\nToo many database connections opened: sorry, too many clients already'))).toBe(true)
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false)
  })
})
