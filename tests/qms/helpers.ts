// Test helpers for the QMS suites: a fake QMS on port 0 (tracked by the leak guard) and a tenant's program connected to
// it through the gateway (create, configure, credentials), plus the QMS job run in this process.
import { startFakeQms, type FakeQms } from '../../fakes/qms/server'
import { ILLUSTRATIVE_CLIENT_ID } from '../../fakes/qms/seed'
import type { Tenant } from '../helpers/factories'
import { track } from '../helpers/resources'
import { gql } from '../helpers/stack'

export const USER = { username: 'integration@test-vault.example', password: 'test-password' }
export const LIFECYCLE_MAP = [
  { label: 'Draft', state: 'draft' }, { label: 'In Review', state: 'in_review' }, { label: 'Approved', state: 'in_review' },
  { label: 'Effective', state: 'effective' }, { label: 'Superseded', state: 'superseded' }, { label: 'Obsolete', state: 'obsolete' },
]

export async function startTestFakeQms(opts: Parameters<typeof startFakeQms>[0] = {}): Promise<FakeQms> {
  const fake = await startFakeQms(opts)
  fake.state.addUser(USER.username, USER.password)
  const close = fake.close
  return track('a fake QMS', fake, close)
}

export const MUTATION_ERR = '... on Error { __typename code message field } ... on InvalidInput { issues { field message } }'

export async function connectQms(gatewayUrl: string, tenant: Tenant, fake: FakeQms, opts: { documentTypes?: string[]; configure?: Record<string, unknown>; password?: string } = {}) {
  const token = await tenant.token('program_owner')
  const created = await gql(gatewayUrl, `mutation($input: CreateConnectionInput!) { createConnection(input: $input) { __typename ... on MutationCreateConnectionSuccess { connection { id apiVersion } } ${MUTATION_ERR} } }`, {
    input: { programId: tenant.program.id, providerId: 'qms_provider', name: 'Test vault', scopeRules: { documentTypes: opts.documentTypes ?? ['sop__c'] }, baseUrl: fake.url, consent: true },
  }, token)
  const connection = created.body.data?.createConnection?.connection
  if (!connection) throw new Error(`createConnection: ${JSON.stringify(created.body)}`)
  const configured = await configure(gatewayUrl, token, connection.id, { clientId: ILLUSTRATIVE_CLIENT_ID, instanceId: String(fake.state.vaultId), integrationUser: 'sandbox', lifecycleMap: LIFECYCLE_MAP, ...opts.configure })
  if (configured.body.data?.configureQmsConnection?.__typename !== 'MutationConfigureQmsConnectionSuccess') throw new Error(`configure: ${JSON.stringify(configured.body)}`)
  const creds = await gql(gatewayUrl, `mutation($id: ID!, $u: String!, $p: String!) { setConnectionCredentials(id: $id, clientId: $u, clientSecret: $p) { __typename } }`, { id: connection.id, u: USER.username, p: opts.password ?? USER.password }, token)
  if (creds.body.data?.setConnectionCredentials?.__typename !== 'MutationSetConnectionCredentialsSuccess') throw new Error(`credentials: ${JSON.stringify(creds.body)}`)
  return { id: connection.id as string, token }
}

export function configure(gatewayUrl: string, token: string, id: string, input: Record<string, unknown>) {
  return gql(gatewayUrl, `mutation($id: ID!, $input: ConfigureQmsConnectionInput!) { configureQmsConnection(id: $id, input: $input) { __typename ${MUTATION_ERR} } }`, { id, input }, token)
}

export const HEALTH = `mutation($id: ID!) { checkConnectionHealth(id: $id) { __typename ... on MutationCheckConnectionHealthSuccess { connection { health { status checks { name ok detail } } } } ${MUTATION_ERR} } }`

/** Three versions of one SOP: 1.0 superseded (no superseded date), 2.0 effective (no effective date), 2.1 draft. */
export function seedSop(fake: FakeQms, id = '201', number = 'SOP-0100') {
  const s = fake.state
  s.addDocument({ id, number, name: 'Entry documentation' })
  s.addVersion(id, { major: 1, minor: 0, status: 'Superseded', effectiveDate: '2025-01-01T00:00:00.000Z', text: 'Entry documentation\n1 Scope\nEach entry shall carry a date.\n' })
  s.addVersion(id, { major: 2, minor: 0, status: 'Effective', text: 'Entry documentation\n1 Scope\nThis applies to entries.\n2 Entries\n2.1 Each entry shall record the date and the author.\n2.2 Reagent lots must be named. Notes are optional.\n' })
  s.addVersion(id, { major: 2, minor: 1, status: 'Draft', text: 'Entry documentation draft\n1 Scope\nDraft text shall change.\n' })
}
