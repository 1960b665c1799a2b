// Owns the notebook (eln_provider) adapter: onboarding manifest, health check, sync, webhook verification and handling
// (entry pointers re-fetched, canvas prompt and launch), on-demand attachment bytes and budgets.
//
// Webhook messages are pointers only: every handler re-fetches the canonical object from the vendor. A delivery received
// before the stored version was fetched is already covered and is marked "coalesced" without another vendor call.
import { randomUUID } from 'node:crypto'
import type { Connection, WebhookDelivery } from '../../generated/prisma/client'
import { transactionFor, type Db } from '../../core/database'
import { CONNECTORS } from '../../core/text'
import { DomainError } from '../../core/errors'
import {
  BaseAdapter, type BudgetState, type ChangedObject, type ClientInput, type ConnectPlan, type HandleResult, type HealthCheckItem,
  type HeaderBag, type HealthReport, type InboundWebhook, type IntegrationContext, type SyncReport, type VerifyResult, type WebhookConnection,
} from '../adapters'
import { VendorAuthFailed, VendorError, VendorNotFound } from '../adapters'
import { forgetConnection } from '../adapters'
import { providerSpec } from '../adapters'
import type { ConnectionSecrets } from '../adapters'
import { launchUrlFor } from '../adapters'
import { createLaunch } from './launch'
import { markDeliveryProcessed } from '../webhooks'
import { PROVIDER_ID, type NotebookEntry } from './canonical'
import { coalesceCoveredDeliveryAcrossOrganisations, databaseNow } from './sql'
import { NotebookClient } from './client'
import { JwksCaches, checkWebhookHeaders, verifyWebhook } from './webhook-signature'
import { ENTRY, readScopeRules, recordEntry, recordEntryGone, type EntryOutcome } from './sync'

export const ENTRY_EVENTS = ['v2.entry.created', 'v2.entry.updated.fields', 'v2.entry.updated.reviewRecord'] as const
export const CANVAS_EVENTS = ['v2.canvas.created', 'v2.canvas.initialized', 'v2.canvas.userInteracted'] as const
export const KNOWN_EVENTS: ReadonlySet<string> = new Set([...ENTRY_EVENTS, ...CANVAS_EVENTS])
export const SUPPORTED_API_VERSION = 'v2'
/** The canvas button that carries the prompt; a click on it creates a launch id. */
export const CHECK_BUTTON_ID = 'ew_check_against_sop'
export const OPEN_LINK_BLOCK_ID = 'ew_open_in_service'
export const CANVAS_FEATURE = { id: 'sop_check', name: 'SOP check' }

interface Message {
  type: string
  resourceId?: unknown
  canvasId?: unknown
  featureId?: unknown
  buttonId?: unknown
  userId?: unknown
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null)

export function promptBlocks(launchUrl?: string | null): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [{ type: 'BUTTON', id: CHECK_BUTTON_ID, text: CONNECTORS.checkAgainstEffectiveSop }]
  if (launchUrl) blocks.push({ type: 'MARKDOWN', id: OPEN_LINK_BLOCK_ID, value: `[${CONNECTORS.openInTheService}](${launchUrl})` })
  return blocks
}

function canvasData(connectionId: string, entryId: string, launchId?: string): string {
  return JSON.stringify({ v: 1, service: 'evidence-workspace', connection: connectionId, entry: entryId, ...(launchId ? { launch: launchId } : {}) })
}

/** The database's clock (the one received_at uses), so coalescing never depends on two machines agreeing. */
async function dbNow(db: Db): Promise<Date> {
  return databaseNow(db)
}

export class NotebookAdapter extends BaseAdapter {
  /** Keys for webhook verification, per (vendor base URL, app definition), fetched at most every 6 h, for the process. */
  readonly jwks = new JwksCaches()

  constructor() {
    super(providerSpec('eln_provider')!)
  }

  override createClient({ credentials, http }: ClientInput): NotebookClient {
    return new NotebookClient({ ...http, clientId: credentials.clientId, clientSecret: credentials.clientSecret })
  }

  private client(ctx: IntegrationContext): NotebookClient {
    return ctx.client() as NotebookClient
  }

  /** An entry event whose entry was fetched after the delivery arrived is settled in one statement. */
  override checkWebhookHeaders(headers: HeaderBag): { ok: boolean } {
    return checkWebhookHeaders(headers)
  }

  override knowsEvent(eventType: string): boolean {
    return KNOWN_EVENTS.has(eventType)
  }

  override coalesceDelivery(db: Db, deliveryRowId: string): Promise<boolean> {
    return coalesceCoveredDelivery(db, deliveryRowId)
  }

