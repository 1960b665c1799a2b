// Connections over GraphQL through the gateway: onboarding (a) to (e), permissions, audit, api_version control, secrets
// that never come back out, and organisation isolation of connections and what they have seen.
import { describe, expect, it } from 'vitest'
import { gql } from '../helpers/stack'
import { createTenant, createTwoOrganizations, expectRowsExist, type Tenant } from '../helpers/factories'
import { CONNECTORS } from '../../core/text'
import { env, setEnv } from '../../core/config'
import { getConnection, listConnections } from '../../domain/connections'
import { connectNotebook, entryUpdated, ownerContext, runWorkerOnce, sampleEntry, useNotebookStack, FOLDER } from './helpers'

const { stack, fake } = useNotebookStack()

const db = () => stack.db.db
const api = (query: string, variables: Record<string, unknown>, token: string) => gql(`${stack.current.gatewayUrl}/graphql`, query, variables, token)

const FIELDS = `id providerId sourceSystem name status writePolicy credentialClass apiVersion hookUrl hasCredentials appDefinitionId
  scopeRules { projectIds documentTypes } consentedBy { id } consentedAt onboarding { step key label done }
  health { status checks { name ok detail } } appManifest`
const RESULT = (name: string, args: string) => `${name}(${args}) { __typename ... on Mutation${name[0].toUpperCase()}${name.slice(1)}Success { connection { ${FIELDS} } } ... on Error { code message field } }`

async function create(tenant: Tenant, input: Record<string, unknown>, persona: Parameters<Tenant['token']>[0] = 'program_owner') {
  const r = await api(`mutation($input: CreateConnectionInput!) { ${RESULT('createConnection', 'input: $input')} }`, {
    input: { programId: tenant.program.id, providerId: 'eln_provider', name: 'Notebook', scopeRules: { projectIds: [FOLDER] }, consent: true, ...input },
  }, await tenant.token(persona))
  return r
}

describe('connector status', () => {
  it('reads designed for every provider until R1_GATE_PASSED is set, then preview', async () => {
    const tenant = await createTenant(db(), 'Gate')
    const read = async () => (await api(`{ connectorProviders { id status } }`, {}, await tenant.token('viewer'))).body.data.connectorProviders as { id: string; status: string }[]
    expect((await read()).map((p) => p.status)).toEqual(['designed', 'designed', 'designed'])
    const before = env()
    setEnv({ ...before, R1_GATE_PASSED: true })
    try {
      expect((await read()).map((p) => `${p.id} ${p.status}`)).toEqual(['eln_provider preview', 'qms_provider preview', 'literature_search preview'])
    } finally {
      setEnv(before)
    }
  })
})

