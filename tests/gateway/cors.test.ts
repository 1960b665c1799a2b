import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createGateway, type Gateway } from '../../gateway/server'
import { parseEnv, EnvError } from '../../core/config'
import { useStack, wsClient } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let tenant: Tenant
let token = ''
const url = () => `${stack.current.gatewayUrl}/graphql`
const CONSOLE_DEV = 'http://localhost:5173'
const EVIL = 'https://evil.example'

const preflight = (target: string, origin: string, headers = 'authorization, content-type') => fetch(target, {
  method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
})
const post = (target: string, origin: string, query = '{ me { user { id } } }') => fetch(target, {
  method: 'POST', headers: { origin, 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }),
})

/** The HTTP status a WebSocket upgrade got, or 101 when the socket opened. */
function upgradeStatus(target: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(target.replace(/^http/, 'ws'), 'graphql-transport-ws', origin ? { origin } : {})
    ws.on('open', () => { ws.close(); resolve(101) })
    ws.on('unexpected-response', (_req, res) => { res.resume(); resolve(res.statusCode ?? 0) })
    ws.on('error', (e) => reject(e))
  })
}

/** A graphql-ws client whose socket sends the page's Origin, as a browser does. */
function browserSocketClient(target: string, origin: string) {
  class BrowserLikeSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) { super(address, protocols, { origin }) }
  }
  return wsClient(target, token, { webSocketImpl: BrowserLikeSocket })
}

beforeAll(async () => {
  tenant = await createTenant(stack.db.db)
  token = await tenant.token('scientist')
})

describe('CORS on the gateway in development', () => {
  it('answers a preflight from the console on a local development port with 204 and the allowed methods, headers and max age', async () => {
    const res = await preflight(url(), CONSOLE_DEV, 'authorization, content-type, apollo-require-preflight')
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE_DEV)
    expect(res.headers.get('vary')).toMatch(/origin/i)
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS')
    const allowed = res.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim())
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'apollo-require-preflight', 'x-apollo-operation-name']))
    expect(res.headers.get('access-control-max-age')).toBe('600')
    // credentials are the Authorization header only: cookies are never invited
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('lets an allowed origin post an operation and read its answer and request id', async () => {
    const res = await post(url(), 'http://127.0.0.1:3000')
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000')
    expect(res.headers.get('access-control-expose-headers')).toContain('x-request-id')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    const body = await res.json() as any
    expect(body.data.me.user.id).toBeTruthy()
  })

  it('always lets the gateway\'s own origin call it (the console served at /)', async () => {
    const res = await post(url(), stack.current.gatewayUrl)
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(stack.current.gatewayUrl)
  })

  it('refuses a preflight from an origin not allowed with 403, a clear message and no CORS headers', async () => {
    const res = await preflight(url(), EVIL)
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('access-control-allow-methods')).toBeNull()
    const body = await res.json() as any
    expect(body.errors[0]).toMatchObject({ message: expect.stringContaining('CORS_ORIGINS'), extensions: { code: 'ORIGIN_NOT_ALLOWED' } })
  })

  it('refuses an operation sent from an origin not allowed without running it', async () => {
    const res = await post(url(), EVIL)
    expect(res.status).toBe(403)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect((await res.json() as any).data).toBeUndefined()
  })

  it('answers a preflight for the inbox REST shim the console calls, but none for vendor webhooks', async () => {
    const brief = await fetch(`${stack.current.gatewayUrl}/me/brief`, { method: 'OPTIONS', headers: { origin: CONSOLE_DEV, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } })
    expect(brief.status).toBe(204)
    expect(brief.headers.get('access-control-allow-origin')).toBe(CONSOLE_DEV)
    const hook = await fetch(`${stack.current.gatewayUrl}/hooks/notebook`, { method: 'OPTIONS', headers: { origin: CONSOLE_DEV, 'access-control-request-method': 'POST' } })
    expect(hook.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('the Origin check on the graphql-ws upgrade', () => {
  it('refuses the upgrade of a socket from an origin not allowed with 403 before it opens', async () => {
    expect(await upgradeStatus(url(), EVIL)).toBe(403)
  })

  it('opens a socket from an allowed origin, and one without an Origin header (not a browser), as before', async () => {
    expect(await upgradeStatus(url(), CONSOLE_DEV)).toBe(101)
    expect(await upgradeStatus(url())).toBe(101)
  })

  it('runs an operation over a socket from an allowed origin with the token in connection_init', async () => {
    const client = browserSocketClient(url(), CONSOLE_DEV)
    try {
      const answer = await new Promise<any>((resolve, reject) => {
        client.subscribe({ query: '{ me { user { id } } }' }, { next: resolve, error: reject, complete: () => {} })
      })
      expect(answer.data.me.user.id).toBeTruthy()
    } finally {
      await client.dispose()
    }
  })
})

describe('CORS in production', () => {
  let gateways: { gateway: Gateway; url: string }[] = []
  const start = async (extra: Partial<Parameters<typeof createGateway>[0]> = {}) => {
    const gateway = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, production: true, dataDir: stack.db.dataDir, ...extra })
    const g = { gateway, url: `${await gateway.listen(0, '127.0.0.1')}/graphql` }
    gateways.push(g)
    return g
  }
  afterAll(async () => {
    for (const g of gateways) await g.gateway.close()
    gateways = []
  })

  it('allows no local development origin by default, only the ones the operator lists', async () => {
    const plain = await start()
    expect((await preflight(plain.url, CONSOLE_DEV)).status).toBe(403)
    expect(await upgradeStatus(plain.url, CONSOLE_DEV)).toBe(403)
    const listed = await start({ corsOrigins: ['https://console.example.org'] })
    const res = await preflight(listed.url, 'https://console.example.org')
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://console.example.org')
    expect(await upgradeStatus(listed.url, 'https://console.example.org')).toBe(101)
    expect(await upgradeStatus(listed.url, CONSOLE_DEV)).toBe(403)
  })

  it('refuses a CORS_ORIGINS entry that is not an origin at start', () => {
    expect(() => parseEnv({ CORS_ORIGINS: 'https://console.example.org/app, ftp://x.example' })).toThrow(EnvError)
    expect(parseEnv({ CORS_ORIGINS: 'https://console.example.org, http://localhost:5173' }).CORS_ORIGINS).toBe('https://console.example.org, http://localhost:5173')
  })
})