  private assertApiVersion(connection: Connection) {
    if (connection.apiVersion !== SUPPORTED_API_VERSION) {
      throw new DomainError('unsupported_api_version', `The notebook connector reads the v2 entry shape (days[].notes[]); api_version ${connection.apiVersion} is pinned.`, { field: 'apiVersion' })
    }
  }

  override async beginConnect(ctx: { connection: Connection; hookUrl: string | null }): Promise<ConnectPlan> {
    return {
      hookUrl: ctx.hookUrl,
      manifest: {
        manifestVersion: 1,
        info: { name: 'Evidence workspace', description: 'Read-only: checks notebook entries against the effective SOP.', version: '1.0.0' },
        settings: { lifecycleManagement: 'AUTOMATIC', webhookUrl: ctx.hookUrl },
        configuration: [],
        features: [{ name: CANVAS_FEATURE.name, id: CANVAS_FEATURE.id, type: 'CANVAS' }],
        subscriptions: { deliveryMethod: 'WEBHOOK', messages: [...CANVAS_EVENTS, ...ENTRY_EVENTS].map((type) => ({ type })) },
      },
    }
  }

  override async completeConnect(_ctx: { connection: Connection }, credentials: ConnectionSecrets): Promise<void> {
    // Messages never repeat the values.
    if (!credentials.clientId || credentials.clientId.length > 256) throw new DomainError('invalid_input', 'clientId: between 1 and 256 characters', { field: 'clientId' })
    if (!credentials.clientSecret || credentials.clientSecret.length > 1024) throw new DomainError('invalid_input', 'clientSecret: between 1 and 1024 characters', { field: 'clientSecret' })
  }

  /** Nothing to revoke at the vendor (the partner admin removes the app); the runtime drops the client and token. */
  override async disconnect(ctx: { connection: Connection }): Promise<void> {
    forgetConnection(ctx.connection.id)
  }

  override async verifyWebhook(ctx: { connection: WebhookConnection }, input: InboundWebhook): Promise<VerifyResult> {
    const { baseUrl, appDefinitionId } = ctx.connection
    if (!baseUrl || !appDefinitionId) return { ok: false, reason: 'jwks_unavailable' }
    return verifyWebhook({ headers: input.headers, rawBody: input.rawBody, jwks: this.jwks.forApp(baseUrl, appDefinitionId), now: input.now })
  }

  override async healthCheck(ctx: IntegrationContext): Promise<HealthReport> {
    const checks: HealthCheckItem[] = []
    const c = ctx.connection
    checks.push(c.apiVersion === SUPPORTED_API_VERSION
      ? { name: 'api_version', ok: true, detail: `pinned ${c.apiVersion}` }
      : { name: 'api_version', ok: false, detail: `api_version ${c.apiVersion} is pinned; this connector reads v2` })
    const rules = readScopeRules(c.scopeRules)
    checks.push({ name: 'scope_rules', ok: rules.project_ids.length > 0, detail: rules.project_ids.length ? `${rules.project_ids.length} mapped project(s)` : 'no project is mapped: nothing would be synced' })
    let credentialsOk = false
    try {
      const client = this.client(ctx)
      await client.checkCredentials()
      credentialsOk = true
      checks.push({ name: 'credentials', ok: true, detail: 'the token endpoint accepted the client credentials' })
      const page = await client.listEntries({ pageSize: 1 })
      checks.push({ name: 'entries', ok: true, detail: `entries readable (${page.entries.length ? 'at least one' : 'none yet'})` })
    } catch (e) {
      const detail = e instanceof VendorAuthFailed ? 'the vendor refused the client credentials'
        : e instanceof VendorError || e instanceof DomainError ? e.message : 'unexpected failure'
      checks.push({ name: credentialsOk ? 'entries' : 'credentials', ok: false, detail })
    }
    if (c.baseUrl && c.appDefinitionId) {
      try {
        const keys = await this.jwks.forApp(c.baseUrl, c.appDefinitionId).getKeys()
        checks.push({ name: 'webhook_keys', ok: keys.length > 0, detail: `${keys.length} signing key(s) published for app definition ${c.appDefinitionId}` })
      } catch {
        checks.push({ name: 'webhook_keys', ok: false, detail: `the signing keys of app definition ${c.appDefinitionId} could not be fetched` })
      }
    } else {
      checks.push({ name: 'webhook_keys', ok: false, detail: 'no app definition id yet (onboarding step c)' })
    }
    await ctx.budget.flush()
    const status = !credentialsOk ? 'failing' : checks.every((k) => k.ok) ? 'ok' : 'degraded'
    return { status, checkedAt: new Date().toISOString(), checks }
  }

