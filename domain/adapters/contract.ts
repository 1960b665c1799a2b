// Owns the adapter contract every provider implements (connector specification, Adapter contract), with NotSupported
// as the default for every operation; the IntegrationContext handed to adapters (budget gate, document ingestor, the
// provider's API client); rate-limit header parsing and the webhook verification types. Imports no provider.
import type { Db, AnyTx, TenantDb } from '../../core/database'
import { enqueue } from '../../core/jobs'
import type { Connection, WebhookDelivery } from '../../generated/prisma/client'
import type { ProviderSpec } from './providers'
import type { ConnectionSecrets } from './secrets'
import type { VendorHttpOptions } from './http'
import { NotSupported, RateLimited } from './errors'

export { NotSupported }

export { ADAPTER_OPERATIONS, type AdapterOperation } from './operations'
import type { AdapterOperation } from './operations'

// ---------------------------------------------------------------------------------------------------------------
// Rate-limit headers

export { DEFAULT_RATE_HEADER_NAMES, intHeader, readRateHeaders, type RateHeaderNames, type RateHeaders } from './rate-headers'
import type { RateHeaders } from './rate-headers'

// ---------------------------------------------------------------------------------------------------------------
// Webhook verification (the shapes every provider's verifier answers; the notebook's ECDSA/JWKS verifier is one)

/** A connection's scope_rules (connector specification): only what they name is synced, whatever the vendor token reads. */
export interface ScopeRules {
  project_ids: string[]
  document_types: string[]
}

export function readScopeRules(raw: unknown): ScopeRules {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
  return { project_ids: list(r.project_ids), document_types: list(r.document_types) }
}

export type HeaderBag =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>

export type WebhookRejectReason =
  | 'missing_headers'
  | 'malformed_headers'
  | 'stale_timestamp'
  | 'bad_signature'
  /** The verification keys could not be fetched: not the sender's fault; answer 503 so the vendor retries. */
  | 'jwks_unavailable'

export type VerifyResult =
  | { ok: true; deliveryId: string; timestamp: number; kid: string | null }
  /** retryAfterSeconds: for jwks_unavailable, when a retry will not meet the key fetch's back-off (the Retry-After). */
  | { ok: false; reason: WebhookRejectReason; deliveryId?: string; retryAfterSeconds?: number }

// ---------------------------------------------------------------------------------------------------------------
// IntegrationContext

export interface BudgetState {
  scope: 'platform' | 'organization' | 'connection'
  limitPerWindow: number
  windowSeconds: number
  used: number
  windowStartedAt: Date
  remoteLimit: number | null
  remoteRemaining: number | null
  remoteResetAt: Date | null
}

/**
 * Every outbound request draws from the budgets that apply (connection within organisation, or platform). `take`
 * throws a typed RateLimited ("budget exhausted for source X, retry after N s") instead of waiting.
 */
export interface BudgetGate {
  readonly source: string
  take(requests?: number): Promise<void>
  /** Seconds this process already knows the budget refuses for (from an earlier refusal or a 429), else 0. */
  refusedFor(): number
  /** The vendor's x-rate-limit-* headers of an answer (adaptive throttling). */
  observe(headers: RateHeaders): void
  /** The vendor answered 429: nothing more is sent before `retryAfterSeconds`. */
  backOff(retryAfterSeconds: number): Promise<void>
  /** Waits for pending header updates (observe is fire-and-forget). */
  flush(): Promise<void>
  state(): Promise<BudgetState[]>
}

export interface SourceInput {
  connectionId: string
  connectorObjectId: string
  sourceType: 'eln_entry' | string
  sourceSystem: string
  externalId: string
  title: string
  url: string | null
  targetRef: string
  externalVersion: string
  linkedEntities: string[]
  document: { classification: 'customer_internal' | string; title: string; text: string; contentJson: unknown; contentHash: string }
  /** Creates or keeps the experiment whose eln_source_id points to this source. */
  experiment?: { title: string }
}

export interface AttachmentInput {
  connectionId: string
  sourceId: string
  externalId: string
  entryExternalId: string
  name: string
  mimeType: string | null
  sizeBytes: number
  sha256: string | null
  fetchable: boolean
}

