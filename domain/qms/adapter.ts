// The qms_provider adapter (QMS/SOP connector behaviour): session auth over the shared vendor client, the health check
// (the R1c exit gate: every gap reported at once), the delta poll and the nightly reconciliation. Read-only: nothing is
// ever written to the vault. Events: none (no webhooks).
import type { Connection } from '../../generated/prisma/client'
import type { Db } from '../../core/database'
import { enqueue } from '../../core/jobs'
import { DomainError } from '../../core/errors'
import { BaseAdapter, readScopeRules, type BudgetState, type ClientInput, type ConnectionHealth, type ConnectPlan, type SyncRun, type HealthCheckItem, type HealthReport, type IntegrationContext, type SyncReport } from '../adapters'
import { forgetConnection } from '../adapters'
import { providerSpec } from '../adapters'
import type { ConnectionSecrets } from '../adapters'
import { QmsClient } from './client'
import { QMS_API_VERSION, OPTIONAL_ROLES, mapLabel, qmsSettingsOf, type TemplateRole } from './settings'
import { pollVersions, reconcileVersions, type QmsSyncReport } from './sync'
import { describeFailure, failedSyncHealth, kindOf, syncedHealth } from './health'

export class QmsAdapter extends BaseAdapter {
  constructor() {
    super(providerSpec('qms_provider')!)
  }

  override createClient({ connection, credentials, http, authGate, budget }: ClientInput): QmsClient {
    const s = qmsSettingsOf(connection)
    if (!s) throw new DomainError('connection_not_ready', 'Configure the QMS connection first (client id, instance id, query template, lifecycle map).', { field: 'providerSettings' })
    return new QmsClient({
      http, authGate, budget, apiVersion: connection.apiVersion, username: credentials.clientId, password: credentials.clientSecret,
      clientId: s.client_id, clientIdHeader: s.client_id_header,
    })
  }

  // Sync hooks (domain/sync.ts): the health check gates the first sync (R1c); a sync writes its health entries
  // (qms/health.ts); a budget refusal queues the QMS job of the same kind; other failures are recorded in health, and
  // the next scheduled poll or reconciliation retries.
  override syncSkipReason(connection: Connection): string | null {
    return connection.secretsCiphertext ? null : 'credentials_missing'
  }
  override readonly healthCheckBeforeFirstSync = true
  override readonly syncFailures = 'record' as const
  override syncedHealth(ctx: IntegrationContext, report: SyncReport, previous: ConnectionHealth, run: SyncRun) {
    return syncedHealth(ctx.tdb, ctx.connection.id, report as QmsSyncReport, previous, run)
  }
  override failedSyncHealth(error: unknown, previous: ConnectionHealth, run: SyncRun) {
    return failedSyncHealth(error, previous, run)
  }
  override async rescheduleSync(db: Db, connectionId: string, mode: 'full' | 'incremental', runAt: Date): Promise<void> {
    const kind = kindOf(mode)
    await enqueue(db, kind === 'poll' ? 'poll_qms' : 'reconcile_qms', { connectionId }, { runAt, jobKey: `${kind}_qms:${connectionId}` })
  }

  client(ctx: IntegrationContext): QmsClient {
    return ctx.client() as QmsClient
  }

  /** No webhooks, no vendor app: the connection is configured (configureQmsConnection), then credentials, then health. */
  override async beginConnect(_ctx: { connection: Connection; hookUrl: string | null }): Promise<ConnectPlan> {
    return { hookUrl: null, manifest: null }
  }

  /** The integration user's name and password (stored encrypted as the connection's client id and secret). */
  override async completeConnect(_ctx: { connection: Connection }, credentials: ConnectionSecrets): Promise<void> {
    if (!credentials.clientId || credentials.clientId.length > 256) throw new DomainError('invalid_input', 'clientId: the integration user name, between 1 and 256 characters', { field: 'clientId' })
    if (!credentials.clientSecret || credentials.clientSecret.length > 1024) throw new DomainError('invalid_input', 'clientSecret: the integration user password, between 1 and 1024 characters', { field: 'clientSecret' })
  }

  override async disconnect(ctx: { connection: Connection }): Promise<void> {
    forgetConnection(ctx.connection.id)
  }

