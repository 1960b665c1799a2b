// Owns program-scoped connections: create, read, update (api_version changes are controlled and audited), store
// credentials (encrypted, never returned), health check, sync request, disconnect, and the onboarding order (a) to (e).
import { z } from 'zod'
import type { Connection } from '../../../generated/prisma/client'
import type { GraphQLContext } from '../../shared/context'
import { DomainError, parseInput, NotFoundError } from '../../../core/errors'
import { assertEgressUrl } from '../../../core/egress'
import { assertCan, can } from '../../../core/session'
import { recordAudit } from '../../../core/audit'
import { log } from '../../../core/log'
import { CONNECTORS } from '../../../core/copy'
import { enqueue } from '../../../jobs/registry'
import { adapterFor } from './adapters'
import { NotSupported } from './adapters/contract'
import { providerSpec } from './providers'
import { encryptSecrets } from './secrets'
import { connectorRuntime } from './runtime'
import { hookUrlFor } from './urls'
import { readScopeRules } from './notebook/sync'

type Ctx = Pick<GraphQLContext, 'session' | 'tdb' | 'db'>

const READ = 'program.connections.read'
const MANAGE = 'program.connections.manage'

const ids = z.array(z.string().trim().min(1).max(200)).max(500)
const ScopeRulesInput = z.object({ projectIds: ids.nullish(), documentTypes: ids.nullish() }).strict()
const baseUrl = z.string().url().max(500).refine((u) => /^https?:\/\//.test(u), 'use an http(s) URL')
const apiVersion = z.string().regex(/^v\d+(\.\d+)?$/, 'use the vendor form, e.g. v2 or v26.2')

export const CreateConnectionInput = z.object({
  programId: z.string().uuid(),
  providerId: z.string(),
  name: z.string().trim().min(1, 'a name is required').max(200),
  scopeRules: ScopeRulesInput,
  pollIntervalSeconds: z.number().int().min(60).max(86_400).nullish(),
  apiVersion: apiVersion.nullish(),
  baseUrl: baseUrl.nullish(),
  appDefinitionId: z.string().trim().min(1).max(200).nullish(),
  consent: z.boolean(),
})

export const UpdateConnectionInput = z.object({
  name: z.string().trim().min(1).max(200).nullish(),
  scopeRules: ScopeRulesInput.nullish(),
  pollIntervalSeconds: z.number().int().min(60).max(86_400).nullish(),
  apiVersion: apiVersion.nullish(),
  apiVersionChangeReason: z.string().trim().min(1).max(1000).nullish(),
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
      throw new DomainError('scope_rules_required', `Map at least one ${key === 'project_ids' ? 'project' : 'document type'}: the service syncs only what scope_rules name.`, { field, status: 422 })
    }
  }
}

const actorOf = (ctx: Ctx) => ({ type: 'user' as const, userId: ctx.session.userId })

/** A connection the caller may read (program.connections.read in its program); anything else reads as not found. */
export async function getConnection(ctx: Ctx, id: string): Promise<Connection | null> {
  if (!z.string().uuid().safeParse(id).success) return null
  const c = await ctx.tdb.connection.findFirst({ where: { id } })
  if (!c || !can(ctx.session, READ, c.programId)) return null
  return c
}

async function manageable(ctx: Ctx, id: string): Promise<Connection> {
  const c = z.string().uuid().safeParse(id).success ? await ctx.tdb.connection.findFirst({ where: { id } }) : null
  if (!c) throw new NotFoundError('Connection')
  assertCan(ctx.session, MANAGE, c.programId)
  return c
}

function assertActive(c: Connection) {
  if (c.status !== 'active') throw new DomainError('connection_disconnected', 'This connection was disconnected; create a new one.', { status: 409 })
}

export async function listConnections(ctx: Ctx, programId: string): Promise<Connection[]> {
  assertCan(ctx.session, READ, programId)
  return ctx.tdb.connection.findMany({ where: { programId }, orderBy: { createdAt: 'asc' } })
}

