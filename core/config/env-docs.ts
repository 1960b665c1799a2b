// Owns the words of the configuration reference: what each variable of core/config/env.ts means, grouped for an operator.
// `npm run env-table` renders it, with the defaults read from the schema itself, into docs/operators.md; a test fails
// when that table is stale, when a variable of the schema has no entry here (the type below fails first), or when
// service code reads a variable from process.env that is neither in the schema nor in RAW_VARIABLES.
import { EnvSchema, type Env } from './env'

export interface VariableDoc {
  group: (typeof GROUPS)[number]
  /** What the default means when the schema's own default is not telling (unset values, a path under the checkout). */
  default?: string
  meaning: string
}

export const GROUPS = [
  'Database and files',
  'Where the components listen and find each other',
  'Identity and access',
  'Network policy',
  'Vendors and connectors',
  'Jobs and mail',
  'Release',
  'Logs, errors and metrics',
  'Demo fakes (npm start)',
] as const

export const ENV_DOCS: Record<keyof Env, VariableDoc> = {
  NODE_ENV: { group: 'Database and files', meaning: '`production` turns off every development fallback (see What production needs); `test` is set by the test runner' },
  DATABASE_URL: { group: 'Database and files', default: 'unset: an embedded PostgreSQL', meaning: 'the PostgreSQL to use (15 or later; the role needs CREATEDB for `npm test` and `npm run migrate -- dev`)' },
  DATABASE_STATEMENT_CACHE: { group: 'Database and files', default: '256', meaning: 'how many distinct SQL statements a process keeps prepared on each of its database connections (PostgreSQL then parses each once per connection and reuses its plan); `0` prepares none, which a pooler in transaction mode (PgBouncer before 1.21) needs' },
  DATA_DIR: { group: 'Database and files', default: '`.data` in the checkout', meaning: 'the embedded database and `keys/` (the gateway, edge and run-token key pairs, the inbox-link key, the development keys): share `keys/` between every process of a deployment' },
  EMBEDDED_PG_PORT: { group: 'Database and files', meaning: 'the embedded PostgreSQL\'s port (only when `DATABASE_URL` is unset)' },
  HOST: { group: 'Where the components listen and find each other', meaning: 'the address the subgraphs, the tool server and the worker\'s probes bind to' },
  GATEWAY_HOST: { group: 'Where the components listen and find each other', meaning: 'the address the gateway binds to' },
  GATEWAY_PORT: { group: 'Where the components listen and find each other', meaning: 'the gateway: the console, `/graphql` (HTTP and graphql-ws), GraphiQL, the webhook and REST routes, the probes' },
  CONNECTORS_PORT: { group: 'Where the components listen and find each other', meaning: 'the connectors subgraph (answers the gateway only; never expose it)' },
  WORKBENCH_PORT: { group: 'Where the components listen and find each other', meaning: 'the workbench subgraph' },
  TWINS_PORT: { group: 'Where the components listen and find each other', meaning: 'the twins subgraph' },
  TOOLS_PORT: { group: 'Where the components listen and find each other', meaning: 'the tool server (MCP, `POST /runs/{run_id}/mcp`, run tokens only)' },
  CONNECTORS_URL: { group: 'Where the components listen and find each other', default: 'unset: `http://127.0.0.1:<CONNECTORS_PORT>/graphql`', meaning: 'where a gateway run on its own finds the connectors subgraph (its load balancer)' },
  WORKBENCH_URL: { group: 'Where the components listen and find each other', default: 'unset: `http://127.0.0.1:<WORKBENCH_PORT>/graphql`', meaning: 'where a gateway run on its own finds the workbench subgraph' },
  TWINS_URL: { group: 'Where the components listen and find each other', default: 'unset: `http://127.0.0.1:<TWINS_PORT>/graphql`', meaning: 'where a gateway run on its own finds the twins subgraph' },
  TOOLS_URL: { group: 'Where the components listen and find each other', default: 'unset: `http://127.0.0.1:<TOOLS_PORT>`', meaning: 'where a worker run on its own finds the tool server (its load balancer)' },
  PUBLIC_URL: { group: 'Where the components listen and find each other', default: 'unset: the gateway\'s address', meaning: 'the public origin vendors and browsers reach: connections\' `hookUrl` and canvas launch links start with it; outside production its host is one of the names the gateway answers besides loopback (DNS rebinding, see Security)' },
  CONSOLE_GATEWAY_URL: { group: 'Where the components listen and find each other', default: 'unset: the origin that served the console', meaning: 'the gateway the web console talks to when it is another one (its http(s) origin): served to the page in `/console-config.json` and added to the page\'s CSP `connect-src` with its ws(s) twin; that gateway must allow the console\'s origin (`CORS_ORIGINS`)' },
  AUTH_JWKS_URL: { group: 'Identity and access', default: 'unset: a development key pair under `DATA_DIR/keys` (never in production)', meaning: 'the JWKS of your identity provider, against which callers\' bearer tokens are verified; required in production' },
  AUTH_ISSUER: { group: 'Identity and access', meaning: 'the `iss` callers\' tokens must carry; required in production (start-up stops without it)' },
  AUTH_AUDIENCE: { group: 'Identity and access', meaning: 'the `aud` callers\' tokens must carry' },
  OIDC_ISSUER: { group: 'Identity and access', default: 'unset: no identity-provider sign-in in the console (development: the illustrative people)', meaning: 'the OpenID Connect issuer the console and GraphiQL sign people in with (authorization code with PKCE); its `/.well-known/openid-configuration` is read by the browser, and its origin is added to the pages\' CSP `connect-src`. Set it with `OIDC_CLIENT_ID` (see Identity provider and console sign-in)' },
  OIDC_CLIENT_ID: { group: 'Identity and access', default: 'unset', meaning: 'the client id of the console registered at the identity provider (a public client: no secret)' },
  OIDC_SCOPES: { group: 'Identity and access', meaning: 'the scopes the console asks for (must include `openid`; add `offline_access` where the provider issues refresh tokens to single-page applications, so the console renews the token without a new sign-in)' },
  OIDC_AUDIENCE: { group: 'Identity and access', default: 'unset: nothing sent', meaning: 'sent as `resource` (RFC 8707) on the authorization and token requests, for providers that issue an access token for this API only when asked for it' },
  SIGNATURE_AUTH_MAX_AGE_SECONDS: { group: 'Identity and access', meaning: 'how recent the signer\'s authentication must be for an electronic signature: the access token\'s `auth_time` no older than this, else `fresh_sign_in_required` and the console asks the identity provider for a fresh sign-in (21 CFR 11.200)' },
  RUN_TOKEN_TTL_SECONDS: { group: 'Identity and access', meaning: 'how long a twin run\'s token (worker to tool server) lives' },
  TRUSTED_DOCUMENTS_ONLY: { group: 'Identity and access', meaning: 'the gateway runs only registered operations (trusted documents: the console\'s, registered by `npm run schema` in `console/src/generated/trusted-documents.json`, and those of `TRUSTED_DOCUMENTS_MANIFESTS`), over HTTP and graphql-ws; others answer 400 `OPERATION_NOT_REGISTERED`, except for a person holding `org.settings.update` (organisation owners and administrators: GraphiQL). See Trusted documents' },
  TRUSTED_DOCUMENTS_MANIFESTS: { group: 'Identity and access', default: 'unset', meaning: 'more manifests of registered operations, comma-separated paths of JSON files `{ "<sha256 hex>": "<document>" }` (another client team\'s operations); the gateway refuses to start when one cannot be read' },
  CORS_ORIGINS: { group: 'Identity and access', default: 'unset: outside production `http://localhost`, `http://127.0.0.1` and `http://[::1]` on ports 3000, 5173, 4173, 8080 and `GATEWAY_PORT`; in production none', meaning: 'comma-separated exact browser origins (`https://console.example.org`, no path) allowed to call `/graphql` and the REST routes from another origin and to open graphql-ws sockets; when set it replaces the default in every mode. The gateway\'s own origin and `PUBLIC_URL` are always allowed. Outside production their hosts are also the only names besides loopback the gateway answers (`Host`; DNS rebinding, see Security)' },
  CONNECTION_SECRET_KEY: { group: 'Identity and access', default: 'unset: a development key under `DATA_DIR/keys` (never in production)', meaning: 'AES-256-GCM key for connection credentials, 64 hex characters (`openssl rand -hex 32`); required in production' },
  TRUSTED_PROXIES: { group: 'Network policy', default: 'empty: the TCP peer is the client', meaning: 'addresses / CIDR ranges (IPv4 and IPv6) of proxies in front of the gateway whose `X-Forwarded-For` is believed. Set it to your load balancer\'s range, or every webhook delivery shares the balancer\'s address and its per-source limit' },
  WEBHOOK_ALLOWED_SOURCES: { group: 'Network policy', default: 'empty: any address', meaning: 'addresses / CIDR ranges the vendor sends webhooks from (the vendor publishes them); others get 403 `source_not_allowed` before their body is read' },
  EGRESS_ALLOW: { group: 'Network policy', default: 'unset: `127.0.0.0/8,::1/128,localhost` outside production (the fakes), nothing in production', meaning: 'comma-separated CIDRs, addresses and host names connections may reach although they are private or reserved (on-premises vendors); an empty value refuses loopback in development too' },
  NOTEBOOK_HTTP_TIMEOUT_MS: { group: 'Vendors and connectors', meaning: 'per attempt, calls to the notebook vendor (token, entries, canvases)' },
  LITERATURE_BASE_URL: { group: 'Vendors and connectors', default: 'unset: each source\'s public address', meaning: 'where the literature sources are reached, each under its own path (`/literature-index`, `/doi-registry`, `/citation-graph`, `/fulltext-archive`, `/trial-registry`, `/drug-safety`, `/target-disease`, `/bioactivity`); `npm start` points it at the fake literature sources' },
  LITERATURE_HTTP_TIMEOUT_MS: { group: 'Vendors and connectors', meaning: 'per attempt, calls to the literature sources' },
  PLATFORM_SECRETS_FILE: { group: 'Vendors and connectors', default: 'unset', meaning: 'a JSON file keyed by platform secret path; the literature connector reads `evidence-workspace/<NODE_ENV>/providers/literature_search` from it (see Pointing connections at real vendors)' },
  WORKER_CONCURRENCY: { group: 'Jobs and mail', meaning: 'graphile-worker concurrency per worker process' },
  WORKER_NICE: { group: 'Jobs and mail', meaning: 'the worker process\'s nice value, so job processing on a shared host yields CPU to the webhook ingress (0 keeps normal priority)' },
  SHUTDOWN_GRACE_SECONDS: { group: 'Jobs and mail', meaning: 'on SIGTERM or SIGINT, how long every component lets the work in flight finish: the worker\'s running jobs (then released, so another worker runs them at once) and the requests of the gateway, subgraphs and tool server (then cut); keep it below your orchestrator\'s kill timeout (Kubernetes: 30 s)' },
  SMTP_URL: { group: 'Jobs and mail', default: 'unset: e-mail is held in the outbox', meaning: 'e-mailed notifications are sent over this SMTP server' },
  MAIL_FROM: { group: 'Jobs and mail', meaning: 'the sender of e-mailed notifications' },
  RELEASE: { group: 'Release', meaning: 'the release the service runs as (persona version, kind sets)' },
  R1_GATE_PASSED: { group: 'Release', meaning: 'release flag for the connectors: every connector reads `designed` until the R1 gates pass, then `preview`' },
  R4_GATE_PASSED: { group: 'Release', meaning: 'release flag: R4 items (skills, memory tiers 1 and 2, workbench roles, the evidence panel) read `designed` until the R4 gate list passes, then `preview`' },
  LOG_LEVEL: { group: 'Logs, errors and metrics', meaning: 'threshold of the JSON log lines on stderr (`debug`, `info`, `warn`, `error`, `silent`); secrets are redacted by key name' },
  GRAPHQL_STACK_TRACES: { group: 'Logs, errors and metrics', meaning: 'developer opt-in: stack traces in GraphQL error responses (ignored in production)' },
  FAKE_NOTEBOOK_PORT: { group: 'Demo fakes (npm start)', meaning: 'the fake notebook (outside production)' },
  FAKE_QMS_PORT: { group: 'Demo fakes (npm start)', meaning: 'the fake QMS vault' },
  FAKE_LITERATURE_PORT: { group: 'Demo fakes (npm start)', meaning: 'the fake literature sources' },
  MODEL_PROVIDER: { group: 'Demo fakes (npm start)', default: 'unset: twins run the deterministic harness', meaning: '`fake`: npm start runs the fake model provider and sets the illustrative program\'s twins to the model-backed harness against it (real providers are set with `setTwinModelSettings`, see Model-backed twins)' },
  FAKE_MODEL_PORT: { group: 'Demo fakes (npm start)', meaning: 'the fake model provider (with `MODEL_PROVIDER=fake`)' },
}