/** Writes what an adapter brought in as the service's own records (sources, documents, experiments, attachments). */
export interface DocumentIngestor {
  upsertSource(tx: AnyTx, input: SourceInput): Promise<{ sourceId: string; documentId: string; experimentId: string | null; created: boolean }>
  upsertAttachment(tx: AnyTx, input: AttachmentInput): Promise<{ attachmentId: string }>
}

export interface IntegrationContext {
  /** The unscoped client, for what takes one (budget gates, raw SQL modules); model reads and writes go through tdb. */
  db: Db
  /** The connection's organisation's client (forOrganization): every tenant model query is filtered to it. */
  tdb: TenantDb
  connection: Connection
  spec: ProviderSpec
  budget: BudgetGate
  documents: DocumentIngestor
  /** Decrypted client credentials; throws when none are stored. Never log the result. */
  credentials(): ConnectionSecrets
  /**
   * The provider's API client for this connection, built once by the adapter's createClient and kept by the runtime
   * (token cache) until the connection's base URL, credentials or API version change. Throws connection_not_ready or
   * credentials_missing when the connection cannot call its vendor yet.
   */
  client(): unknown
  now(): Date
}

/** What the runtime hands an adapter's createClient: the connection, its credentials and the generic HTTP settings. */
export interface ClientInput {
  connection: Connection
  credentials: ConnectionSecrets
  /** Source name, clock, timeout, budget draw before every attempt, rate headers to the budget, egress policy. */
  http: Omit<VendorHttpOptions, 'baseUrl'> & { baseUrl: string }
  /** The auth endpoint's own window (QMS: one minute), when the provider's budget names one. */
  authGate?: BudgetGate
  /** The connection's budget gate, for clients that draw several requests at a time (http.beforeRequest draws one). */
  budget?: BudgetGate
}

// ---------------------------------------------------------------------------------------------------------------
// Operation shapes

export interface HealthCheckItem {
  name: string
  ok: boolean
  detail: string
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'failing'
  checkedAt: string
  checks: HealthCheckItem[]
}

export interface SyncReport {
  mode: 'full' | 'incremental'
  seen: number
  created: number
  updated: number
  unchanged: number
  outOfScope: number
  deleted: number
  cursor: string | null
}

export interface ConnectPlan {
  /** The inbound address to register with the vendor (null when the provider sends no events). */
  hookUrl: string | null
  /** What the partner admin creates the vendor app from (notebook: the manifest with the canvas feature). */
  manifest: Record<string, unknown> | null
}

export interface HandleResult {
  /** Short machine-readable outcome stored on the delivery (created, updated, unchanged, coalesced, canvas_rendered, ...). */
  result: string
}

/** What webhook verification needs to know of a connection (the ingress reads only this on its hot path). */
export type WebhookConnection = Pick<Connection, 'id' | 'providerId' | 'baseUrl' | 'appDefinitionId'>

export interface InboundWebhook {
  headers: HeaderBag
  rawBody: Buffer
  now?: number
}

export interface ChangedObject {
  externalType: string
  externalId: string
  modifiedAt: string
}

