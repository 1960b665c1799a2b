// Owns per-process connector state: one NotebookClient (token cache) and one budget gate per connection, the JWKS
// caches of the webhook ingress, and the IntegrationContext handed to adapters.
import type { Db } from '../../../core/db'
import { env } from '../../../core/env'
import type { Connection } from '../../../generated/prisma/client'
import { DomainError } from '../../../core/errors'
import type { BudgetGate, BudgetState, IntegrationContext } from './adapters/contract'
import { PgBudgetGate } from './budgets'
import { createDocumentIngestor } from './documents'
import { NotebookClient } from './notebook/client'
import { JwksCaches } from './notebook/webhook-signature'
import { providerSpec } from './providers'
import { decryptSecrets, type ConnectionSecrets } from './secrets'

interface Entry {
  fingerprint: string
  client: NotebookClient
  gate: BudgetGate
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

/** How long the ingress trusts its cached view of a connection (status, vendor app) from another process's change. */
export const WEBHOOK_VIEW_TTL_MS = 5_000

class ConnectorRuntime {
  /** Keys for webhook verification, per (vendor base URL, app definition), fetched at most every 6 h. */
  readonly jwks = new JwksCaches()
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
    this.entries.delete(connectionId)
    this.webhookViews.delete(connectionId)
  }

  /**
   * The few fields the webhook ingress needs, cached for WEBHOOK_VIEW_TTL_MS: one database round trip less per delivery.
   * This process's own changes (update, credentials, disconnect) drop the entry at once; another replica's are seen
   * within the TTL, and the worker re-reads the connection before doing anything.
   */
  async webhookView<T extends { id: string }>(id: string, load: (id: string) => Promise<T | null>): Promise<T | null> {
    const hit = this.webhookViews.get(id)
    const now = Date.now()
    if (hit && hit.until > now) return hit.view as T | null
    const view = await load(id)
    this.webhookViews.set(id, { view, until: now + WEBHOOK_VIEW_TTL_MS })
    if (this.webhookViews.size > 10_000) this.webhookViews.delete(this.webhookViews.keys().next().value!)
    return view
  }
  private readonly webhookViews = new Map<string, { view: unknown; until: number }>()

  private fingerprint(c: Connection): string {
    return [c.baseUrl, c.secretsKeyId, c.secretsUpdatedAt?.toISOString(), c.apiVersion].join('|')
  }

  private entry(db: Db, c: Connection): Entry {
    const fp = this.fingerprint(c)
    const cached = this.entries.get(c.id)
    if (cached && cached.fingerprint === fp) return cached
    const spec = providerSpec(c.providerId)
    const gate = spec?.budget
      ? new PgBudgetGate(db, { providerId: c.providerId, organizationId: c.organizationId, connectionId: c.id, spec: spec.budget, clock: () => this.clock() })
      : unmetered
    const creds = credentialsOf(c)
    const client = new NotebookClient({
      baseUrl: c.baseUrl ?? 'http://invalid.invalid',
      clientId: creds?.clientId ?? '',
      clientSecret: creds?.clientSecret ?? '',
      source: c.providerId,
      clock: () => this.clock(),
      timeoutMs: env().NOTEBOOK_HTTP_TIMEOUT_MS,
      beforeRequest: () => gate.take(),
      onRateHeaders: (h) => gate.observe(h),
    })
    const entry = { fingerprint: fp, client, gate }
    this.entries.set(c.id, entry)
    return entry
  }

  /** Seconds this process already knows a connection's budget refuses for (0 when unknown or open). */
  knownRefusal(connectionId: string): number {
    return this.entries.get(connectionId)?.gate.refusedFor() ?? 0
  }

  notebookClient(db: Db, c: Connection): NotebookClient {
    if (!c.baseUrl) throw new DomainError('connection_not_ready', 'The connection has no vendor base URL yet.', { field: 'baseUrl' })
    if (!c.secretsCiphertext) throw new DomainError('credentials_missing', 'Store the client id and secret first (onboarding step d).')
    return this.entry(db, c).client
  }

  context(db: Db, c: Connection): IntegrationContext {
    const spec = providerSpec(c.providerId)
    if (!spec) throw new DomainError('unknown_provider', `Provider ${c.providerId} is not in the registry.`)
    return {
      db,
      connection: c,
      spec,
      budget: this.entry(db, c).gate,
      documents: createDocumentIngestor({ organizationId: c.organizationId, programId: c.programId }),
      credentials: () => {
        const creds = credentialsOf(c)
        if (!creds) throw new DomainError('credentials_missing', 'Store the client id and secret first (onboarding step d).')
        return creds
      },
      now: () => new Date(this.clock()),
    }
  }
}

function credentialsOf(c: Connection): ConnectionSecrets | null {
  return c.secretsCiphertext ? decryptSecrets(c.id, c.secretsCiphertext, c.secretsKeyId) : null
}

/** The process's runtime (token caches live as long as the process). */
export const connectorRuntime = new ConnectorRuntime()
