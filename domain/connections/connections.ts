// Owns program-scoped connections: create, read, update (api_version changes are controlled and audited), store
// credentials (encrypted, never returned), health check, sync request, disconnect, and the onboarding order (a) to (e).
import { connectionPageRows, connectionPagesRows, lockProgramProviderConnection } from './sql'
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Connection } from '../../generated/prisma/client'
import {
  ConnectionDisconnected, ConnectionExists, ConnectionNotReady, ConsentRequired, CredentialsMissing, InvalidTransition, NotFoundError, NotSupportedError,
  ReasonRequired, ScopeRulesRequired, UnknownProvider, UnsupportedApiVersion,
} from '../../core/errors'
import { command, onId, type DomainContext } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { assertEgressUrl } from '../../core/http'
import { assertCan, can } from '../../core/identity'
import { log } from '../../core/config'
import { CONNECTORS } from '../../core/text'
import { transition } from '../../core/states'
import { connectionStatus } from '../../core/states'
import { adapterFor } from '../adapters'
import { NotSupported } from '../adapters'
import { providerSpec } from '../adapters'
import { encryptSecrets } from '../adapters'
import { connectorRuntime } from './runtime'
import { hookUrlFor } from '../adapters'
import { readScopeRules } from '../adapters'
import { keysetPage, keysetSql, type Keyset, type Page, type PageArgs } from '../../core/database'
import { IdInput, isId } from '../../core/text'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db'>

const READ = 'program.connections.read'
const MANAGE = 'program.connections.manage'
const UUID = IdInput

