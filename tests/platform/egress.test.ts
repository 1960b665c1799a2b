// A connection's baseUrl cannot reach private or reserved addresses in production (SSRF), unless EGRESS_ALLOW names them;
// checked when the connection is saved (literal addresses) and on the address each socket connects to.
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as jose from 'jose'
import { env, setEnv, type Env } from '../../core/config'
import { resetAuthKeys } from '../../core/identity'
import { freePort } from '../../core/database'
import { addressAllowed, parseAllowList } from '../../core/http'
import { startFakeNotebook, type FakeNotebook } from '../../fakes/notebook/server'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let fake: FakeNotebook
let jwks: http.Server
let saved: Env
let signer: { privateKey: jose.CryptoKey; kid: string }
const ISSUER = 'https://idp.example/'
const SECRET_KEY = randomBytes(32).toString('hex')

/** Production as an operator runs it: tokens from an identity provider (a local JWKS here), a secret key, no defaults. */
function production(extra: Partial<Env> = {}) {
  setEnv({
    ...saved, NODE_ENV: 'production', AUTH_JWKS_URL: `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks`,
    AUTH_ISSUER: ISSUER, CONNECTION_SECRET_KEY: SECRET_KEY, EGRESS_ALLOW: undefined, ...extra,
  })
}

beforeAll(async () => {
  saved = env()
  fake = await startFakeNotebook()
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true })
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' }
  signer = { privateKey, kid: 'idp-1' }
  jwks = http.createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ keys: [publicJwk] })) })
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  production()
  resetAuthKeys()
})
afterAll(async () => {
  setEnv(saved)
  resetAuthKeys()
  await fake?.close()
  await new Promise((r) => jwks?.close(r))
})

const idpToken = (user: { id: string; email: string }) => new jose.SignJWT({ email: user.email })
  .setProtectedHeader({ alg: 'ES256', kid: signer.kid }).setSubject(user.id).setIssuer(ISSUER).setAudience(env().AUTH_AUDIENCE)
  .setIssuedAt().setExpirationTime('10m').sign(signer.privateKey)

const RESULT = (name: string, args: string) => `${name}(${args}) { __typename ... on Mutation${name[0].toUpperCase()}${name.slice(1)}Success { connection { id baseUrl health { status checks { name ok detail } } } } ... on Error { code message field } }`
const api = async (tenant: Tenant, query: string, variables: Record<string, unknown>) => {
  const r = await gql(`${stack.current.gatewayUrl}/graphql`, query, variables, await idpToken(tenant.users.program_owner))
  expect(r.body.errors).toBeUndefined()
  return r.body.data
}
const create = async (tenant: Tenant, baseUrl: string) => (await api(tenant, `mutation($input: CreateConnectionInput!) { ${RESULT('createConnection', 'input: $input')} }`, {
  input: { programId: tenant.program.id, providerId: 'eln_provider', name: 'Notebook', scopeRules: { projectIds: ['lib_illustrative_folder'] }, consent: true, baseUrl },
})).createConnection
const update = async (tenant: Tenant, id: string, baseUrl: string) => (await api(tenant, `mutation($id: ID!, $input: UpdateConnectionInput!) { ${RESULT('updateConnection', 'id: $id, input: $input')} }`, { id, input: { baseUrl } })).updateConnection
const credentials = async (tenant: Tenant, id: string, app: { clientId?: string; clientSecret?: string }) => (await api(tenant, `mutation($id: ID!, $a: String!, $b: String!) { ${RESULT('setConnectionCredentials', 'id: $id, clientId: $a, clientSecret: $b')} }`, { id, a: app.clientId, b: app.clientSecret })).setConnectionCredentials
const checkHealth = async (tenant: Tenant, id: string) => (await api(tenant, `mutation($id: ID!) { ${RESULT('checkConnectionHealth', 'id: $id')} }`, { id })).checkConnectionHealth.connection.health

/** A connection saved while EGRESS_ALLOW allowed its address (as an operator might have), with working credentials. */
async function connectedWhileAllowed(name: string, baseUrl: string) {
  const tenant = await createTenant(stack.db.db, name)
  production({ EGRESS_ALLOW: '127.0.0.0/8' })
  const app = fake.control.registerApp()
  const c = await create(tenant, baseUrl)
  expect(c.__typename).toBe('MutationCreateConnectionSuccess')
  await update(tenant, c.connection.id, baseUrl)
  await api(tenant, `mutation($id: ID!, $input: UpdateConnectionInput!) { updateConnection(id: $id, input: $input) { __typename } }`, { id: c.connection.id, input: { appDefinitionId: app.appDefinitionId } })
  await credentials(tenant, c.connection.id, app)
  return { tenant, id: c.connection.id as string }
}