  override async sync(ctx: IntegrationContext, { mode }: { mode: 'full' | 'incremental' }): Promise<SyncReport> {
    this.assertApiVersion(ctx.connection)
    const client = this.client(ctx)
    const since = mode === 'incremental' ? ctx.connection.syncCursor : null
    const report: SyncReport = { mode, seen: 0, created: 0, updated: 0, unchanged: 0, outOfScope: 0, deleted: 0, cursor: since }
    const seen = new Set<string>()
    let pageToken: string | null = null
    do {
      const startedAt = await dbNow(ctx.db)
      const page = await client.listEntries({ modifiedAfter: since ?? undefined, pageToken })
      for (const entry of page.entries) {
        seen.add(entry.id)
        report.seen += 1
        const outcome = await recordEntry(ctx, client, entry, startedAt)
        if (outcome === 'created') report.created += 1
        else if (outcome === 'updated') report.updated += 1
        else if (outcome === 'out_of_scope' || outcome === 'archived') report.outOfScope += 1
        else report.unchanged += 1
        if (!report.cursor || entry.modifiedAt > report.cursor) report.cursor = entry.modifiedAt
      }
      pageToken = page.nextPageToken
    } while (pageToken)
    if (mode === 'full') {
      // A full listing is the whole truth: entries it no longer shows were deleted in the notebook.
      const gone = await ctx.tdb.connectorObject.findMany({
        where: { connectionId: ctx.connection.id, externalType: ENTRY, deletedAt: null, externalId: { notIn: [...seen] } },
        select: { externalId: true },
      })
      for (const g of gone) {
        await recordEntryGone(ctx, g.externalId)
        report.deleted += 1
      }
    }
    await ctx.budget.flush()
    return report
  }

  override async *listChanges(ctx: IntegrationContext, since: string | null): AsyncIterable<ChangedObject> {
    for await (const entry of this.client(ctx).iterateEntries({ modifiedAfter: since ?? undefined })) {
      yield { externalType: ENTRY, externalId: entry.id, modifiedAt: entry.modifiedAt }
    }
  }

  /** An entry, or (on demand, only under 25 MB) an attachment's bytes. */
  override async fetchObject(ctx: IntegrationContext, ref: { externalType: string; externalId: string }): Promise<unknown> {
    const client = this.client(ctx)
    if (ref.externalType === ENTRY) return client.getEntry(ref.externalId)
    if (ref.externalType === 'attachment') {
      const row = await ctx.tdb.attachment.findUnique({ where: { connectionId_externalId: { connectionId: ctx.connection.id, externalId: ref.externalId } } })
      if (!row) throw new DomainError('not_found', `Attachment ${ref.externalId} was not found.`)
      return client.getAttachment(row.entryExternalId, row.externalId)
    }
    return this.unsupported('fetch_object')
  }

  override async renderLaunch(ctx: IntegrationContext, input: { canvasId: string; entryId: string; launchUrl?: string | null }): Promise<unknown> {
    return this.client(ctx).updateCanvas(input.canvasId, {
      blocks: promptBlocks(input.launchUrl),
      enabled: true,
      data: canvasData(ctx.connection.id, input.entryId),
    })
  }

  override async budget(ctx: IntegrationContext): Promise<BudgetState[]> {
    return ctx.budget.state()
  }

  // ----- webhooks ------------------------------------------------------------------------------------------------