/** A failure as stored text (a delivery's last_error, a sync's health): name and message, bounded; never a secret. */
export function failureText(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`.slice(0, 500)
  return 'unexpected failure'
}

/** A connection's health document (connections.health): status, checked_at, last_error, last_sync, checks, ... */
export type ConnectionHealth = Record<string, unknown>

/** What the sync module (domain/sync.ts) tells the sync hooks of the sync at hand. */
export interface SyncRun {
  mode: 'full' | 'incremental'
  at: Date
}

/** What npm start hands a provider's demo hook (outside production): the illustrative program and its owner. */
export interface DemoContext {
  db: Db
  programId: string
  ownerUserId: string
  /** Where vendors reach the webhook ingress (the hook URL the fake is told). */
  gatewayUrl: string
}

/** A fake vendor a demo hook started: named in npm start's address list, stopped with the stack. */
export interface DemoService {
  name: string
  url: string
  /** Said after the address (illustrative; the connection it serves). */
  note: string
  close(): Promise<unknown>
}

export interface ConnectorAdapter {
  readonly spec: ProviderSpec
  describe(): ProviderSpec
  /** Builds the provider's API client over the shared VendorHttpClient (the runtime caches it per connection). */
  createClient(input: ClientInput): unknown
  /**
   * Hook: settles a stored delivery without loading it when the provider knows it is already covered (notebook: the
   * entry was fetched after the delivery arrived). One statement; false when the delivery needs the full path.
   */
  coalesceDelivery(db: Db, deliveryRowId: string): Promise<boolean>
  /** Hook: whether a webhook event type is one the provider processes (others are stored as ignored, answered 200). */
  knowsEvent(eventType: string): boolean
  /**
   * Hook: the cheap, body-free part of webhook verification (headers present and well-formed, timestamp fresh). The
   * ingress uses it to refuse a source that is over its limit without reading the body; false for providers without webhooks.
   */
  checkWebhookHeaders(headers: HeaderBag): { ok: boolean }
  // Sync hooks (domain/sync.ts runs every sync; these carry a provider's own rules).
  /** Hook: why a connection is not synced now (QMS: no credentials stored yet), or null. Nothing is written when skipped. */
  syncSkipReason(connection: Connection): string | null
  /** Hook: the health check runs before a connection's first sync and a failing check skips the sync (QMS: the R1c gate). */
  readonly healthCheckBeforeFirstSync: boolean
  /**
   * Hook: connection.health after a sync that succeeded, and the cursor to store (undefined: the adapter stores its own
   * cursor as it goes, QMS's watermark page by page).
   */
  syncedHealth(ctx: IntegrationContext, report: SyncReport, previous: ConnectionHealth, run: SyncRun): Promise<{ health: ConnectionHealth; cursor?: string | null }>
  /** Hook: connection.health after a sync that failed, and the failure's words (never a secret). */
  failedSyncHealth(error: unknown, previous: ConnectionHealth, run: SyncRun): { health: ConnectionHealth; error: string }
  /** Hook: queues the sync again at runAt after a budget refusal (default: the connector_sync job, keyed per connection). */
  rescheduleSync(db: Db, connectionId: string, mode: 'full' | 'incremental', runAt: Date): Promise<void>
  /**
   * Hook: what a failure other than a budget refusal does: throw (the job fails and graphile-worker retries it with
   * back-off) or record (health says it; the provider's next scheduled run retries).
   */
  readonly syncFailures: 'throw' | 'record'
  /**
   * Hook (npm start, outside production): a demo of the provider that needs no fake; null when it has none. The
   * providers with a fake vendor have their demo in fakes/demos.ts (which starts the fake and connects the illustrative
   * program): the domain imports no fake.
   */
  startDemo(ctx: DemoContext): Promise<DemoService | null>
  beginConnect(ctx: { connection: Connection; hookUrl: string | null }): Promise<ConnectPlan>
  completeConnect(ctx: { connection: Connection }, credentials: ConnectionSecrets): Promise<void>
  healthCheck(ctx: IntegrationContext): Promise<HealthReport>
  sync(ctx: IntegrationContext, options: { mode: 'full' | 'incremental' }): Promise<SyncReport>
  handleWebhook(ctx: IntegrationContext, delivery: WebhookDelivery): Promise<HandleResult>
  disconnect(ctx: { connection: Connection }): Promise<void>
  verifyWebhook(ctx: { connection: WebhookConnection }, input: InboundWebhook): Promise<VerifyResult>
  listChanges(ctx: IntegrationContext, since: string | null): AsyncIterable<ChangedObject>
  fetchObject(ctx: IntegrationContext, ref: { externalType: string; externalId: string }): Promise<unknown>
  search(ctx: IntegrationContext, query: { text: string; limit?: number }): Promise<unknown[]>
  renderLaunch(ctx: IntegrationContext, input: { canvasId: string; entryId: string; launchUrl?: string | null }): Promise<unknown>
  budget(ctx: IntegrationContext): Promise<BudgetState[]>
}

/** Every operation raises NotSupported until a provider overrides it; describe returns the spec. */
export abstract class BaseAdapter implements ConnectorAdapter {
  constructor(readonly spec: ProviderSpec) {}
  protected unsupported(operation: AdapterOperation): never {
    throw new NotSupported(this.spec.id, operation)
  }
  describe(): ProviderSpec {
    return this.spec
  }
  /** Null: the provider has no API client yet (its operations are NotSupported). */
  createClient(_input: ClientInput): unknown { return null }
  async coalesceDelivery(_db: Db, _deliveryRowId: string): Promise<boolean> { return false }
  knowsEvent(_eventType: string): boolean { return false }
  checkWebhookHeaders(_headers: HeaderBag): { ok: boolean } { return { ok: false } }
  syncSkipReason(_connection: Connection): string | null { return null }
  readonly healthCheckBeforeFirstSync: boolean = false
  readonly syncFailures: 'throw' | 'record' = 'throw'
  /** A degraded connection stays degraded (its health check said why); otherwise ok, with the sync's report. */
  async syncedHealth(_ctx: IntegrationContext, report: SyncReport, previous: ConnectionHealth, { at }: SyncRun): Promise<{ health: ConnectionHealth; cursor?: string | null }> {
    return {
      health: { ...previous, status: previous.status === 'degraded' ? 'degraded' : 'ok', checked_at: at.toISOString(), last_error: null, last_sync: { ...report, at: at.toISOString() } },
      cursor: report.cursor,
    }
  }
  /** A budget refusal keeps the status (the retry is queued); anything else makes the connection failing. */
  failedSyncHealth(error: unknown, previous: ConnectionHealth, { at }: SyncRun): { health: ConnectionHealth; error: string } {
    const text = failureText(error)
    return { health: { ...previous, status: error instanceof RateLimited ? (previous.status ?? 'unknown') : 'failing', checked_at: at.toISOString(), last_error: text }, error: text }
  }
  async rescheduleSync(db: Db, connectionId: string, mode: 'full' | 'incremental', runAt: Date): Promise<void> {
    await enqueue(db, 'connector_sync', { connectionId, mode }, { runAt, jobKey: `connector_sync:${connectionId}` })
  }
  async startDemo(_ctx: DemoContext): Promise<DemoService | null> { return null }
  async beginConnect(_ctx: { connection: Connection; hookUrl: string | null }): Promise<ConnectPlan> { return this.unsupported('begin_connect') }
  async completeConnect(_ctx: { connection: Connection }, _credentials: ConnectionSecrets): Promise<void> { return this.unsupported('complete_connect') }
  async healthCheck(_ctx: IntegrationContext): Promise<HealthReport> { return this.unsupported('health_check') }
  async sync(_ctx: IntegrationContext, _options: { mode: 'full' | 'incremental' }): Promise<SyncReport> { return this.unsupported('sync') }
  async handleWebhook(_ctx: IntegrationContext, _delivery: WebhookDelivery): Promise<HandleResult> { return this.unsupported('handle_webhook') }
  async disconnect(_ctx: { connection: Connection }): Promise<void> { return this.unsupported('disconnect') }
  async verifyWebhook(_ctx: { connection: WebhookConnection }, _input: InboundWebhook): Promise<VerifyResult> { return this.unsupported('verify_webhook') }
  listChanges(_ctx: IntegrationContext, _since: string | null): AsyncIterable<ChangedObject> { return this.unsupported('list_changes') }
  async fetchObject(_ctx: IntegrationContext, _ref: { externalType: string; externalId: string }): Promise<unknown> { return this.unsupported('fetch_object') }
  async search(_ctx: IntegrationContext, _query: { text: string; limit?: number }): Promise<unknown[]> { return this.unsupported('search') }
  async renderLaunch(_ctx: IntegrationContext, _input: { canvasId: string; entryId: string; launchUrl?: string | null }): Promise<unknown> { return this.unsupported('render_launch') }
  async budget(_ctx: IntegrationContext): Promise<BudgetState[]> { return this.unsupported('budget') }
}
