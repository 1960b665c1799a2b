// Connections in the connectors subgraph: Connection (ConnectionOut) with its health, scope rules and onboarding,
// Query.connection, Program.connections (cursor pages) and the connection mutations (onboarding (a) to (e), sync,
// disconnect).
import type { Connection } from '../../../generated/prisma/client'
import { result, type Builder } from '../../shared/builder'
import { connectionType, pageArgs } from '../../shared/connection'
import * as connections from '../../../domain/connections'
import { providerSpec } from '../../../domain/adapters'
import { hookUrlFor } from '../../../domain/adapters'
import type { ConnectorsRefs } from './refs'
import type { addProviders } from './providers'

type HealthJson = { status?: string; checked_at?: string; checks?: { name: string; ok: boolean; detail: string }[]; last_sync?: unknown; last_error?: string | null; note?: string | null }

export type ConnectionRefs = ReturnType<typeof addConnections>

export function addConnections(builder: Builder, { ProgramRef, UserRef }: ConnectorsRefs, { Provider }: ReturnType<typeof addProviders>) {
  const ScopeRules = builder.objectRef<{ projectIds: string[]; documentTypes: string[] }>('ScopeRules').implement({
    description: 'What the service syncs, enforced by the service even when the vendor token is tenant-wide.',
    fields: (t) => ({ projectIds: t.exposeStringList('projectIds'), documentTypes: t.exposeStringList('documentTypes') }),
  })

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
      onboarding: t.field({ type: [OnboardingStep], resolve: (c, _a, ctx) => connections.connectionOnboarding(ctx, c) }),
      appManifest: t.field({ type: 'JSON', nullable: true, description: 'The vendor app manifest to create the app from (onboarding step c).', resolve: (c) => connections.appManifest(c) }),
      lastSyncedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.lastSyncedAt }),
      createdAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
      disconnectedAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.disconnectedAt }),
    }),
  })
  // "ConnectionConnection" by the one naming rule (<type>Connection): a page of connections.
  const Connections = connectionType(builder, 'Connection', ConnectionRef, "A page of a program's connections, newest first.")

  builder.queryFields((t) => ({
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
      type: Connections,
      description: "The program's connections, newest first (program.connections.read).",
      args: pageArgs(t.arg),
      // one DataLoader per page asked for: the programs of one entity fetch (all of `me`'s) are read together
      resolve: (p, args, ctx) => connections.listConnections(ctx, p.id, args, (keyset) =>
        ctx.loader(`Program.connections ${args.first ?? ''} ${args.after ?? ''}`, (ids: readonly string[]) => connections.connectionPagesOf(ctx, ids, keyset)).load(p.id)),
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
  }))
  return { ConnectionRef }
}