  override async handleWebhook(ctx: IntegrationContext, delivery: WebhookDelivery): Promise<HandleResult> {
    this.assertApiVersion(ctx.connection)
    const message = ((delivery.payload as { message?: Message } | null)?.message ?? { type: '' }) as Message
    const done = async (result: string) => {
      await transactionFor(ctx.db, ctx.connection.organizationId, (tx) => markDeliveryProcessed(tx, delivery.id, result))
      return { result }
    }
    const type = message.type
    if ((ENTRY_EVENTS as readonly string[]).includes(type)) {
      const entryId = str(message.resourceId)
      if (!entryId) return done('no_resource')
      return { result: await this.refreshEntry(ctx, entryId, delivery, true) }
    }
    const client = this.client(ctx)
    switch (type) {
      case 'v2.canvas.initialized': {
        const entryId = str(message.resourceId)
        const featureId = str(message.featureId)
        if (!entryId || !featureId) return done('no_resource')
        const outcome = await this.refreshEntry(ctx, entryId, delivery, false)
        if (!isVisible(outcome)) return done(outcome)
        await client.createCanvas({ featureId, resourceId: entryId, blocks: promptBlocks(), enabled: true, data: canvasData(ctx.connection.id, entryId) })
        return done('canvas_rendered')
      }
      case 'v2.canvas.created': {
        const canvasId = str(message.canvasId)
        if (!canvasId) return done('no_resource')
        const canvas = await client.getCanvas(canvasId)
        const outcome = await this.refreshEntry(ctx, canvas.resourceId, delivery, false)
        if (!isVisible(outcome)) return done(outcome)
        await client.updateCanvas(canvasId, { blocks: promptBlocks(), enabled: true, data: canvasData(ctx.connection.id, canvas.resourceId) })
        return done('canvas_rendered')
      }
      case 'v2.canvas.userInteracted': {
        const canvasId = str(message.canvasId)
        if (!canvasId) return done('no_resource')
        if (message.buttonId !== CHECK_BUTTON_ID) return done('ignored_button')
        const canvas = await client.getCanvas(canvasId)
        const entryId = canvas.resourceId
        const outcome = await this.refreshEntry(ctx, entryId, delivery, false)
        if (!isVisible(outcome)) return done(outcome)
        const object = await ctx.tdb.connectorObject.findUnique({
          where: { connectionId_externalType_externalId: { connectionId: ctx.connection.id, externalType: ENTRY, externalId: entryId } },
        })
        // The link goes on the canvas first; the launch row commits with the processing mark, so a retry after a
        // failed commit replaces the link instead of leaving a second live launch.
        const launchId = randomUUID()
        await client.updateCanvas(canvasId, { blocks: promptBlocks(launchUrlFor(launchId)), enabled: true, data: canvasData(ctx.connection.id, entryId, launchId) })
        await transactionFor(ctx.db, ctx.connection.organizationId, async (tx) => {
          await createLaunch(tx, {
            id: launchId, organizationId: ctx.connection.organizationId, programId: ctx.connection.programId, connectionId: ctx.connection.id,
            entryId, sourceId: object?.mappedType === 'source' ? object.mappedId : null, canvasId, notebookUserId: str(message.userId),
          })
          await markDeliveryProcessed(tx, delivery.id, 'launch_created')
        })
        return { result: 'launch_created' }
      }
      default:
        return done('unknown_event_type')
    }
  }

  /**
   * Brings the stored version of an entry up to date for a delivery: skipped when a fetch that started after the
   * delivery was received already stored it. With `finalize`, the processing mark commits with the entry's writes.
   */
  private async refreshEntry(ctx: IntegrationContext, entryId: string, delivery: WebhookDelivery, finalize: boolean): Promise<EntryOutcome | 'coalesced'> {
    const mark = finalize ? (tx: Parameters<NonNullable<Parameters<typeof recordEntry>[4]>>[0], outcome: string) => markDeliveryProcessed(tx, delivery.id, outcome) : undefined
    const object = await ctx.tdb.connectorObject.findUnique({
      where: { connectionId_externalType_externalId: { connectionId: ctx.connection.id, externalType: ENTRY, externalId: entryId } },
    })
    if (object && !object.deletedAt && object.lastFetchedAt && object.lastFetchedAt >= delivery.receivedAt) {
      if (mark) await transactionFor(ctx.db, ctx.connection.organizationId, (tx) => mark(tx, 'coalesced'))
      return 'coalesced'
    }
    const client = this.client(ctx)
    const startedAt = await dbNow(ctx.db)
    let entry: NotebookEntry
    try {
      entry = await client.getEntry(entryId)
    } catch (e) {
      if (e instanceof VendorNotFound) return recordEntryGone(ctx, entryId, mark)
      throw e
    }
    return recordEntry(ctx, client, entry, startedAt, mark)
  }
}

/**
 * One statement for the common case of a burst: an entry event whose entry was fetched after the delivery arrived is
 * marked processed ("coalesced") without loading anything else. Returns false when the delivery needs the full path.
 */
export async function coalesceCoveredDelivery(db: Db, deliveryRowId: string): Promise<boolean> {
  const n = await coalesceCoveredDeliveryAcrossOrganisations(db, deliveryRowId, { providerId: PROVIDER_ID, entryEvents: ENTRY_EVENTS, entryType: ENTRY, apiVersion: SUPPORTED_API_VERSION })
  return n === 1
}

const isVisible = (o: EntryOutcome | 'coalesced') => o !== 'out_of_scope' && o !== 'archived' && o !== 'not_found'

export const notebookAdapter = new NotebookAdapter()