describe('outbound connections in production (EGRESS_ALLOW)', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT, unique-local and IPv4-mapped base URLs with invalid_input on baseUrl', async () => {
    production()
    const tenant = await createTenant(stack.db.db, 'Refused')
    for (const url of [
      fake.url, 'http://localhost:8190', 'http://127.1:8190', 'http://2130706433/', 'http://0x7f000001/', 'http://[::1]:8190',
      'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://10.1.2.3/', 'http://172.20.0.5/', 'http://192.168.1.10/',
      'http://169.254.169.254/latest/meta-data/', 'http://100.100.100.200/', 'http://[fd00:ec2::254]/', 'http://[fe80::1]/', 'http://0.0.0.0:8190',
    ]) {
      const r = await create(tenant, url)
      expect([url, r.code, r.field]).toEqual([url, 'invalid_input', 'input.baseUrl'])
      expect(r.message).toContain('EGRESS_ALLOW')
    }
    // The same on update of an existing connection.
    production({ EGRESS_ALLOW: '' })
    const ok = await create(tenant, 'https://notebook.example.com')
    expect(ok.__typename).toBe('MutationCreateConnectionSuccess')
    const r = await update(tenant, ok.connection.id, 'http://169.254.169.254/')
    expect([r.code, r.field]).toEqual(['invalid_input', 'input.baseUrl'])
  })

  it('works against an on-premises vendor on an allow-listed range: create, credentials and a passing health check', async () => {
    production({ EGRESS_ALLOW: '127.0.0.1/32' })
    const tenant = await createTenant(stack.db.db, 'Allowed')
    const app = fake.control.registerApp()
    const c = await create(tenant, fake.url)
    expect(c.__typename).toBe('MutationCreateConnectionSuccess')
    await api(tenant, `mutation($id: ID!, $input: UpdateConnectionInput!) { updateConnection(id: $id, input: $input) { __typename } }`, { id: c.connection.id, input: { appDefinitionId: app.appDefinitionId } })
    await credentials(tenant, c.connection.id, app)
    const health = await checkHealth(tenant, c.connection.id)
    expect(health.status).toBe('ok')
  })

  it('checks the address at connect time: a saved loopback URL (literal or a name) is refused once the allow-list no longer names it, before the secret is sent', async () => {
    for (const [name, baseUrl] of [['Literal', fake.url], ['Named', fake.url.replace('127.0.0.1', 'localhost')]] as const) {
      const { tenant, id } = await connectedWhileAllowed(name, baseUrl)
      production({ EGRESS_ALLOW: '' })
      fake.control.resetStats()
      const health = await checkHealth(tenant, id)
      expect(health.status).toBe('failing')
      const credentialsCheck = health.checks.find((k: any) => k.name === 'credentials')
      expect(credentialsCheck.ok).toBe(false)
      expect(credentialsCheck.detail).toContain('private or reserved network address')
      expect(fake.control.getStats().requests).toBe(0) // nothing reached the vendor: no token request, no JWKS fetch
    }
  })

  it('answers the same for an open and a closed port on a refused address, so an owner cannot scan ports through the health check', async () => {
    const closed = await freePort()
    const open = await connectedWhileAllowed('Open port', fake.url)
    const shut = await connectedWhileAllowed('Closed port', `http://127.0.0.1:${closed}`)
    production({ EGRESS_ALLOW: '' })
    const [a, b] = [await checkHealth(open.tenant, open.id), await checkHealth(shut.tenant, shut.id)]
    const view = (h: any) => ({ status: h.status, checks: h.checks.map((k: any) => ({ ...k, detail: k.detail.replace(/appdef_\w+/g, 'appdef_X') })) })
    expect(view(a)).toEqual(view(b))
    // Both details name the host only, never a connection error that depends on the port.
    expect(JSON.stringify(a)).not.toMatch(/ECONNREFUSED|refused the connection|timeout/i)
  })
})

describe('the egress allow-list setting', () => {
  it('reads CIDRs, addresses and host names, and names every entry it cannot read', () => {
    const { allow, problems } = parseAllowList('10.20.0.0/16, fd00:ec2::/32, 192.168.4.7, eln.corp.example, 10.0.0.0/99, not a host, 1.2.3.4/8/1')
    expect(problems).toEqual(['10.0.0.0/99 is not a valid CIDR', 'not a host is neither a CIDR, an IP address nor a host name', '1.2.3.4/8/1 is not a valid CIDR'])
    expect(allow.hosts.has('eln.corp.example')).toBe(true)
    expect(addressAllowed('10.20.3.4', allow)).toBe(true)
    expect(addressAllowed('::ffff:10.20.3.4', allow)).toBe(true)
    expect(addressAllowed('10.21.0.1', allow)).toBe(false)
    expect(addressAllowed('192.168.4.7', allow)).toBe(true)
    expect(addressAllowed('192.168.4.8', allow)).toBe(false)
    expect(addressAllowed('93.184.215.14', allow)).toBe(true) // public addresses need no entry
    expect(addressAllowed('64:ff9b::7f00:1', allow)).toBe(false) // NAT64 form of 127.0.0.1
    const none = parseAllowList('').allow
    for (const a of ['0:0:0:0:0:ffff:a9fe:a9fe', '::FFFF:169.254.169.254', '::7f00:1', '::', 'fe80::1%eth0'.split('%')[0], '100.64.0.1', '224.0.0.1']) {
      expect([a, addressAllowed(a, none)]).toEqual([a, false])
    }
    expect(addressAllowed('::ffff:93.184.215.14', none)).toBe(true)
    expect(addressAllowed('2606:2800:21f:cb07:6820:80da:af6b:8b2c', none)).toBe(true)
  })
})
