// Connectors subgraph schema: the provider registry, a program's connections (ConnectionOut), what they have seen
// (connector_objects), their webhook deliveries and budgets, and the notebook canvas launch.
import type { Connection, ConnectorObject, WebhookDelivery } from '../../../generated/prisma/client'
import { CONNECTORS } from '../../../core/copy'
import { createBuilder, defineCoreEntities, defineErrorTypes, result } from '../../shared/builder'
import { VENDOR_ERROR_CLASSES } from '../domain/adapters/errors'
import { PROVIDERS, providerSpec, providerStatus, type ProviderSpec } from '../domain/providers'
import type { BudgetState } from '../domain/adapters/contract'
import * as connections from '../domain/connections'
import { openLaunch, type LaunchTarget } from '../domain/launch'
import { connectorRuntime } from '../domain/runtime'
import { hookUrlFor } from '../domain/urls'
import { targetRef } from '../domain/notebook/canonical'

export function buildConnectorsSchema() {
  const builder = createBuilder()
  const { ProgramRef, UserRef } = defineCoreEntities(builder)
  defineErrorTypes(builder, VENDOR_ERROR_CLASSES)

  const Provider = builder.objectRef<ProviderSpec>('ConnectorProvider').implement({
    description: 'A connector provider of the registry. All connectors are read-only.',
    fields: (t) => ({
      id: t.exposeID('id'),
      displayName: t.exposeString('displayName'),
      category: t.exposeString('category'),
      credentialClass: t.exposeString('credentialClass'),
      eventVerification: t.exposeString('eventVerification'),
      events: t.exposeString('events'),
      launchable: t.exposeBoolean('launchable'),
      apiVersionDefault: t.exposeString('apiVersionDefault'),
      writePolicy: t.exposeString('writePolicy'),
      budgetScope: t.exposeString('budgetScope'),
      pollIntervalSeconds: t.int({ nullable: true, resolve: (p) => p.pollIntervalSeconds }),
      status: t.string({ description: 'designed until the R1 gates pass', resolve: () => providerStatus() ?? 'designed' }),
    }),
  })

  const ScopeRules = builder.objectRef<{ projectIds: string[]; documentTypes: string[] }>('ScopeRules').implement({
    description: 'What the service syncs, enforced by the service even when the vendor token is tenant-wide.',
    fields: (t) => ({ projectIds: t.exposeStringList('projectIds'), documentTypes: t.exposeStringList('documentTypes') }),
  })

  type HealthJson = { status?: string; checked_at?: string; checks?: { name: string; ok: boolean; detail: string }[]; last_sync?: unknown; last_error?: string | null; note?: string | null }
  const HealthCheckItem = builder.objectRef<{ name: string; ok: boolean; detail: string }>('ConnectionHealthCheck').implement({
    fields: (t) => ({ name: t.exposeString('name'), ok: t.exposeBoolean('ok'), detail: t.exposeString('detail') }),
  })
  const Health = builder.objectRef<HealthJson>('ConnectionHealth').implement({
    description: 'Written on every sync and health check.',
    fields: (t) => ({
      status: t.string({ description: 'unknown, ok, degraded or failing', resolve: (h) => h.status ?? 'unknown' }),
      checkedAt: t.field({ type: 'DateTime', nullable: true, resolve: (h) => (h.checked_at ? new Date(h.checked_at) : null) }),
      checks: t.field({ type: [HealthCheckItem], resolve: (h) => h.checks ?? [] }),
      lastSync: t.field({ type: 'JSON', nullable: true, resolve: (h) => h.last_sync ?? null }),
      lastError: t.string({ nullable: true, resolve: (h) => h.last_error ?? null }),
      note: t.string({ nullable: true, resolve: (h) => h.note ?? null }),
    }),
  })

  const OnboardingStep = builder.objectRef<connections.OnboardingStep>('OnboardingStep').implement({
    description: 'The onboarding order (a) to (e).',
    fields: (t) => ({ step: t.exposeString('step'), key: t.exposeString('key'), label: t.exposeString('label'), done: t.exposeBoolean('done') }),
  })

  const ObjectRef = builder.objectRef<ConnectorObject & { providerId: string }>('ConnectorObject').implement({
    description: 'Mirror of what a connection has seen.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sourceSystem: t.exposeString('providerId', { description: 'The provider the record comes from.' }),
      externalType: t.exposeString('externalType'),
      externalId: t.exposeString('externalId'),
      externalVersion: t.string({ nullable: true, resolve: (o) => o.externalVersion }),
      payloadHash: t.string({ nullable: true, resolve: (o) => o.payloadHash }),
      targetRef: t.string({ nullable: true, resolve: (o) => (o.externalType === 'entry' && o.payloadHash ? targetRef(o.externalId, o.payloadHash) : null) }),
      externalModifiedAt: t.field({ type: 'DateTime', nullable: true, resolve: (o) => o.externalModifiedAt }),
      firstSeenAt: t.field({ type: 'DateTime', resolve: (o) => o.firstSeenAt }),
      lastSeenAt: t.field({ type: 'DateTime', resolve: (o) => o.lastSeenAt }),
      deletedAt: t.field({ type: 'DateTime', nullable: true, resolve: (o) => o.deletedAt }),
      mappedType: t.string({ nullable: true, resolve: (o) => o.mappedType }),
      mappedId: t.string({ nullable: true, resolve: (o) => o.mappedId }),
      state: t.string({ nullable: true, description: 'The notebook review state, mirrored.', resolve: (o) => o.state }),
      stateNote: t.string({ nullable: true, description: "Where the state is decided: 'recorded in the notebook'.", resolve: (o) => (o.state ? CONNECTORS.recordedInTheNotebook : null) }),
    }),
  })

  const Outcome = builder.enumType('WebhookOutcome', { values: ['enqueued', 'ignored', 'rejected'] as const })
  const Delivery = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
    description: 'One inbound webhook delivery; rejected ones are stored without payload.',
    fields: (t) => ({
      id: t.exposeID('id'),
      sourceSystem: t.exposeString('providerId'),
      deliveryId: t.string({ nullable: true, resolve: (d) => d.deliveryId }),
      eventType: t.string({ nullable: true, resolve: (d) => d.eventType }),
      receivedAt: t.field({ type: 'DateTime', resolve: (d) => d.receivedAt }),
      signatureOk: t.exposeBoolean('signatureOk'),
      replay: t.exposeBoolean('replay'),
      outcome: t.field({ type: Outcome, resolve: (d) => d.outcome }),
      reason: t.string({ nullable: true, resolve: (d) => d.reason }),
      statusCode: t.exposeInt('statusCode'),
      processedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.processedAt }),
      processingResult: t.string({ nullable: true, resolve: (d) => d.processingResult }),
      processingAttempts: t.exposeInt('processingAttempts'),
      lastError: t.string({ nullable: true, resolve: (d) => d.lastError }),
    }),
  })

  const Budget = builder.objectRef<BudgetState>('RateBudget').implement({
    fields: (t) => ({
      scope: t.exposeString('scope'),
      limitPerWindow: t.exposeInt('limitPerWindow'),
      windowSeconds: t.exposeInt('windowSeconds'),
      used: t.exposeInt('used'),
      windowStartedAt: t.field({ type: 'DateTime', resolve: (b) => b.windowStartedAt }),
      remoteLimit: t.int({ nullable: true, resolve: (b) => b.remoteLimit }),
      remoteRemaining: t.int({ nullable: true, resolve: (b) => b.remoteRemaining }),
      remoteResetAt: t.field({ type: 'DateTime', nullable: true, resolve: (b) => b.remoteResetAt }),
    }),
  })

  const ConnectionRef = builder.objectRef<Connection>('Connection').implement({
    description: 'A program-scoped, read-only connection to a provider (ConnectionOut). Client id and secret are never returned.',
    fields: (t) => ({
      id: t.exposeID('id'),
      program: t.field({ type: ProgramRef, resolve: async (c, _a, ctx) => (await ctx.loaders.program.load(c.programId))! }),
      providerId: t.exposeString('providerId'),
      sourceSystem: t.exposeString('providerId', { description: 'Every surfaced record names its source system.' }),
      provider: t.field({ type: Provider, resolve: (c) => providerSpec(c.providerId)! }),
      name: t.exposeString('name'),
      status: t.string({ description: 'active or disconnected', resolve: (c) => c.status }),
      scopeRules: t.field({ type: ScopeRules, resolve: (c) => connections.scopeRulesOf(c) }),
      pollIntervalSeconds: t.int({ nullable: true, resolve: (c) => c.pollIntervalSeconds }),
      credentialClass: t.exposeString('credentialClass'),
      writePolicy: t.exposeString('writePolicy'),
      hookUrl: t.string({ nullable: true, description: 'Inbound address to register with the vendor (onboarding step b).', resolve: (c) => hookUrlFor(c) }),
      apiVersion: t.exposeString('apiVersion'),
      baseUrl: t.string({ nullable: true, resolve: (c) => c.baseUrl }),
      appDefinitionId: t.string({ nullable: true, resolve: (c) => c.appDefinitionId }),
      hasCredentials: t.boolean({ description: 'Whether a client id and secret are stored (they are never returned).', resolve: (c) => Boolean(c.secretsCiphertext) }),
      credentialsUpdatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.secretsUpdatedAt }),
      consentedBy: t.field({ type: UserRef, nullable: true, resolve: (c, _a, ctx) => ctx.loaders.user.load(c.consentedBy) }),
      consentedAt: t.field({ type: 'DateTime', resolve: (c) => c.consentedAt }),
      health: t.field({ type: Health, resolve: (c) => ({ ...((c.health ?? {}) as HealthJson), checked_at: ((c.health ?? {}) as HealthJson).checked_at ?? c.healthCheckedAt?.toISOString() }) }),
      onboarding: t.field({
        type: [OnboardingStep],
        resolve: async (c, _a, ctx) => {
          const verified = await ctx.tdb.webhookDelivery.findFirst({ where: { connectionId: c.id, signatureOk: true }, select: { id: true } })
          return connections.onboardingSteps(c, Boolean(verified))
        },
      }),
      appManifest: t.field({ type: 'JSON', nullable: true, description: 'The vendor app manifest to create the app from (onboarding step c).', resolve: (c) => connections.appManifest(c) }),
      lastSyncedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.lastSyncedAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
      disconnectedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.disconnectedAt }),
      objects: t.field({
        type: [ObjectRef],
        args: { externalType: t.arg.string({ required: false }), first: t.arg.int({ required: false }), includeDeleted: t.arg.boolean({ required: false }) },
        resolve: async (c, a, ctx) => {
          const rows = await ctx.tdb.connectorObject.findMany({
            where: { connectionId: c.id, ...(a.externalType ? { externalType: a.externalType } : {}), ...(a.includeDeleted ? {} : { deletedAt: null }) },
            orderBy: [{ externalType: 'asc' }, { externalId: 'asc' }],
            take: Math.min(Math.max(a.first ?? 100, 1), 500),
          })
          return rows.map((o) => ({ ...o, providerId: c.providerId }))
        },
      }),
      deliveries: t.field({
        type: [Delivery],
        args: { first: t.arg.int({ required: false }) },
        resolve: (c, a, ctx) => ctx.tdb.webhookDelivery.findMany({ where: { connectionId: c.id }, orderBy: { receivedAt: 'desc' }, take: Math.min(Math.max(a.first ?? 50, 1), 500) }),
      }),
      budgets: t.field({
        type: [Budget],
        resolve: (c, _a, ctx) => (providerSpec(c.providerId)?.budget ? connectorRuntime.context(ctx.db, c).budget.state() : []),
      }),
    }),
  })

  const Launch = builder.objectRef<LaunchTarget>('LaunchTarget').implement({
    description: 'What a notebook canvas launch opens in the console.',
    fields: (t) => ({
      launchId: t.exposeID('launchId'),
      program: t.field({ type: ProgramRef, resolve: async (l, _a, ctx) => (await ctx.loaders.program.load(l.programId))! }),
      connectionId: t.exposeID('connectionId'),
      sourceSystem: t.exposeString('sourceSystem'),
      entryId: t.exposeString('entryId'),
      entryName: t.string({ nullable: true, resolve: (l) => l.entryName }),
      sourceId: t.id({ nullable: true, resolve: (l) => l.sourceId }),
      experimentId: t.id({ nullable: true, resolve: (l) => l.experimentId }),
      targetRef: t.string({ nullable: true, resolve: (l) => l.targetRef }),
    }),
  })

  builder.queryFields((t) => ({
    connectorProviders: t.field({ type: [Provider], description: 'The provider registry.', resolve: () => [...PROVIDERS] }),
    connection: t.field({
      type: ConnectionRef,
      nullable: true,
      description: 'A connection, if the caller may read it (program.connections.read).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => connections.getConnection(ctx, String(a.id)),
    }),
  }))
  builder.objectField(ProgramRef, 'connections', (t) =>
    t.field({
      type: [ConnectionRef],
      description: "The program's connections (program.connections.read).",
      resolve: (p, _a, ctx) => connections.listConnections(ctx, p.id),
    }))

  const ScopeRulesInput = builder.inputType('ConnectionScopeRulesInput', {
    fields: (t) => ({ projectIds: t.stringList({ required: false }), documentTypes: t.stringList({ required: false }) }),
  })
  const CreateInput = builder.inputType('CreateConnectionInput', {
    fields: (t) => ({
      programId: t.id({ required: true }),
      providerId: t.string({ required: true }),
      name: t.string({ required: true }),
      scopeRules: t.field({ type: ScopeRulesInput, required: true }),
      pollIntervalSeconds: t.int({ required: false }),
      apiVersion: t.string({ required: false }),
      baseUrl: t.string({ required: false }),
      appDefinitionId: t.string({ required: false }),
      consent: t.boolean({ required: true, description: 'Reads run under one integration identity for the whole program.' }),
    }),
  })
  const UpdateInput = builder.inputType('UpdateConnectionInput', {
    fields: (t) => ({
      name: t.string({ required: false }),
      scopeRules: t.field({ type: ScopeRulesInput, required: false }),
      pollIntervalSeconds: t.int({ required: false }),
      apiVersion: t.string({ required: false }),
      apiVersionChangeReason: t.string({ required: false, description: 'Required when apiVersion changes (a controlled change).' }),
      baseUrl: t.string({ required: false }),
      appDefinitionId: t.string({ required: false }),
    }),
  })
  const SyncMode = builder.enumType('ConnectionSyncMode', { values: ['full', 'incremental'] as const })

  builder.mutationType({})
  builder.mutationFields((t) => ({
    createConnection: t.field({
      type: ConnectionRef, errors: result(connections.createConnection, 'connection'),
      description: 'Onboarding step (a) (program.connections.manage).',
      args: { input: t.arg({ type: CreateInput, required: true }) },
      resolve: (_r, { input }, ctx) => connections.createConnection(ctx, input),
    }),
    updateConnection: t.field({
      type: ConnectionRef, errors: result(connections.updateConnection, 'connection'),
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
      resolve: (_r, a, ctx) => connections.updateConnection(ctx, String(a.id), a.input),
    }),
    setConnectionCredentials: t.field({
      type: ConnectionRef, errors: result(connections.setConnectionCredentials, 'connection'),
      description: 'Onboarding step (d): stores the client id and secret encrypted; they are never returned.',
      args: { id: t.arg.id({ required: true }), clientId: t.arg.string({ required: true }), clientSecret: t.arg.string({ required: true }) },
      resolve: (_r, a, ctx) => connections.setConnectionCredentials(ctx, String(a.id), { clientId: a.clientId, clientSecret: a.clientSecret }),
    }),
    checkConnectionHealth: t.field({
      type: ConnectionRef, errors: result(connections.checkConnectionHealth, 'connection'),
      description: 'Onboarding step (e).',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => connections.checkConnectionHealth(ctx, String(a.id)),
    }),
    syncConnection: t.field({
      type: ConnectionRef, errors: result(connections.requestSync, 'connection'),
      description: 'Queues a sync in the worker.',
      args: { id: t.arg.id({ required: true }), mode: t.arg({ type: SyncMode, required: false }) },
      resolve: (_r, a, ctx) => connections.requestSync(ctx, a),
    }),
    disconnectConnection: t.field({
      type: ConnectionRef, errors: result(connections.disconnectConnection, 'connection'),
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => connections.disconnectConnection(ctx, String(a.id)),
    }),
    openLaunch: t.field({
      type: Launch, errors: result(openLaunch, 'target'),
      description: 'Opens a notebook canvas launch once (launch_used on a second use, launch_expired after 10 minutes).',
      args: { launchId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => openLaunch(ctx, a),
    }),
  }))

  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
