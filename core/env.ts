// Owns the process configuration: every variable parsed once with zod; start-up lists every problem and stops.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback)
const flag = (fallback: boolean) =>
  z.enum(['true', 'false', '1', '0']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1')
const optionalUrl = z.string().url().optional().or(z.literal('').transform(() => undefined))

export const RELEASES = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'] as const
export type Release = (typeof RELEASES)[number]

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATA_DIR: z.string().default(path.join(ROOT_DIR, '.data')),
  DATABASE_URL: optionalUrl,
  EMBEDDED_PG_PORT: port(54329),
  HOST: z.string().default('127.0.0.1'),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  GATEWAY_PORT: port(4000),
  CONNECTORS_PORT: port(4001),
  WORKBENCH_PORT: port(4002),
  TWINS_PORT: port(4003),
  PUBLIC_URL: optionalUrl,
  /** Where the gateway finds each subgraph when they run as separate processes (default 127.0.0.1 on their ports). */
  CONNECTORS_URL: optionalUrl,
  WORKBENCH_URL: optionalUrl,
  TWINS_URL: optionalUrl,
  AUTH_JWKS_URL: optionalUrl,
  AUTH_ISSUER: z.string().min(1).default('urn:evidence-workspace:dev'),
  AUTH_AUDIENCE: z.string().min(1).default('evidence-workspace'),
  CONNECTION_SECRET_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
  RELEASE: z.enum(RELEASES).default('R4'),
  R4_GATE_PASSED: flag(false),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Evidence workspace <no-reply@localhost>'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  FAKE_NOTEBOOK_PORT: port(8190),
  /** Per attempt, for calls to the notebook vendor (token, entries, canvases). */
  NOTEBOOK_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  FAKE_QMS_PORT: port(8191),
  FAKE_LITERATURE_PORT: port(8192),
  /** Developer opt-in: stack traces in GraphQL error responses (ignored in production). */
  GRAPHQL_STACK_TRACES: flag(false),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
})

export type Env = z.infer<typeof EnvSchema>

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/** Parses the environment; throws EnvError naming every bad variable (not just the first). */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const result = EnvSchema.safeParse(source)
  if (result.success) return result.data
  const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  throw new EnvError(problems)
}

let cached: Env | undefined
/** The process's configuration, parsed once. */
export function env(): Env {
  return (cached ??= parseEnv())
}

/** For tests and the launcher: replace the parsed configuration. */
export function setEnv(next: Env) {
  cached = next
}