/** Variables one component reads straight from process.env (not parsed at start): listed in the same table. */
export const RAW_VARIABLES: Record<string, VariableDoc & { default: string }> = {
  METRICS_ALLOW: { group: 'Logs, errors and metrics', default: '`127.0.0.0/8,::1/128`', meaning: 'addresses / CIDR ranges the gateway answers `/metrics` to (others get 404); read by the gateway' },
  WORKER_METRICS_PORT: { group: 'Logs, errors and metrics', default: 'unset: no listener', meaning: 'the worker\'s `/healthz`, `/readyz` and `/metrics` listener (on `HOST`); read by the worker' },
  // OpenTelemetry's standard variables (core/config/tracing.ts; the SDK reads the others itself: see Observability, Traces)
  OTEL_EXPORTER_OTLP_ENDPOINT: { group: 'Logs, errors and metrics', default: 'unset: no traces', meaning: 'the OTLP collector traces are exported to (`http://collector:4318`); set, every component loads the OpenTelemetry SDK and traces (see Observability); `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` likewise, for traces alone' },
  OTEL_TRACES_EXPORTER: { group: 'Logs, errors and metrics', default: 'unset: `otlp` when an endpoint is set', meaning: '`otlp`, `console` or `zipkin` turn traces on; `none` turns them off' },
  OTEL_SDK_DISABLED: { group: 'Logs, errors and metrics', default: 'unset', meaning: '`true`: no traces, whatever else is set' },
  OTEL_SERVICE_NAME: { group: 'Logs, errors and metrics', default: 'the component: `gateway`, `connectors`, `workbench`, `twins`, `worker`; `evidence-workspace` for npm start', meaning: 'the service name on the traces' },
  OTEL_METRICS_EXPORTER: { group: 'Logs, errors and metrics', default: '`none` (metrics are Prometheus\'s, `/metrics`)', meaning: 'OpenTelemetry metrics export, when traces are on' },
  OTEL_LOGS_EXPORTER: { group: 'Logs, errors and metrics', default: '`none` (logs are JSON lines on stderr)', meaning: 'OpenTelemetry logs export, when traces are on' },
}