/** Onboarding step (a). The caller consents to reads under one integration identity for the whole program. */
export async function createConnection(ctx: Ctx, input: z.input<typeof CreateConnectionInput>): Promise<Connection> {
  const data = parseInput(CreateConnectionInput, input)
  assertCan(ctx.session, MANAGE, data.programId)
  assertEgressUrl(data.baseUrl, 'baseUrl')
  const spec = providerSpec(data.providerId)
  const adapter = adapterFor(data.providerId)
  if (!spec || !adapter) throw new DomainError('unknown_provider', `Provider ${data.providerId} is not in the registry.`, { field: 'providerId', status: 422 })
  if (!data.consent) {
    throw new DomainError('consent_required', 'Reads run under one integration identity per connection, so program members may see content their own vendor permissions would deny: consent is required.', { field: 'consent', status: 422 })
  }
  const rules = scopeRulesJson(data.scopeRules)
  requireScope(spec.id, rules)
  const program = await ctx.tdb.program.findFirst({ where: { id: data.programId } })
  if (!program) throw new NotFoundError('Program')
  const now = new Date()
  const created = await ctx.tdb.$transaction(async (tx) => {
    // One app or integration user per program and provider (connection rules, 1).
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`connection:${data.programId}:${spec.id}`}, 0))`
    const existing = await tx.connection.findFirst({ where: { programId: data.programId, providerId: spec.id, status: 'active' } })
    if (existing) throw new DomainError('connection_exists', `This program already has an active ${spec.id} connection.`, { field: 'providerId', status: 409 })
    const connection = await tx.connection.create({
      data: {
        organizationId: ctx.session.organizationId, programId: data.programId, providerId: spec.id, name: data.name,
        scopeRules: rules, pollIntervalSeconds: data.pollIntervalSeconds ?? spec.pollIntervalSeconds,
        credentialClass: spec.credentialClass, writePolicy: spec.writePolicy,
        apiVersion: data.apiVersion ?? spec.apiVersionDefault, baseUrl: data.baseUrl ?? null, appDefinitionId: data.appDefinitionId ?? null,
        consentedBy: ctx.session.userId, consentedAt: now, createdByUserId: ctx.session.userId,
        health: { status: 'unknown', checks: [] },
      },
    })
    try {
      await adapter.beginConnect({ connection, hookUrl: hookUrlFor(connection) })
    } catch (e) {
      if (e instanceof NotSupported) throw new DomainError('not_supported', `${spec.id} connections arrive with their own issue (${e.message}).`, { field: 'providerId', status: 501 })
      throw e
    }
    await recordAudit(tx, {
      organizationId: connection.organizationId, programId: connection.programId, action: 'connection.create', actor: actorOf(ctx),
      target: { type: 'connection', id: connection.id },
      details: { provider_id: spec.id, api_version: connection.apiVersion, scope_rules: rules, consented_by: ctx.session.userId },
    })
    return connection
  })
  return created
}

export async function updateConnection(ctx: Ctx, id: string, input: z.input<typeof UpdateConnectionInput>): Promise<Connection> {
  const data = parseInput(UpdateConnectionInput, input)
  const c = await manageable(ctx, id)
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
    throw new DomainError('reason_required', 'Changing api_version is a controlled change: give a reason.', { field: 'apiVersionChangeReason', status: 422 })
  }
  if (versionChange) changes.apiVersion = versionChange.to
  if (!Object.keys(changes).length) return c
  const updated = await ctx.tdb.$transaction(async (tx) => {
    const row = await tx.connection.update({ where: { id: c.id }, data: changes })
    if (Object.keys(details).length) {
      await recordAudit(tx, {
        organizationId: c.organizationId, programId: c.programId, action: 'connection.update', actor: actorOf(ctx),
        target: { type: 'connection', id: c.id }, details: { changes: details },
      })
    }
    if (versionChange) {
      await recordAudit(tx, {
        organizationId: c.organizationId, programId: c.programId, action: 'connection.api_version_change', actor: actorOf(ctx),
        target: { type: 'connection', id: c.id }, details: { ...versionChange, reason: data.apiVersionChangeReason },
      })
    }
    return row
  })
  connectorRuntime.forget(c.id)
  return updated
}

/** Onboarding step (d). The values are encrypted at once and never returned, logged or shown in errors. */
export async function setConnectionCredentials(ctx: Ctx, id: string, input: { clientId: string; clientSecret: string }): Promise<Connection> {
  const c = await manageable(ctx, id)
  assertActive(c)
  const credentials = { clientId: String(input.clientId ?? '').trim(), clientSecret: String(input.clientSecret ?? '') }
  await adapterFor(c.providerId)!.completeConnect({ connection: c }, credentials).catch((e) => {
    if (e instanceof NotSupported) throw new DomainError('not_supported', e.message, { status: 501 })
    throw e
  })
  const { ciphertext, keyId } = encryptSecrets(c.id, credentials)
  const updated = await ctx.tdb.$transaction(async (tx) => {
    const row = await tx.connection.update({
      where: { id: c.id },
      data: { secretsCiphertext: ciphertext, secretsKeyId: keyId, secretsUpdatedAt: new Date(), health: { status: 'unknown', checks: [], note: 'credentials changed: run the health check' } },
    })
    await recordAudit(tx, {
      organizationId: c.organizationId, programId: c.programId, action: 'connection.credentials_update', actor: actorOf(ctx),
      target: { type: 'connection', id: c.id }, details: { replaced: Boolean(c.secretsCiphertext) },
    })
    return row
  })
  connectorRuntime.forget(c.id)
  return updated
}

/** Onboarding step (e): exchanges the credentials, reads one entry page and the app's keys; writes connection.health. */
export async function checkConnectionHealth(ctx: Ctx, id: string): Promise<Connection> {
  const c = await manageable(ctx, id)
  assertActive(c)
  const adapter = adapterFor(c.providerId)!
  let report
  try {
    report = await adapter.healthCheck(connectorRuntime.context(ctx.db, c))
  } catch (e) {
    if (e instanceof NotSupported) throw new DomainError('not_supported', e.message, { status: 501 })
    throw e
  }
  return ctx.tdb.$transaction(async (tx) => {
    const previous = (c.health ?? {}) as Record<string, unknown>
    const row = await tx.connection.update({
      where: { id: c.id },
      data: { healthCheckedAt: new Date(report.checkedAt), health: { ...previous, status: report.status, checked_at: report.checkedAt, checks: report.checks, note: null, last_error: null } as object },
    })
    log.info('connection.health_checked', { connectionId: c.id, status: report.status, failed: report.checks.filter((k) => !k.ok).map((k) => `${k.name}: ${k.detail}`) })
    await recordAudit(tx, {
      organizationId: c.organizationId, programId: c.programId, action: 'connection.health_check', actor: actorOf(ctx),
      target: { type: 'connection', id: c.id }, details: { status: report.status, failed: report.checks.filter((k) => !k.ok).map((k) => k.name) },
    })
    return row
  })
}

/** Queues a sync in the worker (full: every entry; incremental: since the stored cursor). */
export async function requestSync(ctx: Ctx, id: string, mode: 'full' | 'incremental'): Promise<Connection> {
  const c = await manageable(ctx, id)
  assertActive(c)
  if (!c.secretsCiphertext) throw new DomainError('credentials_missing', 'Store the client id and secret first (onboarding step d).', { status: 409 })
  await ctx.tdb.$transaction(async (tx) => {
    await enqueue(tx, 'connector_sync', { connectionId: c.id, mode }, { jobKey: `connector_sync:${c.id}` })
    await recordAudit(tx, {
      organizationId: c.organizationId, programId: c.programId, action: 'connection.sync_request', actor: actorOf(ctx),
      target: { type: 'connection', id: c.id }, details: { mode },
    })
  })
  return c
}

/** Disconnects: the stored credentials are erased, webhooks answer 410, the mirror stays as history. */
export async function disconnectConnection(ctx: Ctx, id: string): Promise<Connection> {
  const c = await manageable(ctx, id)
  assertActive(c)
  const updated = await ctx.tdb.$transaction(async (tx) => {
    const row = await tx.connection.update({
      where: { id: c.id },
      data: { status: 'disconnected', disconnectedAt: new Date(), secretsCiphertext: null, secretsKeyId: null, secretsUpdatedAt: new Date() },
    })
    await recordAudit(tx, {
      organizationId: c.organizationId, programId: c.programId, action: 'connection.disconnect', actor: actorOf(ctx),
      target: { type: 'connection', id: c.id }, details: { provider_id: c.providerId },
    })
    return row
  })
  await adapterFor(c.providerId)?.disconnect({ connection: c }).catch(() => {})
  return updated
}

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