  /**
   * Every gap at once: settings, api_version, scope, authentication, the instance id, each field of the query template,
   * the lifecycle map against the vault's labels, the all-versions query, and the versions mirrored as unmapped.
   */
  override async healthCheck(ctx: IntegrationContext): Promise<HealthReport> {
    const c = ctx.connection
    const checks: HealthCheckItem[] = []
    const s = qmsSettingsOf(c)
    checks.push(s
      ? { name: 'settings', ok: true, detail: `client id set (${s.client_id_header}), integration user: ${s.integration_user}` }
      : { name: 'settings', ok: false, detail: 'not configured: set the client id, instance id, query template and lifecycle map' })
    checks.push(QMS_API_VERSION.test(c.apiVersion)
      ? { name: 'api_version', ok: true, detail: `pinned ${c.apiVersion}` }
      : { name: 'api_version', ok: false, detail: `api_version ${c.apiVersion} is not of the form v{YY.N}` })
    const rules = readScopeRules(c.scopeRules)
    checks.push({ name: 'scope_rules', ok: rules.document_types.length > 0, detail: rules.document_types.length ? `document types: ${rules.document_types.join(', ')}` : 'no document type is mapped: nothing would be synced' })
    const remote = (name: string, why: string) => checks.push({ name, ok: false, detail: `not checked: ${why}` })
    const templateRoles = s ? (Object.entries(s.query_template) as [TemplateRole, string | null][]) : []
    const remoteNames = ['instance_id', ...templateRoles.map(([r]) => `query_template.${r}`), 'lifecycle_map', 'all_versions_query']
    let authOk = false
    let instanceOk = false
    if (!s) {
      for (const n of remoteNames) remote(n, 'the connection is not configured')
    } else {
      let client: QmsClient | null = null
      try {
        client = this.client(ctx)
        const session = await client.authenticate()
        authOk = true
        checks.push({ name: 'credentials', ok: true, detail: 'the auth endpoint accepted the integration user (session opened)' })
        instanceOk = session.vaultId === s.instance_id
        checks.push(instanceOk
          ? { name: 'instance_id', ok: true, detail: `vault ${session.vaultId} matches the connection` }
          : { name: 'instance_id', ok: false, detail: `the vault answered instance ${session.vaultId}; the connection names ${s.instance_id}` })
      } catch (e) {
        checks.push({ name: 'credentials', ok: false, detail: describeFailure(e) })
        for (const n of remoteNames) remote(n, 'authentication failed')
      }
      if (client && authOk) {
        try {
          const fields = await client.documentFields()
          for (const [role, field] of templateRoles) {
            if (!field) {
              checks.push({ name: `query_template.${role}`, ok: OPTIONAL_ROLES.includes(role), detail: OPTIONAL_ROLES.includes(role) ? 'not used' : 'required, not set' })
            } else {
              checks.push(fields.has(field)
                ? { name: `query_template.${role}`, ok: true, detail: `${field} exists` }
                : { name: `query_template.${role}`, ok: false, detail: `the vault has no field ${field}` })
            }
          }
        } catch (e) {
          for (const [role] of templateRoles) remote(`query_template.${role}`, describeFailure(e))
        }
        try {
          const labels = await client.lifecycleLabels()
          const unmapped = labels.filter((l) => mapLabel(s, l) === 'unmapped')
          const unknown = Object.keys(s.lifecycle_map).filter((l) => !labels.some((x) => x.toLowerCase() === l.toLowerCase()))
          checks.push({
            name: 'lifecycle_map', ok: unmapped.length === 0 && unknown.length === 0,
            detail: [
              `${labels.length - unmapped.length} of ${labels.length} vault labels mapped`,
              unmapped.length ? `unmapped (versions under them are ineligible): ${unmapped.join(', ')}` : null,
              unknown.length ? `mapped but not in the vault: ${unknown.join(', ')}` : null,
            ].filter(Boolean).join('; '),
          })
        } catch (e) {
          remote('lifecycle_map', describeFailure(e))
        }
        try {
          // The all-versions query with the template's own fields: proves both the query and the template together.
          await client.query(`SELECT ${s.query_template.id ?? 'id'} FROM ALLVERSIONS documents`)
          checks.push({ name: 'all_versions_query', ok: true, detail: 'ALLVERSIONS query available' })
        } catch (e) {
          checks.push({ name: 'all_versions_query', ok: false, detail: describeFailure(e) })
        }
      }
    }
    const unmappedRows = await ctx.tdb.sopVersion.groupBy({ by: ['vendorLabel'], where: { connectionId: c.id, lifecycleState: 'unmapped', deletedAt: null }, _count: { _all: true } })
    const unmappedTotal = unmappedRows.reduce((n, r) => n + r._count._all, 0)
    checks.push({
      name: 'unmapped_versions', ok: unmappedTotal === 0,
      detail: unmappedTotal ? `${unmappedTotal} version(s) under unmapped labels (ineligible to bind checks): ${unmappedRows.map((r) => `${r.vendorLabel ?? '(none)'} ×${r._count._all}`).join(', ')}` : 'none',
    })
    await ctx.budget.flush()
    const status = !authOk || !instanceOk || !s ? 'failing' : checks.every((k) => k.ok) ? 'ok' : 'degraded'
    return { status, checkedAt: new Date().toISOString(), checks }
  }

  /** full: the nightly reconciliation; incremental: the delta poll from the watermark. */
  override async sync(ctx: IntegrationContext, { mode }: { mode: 'full' | 'incremental' }): Promise<SyncReport> {
    const client = this.client(ctx)
    const report = mode === 'full' ? await reconcileVersions(ctx, client) : await pollVersions(ctx, client)
    await ctx.budget.flush()
    return report
  }

  override async budget(ctx: IntegrationContext): Promise<BudgetState[]> {
    return ctx.budget.state()
  }
}

export const qmsAdapter = new QmsAdapter()
