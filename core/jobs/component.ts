// Owns running one component as its own process (production): environment, database, signals, ordered stop.
// Migrations are a release step here (`npm run migrate -- deploy`), not something each replica does on start.
import { parseEnv, setEnv, EnvError, type Env } from '../config'
import { resolveDatabaseUrl } from '../database'
import { exitOnStartFailure, reportStartFailure } from '../config'
import { createPrisma, type Db } from '../database'
import { log, markShuttingDown } from '../config'
import { isDatabaseUnavailable } from '../database'
import { startTracing, stopTracing } from '../config'

/**
 * Node flags every service process starts with (package.json's start scripts, the throughput bench). A young generation
 * of 32 MB semi-spaces instead of V8's 16 MB: with 50 requests in flight their objects outlived the smaller nursery,
 * were promoted and collected by full GCs. The twins subgraph spent 29 % of its CPU in the collector at concurrency
 * 50 (6 % at 10), and its CPU per request at 50 was 1.6 times that at 10; with the flag (and fewer objects per
 * request) c50 costs what c10 does: 0.57 ms a direct inbox page, against 0.72 ms without the flag (issue 20). It
 * must be given at start: V8 sizes its heap before any code runs (v8.setFlagsFromString has no effect on it). The
 * gateway holds every request's answer until it is sent, so it starts with the same flag.
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'] as const

export interface ComponentContext { db: Db; databaseUrl: string; env: Env }
export interface RunningComponent { url: string; stop: () => Promise<void> }

export async function runComponent(name: string, start: (ctx: ComponentContext) => Promise<RunningComponent>) {
  let e: Env
  try { e = parseEnv() } catch (err) {
    console.error((err as EnvError).message)
    process.exit(1)
  }
  setEnv(e)
  await startTracing(name) // when OTEL_* asks for traces (./tracing.ts)
  const database = await resolveDatabaseUrl().catch(exitOnStartFailure) // one sentence that says what to do
  const db = createPrisma(database.url)
  let running: RunningComponent | undefined
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    markShuttingDown()
    log.info('component.stopping', { component: name, signal })
    await running?.stop().catch((err) => log.error('component.stop_failed', { component: name, error: err }))
    await stopTracing().catch(() => {}) // the last spans are sent
    await db.$disconnect()
    await database.stop()
    process.exit(0)
  }
  // A pg connection that loses its server while idle and unwatched (a pool client between queries) emits 'error' with no
  // listener, which Node throws: during a database outage that is logged and survived (the pools reconnect), anything
  // else still ends the process.
  process.on('uncaughtException', (error) => {
    if (isDatabaseUnavailable(error)) return void log.warn('component.database_connection_lost', { component: name, message: error.message })
    log.error('component.crashed', { component: name, error })
    process.exit(1)
  })
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  try {
    running = await start({ db, databaseUrl: database.url, env: e })
    log.info('component.ready', { component: name, url: running.url })
  } catch (err) {
    await reportStartFailure('component.start_failed', err, { component: name }) // a port in use: which, held by whom, what to do
    await db.$disconnect()
    await database.stop()
    process.exit(1)
  }
}
