// Notebook webhook verification against the fake notebook's real keys, over real HTTP on port 0.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { signDelivery, startFakeNotebook, type FakeNotebook, type RegisteredApp } from '../../fakes/notebook/server'
import {
  JwksCache,
  JwksCaches,
  parseSignatureHeader,
  staticKeySource,
  verifyWebhook,
} from '../../domain/notebook'
import { HOUR, MINUTE, settableClock, startReceiver } from './helpers'

let fake: FakeNotebook
let app: RegisteredApp
let clock: ReturnType<typeof settableClock>
let jwks: JwksCache

beforeEach(async () => {
  fake = await startFakeNotebook()
  app = fake.control.registerApp({ client: false })
  clock = settableClock()
  jwks = new JwksCache({ baseUrl: fake.url, appDefinitionId: app.appDefinitionId, clock: clock.now, retries: 0 })
})

afterEach(async () => {
  await fake.close()
})

const canvasClick = { type: 'v2.canvas.userInteracted', buttonId: 'check-sop', canvasId: 'cnvs_illustrative' }

describe('notebook webhook signatures', () => {
  it('accepts a delivery signed with the app key and reports the key id', async () => {
    await using receiver = await startReceiver(() => jwks)
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect(sent.status).toBe(202)
    expect(receiver.received[0].result).toEqual({ ok: true, deliveryId: sent.deliveryId, timestamp: sent.timestamp, kid: app.kid })
  })

  it('sends the vendor envelope: app_signals for canvas events, events for entry events', async () => {
    await using receiver = await startReceiver(() => jwks)
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: { type: 'v2.entry.updated.fields', resourceId: 'etr_1' } })
    const [canvas, entry] = receiver.received.map((r) => JSON.parse(r.rawBody.toString('utf8')))
    expect(canvas).toMatchObject({
      version: '0',
      baseURL: fake.url,
      tenantId: app.tenantId,
      app: { id: app.appId },
      appDefinition: { id: app.appDefinitionId, versionNumber: app.versionNumber },
      channel: 'app_signals',
      message: { type: 'v2.canvas.userInteracted', buttonId: 'check-sop', canvasId: 'cnvs_illustrative', featureId: app.featureId, deprecated: false },
    })
    expect(entry).toMatchObject({ channel: 'events', message: { type: 'v2.entry.updated.fields', resourceId: 'etr_1', schema: { id: expect.any(String) } } })
    expect(entry.message.id).toEqual(expect.any(String))
    expect(entry.message.createdAt).toEqual(expect.any(String))
  })

  it('rejects a delivery whose signature covers other content', async () => {
    await using receiver = await startReceiver(() => jwks)
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signature: 'tampered' })
    expect(sent.status).toBe(401)
    expect(receiver.received[0].result).toEqual({ ok: false, reason: 'bad_signature', deliveryId: sent.deliveryId })
  })

  it('rejects a delivery signed with a key the app never published, and one whose signature is not DER', async () => {
    await using receiver = await startReceiver(() => jwks)
    const a = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signature: 'unknown_key' })
    const b = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signature: 'garbage' })
    expect([a.status, b.status]).toEqual([401, 401])
    expect(receiver.received.map((r) => r.result.ok === false && r.result.reason)).toEqual(['bad_signature', 'bad_signature'])
  })

  it('rejects a delivery whose timestamp is six minutes old, and one six minutes in the future', async () => {
    await using receiver = await startReceiver(() => jwks)
    const old = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, timestampOffsetSeconds: -360 })
    const future = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, timestampOffsetSeconds: 360 })
    const fresh = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, timestampOffsetSeconds: -240 })
    expect([old.status, future.status, fresh.status]).toEqual([401, 401, 202])
    expect(receiver.received[0].result).toEqual({ ok: false, reason: 'stale_timestamp', deliveryId: old.deliveryId })
  })

  it('rejects a stale delivery without fetching any key', async () => {
    const rawBody = Buffer.from('{}')
    const signed = signDelivery({ body: rawBody, timestamp: Math.floor(Date.now() / 1000) - 301, keys: fake.control.signingKeys(app.appDefinitionId) })
    const result = await verifyWebhook({ headers: signed.headers, rawBody, jwks })
    expect(result).toMatchObject({ ok: false, reason: 'stale_timestamp' })
    expect(fake.control.getStats().jwksRequests).toBe(0)
  })

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const)('rejects a delivery without the %s header', async (header) => {
    await using receiver = await startReceiver(() => jwks)
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, omitHeaders: [header] })
    expect(sent.status).toBe(401)
    expect(receiver.received[0].result).toMatchObject({ ok: false, reason: 'missing_headers' })
  })

  it('rejects a non-numeric timestamp and a header with no der entry as malformed', async () => {
    const rawBody = Buffer.from('{}')
    const keys = staticKeySource(fake.control.jwks(app.appDefinitionId))
    const signed = signDelivery({ body: rawBody, keys: fake.control.signingKeys(app.appDefinitionId) })
    const badTs = await verifyWebhook({ headers: { ...signed.headers, 'webhook-timestamp': '2025-01-01T00:00:00Z' }, rawBody, jwks: keys })
    const hmacOnly = await verifyWebhook({
      headers: { ...signed.headers, 'webhook-signature': signed.headers['webhook-signature'].replace('v1der,', 'v1,') },
      rawBody,
      jwks: keys,
    })
    expect(badTs).toMatchObject({ ok: false, reason: 'malformed_headers' })
    expect(hmacOnly).toMatchObject({ ok: false, reason: 'malformed_headers' })
  })

  it('accepts every entry whose version tag contains der, in any case and position, as the vendor SDK does', async () => {
    await using receiver = await startReceiver(() => jwks)
    const valid = fake.control.buildDelivery(app.appDefinitionId, canvasClick)
    const entry = valid.headers['webhook-signature']
    const garbage = `v1der,${Buffer.alloc(70, 1).toString('base64')}`
    for (const header of [entry.replace('v1der,', 'v2der,'), entry.replace('v1der,', 'V3DER,'), `v1,aGVsbG8= ${garbage} ${entry}`, `${garbage}, ${entry}`, `${entry}, ${garbage}`]) {
      const d = fake.control.buildDelivery(app.appDefinitionId, canvasClick)
      const sig = d.headers['webhook-signature'].slice('v1der,'.length)
      const sent = await fetch(receiver.url, { method: 'POST', headers: { ...d.headers, 'webhook-signature': header.replace(entry.slice('v1der,'.length), sig) }, body: d.rawBody })
      expect([header.slice(0, 8), sent.status]).toEqual([header.slice(0, 8), 202])
    }
  })

  it('serves warm keys without waiting and refreshes them in the background before they expire', async () => {
    await using receiver = await startReceiver(() => jwks)
    const send = () => fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect((await send()).status).toBe(202)
    clock.advance(5.5 * HOUR + 1) // inside the refresh-ahead half hour
    fake.control.misbehave({ delayMs: 1_500, pathPrefix: '/api/v1/apps/' })
    const started = Date.now()
    expect((await send()).status).toBe(202)
    expect(Date.now() - started).toBeLessThan(1_000)
    await new Promise((r) => setTimeout(r, 1_700))
    expect(fake.control.getStats().jwksRequests).toBe(2)
    expect(jwks.cachedAt).toBe(clock.now())
  })

  it('keeps serving the last keys for at most an hour past their age while refreshes fail, then answers unavailable', async () => {
    await using receiver = await startReceiver(() => jwks)
    const send = () => fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect((await send()).status).toBe(202)
    fake.control.misbehave({ serverErrorNext: 1_000, pathPrefix: '/api/v1/apps/' })
    clock.advance(6 * HOUR + 30 * MINUTE)
    expect((await send()).status).toBe(202)
    clock.advance(30 * MINUTE + 1)
    const late = await send()
    expect(late.status).toBe(503)
    expect(receiver.received.at(-1)!.result).toMatchObject({ ok: false, reason: 'jwks_unavailable' })
  })

  it('makes a delivery wait at most 800 ms for a hanging JWKS; the fetch carries on and serves the next delivery', async () => {
    await using receiver = await startReceiver(() => jwks)
    fake.control.misbehave({ delayMs: 1_500, pathPrefix: '/api/v1/apps/' })
    const started = Date.now()
    const first = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect(first.status).toBe(503)
    expect(Date.now() - started).toBeLessThan(1_200)
    await new Promise((r) => setTimeout(r, 1_000))
    expect((await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })).status).toBe(202)
    expect(fake.control.getStats().jwksRequests).toBe(1)
  })

  it('verifies the raw bytes before any parsing: a validly signed malformed JSON body passes verification', async () => {
    await using receiver = await startReceiver(() => jwks)
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, malformedJson: true })
    expect(sent.status).toBe(202)
    expect(() => JSON.parse(receiver.received[0].rawBody.toString('utf8'))).toThrow()
  })

  it('verifies bodies that are not valid UTF-8 byte for byte', async () => {
    const rawBody = Buffer.from([0x7b, 0xff, 0xfe, 0x7d])
    const signed = signDelivery({ body: rawBody, keys: fake.control.signingKeys(app.appDefinitionId) })
    expect(await verifyWebhook({ headers: signed.headers, rawBody, jwks })).toMatchObject({ ok: true })
    expect(await verifyWebhook({ headers: signed.headers, rawBody: Buffer.from(rawBody.toString('utf8')), jwks })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    })
  })

  it('leaves oversized bodies, unknown event types and reused delivery ids to the gateway: all verify', async () => {
    await using receiver = await startReceiver(() => jwks)
    const big = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, oversize: true })
    const odd = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, unknownType: true })
    const again = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, reuseLastId: true })
    expect([big.status, odd.status, again.status]).toEqual([202, 202, 202])
    expect(receiver.received[0].rawBody.length).toBeGreaterThan(1024 * 1024)
    expect(JSON.parse(receiver.received[1].rawBody.toString()).message.type).toBe('v2.illustrative.undocumented')
    expect(again.deliveryId).toBe(odd.deliveryId)
  })

  it('accepts a delivery with two signature entries during a rotation without fetching the JWKS again', async () => {
    await using receiver = await startReceiver(() => jwks)
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    const { kid } = fake.control.rotateSigningKey(app.appDefinitionId, { keepOld: true })
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect(sent.headers['webhook-signature'].split(' ')).toHaveLength(2)
    expect(parseSignatureHeader(sent.headers['webhook-signature'])).toHaveLength(2)
    expect(sent.status).toBe(202)
    expect(receiver.received[1].result).toMatchObject({ ok: true, kid: app.kid })
    expect(fake.control.getStats().jwksRequests).toBe(1)
    expect(fake.control.jwks(app.appDefinitionId).keys.map((k) => k.kid)).toEqual([app.kid, kid])
  })

  it('after a rotation that drops the old key, fetches the JWKS once more and accepts the new key', async () => {
    await using receiver = await startReceiver(() => jwks)
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    const { kid } = fake.control.rotateSigningKey(app.appDefinitionId, { keepOld: false })
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect(sent.status).toBe(202)
    expect(receiver.received[1].result).toMatchObject({ ok: true, kid })
    expect(fake.control.getStats().jwksRequests).toBe(2)
  })

  it('accepts a delivery signed only by the newest key of a keep-old rotation after one re-fetch', async () => {
    await using receiver = await startReceiver(() => jwks)
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    const { kid } = fake.control.rotateSigningKey(app.appDefinitionId)
    const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signWith: 'newest' })
    expect(sent.status).toBe(202)
    expect(receiver.received[1].result).toMatchObject({ ok: true, kid })
    fake.control.retireOldKeys(app.appDefinitionId)
    expect(fake.control.jwks(app.appDefinitionId).keys.map((k) => k.kid)).toEqual([kid])
  })

  it('lets forged deliveries cause at most one JWKS re-fetch per minute per app', async () => {
    await using receiver = await startReceiver(() => jwks)
    for (let i = 0; i < 5; i++) {
      const sent = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signature: 'unknown_key' })
      expect(sent.status).toBe(401)
    }
    expect(fake.control.getStats().jwksRequests).toBe(2) // first fetch + one forced re-fetch
    clock.advance(MINUTE + 1)
    await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick, signature: 'unknown_key' })
    expect(fake.control.getStats().jwksRequests).toBe(3)
  })

  it('uses a fetched JWKS for at most six hours without a refresh', async () => {
    await using receiver = await startReceiver(() => jwks)
    const send = () => fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    await send()
    clock.advance(5.5 * HOUR - 1)
    await send()
    expect(fake.control.getStats().jwksRequests).toBe(1)
    clock.advance(1)
    await send() // due: served from the cache, refreshed behind it
    await expect.poll(() => fake.control.getStats().jwksRequests).toBe(2)
    await expect.poll(() => jwks.cachedAt).toBe(clock.now())
  })

  it('answers jwks_unavailable (not bad_signature) when the JWKS cannot be fetched, and backs off', async () => {
    await using receiver = await startReceiver(() => jwks)
    fake.control.misbehave({ serverErrorNext: 100, pathPrefix: '/api/v1/apps/' })
    const first = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    const second = await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })
    expect([first.status, second.status]).toEqual([503, 503])
    expect(receiver.received[0].result).toMatchObject({ ok: false, reason: 'jwks_unavailable' })
    expect(fake.control.requestLog.filter((r) => r.path.endsWith('/jwks'))).toHaveLength(1)
    fake.control.behave()
    clock.advance(10_001)
    expect((await fake.control.sendWebhook({ url: receiver.url, appDefinitionId: app.appDefinitionId, event: canvasClick })).status).toBe(202)
  })

  it('shares one cache per app through JwksCaches and reads headers from a fetch Headers object', async () => {
    const caches = new JwksCaches({ clock: clock.now, retries: 0 })
    const cache = caches.forApp(`${fake.url}/`, app.appDefinitionId)
    expect(caches.forApp(fake.url, app.appDefinitionId)).toBe(cache)
    const rawBody = Buffer.from('{"version":"0"}')
    const signed = signDelivery({ body: rawBody, keys: fake.control.signingKeys(app.appDefinitionId) })
    const headers = new Headers({
      'Webhook-Id': signed.headers['webhook-id'],
      'Webhook-Timestamp': signed.headers['webhook-timestamp'],
      'Webhook-Signature': signed.headers['webhook-signature'],
    })
    expect(await verifyWebhook({ headers, rawBody, jwks: cache })).toMatchObject({ ok: true, deliveryId: signed.deliveryId })
  })
})