const ids = z.array(z.string().trim().min(1).max(200)).max(500)
const ScopeRulesInput = z.object({ projectIds: ids.nullish(), documentTypes: ids.nullish() }).strict()
const baseUrl = z.string().url().max(500).refine((u) => /^https?:\/\//.test(u), 'use an http(s) URL')
const apiVersion = z.string().regex(/^v\d+(\.\d+)?$/, 'use the vendor form, e.g. v2 or v26.2')

export const CreateConnectionInput = z.object({
  programId: UUID,
  providerId: z.string(),
  name: personText(200, 'a name is required'),
  scopeRules: ScopeRulesInput,
  pollIntervalSeconds: z.number().int().min(60).max(86_400).nullish(),
  apiVersion: apiVersion.nullish(),
  baseUrl: baseUrl.nullish(),
  appDefinitionId: z.string().trim().min(1).max(200).nullish(),
  consent: z.boolean(),
})

export const UpdateConnectionInput = z.object({
  id: UUID,
  name: personText(200, 'a name is required').nullish(),
  scopeRules: ScopeRulesInput.nullish(),
  pollIntervalSeconds: z.number().int().min(60).max(86_400).nullish(),
  apiVersion: apiVersion.nullish(),
  apiVersionChangeReason: personText(1000, 'say why the API version changes').nullish(),
  baseUrl: baseUrl.nullish(),
  appDefinitionId: z.string().trim().min(1).max(200).nullish(),
})

function scopeRulesJson(input: z.infer<typeof ScopeRulesInput>) {
  return { project_ids: input.projectIds ?? [], document_types: input.documentTypes ?? [] }
}

function requireScope(providerId: string, rules: { project_ids: string[]; document_types: string[] }) {
  const spec = providerSpec(providerId)!
  for (const key of spec.scopeRuleKeys) {
    if (!rules[key].length) {
      const field = key === 'project_ids' ? 'scopeRules.projectIds' : 'scopeRules.documentTypes'
      throw new ScopeRulesRequired(`Map at least one ${key === 'project_ids' ? 'project' : 'document type'}: the service syncs only what scope_rules name.`, { field })
    }
  }
}

/** A connection the caller may read (program.connections.read in its program); anything else reads as not found. */
export async function getConnection(ctx: Ctx, id: string): Promise<Connection | null> {
  if (!UUID.safeParse(id).success) return null
  const c = await ctx.tdb.connection.findFirst({ where: { id } })
  if (!c || !can(ctx.session, READ, c.programId)) return null
  return c
}

function assertActive(c: Connection) {
  if (c.status !== 'active') throw new ConnectionDisconnected('This connection was disconnected; create a new one.')
}

/** Unsupported adapter operations answer not_supported (501) with the adapter's own words. */
async function supported<T>(work: Promise<T>, message?: (e: NotSupported) => string): Promise<T> {
  try {
    return await work
  } catch (e) {
    if (e instanceof NotSupported) throw new NotSupportedError(message ? message(e) : e.message, message ? { field: 'providerId' } : {})
    throw e
  }
}

/** Writes on one connection: it must exist in the organisation (not_found), under program.connections.manage there. */
const connectionWrite = {
  permission: MANAGE,
  load: async (q: TenantTx, input: { id: string }) => {
    const c = await q.connection.findFirst({ where: { id: input.id } })
    if (!c) throw new NotFoundError('Connection', { field: 'id' })
    return c
  },
  program: (_input: unknown, c: Connection) => c.programId,
} as const

/** A program's connections, newest first, in cursor pages (disconnected ones stay as history). */
export async function listConnections(ctx: Ctx, programId: string, args: PageArgs = {}, rowsOf?: (keyset: Keyset) => Promise<Connection[]>): Promise<Page<Connection>> {
  assertCan(ctx.session, READ, programId)
  return keysetPage(args, 'createdAt', (q, keyset) => rowsOf ? rowsOf(keyset) : ctx.tdb.connection.findMany({ ...q, where: { programId, ...q.where } }))
}

/**
 * The rows of one page (the same `q`) for several programs: the positions of all of them in one query, then the rows
 * of each program's page in a second; one program is one query, as listConnections alone.
 */
export async function connectionPagesOf(ctx: Ctx, programIds: readonly string[], keyset: Keyset): Promise<Connection[][]> {
  // a hot read (the console's programs): plain SQL, the organisation in the filter; one query for every program, each
  // program's page cut by its own row numbers
  const ids = programIds.filter(isId)
  const page = keysetSql(keyset, 'created_at', 3)
  if (ids.length === 1) {
    const rows = await connectionPageRows(ctx.session.organizationId, ctx.db, ids[0], page)
    return programIds.map((id) => (id === ids[0] ? rows : []))
  }
  // the same position clause without its ORDER BY / LIMIT: the row numbers cut each program's page (the last value is the size)
  const rows = await connectionPagesRows(ctx.session.organizationId, ctx.db, ids, page.values, page.position)
  return programIds.map((id) => rows.filter((r) => r.programId === id))
}

/** Onboarding step (a). The caller consents to reads under one integration identity for the whole program. */
export const createConnection = command({
  permission: MANAGE,
  input: CreateConnectionInput,
  program: (input) => input.programId,
  errors: [UnknownProvider, ConsentRequired, ScopeRulesRequired, ConnectionExists, UnsupportedApiVersion, NotSupportedError, NotFoundError],
  async prepare(ctx, data) {
    assertEgressUrl(data.baseUrl, 'baseUrl')
    const spec = providerSpec(data.providerId)
    const adapter = adapterFor(data.providerId)
    if (!spec || !adapter) throw new UnknownProvider(`Provider ${data.providerId} is not in the registry.`, { field: 'providerId' })
    if (!data.consent) {
      throw new ConsentRequired('Reads run under one integration identity per connection, so program members may see content their own vendor permissions would deny: consent is required.', { field: 'consent' })
    }
    const rules = scopeRulesJson(data.scopeRules)
    requireScope(spec.id, rules)
    if (!await ctx.tdb.program.findFirst({ where: { id: data.programId } })) throw new NotFoundError('Program', { field: 'programId' })
    return { spec, adapter, rules }
  },
  audit: ['connection.create'],
  async run(w, data, _none, { spec, adapter, rules }) {
    const { session } = w.ctx
    // One app or integration user per program and provider (connection rules, 1).
    await lockProgramProviderConnection(w.tx, data.programId, spec.id)
    const existing = await w.tx.connection.findFirst({ where: { programId: data.programId, providerId: spec.id, status: 'active' } })
    if (existing) throw new ConnectionExists(`This program already has an active ${spec.id} connection.`, { field: 'providerId' })
    const connection = await w.tx.connection.create({
      data: {
        organizationId: session.organizationId, programId: data.programId, providerId: spec.id, name: data.name,
        scopeRules: rules, pollIntervalSeconds: data.pollIntervalSeconds ?? spec.pollIntervalSeconds,
        credentialClass: spec.credentialClass, writePolicy: spec.writePolicy,
        apiVersion: data.apiVersion ?? spec.apiVersionDefault, baseUrl: data.baseUrl ?? null, appDefinitionId: data.appDefinitionId ?? null,
        consentedBy: session.userId, consentedAt: new Date(), createdByUserId: session.userId,
        health: { status: 'unknown', checks: [] },
      },
    })
    await supported(adapter.beginConnect({ connection, hookUrl: hookUrlFor(connection) }), (e) => `${spec.id} connections arrive with their own issue (${e.message}).`)
    await w.audit('connection.create', { type: 'connection', id: connection.id },
      { provider_id: spec.id, api_version: connection.apiVersion, scope_rules: rules, consented_by: session.userId })
    return connection
  },
})

export const updateConnection = onId(command({
  ...connectionWrite,
  input: UpdateConnectionInput,
  errors: [ConnectionDisconnected, ScopeRulesRequired, ReasonRequired],
  audit: ['connection.update', 'connection.api_version_change'],
  async run(w, data, c) {
    assertEgressUrl(data.baseUrl, 'baseUrl')
    assertActive(c)
    const changes: Record<string, unknown> = {}
    const details: Record<string, { from: unknown; to: unknown }> = {}
    const set = (key: keyof Connection, column: string, value: unknown) => {
      if (value === undefined || value === null) return
      if (JSON.stringify(c[key]) === JSON.stringify(value)) return
      changes[key] = value
      details[column] = { from: c[key], to: value }
    }
    set('name', 'name', data.name)
    if (data.scopeRules) {
      const rules = scopeRulesJson(data.scopeRules)
      requireScope(c.providerId, rules)
      set('scopeRules', 'scope_rules', rules)
    }
    set('pollIntervalSeconds', 'poll_interval_seconds', data.pollIntervalSeconds)
    set('baseUrl', 'base_url', data.baseUrl)
    set('appDefinitionId', 'app_definition_id', data.appDefinitionId)
    const versionChange = data.apiVersion && data.apiVersion !== c.apiVersion ? { from: c.apiVersion, to: data.apiVersion } : null
    if (versionChange && !data.apiVersionChangeReason) {
      throw new ReasonRequired('Changing api_version is a controlled change: give a reason.', { field: 'apiVersionChangeReason' })
    }
    if (versionChange) changes.apiVersion = versionChange.to
    if (!Object.keys(changes).length) return c
    const row = await w.tx.connection.update({ where: { id: c.id }, data: changes })
    if (Object.keys(details).length) await w.audit('connection.update', { type: 'connection', id: c.id }, { changes: details })
    if (versionChange) {
      await w.audit('connection.api_version_change', { type: 'connection', id: c.id }, { ...versionChange, reason: data.apiVersionChangeReason })
    }
    w.afterCommit(() => connectorRuntime.forget(c.id))
    return row
  },
}))
/** Onboarding step (d). The values are encrypted at once and never returned, logged or shown in errors. */
export const setConnectionCredentials = onId(command({
  ...connectionWrite,
  // Lengths are the adapter's to judge (completeConnect); the schema only insists on strings.
  input: z.object({ id: UUID, clientId: z.string().max(4096), clientSecret: z.string().max(4096) }),
  errors: [ConnectionDisconnected, NotSupportedError],
  async prepare(_ctx, input, c) {
    assertActive(c)
    const credentials = { clientId: input.clientId.trim(), clientSecret: input.clientSecret }
    await supported(adapterFor(c.providerId)!.completeConnect({ connection: c }, credentials))
    return encryptSecrets(c.id, credentials)
  },
  audit: ['connection.credentials_update'],
  async run(w, _input, c, { ciphertext, keyId }) {
    const row = await w.tx.connection.update({
      where: { id: c.id },
      data: { secretsCiphertext: ciphertext, secretsKeyId: keyId, secretsUpdatedAt: new Date(), health: { status: 'unknown', checks: [], note: 'credentials changed: run the health check' } },
    })
    await w.audit('connection.credentials_update', { type: 'connection', id: c.id }, { replaced: Boolean(c.secretsCiphertext) })
    w.afterCommit(() => connectorRuntime.forget(c.id))
    return row
  },
}))
/** Onboarding step (e): exchanges the credentials, reads one entry page and the app's keys; writes connection.health. */
export const checkConnectionHealth = onId(command({
  ...connectionWrite,
  input: z.object({ id: UUID }),
  errors: [ConnectionDisconnected, ConnectionNotReady, CredentialsMissing, NotSupportedError],
  async prepare(ctx, _input, c) {
    assertActive(c)
    return supported(adapterFor(c.providerId)!.healthCheck(connectorRuntime.context(ctx.db, c)))
  },
  audit: ['connection.health_check'],
  async run(w, _input, c, report) {
    const previous = (c.health ?? {}) as Record<string, unknown>
    const row = await w.tx.connection.update({
      where: { id: c.id },
      data: { healthCheckedAt: new Date(report.checkedAt), health: { ...previous, status: report.status, checked_at: report.checkedAt, checks: report.checks, note: null, last_error: null } as object },
    })
    log.info('connection.health_checked', { connectionId: c.id, status: report.status, failed: report.checks.filter((k) => !k.ok).map((k) => `${k.name}: ${k.detail}`) })
    await w.audit('connection.health_check', { type: 'connection', id: c.id }, { status: report.status, failed: report.checks.filter((k) => !k.ok).map((k) => k.name) })
    return row
  },
}))
/** Queues a sync in the worker (full: every entry; incremental: since the stored cursor). */
export const requestSync = command({
  ...connectionWrite,
  input: z.object({ id: UUID, mode: z.enum(['full', 'incremental']).nullish() }),
  errors: [ConnectionDisconnected, CredentialsMissing],
  async prepare(_ctx, _input, c) {
    assertActive(c)
    if (!c.secretsCiphertext) throw new CredentialsMissing('Store the client id and secret first (onboarding step d).')
  },
  audit: ['connection.sync_request'],
  async run(w, input, c) {
    const mode = input.mode ?? 'full'
    await w.enqueue('connector_sync', { connectionId: c.id, mode }, { jobKey: `connector_sync:${c.id}` })
    await w.audit('connection.sync_request', { type: 'connection', id: c.id }, { mode })
    return c
  },
})

/** Disconnects: the stored credentials are erased, webhooks answer 410, the mirror stays as history. */
export const disconnectConnection = onId(command({
  ...connectionWrite,
  input: z.object({ id: UUID }),
  // invalid_transition: a disconnect that lost a race with another (the status change is a guarded transition).
  errors: [ConnectionDisconnected, InvalidTransition],
  async prepare(_ctx, _input, c) { assertActive(c) },
  audit: ['connection.disconnect'],
  async run(w, _input, c) {
    // Guarded: of two concurrent disconnects one wins, the other is refused with invalid_transition (one audit row).
    const row = await transition(w.tx, connectionStatus, 'disconnect', c, {
      disconnectedAt: new Date(), secretsCiphertext: null, secretsKeyId: null, secretsUpdatedAt: new Date(),
    })
    await w.audit('connection.disconnect', { type: 'connection', id: c.id }, { provider_id: c.providerId })
    w.afterCommit(() => adapterFor(c.providerId)?.disconnect({ connection: c }).catch(() => {}))
    return row
  },
}))
// ---------------------------------------------------------------------------------------------------------------
// Read models

export interface OnboardingStep {
  step: 'a' | 'b' | 'c' | 'd' | 'e'
  key: 'create_connection' | 'copy_hook_url' | 'create_vendor_app' | 'store_credentials' | 'run_health_check'
  label: string
  done: boolean
}

/**
 * The onboarding order, visible on the connection. (b) counts as done once the vendor app exists (its manifest carries
 * the hook_url) or a verified delivery arrived; (e) once a health check passed after the credentials were stored.
 */
export function onboardingSteps(c: Connection, hasVerifiedDelivery = false): OnboardingStep[] {
  const labels = CONNECTORS.onboardingSteps
  const health = (c.health ?? {}) as { status?: string }
  const credentialsStored = Boolean(c.secretsCiphertext)
  const checked = credentialsStored && health.status === 'ok' && Boolean(c.healthCheckedAt && c.secretsUpdatedAt && c.healthCheckedAt >= c.secretsUpdatedAt)
  return [
    { step: 'a', key: 'create_connection', label: labels[0], done: true },
    { step: 'b', key: 'copy_hook_url', label: labels[1], done: Boolean(c.appDefinitionId) || hasVerifiedDelivery },
    { step: 'c', key: 'create_vendor_app', label: labels[2], done: Boolean(c.appDefinitionId) },
    { step: 'd', key: 'store_credentials', label: labels[3], done: credentialsStored },
    { step: 'e', key: 'run_health_check', label: labels[4], done: checked },
  ]
}

/** The onboarding order of a connection the caller reads, (b) counting a verified delivery. */
export async function connectionOnboarding(ctx: Ctx, c: Connection): Promise<OnboardingStep[]> {
  assertCan(ctx.session, READ, c.programId)
  const verified = await ctx.tdb.webhookDelivery.findFirst({ where: { connectionId: c.id, signatureOk: true }, select: { id: true } })
  return onboardingSteps(c, Boolean(verified))
}

export async function appManifest(c: Connection) {
  const adapter = adapterFor(c.providerId)
  if (!adapter) return null
  try {
    return (await adapter.beginConnect({ connection: c, hookUrl: hookUrlFor(c) })).manifest
  } catch (e) {
    if (e instanceof NotSupported) return null
    throw e
  }
}

export function scopeRulesOf(c: Connection) {
  const r = readScopeRules(c.scopeRules)
  return { projectIds: r.project_ids, documentTypes: r.document_types }
}
