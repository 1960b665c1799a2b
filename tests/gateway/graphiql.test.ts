// The development GraphiQL page, self-contained: the router plus a tiny authenticated GraphQL endpoint
// (graphql-http for queries, graphql-ws for subscriptions, both on /graphql), driven in headless Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import express from 'express'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import fs from 'node:fs/promises'
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, Kind, parse } from 'graphql'
import { createHandler } from 'graphql-http/lib/use/express'
import { WebSocketServer } from 'ws'
import { useServer } from 'graphql-ws/use/ws'
import type { Browser, Page } from 'playwright-core'
import { graphiqlRouter } from '../../gateway/graphiql/router'
import { ensureGraphiqlAssets } from '../../gateway/graphiql/build'
import {
  launchChromium,
  openGraphiql,
  readGraphiqlResult,
  runGraphiqlOperation,
  setGraphiqlOperation,
  setGraphiqlToken,
  clickGraphiqlRun,
  waitForGraphiqlResult,
  watchPage,
  type PageWatch,
} from '../helpers/browser'

const TOKEN = 'test-token'
const AUTH = `Bearer ${TOKEN}`

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: { hello: { type: new GraphQLNonNull(GraphQLString), resolve: () => 'world' } },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      ticks: {
        type: new GraphQLNonNull(GraphQLInt),
        subscribe: async function* () {
          for (let i = 1; i <= 3; i++) {
            await sleep(150)
            yield { ticks: i }
          }
        },
      },
    },
  }),
})

interface Seen {
  httpAuthorizations: (string | undefined)[]
  wsConnectionParams: unknown[]
  refusedHttp: number
  refusedWs: number
  /** the documents POSTed to /graphql (a subscription must never be one) */
  httpQueries: string[]
}

