// The fake notebook speaks the vendor's shapes over HTTP and obeys its control API.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeNotebook, type FakeNotebook, type RegisteredApp } from '../../fakes/notebook/server'
import { seedIllustrative } from '../../fakes/notebook/seed'
import { startReceiver } from './helpers'
import { JwksCache } from '../../domain/notebook'

let fake: FakeNotebook
let app: RegisteredApp

beforeEach(async () => {
  fake = await startFakeNotebook()
  app = fake.control.registerApp()
})

afterEach(async () => {
  await fake.close()
})

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
})

async function token(): Promise<string> {
  const res = await fetch(`${fake.url}/api/v2/token`, form({ grant_type: 'client_credentials', client_id: app.clientId!, client_secret: app.clientSecret! }))
  return ((await res.json()) as { access_token: string }).access_token
}

describe('fake notebook server', () => {
  it('issues a 900 s bearer token for credentials in the form body or as Basic auth', async () => {
    const body = await fetch(`${fake.url}/api/v2/token`, form({ grant_type: 'client_credentials', client_id: app.clientId!, client_secret: app.clientSecret! }))
    const basic = await fetch(`${fake.url}/api/v2/token`, {
      ...form({ grant_type: 'client_credentials' }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
    })
    for (const res of [body, basic]) {
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900 })
    }
    expect(fake.control.getStats().tokensIssued).toBe(2)
  })

  it('answers 401 to wrong credentials and to API calls without a valid bearer, with rate headers on every answer', async () => {
    const bad = await fetch(`${fake.url}/api/v2/token`, form({ grant_type: 'client_credentials', client_id: app.clientId!, client_secret: 'nope' }))
    const anonymous = await fetch(`${fake.url}/api/v2/entries`)
    const missing = await fetch(`${fake.url}/api/v2/entries/etr_none`, { headers: { authorization: `Bearer ${await token()}` } })
    expect([bad.status, anonymous.status, missing.status]).toEqual([401, 401, 404])
    for (const res of [bad, anonymous, missing]) {
      expect(res.headers.get('x-rate-limit-limit')).toBe('300')
      expect(res.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/)
      expect(res.headers.get('x-rate-limit-reset')).toMatch(/^\d+$/)
      expect(await res.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error' } })
    }
  })

  it('answers 429 with the vendor body once the app has used its window', async () => {
    fake.control.setRateLimit({ limit: 2, windowSeconds: 30 })
    const t = await token()
    const ok = await fetch(`${fake.url}/api/v2/entries`, { headers: { authorization: `Bearer ${t}` } })
    const limited = await fetch(`${fake.url}/api/v2/entries`, { headers: { authorization: `Bearer ${t}` } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-rate-limit-remaining')).toBe('0')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('x-rate-limit-remaining')).toBe('0')
    expect(await limited.json()).toEqual({ error: { message: 'Rate limit exceeded.', type: 'invalid_request_error' } })
  })

  it('pages entries 50 at a time by default and refuses a page size over 100', async () => {
    for (let i = 0; i < 55; i++) fake.control.upsertEntry({ name: `Bulk ${i}` })
    const headers = { authorization: `Bearer ${await token()}` }
    const first = (await (await fetch(`${fake.url}/api/v2/entries`, { headers })).json()) as { entries: unknown[]; nextToken: string }
    expect(first.entries).toHaveLength(50)
    const second = (await (await fetch(`${fake.url}/api/v2/entries?nextToken=${first.nextToken}`, { headers })).json()) as { entries: unknown[]; nextToken: string }
    expect(second.entries).toHaveLength(5)
    expect(second.nextToken).toBe('')
    expect((await fetch(`${fake.url}/api/v2/entries?pageSize=101`, { headers })).status).toBe(400)
  })

  it('serves v2 entries labelled illustrative with days, notes, tables, mentions and files', async () => {
    const seed = seedIllustrative(fake.control, { appDefinitionId: 'appdef_seed', clientId: 'seed-client', clientSecret: 'seed-secret-1' })
    const headers = { authorization: `Bearer ${await token()}` }
    const { entry } = (await (await fetch(`${fake.url}/api/v2/entries/${seed.entryIds[0]}`, { headers })).json()) as { entry: Record<string, any> }
    expect(entry).toMatchObject({ id: seed.entryIds[0], illustrative: true, reviewRecord: { status: 'IN_PROGRESS' } })
    expect(entry.name).toMatch(/^Illustrative /)
    for (const k of ['displayId', 'folderId', 'createdAt', 'modifiedAt', 'creator', 'authors', 'assignedReviewers', 'archiveRecord', 'fields', 'customFields', 'schema', 'entryTemplateId', 'apiURL', 'webURL']) {
      expect(entry).toHaveProperty(k)
    }
    const types = entry.days.flatMap((d: { notes: Array<{ type: string }> }) => d.notes.map((n) => n.type))
    expect(types).toEqual(expect.arrayContaining(['text', 'list_number', 'list_checkbox', 'table', 'external_file', 'app_canvas']))
    const table = entry.days[0].notes.find((n: { type: string }) => n.type === 'table')
    expect(table.table.rows[0].cells[0].link).toMatchObject({ type: 'batch', id: 'bat_illustrative_1' })
  })

  it('serves the app manifest and a JWKS of EC P-256 keys with key ids', async () => {
    const manifest = await (await fetch(`${fake.url}/api/v1/apps/${app.appDefinitionId}/manifest`)).json()
    expect(manifest).toMatchObject({
      manifestVersion: 1,
      info: { name: expect.stringMatching(/^Illustrative /), version: '1.0.0' },
      features: [{ id: app.featureId, type: 'CANVAS', name: expect.any(String) }],
      subscriptions: { deliveryMethod: 'WEBHOOK', messages: expect.arrayContaining([{ type: 'v2.canvas.userInteracted' }, { type: 'v2.entry.updated.reviewRecord' }]) },
    })
    const jwks = (await (await fetch(`${fake.url}/api/v1/apps/${app.appDefinitionId}/jwks`)).json()) as { keys: Array<Record<string, string>> }
    expect(jwks.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: app.kid, alg: 'ES256', use: 'sig' }])
    expect(JSON.stringify(jwks)).not.toContain('"d"')
  })

  it('offers the control operations over HTTP: entries, attachments, rotation, webhooks, faults, stats', async () => {
    const ctl = (path: string, method = 'GET', body?: unknown) =>
      fetch(`${fake.url}/_control${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const created = (await (await ctl('/apps', 'POST', { appDefinitionId: 'appdef_http', client: { clientId: 'c1', clientSecret: 'secret-1' } })).json()) as { appDefinitionId: string }
    expect(created.appDefinitionId).toBe('appdef_http')
    const entry = (await (await ctl('/entries/etr_http', 'PUT', { name: 'Over HTTP', reviewStatus: 'NEEDS_REVIEW' })).json()) as { modifiedAt: string; name: string }
    expect(entry.name).toBe('Illustrative Over HTTP')
    const modified = (await (await ctl('/entries/etr_http', 'PATCH', { reviewStatus: 'ACCEPTED' })).json()) as { modifiedAt: string; reviewRecord: { status: string } }
    expect(modified.reviewRecord.status).toBe('ACCEPTED')
    expect(modified.modifiedAt > entry.modifiedAt).toBe(true)
    const file = (await (await ctl('/entries/etr_http/attachments/exf_http', 'PUT', { contentBase64: Buffer.from('abc').toString('base64') })).json()) as { size: number }
    expect(file.size).toBe(3)
    const rotated = (await (await ctl('/apps/appdef_http/rotate-key', 'POST', { keepOld: false })).json()) as { publishedKids: string[] }
    expect(rotated.publishedKids).toHaveLength(1)

    await using receiver = await startReceiver(() => new JwksCache({ baseUrl: fake.url, appDefinitionId: 'appdef_http', retries: 0 }))
    const sent = (await (await ctl('/webhooks', 'POST', { url: receiver.url, appDefinitionId: 'appdef_http', event: { type: 'v2.entry.updated.reviewRecord', resourceId: 'etr_http' } })).json()) as { status: number }
    expect(sent.status).toBe(202)

    expect((await ctl('/faults', 'POST', { serverErrorNext: 1, serverErrorStatus: 502 })).status).toBe(201)
    expect((await fetch(`${fake.url}/api/v1/apps/appdef_http/jwks`)).status).toBe(502)
    const stats = (await (await ctl('/stats')).json()) as { webhooksSent: number; forcedServerErrors: number }
    expect(stats).toMatchObject({ webhooksSent: 1, forcedServerErrors: 1 })
    expect((await ctl('/entries/etr_http', 'DELETE')).status).toBe(200)
    expect((await ctl('/entries/etr_http')).status).toBe(400)
  })
})
