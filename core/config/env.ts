// Owns the process configuration: every variable parsed once with zod; start-up lists every problem and stops.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { parseAllowList } from './address-ranges'
import { addressRangesProblem } from './address-ranges'

export const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback)
const flag = (fallback: boolean) =>
  z.enum(['true', 'false', '1', '0']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1')
/** Comma-separated addresses and CIDR ranges (IPv4/IPv6); empty means none. */
const addressRanges = z.string().default('').superRefine((v, ctx) => {
  const problem = addressRangesProblem(v)
  if (problem) ctx.addIssue({ code: 'custom', message: problem })
})
/** Comma-separated exact browser origins (scheme://host[:port]); each must be an http(s) origin without a path. */
const origins = z.string().optional().superRefine((v, ctx) => {
  for (const o of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    let u: URL | undefined
    try { u = new URL(o) } catch { /* reported below */ }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) ctx.addIssue({ code: 'custom', message: `${o} is not an http(s) origin` })
    else if (u.pathname !== '/' || u.search || u.hash) ctx.addIssue({ code: 'custom', message: `${o} has a path: give the origin only (${u.origin})` })
  }
})
const optionalUrl = z.string().url().optional().or(z.literal('').transform(() => undefined))

export const RELEASES = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6'] as const
export type Release = (typeof RELEASES)[number]

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATA_DIR: z.string().default(path.join(ROOT_DIR, '.data')),
  DATABASE_URL: optionalUrl,
  DATABASE_STATEMENT_CACHE: z.coerce.number().int().min(0).max(10_000).default(256),
  EMBEDDED_PG_PORT: port(54329),
  HOST: z.string().default('127.0.0.1'),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  GATEWAY_PORT: port(4000),
  CONNECTORS_PORT: port(4001),
  WORKBENCH_PORT: port(4002),
  TWINS_PORT: port(4003),
  PUBLIC_URL: optionalUrl,
  /** The gateway the web console talks to when it is not the one serving the page (docs/operators.md); unset: same origin. */
  CONSOLE_GATEWAY_URL: optionalUrl,
  /** Where the gateway finds each subgraph when they run as separate processes (default 127.0.0.1 on their ports). */
  CONNECTORS_URL: optionalUrl,
  WORKBENCH_URL: optionalUrl,
  TWINS_URL: optionalUrl,
  AUTH_JWKS_URL: optionalUrl,
  AUTH_ISSUER: z.string().min(1).default('urn:evidence-workspace:dev'),
  AUTH_AUDIENCE: z.string().min(1).default('evidence-workspace'),
  /** The console's OpenID Connect sign-in (docs/operators.md: identity provider): discovery from the issuer, this public client. */
  OIDC_ISSUER: optionalUrl,
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_SCOPES: z.string().trim().min(1).default('openid email profile').refine((v) => v.split(/\s+/).includes('openid'), 'must include openid'),
  /** Sent as `resource` (RFC 8707) on the authorization and token requests, for providers that issue the API's token only when asked. */
  OIDC_AUDIENCE: z.string().optional(),
  /** How recent the signer's authentication (the token's auth_time) must be for an electronic signature (21 CFR 11.200). */
  SIGNATURE_AUTH_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  CONNECTION_SECRET_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
  RELEASE: z.enum(RELEASES).default('R4'),
  /** The connector document's R1 gates have passed: connectors (providers) read preview instead of designed. */
  R1_GATE_PASSED: flag(false),
  R4_GATE_PASSED: flag(false),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Evidence workspace <no-reply@localhost>'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** The worker process's nice value: on a host shared with the servers it yields CPU to the webhook ingress. */
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * How long a component given SIGTERM or SIGINT lets the work in flight finish (a job, a request) before it releases
   * or cuts it; below Kubernetes' default 30 s termination grace, so the process exits 0 before it is killed.
   */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(20),
  FAKE_NOTEBOOK_PORT: port(8190),
  /** Per attempt, for calls to the notebook vendor (token, entries, canvases). */
  NOTEBOOK_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Addresses connections may reach despite being private or reserved (core/http/egress.ts); unset = the mode's default. */
  EGRESS_ALLOW: z.string().optional().superRefine((v, ctx) => {
    for (const problem of v === undefined ? [] : parseAllowList(v).problems) ctx.addIssue({ code: 'custom', message: problem })
  }),
  FAKE_QMS_PORT: port(8191),
  FAKE_LITERATURE_PORT: port(8192),
  /** Proxies in front of the gateway whose x-forwarded-for is believed (addresses/CIDRs); empty: the peer is the client. */
  TRUSTED_PROXIES: addressRanges,
  /** If set, webhook deliveries are accepted only from these sending ranges (the vendor's published addresses). */
  WEBHOOK_ALLOWED_SOURCES: addressRanges,
  /**
   * Browser origins allowed to call the gateway (CORS, graphql-ws Origin check) besides same-origin and PUBLIC_URL.
   * Unset: outside production, localhost/127.0.0.1 on 3000, 5173, 4173, 8080 and GATEWAY_PORT; in production none.
   */
  CORS_ORIGINS: origins,
  /** Developer opt-in: stack traces in GraphQL error responses (ignored in production). */
  GRAPHQL_STACK_TRACES: flag(false),
  /** Run only registered operations (trusted documents: the console's manifest and TRUSTED_DOCUMENTS_MANIFESTS). */
  TRUSTED_DOCUMENTS_ONLY: flag(false),
  /** More trusted-document manifests (comma-separated JSON files of "<sha256 hex>": "<document>"), e.g. another client team's. */
  TRUSTED_DOCUMENTS_MANIFESTS: z.string().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  // Tool server over MCP (issue 12): its port, where harnesses in other processes reach it, and the run-token lifetime.
  TOOLS_PORT: port(4004),
  TOOLS_URL: optionalUrl,
  RUN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(900),
  // Literature connector (issue 16): where its sources are reached (unset: their public addresses; npm start points it
  // at the fake), per-attempt timeout, and the platform secrets file holding <product>/<env>/providers/literature_search.
  LITERATURE_BASE_URL: optionalUrl,
  LITERATURE_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8_000),
  PLATFORM_SECRETS_FILE: z.string().optional(),
  // Model-backed harness demo (issue 39): `fake` makes npm start run the fake model provider and point the illustrative
  // program's twins at it. Real providers are set per organisation or program (setTwinModelSettings), not here.
  MODEL_PROVIDER: z.enum(['fake']).optional().or(z.literal('').transform(() => undefined)),
  FAKE_MODEL_PORT: port(8193),
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
  const required = [...productionRequirements(source), ...signInRequirements(source)]
  if (result.success && !required.length) return result.data
  const problems = result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  throw new EnvError([...problems, ...required])
}