async function startServer(dataDir: string) {
  const seen: Seen = { httpAuthorizations: [], wsConnectionParams: [], refusedHttp: 0, refusedWs: 0, httpQueries: [] }
  const app = express()
  app.use(await graphiqlRouter({ dataDir, endpoint: '/graphql', defaultQuery: '# GraphiQL test page\n{ hello }\n' }))
  app.use('/graphql', express.json(), (req, res, next) => {
    seen.httpAuthorizations.push(req.headers.authorization)
    if (typeof req.body?.query === 'string') seen.httpQueries.push(req.body.query)
    if (req.headers.authorization !== AUTH) {
      seen.refusedHttp++
      res.status(401).json({ errors: [{ message: 'missing or invalid bearer token' }] })
      return
    }
    next()
  })
  app.all('/graphql', createHandler({ schema }))

  const server = http.createServer(app)
  const wss = new WebSocketServer({ server, path: '/graphql' })
  const wsDisposable = useServer(
    {
      schema,
      onConnect: (ctx) => {
        seen.wsConnectionParams.push(ctx.connectionParams)
        const ok = (ctx.connectionParams as { authorization?: unknown } | undefined)?.authorization === AUTH
        if (!ok) seen.refusedWs++
        return ok
      },
    },
    wss,
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      await wsDisposable.dispose()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('the development GraphiQL page', () => {
  let dataDir: string
  let server: Awaited<ReturnType<typeof startServer>>
  let browser: Browser
  let page: Page
  let watch: PageWatch

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'graphiql-test-'))
    server = await startServer(dataDir)
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    watch = watchPage(page)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true })
  })

  it('builds its assets once and reuses them afterwards', async () => {
    const again = await ensureGraphiqlAssets(dataDir)
    expect(again.built).toBe(false)
    const entries = (await fs.readdir(path.join(dataDir, 'graphiql'))).filter((n) => !n.startsWith('.'))
    expect(entries).toEqual([again.fingerprint])
  })

  it('serves the page with a strict CSP and no-store, and the assets as immutable', async () => {
    const res = await fetch(`${server.url}/graphiql`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-eval')
    expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+/)
    const html = await res.text()
    expect(html).toContain('<link rel="icon" href="data:,">')
    expect(html).not.toMatch(/https?:\/\//)
    const js = html.match(/src="([^"]+\/app\.js)"/)?.[1]
    expect(js).toBeTruthy()
    const asset = await fetch(new URL(js!, server.url))
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toMatch(/javascript/)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect((await fetch(new URL(js!.replace(/[0-9a-f]{16}/, '0000000000000000'), server.url))).status).toBe(404)
  })

  it('loads in Chromium with no console errors and no request leaving 127.0.0.1', async () => {
    await openGraphiql(page, `${server.url}/graphiql`)
    expect(await page.locator('.graphiql-query-editor').innerText()).toContain('hello')
    await page.waitForTimeout(500) // let late errors (workers, fonts) surface
    expect(watch.pageErrors).toEqual([])
    expect(watch.consoleErrors).toEqual([])
    expect(watch.foreignRequests).toEqual([])
    // Without a token the page does not introspect, so the endpoint saw no refused request yet.
    expect(server.seen.refusedHttp).toBe(0)
  })

  it('sends the pasted token as an Authorization header and shows the query result', async () => {
    await setGraphiqlToken(page, TOKEN)
    expect(await page.evaluate(() => sessionStorage.getItem('graphiql:bearer-token'))).toBe(TOKEN)
    const text = await runGraphiqlOperation(page, '{ hello }', /"hello": "world"/)
    expect(JSON.parse(text)).toEqual({ data: { hello: 'world' } })
    expect(server.seen.httpAuthorizations.length).toBeGreaterThan(0)
    expect(server.seen.httpAuthorizations.every((a) => a === AUTH)).toBe(true)
  })

  it('runs a subscription over graphql-ws with the token in connection_init and shows the ticks', async () => {
    const text = await runGraphiqlOperation(page, 'subscription { ticks }', /"ticks": [123]/)
    expect(text).toMatch(/"ticks": [123]/)
    // The stream completes with the last value in the pane.
    await expect.poll(async () => readGraphiqlResult(page), { timeout: 5_000 }).toMatch(/"ticks": 3/)
    expect(server.seen.wsConnectionParams).toEqual([{ authorization: AUTH }])
    expect(server.seen.refusedWs).toBe(0)
    await page.screenshot({ path: '/tmp/graphiql.png' })
    expect(watch.pageErrors).toEqual([])
    expect(watch.consoleErrors).toEqual([])
    expect(watch.foreignRequests).toEqual([])
  })

  it('sends every subscription over the socket, a named one on a fresh page\'s first run included, never as an HTTP POST', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const freshWatch = watchPage(fresh)
    try {
      await openGraphiql(fresh, `${server.url}/graphiql`)
      await setGraphiqlToken(fresh, TOKEN)
      const before = server.seen.wsConnectionParams.length
      // run at once after the edit, before GraphiQL re-parsed it: its operation facts are still those of the
      // editor's previous text (a query), which sent the subscription over HTTP
      for (const operation of ['subscription Ticks { ticks }', 'subscription { ticks }']) {
        await setGraphiqlOperation(fresh, '{ hello }')
        await setGraphiqlOperation(fresh, operation, { settle: false })
        await clickGraphiqlRun(fresh)
        expect(await waitForGraphiqlResult(fresh, /"ticks": [123]/)).toMatch(/"ticks": [123]/)
        await expect.poll(async () => readGraphiqlResult(fresh), { timeout: 5_000 }).toMatch(/"ticks": 3/)
      }
      // (introspection mentions subscriptionType: an operation's own type is what counts)
      const subscriptions = server.seen.httpQueries.filter((q) => parse(q).definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription'))
      expect(subscriptions).toEqual([])
      expect(server.seen.wsConnectionParams.length).toBeGreaterThan(before)
      expect(freshWatch.pageErrors).toEqual([])
      expect(freshWatch.consoleErrors).toEqual([])
    } finally {
      await fresh.close()
    }
  })

  it('recreates the socket with the new token when the token changes, so a wrong token is refused', async () => {
    await setGraphiqlToken(page, 'wrong-token')
    const text = await runGraphiqlOperation(page, 'subscription { ticks }', /4403/)
    expect(text).toContain('Socket closed with event 4403 Forbidden')
    expect(server.seen.wsConnectionParams.at(-1)).toEqual({ authorization: 'Bearer wrong-token' })
    expect(server.seen.refusedWs).toBe(1)
  })
})
