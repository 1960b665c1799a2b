// Two QMS rules through the gateway against the fake QMS over HTTP: the document-type scope (a version of a document
// type the connection does not name in scope_rules.document_types is counted out of scope, never ingested, nothing of
// it fetched) and the v{YY.N} form of the QMS REST version (another form is refused when the connection is
// configured, and its health check says so).
import { describe, expect, it } from 'vitest'
import { createTenant } from '../helpers/factories'
import { useStack } from '../helpers/stack'
import { runQmsSync } from '../../domain/qms'
import { gql } from '../helpers/stack'
import { MUTATION_ERR, configure, connectQms, seedSop, startTestFakeQms, HEALTH, LIFECYCLE_MAP } from './helpers'
import { ILLUSTRATIVE_CLIENT_ID } from '../../fakes/qms/seed'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`

describe('QMS document-type scoping', () => {
  it('does not ingest an SOP of a document type the connection does not map, and fetches nothing of it', async () => {
    await using vault = await startTestFakeQms()
    seedSop(vault)
    vault.state.addDocument({ id: '301', number: 'WI-0007', name: 'Balance cleaning', type: 'work_instruction__c' })
    vault.state.addVersion('301', { major: 1, minor: 0, status: 'Effective', text: 'Balance cleaning\n1 Scope\nClean the balance daily.\n' })
    const t = await createTenant(db(), 'QmsScope')
    const c = await connectQms(url(), t, vault, { documentTypes: ['sop__c'] })
    const run = await runQmsSync(db(), c.id, 'poll')
    expect(run).toMatchObject({ status: 'synced', report: { seen: 4, created: 3, outOfScope: 1 } })
    const stored = await db().sopVersion.findMany({ where: { connectionId: c.id } })
    expect(stored).toHaveLength(3)
    expect(stored.map((v) => v.documentId)).toEqual(['201', '201', '201'])
    expect(vault.state.log.some((l) => l.path.includes('/301/'))).toBe(false)
  })
})

describe('the QMS REST version', () => {
  it('refuses to configure a QMS connection pinned to an api_version not of the form v{YY.N}, writing nothing, and its health check says so', async () => {
    await using vault = await startTestFakeQms()
    const t = await createTenant(db(), 'QmsVersion')
    const token = await t.token('program_owner')
    const created = await gql(url(), `mutation($input: CreateConnectionInput!) { createConnection(input: $input) { __typename ... on MutationCreateConnectionSuccess { connection { id apiVersion } } ${MUTATION_ERR} } }`, {
      input: { programId: t.program.id, providerId: 'qms_provider', name: 'Old vault', scopeRules: { documentTypes: ['sop__c'] }, baseUrl: vault.url, consent: true, apiVersion: 'v26' },
    }, token)
    const connection = created.body.data.createConnection.connection
    expect(connection.apiVersion).toBe('v26')
    const refused = await configure(url(), token, connection.id, { clientId: ILLUSTRATIVE_CLIENT_ID, instanceId: String(vault.state.vaultId), integrationUser: 'sandbox', lifecycleMap: LIFECYCLE_MAP })
    expect(refused.body.data.configureQmsConnection).toMatchObject({
      __typename: 'UnsupportedApiVersion', field: 'input.apiVersion',
      message: 'The QMS REST version has the form v{YY.N}; api_version v26 is pinned.',
    })
    const row = await db().connection.findUniqueOrThrow({ where: { id: connection.id } })
    expect((row.providerSettings as Record<string, unknown> | null)?.client_id ?? null).toBeNull()
    const h = (await gql(url(), HEALTH, { id: connection.id }, token)).body.data.checkConnectionHealth.connection.health
    expect(h.checks.find((k: { name: string }) => k.name === 'api_version')).toMatchObject({ ok: false, detail: 'api_version v26 is not of the form v{YY.N}' })
  })
})