export const ENV_TABLE_START = '<!-- env-table:start -->'
export const ENV_TABLE_END = '<!-- env-table:end -->'

const cell = (s: string) => s.replace(/\|/g, '\\|')

/** The schema's default for a variable, as the table shows it (`unset` when it has none). */
function schemaDefault(name: keyof Env): string {
  const value = (EnvSchema.parse({}) as Record<string, unknown>)[name]
  if (value === undefined) return 'unset'
  if (value === '') return 'empty'
  return `\`${String(value)}\``
}

/** The generated configuration reference (between the markers): one table per group, variables in schema order. */
export function renderEnvTable(): string {
  const rows = [
    ...(Object.keys(EnvSchema.shape) as (keyof Env)[]).map((name) => ({ name, doc: ENV_DOCS[name], default: ENV_DOCS[name].default ?? schemaDefault(name) })),
    ...Object.entries(RAW_VARIABLES).map(([name, doc]) => ({ name, doc, default: doc.default })),
  ]
  const lines = [ENV_TABLE_START, '<!-- Generated by `npm run env-table` from core/config/env.ts and core/config/env-docs.ts; edit those, not this section. -->', '']
  for (const group of GROUPS) {
    const inGroup = rows.filter((r) => r.doc.group === group)
    if (!inGroup.length) continue
    lines.push(`#### ${group}`, '', '| variable | default | meaning |', '|---|---|---|')
    for (const r of inGroup) lines.push(`| \`${r.name}\` | ${cell(r.default)} | ${cell(r.doc.meaning)} |`)
    lines.push('')
  }
  lines.push(ENV_TABLE_END)
  return lines.join('\n')
}

/** `doc` with its marked section replaced by `section`; throws when the markers are missing. */
export function replaceEnvTable(doc: string, section: string): string {
  const start = doc.indexOf(ENV_TABLE_START)
  const end = doc.indexOf(ENV_TABLE_END)
  if (start < 0 || end < start) throw new Error(`docs/operators.md has no ${ENV_TABLE_START} … ${ENV_TABLE_END} section`)
  return doc.slice(0, start) + section + doc.slice(end + ENV_TABLE_END.length)
}