describe('connections', () => {
  it('walks a program owner through the onboarding order (a) to (e), with hook_url, the app manifest and an audit row per step', async () => {
    const tenant = await createTenant(db(), 'Onboarding')
    const app = fake.control.registerApp()
    const token = await tenant.token('program_owner')
    const created = await create(tenant, { baseUrl: fake.url })
    expect(created.body.errors).toBeUndefined()
    const c = created.body.data.createConnection.connection
    expect(c).toMatchObject({
      providerId: 'eln_provider', sourceSystem: 'eln_provider', status: 'active', writePolicy: 'read_only', credentialClass: 'service',
      apiVersion: 'v2', hasCredentials: false, consentedBy: { id: tenant.users.program_owner.id }, scopeRules: { projectIds: [FOLDER], documentTypes: [] },
    })
    expect(c.hookUrl).toMatch(new RegExp(`/api/v1/hooks/eln_provider/${c.id}$`))
    expect(c.appManifest).toMatchObject({ manifestVersion: 1, settings: { webhookUrl: c.hookUrl }, features: [{ type: 'CANVAS' }] })
    expect(c.onboarding.map((s: any) => [s.step, s.done])).toEqual([['a', true], ['b', false], ['c', false], ['d', false], ['e', false]])
    expect(c.onboarding.map((s: any) => s.label)).toEqual(CONNECTORS.onboardingSteps)

    const updated = await api(`mutation($id: ID!, $input: UpdateConnectionInput!) { ${RESULT('updateConnection', 'id: $id, input: $input')} }`, { id: c.id, input: { appDefinitionId: app.appDefinitionId } }, token)
    expect(updated.body.data.updateConnection.connection.onboarding.map((s: any) => s.done)).toEqual([true, true, true, false, false])

    const stored = await api(`mutation($id: ID!, $clientId: String!, $clientSecret: String!) { ${RESULT('setConnectionCredentials', 'id: $id, clientId: $clientId, clientSecret: $clientSecret')} }`, { id: c.id, clientId: app.clientId, clientSecret: app.clientSecret }, token)
    expect(stored.body.data.setConnectionCredentials.connection).toMatchObject({ hasCredentials: true })
    expect(stored.body.data.setConnectionCredentials.connection.onboarding.map((s: any) => s.done)).toEqual([true, true, true, true, false])

    const checked = await api(`mutation($id: ID!) { ${RESULT('checkConnectionHealth', 'id: $id')} }`, { id: c.id }, token)
    const health = checked.body.data.checkConnectionHealth.connection
    expect(health.health.status).toBe('ok')
    expect(health.health.checks.map((k: any) => k.name).sort()).toEqual(['api_version', 'credentials', 'entries', 'scope_rules', 'webhook_keys'])
    expect(health.onboarding.every((s: any) => s.done)).toBe(true)

    const actions = (await db().auditEvent.findMany({ where: { targetId: c.id }, orderBy: { entrySeq: 'asc' } })).map((a) => a.action)
    expect(actions).toEqual(['connection.create', 'connection.update', 'connection.credentials_update', 'connection.health_check'])
    const listed = await api(`query($p: ID!) { program(id: $p) { connections { nodes { id name } } } }`, { p: tenant.program.id }, await tenant.token('quality_reviewer'))
    expect(listed.body.data.program.connections.nodes).toEqual([{ id: c.id, name: 'Notebook' }])
  })

  it('refuses a connection without consent, without a mapped project, a second active one, and a provider whose adapter is not built yet', async () => {
    const tenant = await createTenant(db(), 'Refusals')
    const codes = async (input: Record<string, unknown>) => {
      const r = await create(tenant, input)
      return [r.body.data.createConnection.code, r.body.data.createConnection.field]
    }
    expect(await codes({ consent: false })).toEqual(['consent_required', 'input.consent'])
    expect(await codes({ scopeRules: { projectIds: [] } })).toEqual(['scope_rules_required', 'input.scopeRules.projectIds'])
    expect(await codes({ providerId: 'qms_provider', scopeRules: {} })).toEqual(['scope_rules_required', 'input.scopeRules.documentTypes'])
    expect(await codes({ providerId: 'literature_search', scopeRules: {} })).toEqual(['not_supported', 'input.providerId'])
    expect(await codes({ providerId: 'nope' })).toEqual(['unknown_provider', 'input.providerId'])
    expect((await create(tenant, {})).body.data.createConnection.connection.status).toBe('active')
    expect(await codes({})).toEqual(['connection_exists', 'input.providerId'])
  })

  it('audits an api_version change as a controlled change and asks for its reason', async () => {
    const tenant = await createTenant(db(), 'Versions')
    const token = await tenant.token('program_lead')
    const id = (await create(tenant, {}, 'program_lead')).body.data.createConnection.connection.id
    const noReason = await api(`mutation($id: ID!, $input: UpdateConnectionInput!) { ${RESULT('updateConnection', 'id: $id, input: $input')} }`, { id, input: { apiVersion: 'v3' } }, token)
    expect(noReason.body.data.updateConnection).toMatchObject({ code: 'reason_required', field: 'input.apiVersionChangeReason' })
    const changed = await api(`mutation($id: ID!, $input: UpdateConnectionInput!) { ${RESULT('updateConnection', 'id: $id, input: $input')} }`, { id, input: { apiVersion: 'v3', apiVersionChangeReason: 'Vendor sandbox moved to v3' } }, token)
    expect(changed.body.data.updateConnection.connection.apiVersion).toBe('v3')
    const audit = await db().auditEvent.findFirstOrThrow({ where: { targetId: id, action: 'connection.api_version_change' } })
    expect(audit.details).toEqual({ from: 'v2', to: 'v3', reason: 'Vendor sandbox moved to v3' })
    expect(audit.actorUserId).toBe(tenant.users.program_lead.id)
  })

  it('lets quality reviewers read connections, only owners and leads manage them, and shows scientists and viewers FORBIDDEN', async () => {
    const tenant = await createTenant(db(), 'Permissions')
    const id = (await create(tenant, {})).body.data.createConnection.connection.id
    const read = async (persona: Parameters<Tenant['token']>[0]) => api(`query($id: ID!) { connection(id: $id) { id } }`, { id }, await tenant.token(persona))
    expect((await read('quality_reviewer')).body.data.connection).toEqual({ id })
    expect((await read('scientist')).body.data.connection).toBeNull()
    const listing = await api(`query($p: ID!) { program(id: $p) { connections { nodes { id } } } }`, { p: tenant.program.id }, await tenant.token('viewer'))
    expect(listing.body.errors?.[0].extensions?.code).toBe('FORBIDDEN')
    const manage = await api(`mutation($id: ID!) { ${RESULT('disconnectConnection', 'id: $id')} }`, { id }, await tenant.token('quality_reviewer'))
    expect(manage.body.errors?.[0].extensions?.code).toBe('FORBIDDEN')
    expect((await db().connection.findUniqueOrThrow({ where: { id } })).status).toBe('active')
  })

  it('never returns, logs or shows the client secret, and keeps it encrypted at rest', async () => {
    const tenant = await createTenant(db(), 'Secrets')
    const secret = `s3cr3t-${Math.random().toString(36).slice(2)}-DO-NOT-LEAK`
    const clientId = `client-${Math.random().toString(36).slice(2)}`
    const app = fake.control.registerApp({ client: { clientId, clientSecret: 'the-vendor-knows-another-one' } })
    const token = await tenant.token('program_owner')
    const written: string[] = []
    const out = process.stdout.write.bind(process.stdout)
    const err = process.stderr.write.bind(process.stderr)
    const level = process.env.LOG_LEVEL
    process.env.LOG_LEVEL = 'debug'
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => { written.push(String(chunk)); return (out as any)(chunk, ...rest) }) as typeof process.stdout.write
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => { written.push(String(chunk)); return (err as any)(chunk, ...rest) }) as typeof process.stderr.write
    const answers: string[] = []
    try {
      const id = (await create(tenant, { baseUrl: fake.url, appDefinitionId: app.appDefinitionId })).body.data.createConnection.connection.id
      const stored = await api(`mutation($id: ID!, $clientId: String!, $clientSecret: String!) { ${RESULT('setConnectionCredentials', 'id: $id, clientId: $clientId, clientSecret: $clientSecret')} }`, { id, clientId, clientSecret: secret }, token)
      answers.push(JSON.stringify(stored.body))
      // The vendor refuses the credentials: health fails, and neither the answer nor the logs carry the secret.
      const checked = await api(`mutation($id: ID!) { ${RESULT('checkConnectionHealth', 'id: $id')} }`, { id }, token)
      answers.push(JSON.stringify(checked.body))
      expect(checked.body.data.checkConnectionHealth.connection.health.status).toBe('failing')
      const tooLong = await api(`mutation($id: ID!, $clientId: String!, $clientSecret: String!) { ${RESULT('setConnectionCredentials', 'id: $id, clientId: $clientId, clientSecret: $clientSecret')} }`, { id, clientId, clientSecret: `${secret}${'x'.repeat(1100)}` }, token)
      answers.push(JSON.stringify(tooLong.body))
      expect(tooLong.body.data.setConnectionCredentials.code).toBe('invalid_input')
      // A sync attempt that fails on the credentials, in the worker.
      sampleEntry(fake, 'etr_secret_1')
      await fake.control.sendWebhook({ url: `${stack.current.gatewayUrl}/api/v1/hooks/eln_provider/${id}`, appDefinitionId: app.appDefinitionId, event: entryUpdated('etr_secret_1') })
      await runWorkerOnce(db(), stack.db.url)
      answers.push(JSON.stringify((await api(`query($id: ID!) { connection(id: $id) { ${FIELDS} deliveries { nodes { lastError } } } }`, { id }, token)).body))

      const row = await db().connection.findUniqueOrThrow({ where: { id } })
      expect(row.secretsCiphertext).toMatch(/^v1:/)
      const everything = [...answers, ...written, JSON.stringify(row), JSON.stringify(await db().auditEvent.findMany({ where: { organizationId: tenant.organization.id } }), (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
        JSON.stringify(await db().webhookDelivery.findMany({ where: { connectionId: id } }))].join('\n')
      expect(everything).not.toContain(secret)
      expect(written.length).toBeGreaterThan(0)
    } finally {
      process.stdout.write = out
      process.stderr.write = err
      if (level === undefined) delete process.env.LOG_LEVEL
      else process.env.LOG_LEVEL = level
    }
  })

  it("keeps one organisation's connections and mirrored objects away from another", async () => {
    const { a, b } = await createTwoOrganizations(db())
    const nbA = await connectNotebook(db(), a, { fake })
    const nbB = await connectNotebook(db(), b, { fake })
    sampleEntry(fake, 'etr_isolation_1')
    for (const nb of [nbA, nbB]) {
      await fake.control.sendWebhook({ url: nb.hookUrl(stack.current.gatewayUrl), appDefinitionId: nb.app.appDefinitionId, event: entryUpdated('etr_isolation_1') })
    }
    await runWorkerOnce(db(), stack.db.url)
    for (const table of ['connections', 'connector_objects', 'sources', 'documents', 'webhook_deliveries']) await expectRowsExist(db(), table, b.organization.id)

    const tokenA = await a.token('program_owner')
    const foreign = await api(`query($id: ID!) { connection(id: $id) { id objects { nodes { id } } } }`, { id: nbB.connection.id }, tokenA)
    expect(foreign.body.data.connection).toBeNull()
    const own = await api(`query($id: ID!) { connection(id: $id) { id objects { nodes { externalId } } deliveries { nodes { id } } } }`, { id: nbA.connection.id }, tokenA)
    expect(own.body.data.connection.objects.nodes).toEqual([{ externalId: 'etr_isolation_1' }])
    const ownDeliveries = await db().webhookDelivery.findMany({ where: { connectionId: nbA.connection.id } })
    expect(own.body.data.connection.deliveries.nodes.map((d: any) => d.id).sort()).toEqual(ownDeliveries.map((d) => d.id).sort())
    const otherProgram = await api(`query($p: ID!) { program(id: $p) { connections { nodes { id } } } }`, { p: b.program.id }, tokenA)
    expect(otherProgram.body.data?.program ?? null).toBeNull()
    const disconnect = await api(`mutation($id: ID!) { ${RESULT('disconnectConnection', 'id: $id')} }`, { id: nbB.connection.id }, tokenA)
    expect(disconnect.body.data.disconnectConnection.code).toBe('not_found')
    // The domain functions refuse as well, whatever resolver calls them.
    const ctxA = await ownerContext(db(), a)
    expect(await getConnection(ctxA, nbB.connection.id)).toBeNull()
    await expect(listConnections(ctxA, b.program.id)).rejects.toThrow(/program.connections.read/)
  })

  it('disconnects: erases the stored credentials, audits it, and keeps what was seen as history', async () => {
    const tenant = await createTenant(db(), 'Disconnect')
    const nb = await connectNotebook(db(), tenant, { fake })
    const r = await api(`mutation($id: ID!) { ${RESULT('disconnectConnection', 'id: $id')} }`, { id: nb.connection.id }, await tenant.token('program_owner'))
    expect(r.body.data.disconnectConnection.connection).toMatchObject({ status: 'disconnected', hasCredentials: false })
    const row = await db().connection.findUniqueOrThrow({ where: { id: nb.connection.id } })
    expect(row.secretsCiphertext).toBeNull()
    expect(row.disconnectedAt).not.toBeNull()
    expect(await db().auditEvent.count({ where: { targetId: nb.connection.id, action: 'connection.disconnect' } })).toBe(1)
  })
})
