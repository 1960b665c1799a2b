// The web console as the gateway serves it: index.html at / and at every client route with a strict CSP, the bundle
// offline (no external URL), the runtime configuration, and the development sign-in that exists only outside production.
import { beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs/promises'
import path from 'node:path'
import { useStack, gql } from '../helpers/stack'
import { seedIllustrative } from '../../subgraphs/seed'
import { createGateway } from '../../gateway/server'
import { ensureConsoleAssets } from '../../console/build'
import { ROOT_DIR } from '../../core/config'

const stack = useStack()
const url = () => stack.current.gatewayUrl
const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

/**
 * URLs that occur in the bundle as identifiers, never fetched: XML namespaces React's DOM code compares against, and
 * the address React's minified errors name. Anything else would be a request leaving the page's origin.
 */
const IDENTIFIER_URLS = [/^http:\/\/www\.w3\.org\//, /^https:\/\/react\.dev\/errors\//]

beforeAll(async () => {
  await seedIllustrative(stack.db.db)
})

describe('the console page', () => {
  it('is served at / with a strict Content-Security-Policy, no caching, and nothing from another origin', async () => {
    const res = await fetch(`${url()}/`, { headers: html })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/unsafe-(inline|eval)/)
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+(;|$)/)
    const page = await res.text()
    expect(page).not.toMatch(/https?:\/\//)
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/) // no inline script
    expect(page).toMatch(/<script type="module" src="\/console-assets\/[0-9a-f]{16}\/app\.js"><\/script>/)
  })

  it('answers its client routes with the same page, and leaves the API paths to the API', async () => {
    for (const route of ['/sign-in', '/p/illustrative-program/home', '/p/anything/else']) {
      const res = await fetch(`${url()}${route}`, { headers: html })
      expect(res.status, route).toBe(200)
      expect(await res.text(), route).toContain('<div id="console-root"></div>')
    }
    const health = await fetch(`${url()}/healthz`, { headers: html })
    expect(await health.json()).toEqual({ ok: true })
    const api = await fetch(`${url()}/api/nothing-here`, { headers: html })
    expect(api.status).toBe(404)
    expect(await api.text()).not.toContain('console-root')
    const graphiql = await fetch(`${url()}/graphiql`, { headers: html })
    expect(await graphiql.text()).toContain('graphiql-root')
    // A client asking for JSON at a console path gets no page; a plain curl (Accept */*) gets the page.
    expect((await fetch(`${url()}/p/x/home`, { headers: { accept: 'application/json' } })).status).toBe(404)
    const curl = await fetch(`${url()}/`, { headers: { accept: '*/*' } })
    expect(curl.status).toBe(200)
    expect(await curl.text()).toContain('<div id="console-root"></div>')
  })

  it('serves a bundle built offline: immutable, with no URL that would leave the page origin', async () => {
    const page = await (await fetch(`${url()}/`, { headers: html })).text()
    const js = page.match(/src="([^"]+\/app\.js)"/)![1]
    const css = page.match(/href="([^"]+\/app\.css)"/)![1]
    for (const asset of [js, css]) {
      const res = await fetch(new URL(asset, url()))
      expect(res.status, asset).toBe(200)
      expect(res.headers.get('cache-control')).toContain('immutable')
      const text = await res.text()
      const urls = [...text.matchAll(/(?:https?|wss?):\/\/[^\s"'`)\\]+/g)].map((m) => m[0])
      expect(urls.filter((u) => !IDENTIFIER_URLS.some((re) => re.test(u))), asset).toEqual([])
      expect(text).not.toMatch(/\/\/(cdn|unpkg|fonts\.googleapis|jsdelivr)/)
    }
    expect((await fetch(new URL(js.replace(/[0-9a-f]{16}/, '0000000000000000'), url()))).status).toBe(404)
  })

  it('reuses the bundle it built while no source changed', async () => {
    const again = await ensureConsoleAssets(path.join(ROOT_DIR, '.data'))
    expect(again.built).toBe(false)
    expect(await fs.readdir(again.dir)).toEqual(expect.arrayContaining(['app.js', 'app.css', 'manifest.json']))
  })

  it('tells the page which gateway to talk to: its own origin unless one is configured', async () => {
    const res = await fetch(`${url()}/console-config.json`)
    expect(await res.json()).toEqual({ gatewayUrl: '', signIn: null, signatureMaxAgeSeconds: 300 })
    const remote = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, dataDir: stack.db.dataDir, consoleGatewayUrl: 'https://api.example.org' })
    try {
      const base = await remote.listen(0, '127.0.0.1')
      expect(await (await fetch(`${base}/console-config.json`)).json()).toEqual({ gatewayUrl: 'https://api.example.org', signIn: null, signatureMaxAgeSeconds: 300 })
      const csp = (await fetch(`${base}/`, { headers: html })).headers.get('content-security-policy') ?? ''
      expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+ https:\/\/api\.example\.org wss:\/\/api\.example\.org;/)
    } finally {
      await remote.close()
    }
  })
})

describe('development sign-in', () => {
  it('lists the illustrative people and mints a token the API accepts for the one chosen', async () => {
    const people = await (await fetch(`${url()}/api/dev/people`)).json() as { people: { email: string; name: string; personaName: string }[] }
    expect(people.people.map((p: { email: string }) => p.email)).toEqual([
      'owner@illustrative.example', 'lead@illustrative.example', 'scientist@illustrative.example', 'quality@illustrative.example',
      'manufacturing@illustrative.example', 'viewer@illustrative.example', 'admin@illustrative.example',
    ])
    expect(people.people[0]).toEqual({ email: 'owner@illustrative.example', name: 'Olivia Owner', personaName: 'Program owner' })
    const res = await fetch(`${url()}/api/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'lead@illustrative.example' }) })
    expect(res.status).toBe(200)
    const { token } = await res.json() as { token: string }
    const me = await gql(`${url()}/graphql`, '{ me { user { name } } }', {}, token)
    expect(me.body.data.me.user.name).toBe('Liam Lead')
  })

  it('mints nothing for anyone who is not an illustrative person', async () => {
    const res = await fetch(`${url()}/api/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'someone@else.example' }) })
    expect(res.status).toBe(404)
    expect(await res.text()).not.toMatch(/eyJ/)
  })

  it('does not exist in production (404), while the console page still does', async () => {
    const prod = await createGateway({ db: stack.db.db, subgraphUrls: stack.current.subgraphUrls, production: true, dataDir: stack.db.dataDir })
    try {
      const base = await prod.listen(0, '127.0.0.1')
      expect((await fetch(`${base}/api/dev/people`)).status).toBe(404)
      const res = await fetch(`${base}/api/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@illustrative.example' }) })
      expect(res.status).toBe(404)
      expect(await res.text()).not.toMatch(/eyJ/)
      expect((await fetch(`${base}/`, { headers: html })).status).toBe(200)
    } finally {
      await prod.close()
    }
  })
})
