import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createGateway, type Gateway } from '../../gateway/server'
import { useStack } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

// DNS rebinding: a page at http://rebound.example:<port> whose name re-resolves to 127.0.0.1 reaches the developer's
// gateway with Host and Origin both naming rebound.example, so the Origin check sees a same-origin caller.
const stack = useStack()
let tenant: Tenant
let token = ''
const REBOUND = 'rebound.example'
const port = () => new URL(stack.current.gatewayUrl).port

interface Answer { status: number; body: string }

/** One HTTP request with a Host header of our choosing (fetch does not let a caller set Host). */
function request(base: string, path: string, host: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const u = new URL(path, base)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: opts.method ?? 'GET', headers: { host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

/** What a page at http://<host> does: POST JSON with its own origin (equal to the Host it reached us by). */
const postAsPage = (base: string, path: string, host: string, body: unknown, extra: Record<string, string> = {}) =>
  request(base, path, host, { method: 'POST', body: JSON.stringify(body), headers: { origin: `http://${host}`, 'content-type': 'application/json', ...extra } })

/** The HTTP status of a graphql-ws upgrade sent with this Host and Origin, or 101 when the socket opened. */
function upgradeStatus(base: string, host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { host }, ...(origin ? { origin } : {}) })
    ws.on('open', () => { ws.close(); resolve(101) })
    ws.on('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode ?? 0) })
    ws.on('error', reject)
  })
}

beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
  token = await tenant.token('scientist')
})

describe('the Host check outside production (DNS rebinding)', () => {
  it('refuses the development sign-in to a page whose name was rebound to 127.0.0.1, with HOST_NOT_ALLOWED and no token', async () => {
    const host = `${REBOUND}:${port()}`
    for (const path of ['/api/dev/people']) {
      const res = await request(stack.current.gatewayUrl, path, host, { headers: { origin: `http://${host}` } })
      expect(res.status).toBe(403)
      expect(JSON.parse(res.body).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED')
    }
    const signIn = await postAsPage(stack.current.gatewayUrl, '/api/dev/sign-in', host, { email: 'any@illustrative.example' })
    expect(signIn.status).toBe(403)
    expect(signIn.body).not.toContain('token')
    const body = JSON.parse(signIn.body)
    expect(body.errors[0]).toMatchObject({ message: expect.stringContaining('PUBLIC_URL'), extensions: { code: 'HOST_NOT_ALLOWED' } })
    // the same route by the loopback name is there
    expect((await request(stack.current.gatewayUrl, '/api/dev/people', `localhost:${port()}`)).status).toBe(200)
  })

  it('refuses /graphql to a rebound name even with a valid token, and answers it by 127.0.0.1, localhost and [::1]', async () => {
    const query = { query: '{ me { user { id } } }' }
    const auth = { authorization: `Bearer ${token}` }
    const rebound = await postAsPage(stack.current.gatewayUrl, '/graphql', `${REBOUND}:${port()}`, query, auth)
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).data).toBeUndefined()
    expect(JSON.parse(rebound.body).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED')
    for (const name of ['127.0.0.1', 'localhost', '[::1]', 'console.localhost']) {
      const res = await postAsPage(stack.current.gatewayUrl, '/graphql', `${name}:${port()}`, query, auth)
      expect(res.status, name).toBe(200)
      expect(JSON.parse(res.body).data.me.user.id).toBeTruthy()
    }
  })

  it('refuses the console page, GraphiQL and health routes to a rebound name', async () => {
    for (const path of ['/', '/graphiql', '/console-config.json', '/healthz']) {
      const res = await request(stack.current.gatewayUrl, path, `${REBOUND}:${port()}`, { headers: { accept: 'text/html' } })
      expect(res.status, path).toBe(403)
    }
    expect((await request(stack.current.gatewayUrl, '/healthz', `127.0.0.1:${port()}`)).status).toBe(200)
  })

  it('refuses the graphql-ws upgrade from a rebound name with 403 before the socket opens, and opens it by localhost', async () => {
    const rebound = `${REBOUND}:${port()}`
    expect(await upgradeStatus(stack.current.gatewayUrl, rebound, `http://${rebound}`)).toBe(403)
    expect(await upgradeStatus(stack.current.gatewayUrl, rebound)).toBe(403)
    const local = `localhost:${port()}`
    expect(await upgradeStatus(stack.current.gatewayUrl, local, `http://${local}`)).toBe(101)
  })
})

describe('the hosts an operator configures', () => {
  let gateways: Gateway[] = []
  const start = async (extra: Partial<Parameters<typeof createGateway>[0]>) => {
    const gateway = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, dataDir: stack.db.dataDir, ...extra })
    gateways.push(gateway)
    return gateway.listen(0, '127.0.0.1')
  }
  afterAll(async () => {
    for (const g of gateways) await g.close()
    gateways = []
  })

  it('answers the hosts of PUBLIC_URL and CORS_ORIGINS outside production, and still no other', async () => {
    const base = await start({ publicUrl: 'https://workspace.example.org', corsOrigins: ['http://dev-box.lan:5173'] })
    expect((await request(base, '/healthz', 'workspace.example.org')).status).toBe(200)
    expect((await request(base, '/healthz', 'dev-box.lan:4000')).status).toBe(200)
    expect((await request(base, '/healthz', REBOUND)).status).toBe(403)
    expect(await upgradeStatus(base, 'dev-box.lan:4000')).toBe(101)
  })

  it('leaves the Host to the operator\'s proxy in production', async () => {
    const base = await start({ production: true })
    expect((await request(base, '/healthz', 'workspace.example.org')).status).toBe(200)
  })
})
