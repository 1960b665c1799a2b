// Owns per-process connector state: one budget gate and one provider API client (token cache) per connection, built
// by the connection's adapter from the registry, and the IntegrationContext handed to adapters. Imports no provider.
import { forOrganization, type Db } from '../../core/database'
import { egressAgents } from '../../core/http'
import { env } from '../../core/config'
import type { Connection } from '../../generated/prisma/client'
import { DomainError } from '../../core/errors'
import { adapterFor } from '../adapters'
import type { BudgetGate, BudgetState, IntegrationContext } from '../adapters'
import type { VendorHttpOptions } from '../adapters'
import { forgetConnection, onConnectionForgotten } from '../adapters'
import { PgBudgetGate } from '../budgets'
import { createDocumentIngestor } from '../documents'
import { providerSpec } from '../adapters'
import { decryptSecrets, type ConnectionSecrets } from '../adapters'
import { boundedCache } from '../../core/config'

interface Entry {
  fingerprint: string
  gate: BudgetGate
  /** The provider's auth endpoint window (QMS), when it has one. */
  authGate?: BudgetGate
  /** Built on first use by the adapter's createClient (undefined until then; null when the provider has none). */
  client?: unknown
}

/** A gate for providers without a budget of their own (their operations are NotSupported today). */
const unmetered: BudgetGate = {
  source: 'unmetered',
  take: async () => {},
  refusedFor: () => 0,
  observe: () => {},
  backOff: async () => {},
  flush: async () => {},
  state: async (): Promise<BudgetState[]> => [],
}

/** A connection of a provider no longer in the registry gets no client (client() refuses it); this only types the fallback. */
const DEFAULT_HTTP_TIMEOUT_MS = 10_000

/** How long the ingress trusts its cached view of a connection (status, vendor app) from another process's change. */
export const WEBHOOK_VIEW_TTL_MS = 5_000

class ConnectorRuntime {
  private readonly entries = new Map<string, Entry>()
  private clock: () => number = Date.now

  /** Tests move time (token refresh, budget windows). */
  setClock(clock: () => number) {
    this.clock = clock
    this.entries.clear()
  }

  now(): number {
    return this.clock()
  }

  /** Forgets a connection's client, token and cached webhook view (credentials, base URL or status changed). */
  forget(connectionId: string) {
    forgetConnection(connectionId)
  }

  constructor() {
    // An adapter (disconnect) or this runtime's own callers say a connection changed: drop everything cached for it.
    onConnectionForgotten((connectionId) => {
      this.entries.delete(connectionId)
      this.webhookViews.delete(connectionId)
    })
  }

  /**
   * HTTP settings every provider client gets: source, clock, timeout, the budget draw before each attempt and the rate
   * headers fed back to the budget. Egress policy (a DNS lookup refusing private addresses, an agent) belongs here too:
   * VendorHttpClient applies `dnsLookup` / `agent` to every request and download.
   */
  private httpOptions(c: Connection, gate: BudgetGate): Omit<VendorHttpOptions, 'baseUrl'> {
    // A vendor whose headers carry no reset (the QMS burst window) has its remainder held for the documented window.
    const spec = providerSpec(c.providerId)
    const names = spec?.budget?.headers
    return {
      source: c.providerId,
      clock: () => this.clock(),
      timeoutMs: spec ? env()[spec.settings.httpTimeout] : DEFAULT_HTTP_TIMEOUT_MS,
      beforeRequest: () => gate.take(),
      onRateHeaders: (h) => gate.observe(names && h.resetSeconds === null ? { ...h, resetSeconds: names.windowSeconds } : h),
      ...(names ? { rateHeaderNames: { limit: names.limit, remaining: names.remaining, reset: names.reset } } : {}),
      agent: egressAgents(), // private and reserved addresses are refused at connect time (core/http/egress.ts)
    }
  }

