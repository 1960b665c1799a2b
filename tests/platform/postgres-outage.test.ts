// A PostgreSQL outage of 10 seconds on a server this test owns (its own embedded instance, never the shared one): the
// gateway answers 503 with Retry-After (no hang, no crash), the webhook edge answers 503 so the vendor retries, live
// streams end with SUBSCRIPTION_INTERRUPTED, and afterwards queries, the LISTEN connection and the worker resume
// without a restart.
import os from 'node:os'
import path from 'node:path'
import fs from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, removeEmbeddedData, startEmbeddedPostgres, type DatabaseHandle } from '../../core/database'
import { createPrisma, type Db } from '../../core/database'
import { parseEnv, setEnv } from '../../core/config'
import { resetAuthKeys } from '../../core/identity'
import { prepareDatabase } from '../../jobs/prepare-database'
import { startWorker } from '../../jobs/worker'
import { enqueue } from '../../core/jobs'
import { startStack } from '../../services'
import { fileInboxItem } from '../../domain/inbox'
import { SUBSCRIPTION_INTERRUPTED } from '../../core/http'
import { gql, wsClient, collect, waitFor } from '../helpers/stack'
import { launchChromium } from '../helpers/browser'
import { print } from 'graphql'
import { RoleHomeDocument } from '../../clients/src/generated/graphql'
import { mintRunToken } from '../../subgraphs/twins/tools/run-tokens'
import { createTenant, type Tenant } from '../helpers/factories'

let dataDir: string
let port: number
let pgHandle: DatabaseHandle | undefined
let db: Db
let url: string
let stack: Awaited<ReturnType<typeof startStack>>
let worker: Awaited<ReturnType<typeof startWorker>>
let t: Tenant

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-outage-'))
  port = await freePort()
  pgHandle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port })
  url = pgHandle.url
  await prepareDatabase(url)
  setEnv(parseEnv({ ...process.env, NODE_ENV: 'test', DATABASE_URL: url, DATA_DIR: dataDir }))
  resetAuthKeys()
  db = createPrisma(url, 5)
  t = await createTenant(db, 'Outage')
  stack = await startStack({ db, databaseUrl: url, dataDir })
  worker = await startWorker({ db, databaseUrl: url }, { concurrency: 1, crontab: false })
}, 180_000)

afterAll(async () => {
  await worker?.stop().catch(() => {})
  await stack?.stop()
  await db?.$disconnect()
  await pgHandle?.stop()
  await removeEmbeddedData(path.join(dataDir, 'pg')).catch(() => {})
  await fs.rm(dataDir, { recursive: true, force: true })
}, 60_000)

const ME = '{ me { user { name } } }'
const SUB = 'subscription { inboxChanged { id change } }'

async function timed<T>(what: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now()
  const value = await what
  return { value, ms: Date.now() - start }
}

describe('a PostgreSQL outage of 10 seconds', () => {
  it('is answered 503 with Retry-After at the gateway and the webhook edge, and everything resumes without a restart', async () => {
    const gatewayUrl = `${stack.gatewayUrl}/graphql`
    const token = await t.token('scientist')
    expect((await gql(gatewayUrl, ME, {}, token)).body.data.me.user.name).toBeTruthy()

    const client = wsClient(gatewayUrl, token)
    const sub = collect(client, SUB, 1, 30_000)
    await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount >= 1)

    await pgHandle!.stop()
    pgHandle = undefined
    const downAt = Date.now()

    // the stream ends with a code: events written meanwhile cannot reach it
    await sub.finished
    expect(sub.received[0].errors?.[0]?.extensions?.code).toBe(SUBSCRIPTION_INTERRUPTED)

    // queries: 503 with Retry-After, answered promptly (no hang), both for a cached caller and a new token, for `me` and
    // for the console's role home (whose reads go by the hot-read pool, not Prisma's)
    const roleHome = { query: print(RoleHomeDocument), variables: { slug: t.program.slug } }
    for (const [bearer, request] of [[token, { query: ME }], [await t.token('program_lead'), { query: ME }], [token, roleHome], [await t.token('viewer'), roleHome]] as const) {
      const { value: res, ms } = await timed(fetch(gatewayUrl, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify(request),
      }))
      expect(res.status).toBe(503)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      const body = await res.json() as any
      expect(body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE')
      expect(ms).toBeLessThan(8_000)
    }
    // a vendor's delivery: 503 with Retry-After, so the vendor retries it
    const hook = await fetch(`${stack.gatewayUrl}/hooks/eln_provider/${crypto.randomUUID()}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'entry.updated' }),
    })
    expect(hook.status).toBe(503)
    expect(Number(hook.headers.get('retry-after'))).toBeGreaterThan(0)
    // the REST routes answer the same outage code, never a 500 (the console's sign-in lists its people here)
    const people = await fetch(`${stack.gatewayUrl}/api/dev/people`)
    expect(people.status).toBe(503)
    expect(Number(people.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(((await people.json()) as any).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE')
    // a run token signed as the worker would (its signature is checked before the run is read from the database)
    const runId = crypto.randomUUID()
    const runToken = await mintRunToken({ runId, twinId: crypto.randomUUID(), userId: t.users.scientist.id, organizationId: t.organization.id })
    for (const [what, res] of [
      ['the inbox REST route', await fetch(`${stack.gatewayUrl}/me/brief`, { headers: { authorization: `Bearer ${token}` } })],
      ['the tool server', await fetch(`${stack.toolsUrl}/runs/${runId}/mcp`, {
        method: 'POST', headers: { authorization: `Bearer ${runToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}',
      })],
    ] as const) {
      expect([what, res.status]).toEqual([what, 503])
      expect(JSON.stringify(await res.json())).toMatch(/service_unavailable/i)
    }
    // and the console's sign-in says so in words, not "check your connection"
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await page.goto(`${stack.gatewayUrl}/sign-in`)
      await expect(page.getByRole('alert').textContent({ timeout: 20_000 })).resolves.toMatch(/^The service is unavailable/)
      expect(await page.getByText(/Check your connection/).count()).toBe(0)
    } finally { await browser.close() }
    // readiness says so too; liveness does not (nothing needs a restart)
    expect((await fetch(`${stack.gatewayUrl}/readyz`)).status).toBe(503)
    expect((await fetch(`${stack.gatewayUrl}/healthz`)).status).toBe(200)

    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - downAt))))
    pgHandle = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port })

    // queries resume
    await waitFor(async () => (await gql(gatewayUrl, ME, {}, token)).status === 200, 30_000, 'queries answered again')
    // the LISTEN connection is back: a new stream receives a change
    await waitFor(() => stack.listener.connected, 30_000, 'LISTEN reconnected')
    const again = collect(client, SUB, 1, 30_000)
    await waitFor(() => stack.subgraphs.twins.inboxEvents.subscriberCount >= 1)
    const item = await db.$transaction((tx) => fileInboxItem(tx, {
      organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id,
      kind: 'question', sourceType: 'thread', sourceId: 'after-outage', title: 'Still there?',
    }))
    await again.finished
    expect(again.received).toEqual([{ data: { inboxChanged: { id: item.id, change: 'created' } } }])
    await client.dispose()

    // the worker (same runner, never restarted) processes a job enqueued after the outage
    await db.$transaction((tx) => enqueue(tx, 'inbox_expire', {}))
    await waitFor(async () => {
      const [r] = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM graphile_worker.jobs WHERE task_identifier = 'inbox_expire'`
      return Number(r.n) === 0
    }, 45_000, 'job processed by the same worker')
  }, 150_000)
})
