// Owns structured logging: one JSON line per event on stderr; secrets are redacted by key name before writing.
import { currentRequestId } from './request-context'

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const
type Level = keyof typeof LEVELS

const SECRET_KEYS = /secret|password|token|authorization|cookie|private|credential|api[_-]?key/i

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEYS.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  )
}

function threshold(): number {
  const level = (process.env.LOG_LEVEL as Level | undefined) ?? (process.env.NODE_ENV === 'test' || process.env.VITEST ? 'warn' : 'info')
  return LEVELS[level] ?? LEVELS.info
}

let shuttingDown = false
/**
 * Ctrl-C reaches the embedded PostgreSQL (same process group) as it reaches us, so connections drop while
 * components stop: during shutdown those expected connection errors are logged at debug level.
 */
export function markShuttingDown() { shuttingDown = true }
const CONNECTION_NOISE = /^(worker|pubsub|inbox_events)\./

function write(level: Exclude<Level, 'silent'>, event: string, fields?: Record<string, unknown>) {
  if (shuttingDown && (level === 'warn' || level === 'error') && CONNECTION_NOISE.test(event)) level = 'debug'
  if (LEVELS[level] < threshold()) return
  const requestId = currentRequestId() // the request (or job) this line belongs to
  const line = JSON.stringify({ t: new Date().toISOString(), level, event, ...(requestId ? { requestId } : {}), ...(redact(fields ?? {}) as object) })
  // Every level on stderr: stdout is a program's output (a token, SQL, JSON, npm start's banner), which a caller
  // captures (TOKEN=$(npm run -s token …), npm run migrate -- diff > drift.sql); a log line there made it garbage.
  process.stderr.write(line + '\n')
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write('debug', event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write('info', event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write('warn', event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write('error', event, fields),
}