  /**
   * The few fields the webhook ingress needs, cached for WEBHOOK_VIEW_TTL_MS: one database round trip less per delivery.
   * This process's own changes (update, credentials, disconnect) drop the entry at once; another replica's are seen
   * within the TTL, and the worker re-reads the connection before doing anything.
   */
  async webhookView<T extends { id: string }>(id: string, load: (id: string) => Promise<T | null>): Promise<T | null> {
    const hit = this.webhookViews.get(id)
    if (hit) return hit.view as T | null
    const view = await load(id)
    this.webhookViews.set(id, { view })
    return view
  }
  // A connection's view for the webhook route, for WEBHOOK_VIEW_TTL_MS; boxed, so a missing connection (null) is cached too.
  private readonly webhookViews = boundedCache<string, { view: unknown }>({ max: 10_000, ttlMs: WEBHOOK_VIEW_TTL_MS })

  private fingerprint(c: Connection): string {
    // The client-facing provider settings (the QMS client id header) rebuild the client too; other settings do not.
    const ps = (c.providerSettings ?? {}) as { client_id?: string; client_id_header?: string }
    return [c.baseUrl, c.secretsKeyId, c.secretsUpdatedAt?.toISOString(), c.apiVersion, ps.client_id, ps.client_id_header].join('|')
  }

  private entry(db: Db, c: Connection): Entry {
    const fp = this.fingerprint(c)
    const cached = this.entries.get(c.id)
    if (cached && cached.fingerprint === fp) return cached
    const spec = providerSpec(c.providerId)
    const gate = spec?.budget
      ? new PgBudgetGate(db, { providerId: c.providerId, organizationId: c.organizationId, connectionId: c.id, spec: spec.budget, clock: () => this.clock() })
      : unmetered
    const auth = spec?.budget?.auth
    const authGate = auth
      ? new PgBudgetGate(db, { providerId: `${c.providerId}.auth`, source: `${c.providerId} auth`, organizationId: c.organizationId, connectionId: c.id,
        spec: { connectionLimit: auth.limit, organizationLimit: null, windowSeconds: auth.windowSeconds }, clock: () => this.clock() })
      : undefined
    const entry: Entry = { fingerprint: fp, gate, authGate }
    this.entries.set(c.id, entry)
    return entry
  }

  /** Seconds this process already knows a connection's budget refuses for (0 when unknown or open). */
  knownRefusal(connectionId: string): number {
    return this.entries.get(connectionId)?.gate.refusedFor() ?? 0
  }

  /** The connection's provider API client, built once by its adapter (token cache lives as long as the entry). */
  client(db: Db, c: Connection): unknown {
    if (!c.baseUrl) throw new DomainError('connection_not_ready', 'The connection has no vendor base URL yet.', { field: 'baseUrl' })
    const credentials = credentialsOf(c)
    if (!credentials) throw new DomainError('credentials_missing', 'Store the client id and secret first (onboarding step d).')
    const entry = this.entry(db, c)
    if (entry.client === undefined) {
      const adapter = adapterFor(c.providerId)
      if (!adapter) throw new DomainError('unknown_provider', `Provider ${c.providerId} is not in the registry.`)
      entry.client = adapter.createClient({ connection: c, credentials, http: { ...this.httpOptions(c, entry.gate), baseUrl: c.baseUrl }, authGate: entry.authGate, budget: entry.gate })
    }
    return entry.client
  }

  context(db: Db, c: Connection): IntegrationContext {
    const spec = providerSpec(c.providerId)
    if (!spec) throw new DomainError('unknown_provider', `Provider ${c.providerId} is not in the registry.`)
    return {
      db,
      tdb: forOrganization(db, c.organizationId),
      connection: c,
      spec,
      budget: this.entry(db, c).gate,
      documents: createDocumentIngestor({ organizationId: c.organizationId, programId: c.programId }),
      credentials: () => {
        const creds = credentialsOf(c)
        if (!creds) throw new DomainError('credentials_missing', 'Store the client id and secret first (onboarding step d).')
        return creds
      },
      client: () => this.client(db, c),
      now: () => new Date(this.clock()),
    }
  }
}

function credentialsOf(c: Connection): ConnectionSecrets | null {
  return c.secretsCiphertext ? decryptSecrets(c.id, c.secretsCiphertext, c.secretsKeyId) : null
}

/** The process's runtime (token caches live as long as the process). */
export const connectorRuntime = new ConnectorRuntime()