/**
 * Production never falls back to development material: no development key pair for callers' tokens, no generated
 * connection-secret key. What it would otherwise use is refused at start, listed with the other problems.
 */
function productionRequirements(source: Record<string, string | undefined>): string[] {
  if (source.NODE_ENV !== 'production') return []
  const problems: string[] = []
  if (!source.AUTH_JWKS_URL) problems.push('AUTH_JWKS_URL: required in production: set it to your identity provider\'s JWKS URL (the development key pair is never trusted in production).')
  if (!source.AUTH_ISSUER) problems.push('AUTH_ISSUER: required in production: set it to the issuer (iss) of your identity provider\'s tokens.')
  if (!source.CONNECTION_SECRET_KEY) problems.push('CONNECTION_SECRET_KEY: required in production: 64 hex characters (openssl rand -hex 32) that encrypt connection secrets at rest.')
  return problems
}

/** The console's sign-in needs both the issuer and the client: one without the other would silently offer none. */
function signInRequirements(source: Record<string, string | undefined>): string[] {
  if (Boolean(source.OIDC_ISSUER) === Boolean(source.OIDC_CLIENT_ID)) return []
  return [source.OIDC_ISSUER
    ? 'OIDC_CLIENT_ID: required with OIDC_ISSUER: set it to the client id of the console registered at your identity provider.'
    : 'OIDC_ISSUER: required with OIDC_CLIENT_ID: set it to your identity provider\'s issuer URL.']
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
