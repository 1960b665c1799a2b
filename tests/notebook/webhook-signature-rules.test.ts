// The notebook webhook's signature rules without a fake vendor: real P-256 keys made here, a settable clock, the JWKS
// fetch replaced (fetchJwks) or served by a node:http server on port 0, and fake timers for the cache's own timers.
// Runs under vitest.pure.config.ts, so the mutation run (stryker.config.mjs) can mutate
// domain/notebook/webhook-signature.ts. (The end-to-end checks against the fake notebook over real
// HTTP stay in webhook-signature.test.ts.)
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  DEFAULT_TOLERANCE_SECONDS, JwksCache, JwksCaches, JwksUnavailable, MAX_SIGNATURE_ENTRIES, checkWebhookHeaders, importJwks,
  parseSignatureHeader, signedContent, staticKeySource, verifyWebhook, type JwksCacheOptions, type KeySource, type VerificationKey,
} from '../../domain/notebook'

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0)
const NOW_S = NOW / 1000
const HOUR = 3_600_000
const MINUTE = 60_000

interface TestKey { kid: string; privateKey: KeyObject; jwk: { kty: string; crv: string; x: string; y: string; kid?: string; use?: string } }

function makeKey(kid: string): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string }
  return { kid, privateKey, jwk: { kty, crv, x, y, kid, use: 'sig' } }
}

const ALPHA = makeKey('alpha')
const BETA = makeKey('beta')
const jwksOf = (...keys: TestKey[]) => ({ keys: keys.map((k) => k.jwk) })
const kids = (keys: readonly VerificationKey[]) => keys.map((k) => k.kid)

function der(key: TestKey, id: string, ts: string, body: Buffer): string {
  return sign('sha256', signedContent(id, ts, body), { key: key.privateKey, dsaEncoding: 'der' }).toString('base64')
}

function delivery(key: TestKey, opts: { id?: string; ts?: string; body?: string } = {}) {
  const id = opts.id ?? 'msg_2f8a'
  const ts = opts.ts ?? String(NOW_S)
  const rawBody = Buffer.from(opts.body ?? '{"version":"0","message":{"type":"v2.canvas.userInteracted"}}')
  const signature = `v1der,${der(key, id, ts, rawBody)}`
  return { rawBody, headers: { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature } as Record<string, string | string[]> }
}

/** A key source whose answers the test sets, counting the re-fetches verifyWebhook asks for. */
function keySource(keys: readonly VerificationKey[], refreshed: (() => Promise<readonly VerificationKey[] | null>) | null = null) {
  const source = {
    refreshes: 0,
    getKeys: async () => keys,
    refreshAfterFailure: async () => {
      source.refreshes += 1
      return refreshed ? refreshed() : null
    },
  }
  return source
}

describe('the signature header', () => {
  const sig = (n: number) => Buffer.alloc(8, n).toString('base64')

  it('reads every entry whose version tag contains der, whatever its case, and decodes its base64', () => {
    const out = parseSignatureHeader(`  v1der,${sig(1)} V3DER,${sig(2)}\n\tv2der,${sig(3)}  `)
    expect(out).toEqual([Buffer.alloc(8, 1), Buffer.alloc(8, 2), Buffer.alloc(8, 3)])
  })

  it('treats trailing commas as separators between joined header lines, not as part of a signature', () => {
    expect(parseSignatureHeader(`v1der,${sig(1)},, v1der,${sig(2)},`)).toEqual([Buffer.alloc(8, 1), Buffer.alloc(8, 2)])
  })

  it('skips entries without a der tag, without a comma, with characters outside base64 or with too much padding', () => {
    expect(parseSignatureHeader(`v1,${sig(1)} v1der${sig(2)} v1der,ab$c v1der,QUJD=== v1der, v1,derQUJD ${'x'.repeat(4)},QUJD`)).toEqual([])
    expect(parseSignatureHeader('v1der,QUI= v1der,QQ==')).toEqual([Buffer.from('AB'), Buffer.from('A')])
  })

  it(`tries at most ${MAX_SIGNATURE_ENTRIES} entries, so a forged header cannot buy unbounded work`, () => {
    const header = Array.from({ length: MAX_SIGNATURE_ENTRIES + 3 }, (_, i) => `v1der,${sig(i)}`).join(' ')
    const out = parseSignatureHeader(header)
    expect(MAX_SIGNATURE_ENTRIES).toBe(8)
    expect(out).toHaveLength(8)
    expect(out.at(-1)).toEqual(Buffer.alloc(8, 7))
  })

  it('signs exactly the delivery id, a dot, the timestamp, a dot and the raw bytes', () => {
    expect(signedContent('msg_1', '1700000000', Buffer.from([0xff, 0x00]))).toEqual(Buffer.concat([Buffer.from('msg_1.1700000000.'), Buffer.from([0xff, 0x00])]))
  })
})

describe('the checks that need no key', () => {
  const good = () => delivery(ALPHA).headers

  it('accepts fresh, well-formed headers and answers the trimmed id, the timestamp and the signatures', () => {
    const headers = { ...good(), 'webhook-id': '  msg_2f8a ', 'webhook-timestamp': ` ${NOW_S} ` }
    const r = checkWebhookHeaders(headers, NOW)
    expect(r).toMatchObject({ ok: true, id: 'msg_2f8a', ts: String(NOW_S), timestamp: NOW_S })
    expect(r.ok && r.signatures).toHaveLength(1)
  })

  it('answers missing_headers for each absent or blank header, with the delivery id when there is one', () => {
    const { 'webhook-id': _id, ...noId } = good()
    const { 'webhook-timestamp': _ts, ...noTs } = good()
    const { 'webhook-signature': _sig, ...noSig } = good()
    expect(checkWebhookHeaders(noId, NOW)).toEqual({ ok: false, reason: 'missing_headers' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': '   ' }, NOW)).toEqual({ ok: false, reason: 'missing_headers' })
    expect(checkWebhookHeaders(noTs, NOW)).toEqual({ ok: false, reason: 'missing_headers', deliveryId: 'msg_2f8a' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-timestamp': ' ' }, NOW)).toEqual({ ok: false, reason: 'missing_headers', deliveryId: 'msg_2f8a' })
    expect(checkWebhookHeaders(noSig, NOW)).toEqual({ ok: false, reason: 'missing_headers', deliveryId: 'msg_2f8a' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-signature': '' }, NOW)).toEqual({ ok: false, reason: 'missing_headers', deliveryId: 'msg_2f8a' })
    expect(checkWebhookHeaders({ ...noSig, 'webhook-id': 'm'.repeat(300) }, NOW)).toEqual({ ok: false, reason: 'missing_headers', deliveryId: 'm'.repeat(256) })
  })

  it('answers malformed_headers for an id or timestamp sent twice, read under any spelling of the name', () => {
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': ['a', 'b'] }, NOW)).toEqual({ ok: false, reason: 'malformed_headers' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-timestamp': [String(NOW_S), String(NOW_S)] }, NOW)).toEqual({ ok: false, reason: 'malformed_headers' })
    const { 'webhook-id': id, ...rest } = good()
    expect(checkWebhookHeaders({ ...rest, 'Webhook-Id': [id as string, 'other'] }, NOW)).toEqual({ ok: false, reason: 'malformed_headers' })
  })

  it('reads headers under any spelling of their names, from single-element arrays and from a fetch Headers object', () => {
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': s } = good()
    expect(checkWebhookHeaders({ 'Webhook-Id': [id as string], 'WEBHOOK-TIMESTAMP': ts, 'Webhook-Signature': [s as string] }, NOW)).toMatchObject({ ok: true, id: 'msg_2f8a' })
    expect(checkWebhookHeaders(new Headers({ 'Webhook-Id': id as string, 'Webhook-Timestamp': ts as string, 'Webhook-Signature': s as string }), NOW)).toMatchObject({ ok: true, id: 'msg_2f8a' })
    expect(checkWebhookHeaders(new Headers({ 'Webhook-Timestamp': ts as string, 'Webhook-Signature': s as string }), NOW)).toEqual({ ok: false, reason: 'missing_headers' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': [] }, NOW)).toEqual({ ok: false, reason: 'missing_headers' })
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': 42 as unknown as string }, NOW)).toEqual({ ok: false, reason: 'missing_headers' })
  })

  it('reads the exactly spelled header first when a bag holds the name in two spellings', () => {
    const d = delivery(ALPHA)
    const r = checkWebhookHeaders({ 'Webhook-Signature': 'v1,aGVsbG8=', ...d.headers }, NOW)
    expect(r.ok && r.signatures).toHaveLength(1)
  })

  it('joins signature header lines sent as an array, so an entry on any line is tried', () => {
    const { 'webhook-signature': s } = good()
    const r = checkWebhookHeaders({ ...good(), 'webhook-signature': ['v1,aGVsbG8=', s as string] }, NOW)
    expect(r.ok && r.signatures).toHaveLength(1)
  })

  it('answers malformed_headers for an id over 256 characters, a timestamp that is not 1 to 12 digits, and no der entry', () => {
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': 'm'.repeat(256) }, NOW)).toMatchObject({ ok: true })
    expect(checkWebhookHeaders({ ...good(), 'webhook-id': 'm'.repeat(257) }, NOW)).toEqual({ ok: false, reason: 'malformed_headers', deliveryId: 'm'.repeat(256) })
    for (const ts of ['2026-11-28T09:00:00Z', '17e9', '-1', '1'.repeat(13), `${NOW_S}x`, `x${NOW_S}`]) {
      expect(checkWebhookHeaders({ ...good(), 'webhook-timestamp': ts }, NOW), ts).toEqual({ ok: false, reason: 'malformed_headers', deliveryId: 'msg_2f8a' })
    }
    expect(checkWebhookHeaders({ ...good(), 'webhook-signature': 'v1,aGVsbG8=' }, NOW)).toEqual({ ok: false, reason: 'malformed_headers', deliveryId: 'msg_2f8a' })
  })

  it(`accepts a timestamp up to ${DEFAULT_TOLERANCE_SECONDS} seconds either side of now and refuses one a second further, as stale`, () => {
    const at = (offset: number, now: Date | number = NOW, tolerance?: number) =>
      checkWebhookHeaders({ ...good(), 'webhook-timestamp': String(NOW_S + offset) }, now, tolerance)
    expect(DEFAULT_TOLERANCE_SECONDS).toBe(300)
    expect(at(-300).ok).toBe(true)
    expect(at(300).ok).toBe(true)
    expect(at(-301)).toEqual({ ok: false, reason: 'stale_timestamp', deliveryId: 'msg_2f8a' })
    expect(at(301)).toEqual({ ok: false, reason: 'stale_timestamp', deliveryId: 'msg_2f8a' })
    expect(at(-301, new Date(NOW)).ok).toBe(false)
    expect(at(-300, new Date(NOW)).ok).toBe(true)
    expect(at(-60, NOW, 30).ok).toBe(false)
    expect(at(-30, NOW, 30).ok).toBe(true)
  })

  it('measures freshness against the current time when none is given', () => {
    const stale = delivery(ALPHA, { ts: String(Math.floor(Date.now() / 1000) - 400) })
    const fresh = delivery(ALPHA, { ts: String(Math.floor(Date.now() / 1000)) })
    expect(checkWebhookHeaders(stale.headers)).toMatchObject({ ok: false, reason: 'stale_timestamp' })
    expect(checkWebhookHeaders(fresh.headers)).toMatchObject({ ok: true })
  })
})

describe('verifying a delivery', () => {
  const alphaKeys = () => importJwks(jwksOf(ALPHA))

  it('accepts a delivery signed with a published key and answers its id, timestamp and key id', async () => {
    const d = delivery(ALPHA)
    expect(await verifyWebhook({ ...d, jwks: staticKeySource(jwksOf(ALPHA)), now: NOW })).toEqual({ ok: true, deliveryId: 'msg_2f8a', timestamp: NOW_S, kid: 'alpha' })
    const noKid = { keys: [{ ...ALPHA.jwk, kid: undefined }] }
    expect(await verifyWebhook({ ...d, jwks: staticKeySource(noKid), now: new Date(NOW) })).toMatchObject({ ok: true, kid: null })
  })

  it('uses the current time and the default tolerance when none are given', async () => {
    const fresh = delivery(ALPHA, { ts: String(Math.floor(Date.now() / 1000) - 200) })
    expect(await verifyWebhook({ ...fresh, jwks: staticKeySource(jwksOf(ALPHA)) })).toMatchObject({ ok: true })
    expect(await verifyWebhook({ ...fresh, jwks: staticKeySource(jwksOf(ALPHA)), toleranceSeconds: 100 })).toMatchObject({ ok: false, reason: 'stale_timestamp' })
  })

  it('answers the header check before asking for any key', async () => {
    const source = keySource(alphaKeys())
    const getKeys = vi.spyOn(source, 'getKeys')
    const d = delivery(ALPHA, { ts: String(NOW_S - 600) })
    expect(await verifyWebhook({ ...d, jwks: source, now: NOW })).toEqual({ ok: false, reason: 'stale_timestamp', deliveryId: 'msg_2f8a' })
    expect(getKeys).not.toHaveBeenCalled()
  })

  it('refuses a delivery whose bytes, id or timestamp differ from what was signed, as bad_signature', async () => {
    const d = delivery(ALPHA)
    const jwks = staticKeySource(jwksOf(ALPHA))
    expect(await verifyWebhook({ ...d, rawBody: Buffer.concat([d.rawBody, Buffer.from(' ')]), jwks, now: NOW })).toEqual({ ok: false, reason: 'bad_signature', deliveryId: 'msg_2f8a' })
    expect(await verifyWebhook({ ...d, headers: { ...d.headers, 'webhook-id': 'msg_other' }, jwks, now: NOW })).toMatchObject({ reason: 'bad_signature' })
    expect(await verifyWebhook({ ...d, headers: { ...d.headers, 'webhook-timestamp': String(NOW_S - 1) }, jwks, now: NOW })).toMatchObject({ reason: 'bad_signature' })
  })

  it('tries every entry against every key: garbage DER and another key first do not hide the valid one', async () => {
    const d = delivery(ALPHA)
    const garbage = `v1der,${Buffer.alloc(70, 1).toString('base64')}`
    const alphaOnly = { ...d.headers, 'webhook-signature': `${garbage} ${d.headers['webhook-signature']}` }
    expect(await verifyWebhook({ ...d, headers: alphaOnly, jwks: staticKeySource(jwksOf(BETA, ALPHA)), now: NOW })).toMatchObject({ ok: true, kid: 'alpha' })
    // Entries are tried in the order sent: the first that any key verifies names the key.
    const both = { ...d.headers, 'webhook-signature': `${garbage} v1der,${der(BETA, 'msg_2f8a', String(NOW_S), d.rawBody)} ${d.headers['webhook-signature']}` }
    expect(await verifyWebhook({ ...d, headers: both, jwks: staticKeySource(jwksOf(ALPHA, BETA)), now: NOW })).toMatchObject({ ok: true, kid: 'beta' })
  })

  it('answers jwks_unavailable with the back-off left, rounded up to whole seconds and at least one', async () => {
    const d = delivery(ALPHA)
    const failing = (e: unknown): KeySource => ({ getKeys: async () => { throw e }, refreshAfterFailure: async () => null })
    const verify = (e: unknown) => verifyWebhook({ ...d, jwks: failing(e), now: NOW })
    expect(await verify(new JwksUnavailable('app_1', 'x', 1_500))).toEqual({ ok: false, reason: 'jwks_unavailable', deliveryId: 'msg_2f8a', retryAfterSeconds: 2 })
    expect(await verify(new JwksUnavailable('app_1', 'x', 2_000))).toMatchObject({ retryAfterSeconds: 2 })
    expect(await verify(new JwksUnavailable('app_1', 'x', 10))).toMatchObject({ retryAfterSeconds: 1 })
    expect(await verify(new JwksUnavailable('app_1', 'x'))).toEqual({ ok: false, reason: 'jwks_unavailable', deliveryId: 'msg_2f8a' })
    expect(await verify(Object.assign(new Error('boom'), { retryAfterMs: 5_000 }))).toEqual({ ok: false, reason: 'jwks_unavailable', deliveryId: 'msg_2f8a' })
  })

  it('after no key matched, asks once for fresh keys and accepts the delivery when the new set has its key', async () => {
    const d = delivery(BETA)
    const source = keySource(alphaKeys(), async () => importJwks(jwksOf(ALPHA, BETA)))
    expect(await verifyWebhook({ ...d, jwks: source, now: NOW })).toMatchObject({ ok: true, kid: 'beta' })
    expect(source.refreshes).toBe(1)
    const swapped = keySource(alphaKeys(), async () => importJwks(jwksOf(BETA)))
    expect(await verifyWebhook({ ...d, jwks: swapped, now: NOW })).toMatchObject({ ok: true, kid: 'beta' })
  })

  it('compares key sets thumb by thumb: a set of the same size with one key replaced is tried again', async () => {
    const gamma = makeKey('gamma')
    const source = keySource(importJwks(jwksOf(ALPHA, gamma)), async () => importJwks(jwksOf(ALPHA, BETA)))
    expect(await verifyWebhook({ ...delivery(BETA), jwks: source, now: NOW })).toMatchObject({ ok: true, kid: 'beta' })
  })

  it('does not verify again when the re-fetch brings the same key set (compared by coordinates), nothing, or an error', async () => {
    const d = delivery(BETA)
    // Same coordinates as the first set, so it is the same set: not tried again, even though this key object would verify.
    const sameThumbs = alphaKeys().map((k) => ({ ...k, key: importJwks(jwksOf(BETA))[0].key }))
    for (const refreshed of [async () => sameThumbs, async () => null, async () => { throw new Error('down') }]) {
      const source = keySource(alphaKeys(), refreshed)
      expect(await verifyWebhook({ ...d, jwks: source, now: NOW })).toEqual({ ok: false, reason: 'bad_signature', deliveryId: 'msg_2f8a' })
      expect(source.refreshes).toBe(1)
    }
    const matched = keySource(alphaKeys(), async () => importJwks(jwksOf(ALPHA, BETA)))
    expect(await verifyWebhook({ ...delivery(ALPHA), jwks: matched, now: NOW })).toMatchObject({ ok: true, kid: 'alpha' })
    expect(matched.refreshes).toBe(0)
  })
})

describe('importing a JWKS', () => {
  it('keeps EC P-256 signing keys with both coordinates, with their kid and a thumb of their coordinates', () => {
    const keys = importJwks({ keys: [ALPHA.jwk, { ...BETA.jwk, use: undefined, kid: undefined }] })
    expect(keys.map((k) => ({ kid: k.kid, thumb: k.thumb, type: k.key.type }))).toEqual([
      { kid: 'alpha', thumb: `${ALPHA.jwk.x}.${ALPHA.jwk.y}`, type: 'public' },
      { kid: null, thumb: `${BETA.jwk.x}.${BETA.jwk.y}`, type: 'public' },
    ])
  })

  it('skips other key types and curves, keys missing a coordinate, encryption keys, points off the curve and non-keys', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    const p384 = privateKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string }
    const keys = importJwks({
      keys: [
        { ...ALPHA.jwk, kty: 'RSA' }, { kty: p384.kty, crv: p384.crv, x: p384.x, y: p384.y }, { ...ALPHA.jwk, crv: undefined },
        { ...ALPHA.jwk, x: '' }, { ...ALPHA.jwk, y: undefined }, { ...ALPHA.jwk, use: 'enc' }, { ...ALPHA.jwk, y: ALPHA.jwk.x },
        'not a key', { kty: 7 }, null, BETA.jwk,
      ],
    })
    expect(keys.map((k) => k.kid)).toEqual(['beta'])
  })

  it('never makes a private key out of a JWKS that wrongly publishes one', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = privateKey.export({ format: 'jwk' })
    const [key] = importJwks({ keys: [{ ...jwk, kid: 'leaked' }] })
    expect(key.key.type).toBe('public')
  })

  it('refuses a document that is not a key set', () => {
    expect(() => importJwks({ keys: 'none' })).toThrow()
    expect(() => importJwks(null)).toThrow()
    expect(importJwks({ keys: [] })).toEqual([])
  })

  it('a fixed key set never re-fetches', async () => {
    const source = staticKeySource(jwksOf(ALPHA))
    expect((await source.getKeys()).map((k) => k.kid)).toEqual(['alpha'])
    expect(await source.refreshAfterFailure()).toBeNull()
  })
})

describe('the JWKS cache', () => {
  let t: number
  let fetches: { url: string; at: number }[]
  let events: { reason: string; ok: boolean; keyCount: number; appDefinitionId: string }[]
  let answer: () => Promise<unknown>
  const caches: JwksCache[] = []

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    t = NOW
    fetches = []
    events = []
    answer = async () => jwksOf(ALPHA)
  })
  afterEach(() => {
    for (const c of caches.splice(0)) c.close()
    vi.useRealTimers()
  })

  function cache(options: Partial<JwksCacheOptions> = {}) {
    const c = new JwksCache({
      baseUrl: 'https://notebook.example//', appDefinitionId: 'appdef/1 x', clock: () => t,
      fetchJwks: async (url) => { fetches.push({ url, at: t }); return answer() },
      onFetch: (e) => events.push(e),
      ...options,
    })
    caches.push(c)
    return c
  }
  const settle = () => vi.advanceTimersByTimeAsync(0)

  it('fetches from the app definition JWKS address, once, and reports the fetch without key material', async () => {
    const c = cache()
    expect(c.url).toBe('https://notebook.example/api/v1/apps/appdef%2F1%20x/jwks')
    expect(c.appDefinitionId).toBe('appdef/1 x')
    expect(c.cachedAt).toBeNull()
    expect(kids(await c.getKeys())).toEqual(['alpha'])
    expect(fetches).toEqual([{ url: c.url, at: NOW }])
    expect(events).toEqual([{ appDefinitionId: 'appdef/1 x', reason: 'initial', ok: true, keyCount: 1 }])
    expect(c.cachedAt).toBe(NOW)
    // Only the planned refresh is left: the delivery's 800 ms wait is cleared once the keys came.
    expect(vi.getTimerCount()).toBe(1)
  })

  it('shares one fetch between deliveries that arrive while it runs', async () => {
    const c = cache()
    const [a, b] = await Promise.all([c.getKeys(), c.getKeys()])
    expect(a).toBe(b)
    expect(fetches).toHaveLength(1)
  })

  it('serves warm keys without fetching until half an hour before six hours, then serves them and refreshes behind', async () => {
    const c = cache()
    await c.getKeys()
    t = NOW + 5.5 * HOUR - 1
    await c.getKeys()
    expect(fetches).toHaveLength(1)
    t = NOW + 5.5 * HOUR
    answer = async () => jwksOf(BETA)
    expect(kids(await c.getKeys())).toEqual(['alpha'])
    await settle()
    expect(fetches).toHaveLength(2)
    expect(events.at(-1)).toMatchObject({ reason: 'refresh_ahead', ok: true })
    expect(kids(await c.getKeys())).toEqual(['beta'])
    expect(c.cachedAt).toBe(NOW + 5.5 * HOUR)
  })

  it('keeps serving expired keys for an hour while refreshes fail, refreshing as expired, then waits for a fetch', async () => {
    const c = cache()
    await c.getKeys()
    answer = async () => { throw Object.assign(new Error('503'), { code: 'ERR_NON_2XX_3XX_RESPONSE' }) }
    t = NOW + 6 * HOUR
    expect(kids(await c.getKeys())).toEqual(['alpha'])
    await settle()
    expect(events.at(-1)).toEqual({ appDefinitionId: 'appdef/1 x', reason: 'expired', ok: false, keyCount: 0 })
    t = NOW + 7 * HOUR - 1
    expect(kids(await c.getKeys())).toEqual(['alpha'])
    await settle()
    expect(fetches).toHaveLength(3)
    // At seven hours the stale keys are no longer served: the delivery meets the back-off of the last failed refresh.
    t = NOW + 7 * HOUR
    answer = async () => jwksOf(BETA)
    await expect(c.getKeys()).rejects.toMatchObject({ retryAfterMs: 9_999 })
    t = NOW + 7 * HOUR - 1 + 10_000
    expect(kids(await c.getKeys())).toEqual(['beta'])
    expect(events.at(-1)).toMatchObject({ reason: 'expired', ok: true })
  })

  it('backs off for ten seconds after a failed fetch, telling how long is left, then fetches again', async () => {
    const c = cache()
    answer = async () => { throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) }
    const first = await c.getKeys().catch((e: unknown) => e)
    expect(first).toBeInstanceOf(JwksUnavailable)
    expect(first).toMatchObject({ name: 'JwksUnavailable', appDefinitionId: 'appdef/1 x', detail: 'ECONNREFUSED', retryAfterMs: 10_000, message: 'JWKS for app definition appdef/1 x unavailable: ECONNREFUSED' })
    t = NOW + 4_000
    await expect(c.getKeys()).rejects.toMatchObject({ detail: 'recent fetch failed; backing off', retryAfterMs: 6_000 })
    t = NOW + 9_999
    await expect(c.getKeys()).rejects.toMatchObject({ retryAfterMs: 1 })
    expect(fetches).toHaveLength(1)
    t = NOW + 10_000
    answer = async () => jwksOf(ALPHA)
    expect(kids(await c.getKeys())).toEqual(['alpha'])
    expect(fetches).toHaveLength(2)
  })

  it("names a failure by the error's code, else its class, never its message", async () => {
    const c = cache({ failureBackoffMs: 0 })
    answer = async () => { throw new TypeError('secret detail') }
    await expect(c.getKeys()).rejects.toMatchObject({ detail: 'TypeError' })
    answer = async () => { throw Object.assign(Object.create(null), { name: undefined }) }
    t += 1
    await expect(c.getKeys()).rejects.toMatchObject({ detail: 'error' })
  })

  it('makes a delivery wait at most 800 ms for a slow fetch, answering when a retry cannot meet the back-off', async () => {
    const c = cache()
    let release!: (v: unknown) => void
    answer = () => new Promise((r) => { release = r })
    const waiting = c.getKeys().catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(799)
    let done = false
    void waiting.then(() => { done = true })
    await settle()
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    // got's budget for one fetch: 3 attempts of 5 s, waits of 1.1 s and 2.1 s; then the 10 s back-off.
    expect(await waiting).toMatchObject({ detail: 'fetch still running', retryAfterMs: 15_000 + 1_100 + 2_100 + 10_000 })
    release(jwksOf(BETA))
    await settle()
    expect(kids(await c.getKeys())).toEqual(['beta'])
    expect(fetches).toHaveLength(1)
  })

  it("counts got's waits, capped at two seconds, in the retry time of a slow fetch", async () => {
    const c = cache({ retries: 4, timeoutMs: 1_000, requestWaitMs: 50, failureBackoffMs: 0 })
    answer = () => new Promise(() => {})
    const waiting = c.getKeys().catch((e: unknown) => e)
    t = NOW + 20
    await vi.advanceTimersByTimeAsync(50)
    expect(await waiting).toMatchObject({ retryAfterMs: 5 * 1_000 + (1_100 + 2_100 + 2_100 + 2_100) - 20 })
  })

  it('lets failed verifications cause at most one re-fetch a minute, none during a back-off, and shares a running fetch', async () => {
    const c = cache()
    await c.getKeys()
    answer = async () => jwksOf(ALPHA, BETA)
    expect(kids((await c.refreshAfterFailure())!)).toEqual(['alpha', 'beta'])
    expect(events.at(-1)).toMatchObject({ reason: 'verification_failed', ok: true })
    t = NOW + MINUTE - 1
    expect(await c.refreshAfterFailure()).toBeNull()
    expect(fetches).toHaveLength(2)
    t = NOW + MINUTE
    answer = async () => { throw new Error('down') }
    expect(await c.refreshAfterFailure()).toBeNull()
    expect(fetches).toHaveLength(3)
    t = NOW + 3 * MINUTE
    expect(await c.refreshAfterFailure()).toBeNull()
    expect(fetches).toHaveLength(4)
    t = NOW + 3 * MINUTE + 9_999
    expect(await c.refreshAfterFailure()).toBeNull()
    expect(fetches).toHaveLength(4)
  })

  it('makes no forced re-fetch during the back-off of a failed fetch, and one as soon as it is over', async () => {
    const c = cache()
    answer = async () => { throw new Error('down') }
    await expect(c.getKeys()).rejects.toBeInstanceOf(JwksUnavailable)
    answer = async () => jwksOf(ALPHA)
    t = NOW + 9_999
    expect(await c.refreshAfterFailure()).toBeNull()
    expect(fetches).toHaveLength(1)
    t = NOW + 10_000
    expect(kids((await c.refreshAfterFailure())!)).toEqual(['alpha'])
    expect(fetches).toHaveLength(2)
  })

  it('starts a background refresh of expired keys as soon as the back-off of the last failure is over', async () => {
    const c = cache()
    await c.getKeys()
    answer = async () => { throw new Error('down') }
    t = NOW + 6 * HOUR
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(2)
    t = NOW + 6 * HOUR + 10_000
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(3)
  })

  it('answers a re-fetch request with the fetch already running, or nothing when that fetch fails', async () => {
    const c = cache()
    let release!: (v: unknown) => void
    answer = () => new Promise((r) => { release = r })
    const first = c.getKeys()
    await settle()
    const refreshed = c.refreshAfterFailure()
    release(jwksOf(BETA))
    expect(kids((await refreshed)!)).toEqual(['beta'])
    await first
    expect(fetches).toHaveLength(1)
    let fail!: (e: unknown) => void
    answer = () => new Promise((_r, reject) => { fail = reject })
    c.invalidate()
    const again = c.getKeys().catch(() => null)
    await settle()
    const during = c.refreshAfterFailure()
    fail(new Error('down'))
    expect(await during).toBeNull()
    await again
  })

  it('forgets its keys when invalidated and fetches them again as an initial fetch', async () => {
    const c = cache()
    await c.getKeys()
    c.invalidate()
    expect(c.cachedAt).toBeNull()
    t = NOW + 1
    await c.getKeys()
    expect(events.map((e) => e.reason)).toEqual(['initial', 'initial'])
    // A refresh planned before the keys were forgotten fetches them as an initial fetch too.
    c.invalidate()
    t = NOW + HOUR
    await vi.advanceTimersByTimeAsync(5.5 * HOUR)
    expect(events.map((e) => e.reason)).toEqual(['initial', 'initial', 'initial'])
  })

  it('plans the next refresh half an hour before expiry while the keys are used, and none for an idle app', async () => {
    const c = cache()
    await c.getKeys()
    t = NOW + 5.5 * HOUR
    await vi.advanceTimersByTimeAsync(5.5 * HOUR - 1)
    expect(fetches).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(fetches).toHaveLength(2)
    expect(events.at(-1)).toMatchObject({ reason: 'refresh_ahead', ok: true })
    // No delivery for longer than the keys' lifetime: the planned refresh does nothing.
    t = NOW + 5.5 * HOUR + 6 * HOUR + 1
    await vi.advanceTimersByTimeAsync(5.5 * HOUR)
    expect(fetches).toHaveLength(2)
  })

  it('plans the refresh of an app last used exactly one key lifetime ago (idle means longer than that)', async () => {
    const c = cache()
    await c.getKeys()
    t = NOW + 6 * HOUR
    await vi.advanceTimersByTimeAsync(5.5 * HOUR)
    expect(fetches).toHaveLength(2)
  })

  it('treats keys fetched for a failed verification, before any delivery used the cache, as idle', async () => {
    const c = cache()
    expect(kids((await c.refreshAfterFailure())!)).toEqual(['alpha'])
    t = NOW + MINUTE
    await vi.advanceTimersByTimeAsync(5.5 * HOUR)
    expect(fetches).toHaveLength(1)
  })

  it('plans no retry after a failed first fetch: the next delivery fetches', async () => {
    const c = cache()
    answer = async () => { throw new Error('down') }
    await expect(c.getKeys()).rejects.toBeInstanceOf(JwksUnavailable)
    t = NOW + 20_000
    await vi.advanceTimersByTimeAsync(HOUR)
    expect(fetches).toHaveLength(1)
  })

  it('waits at least a second between planned refreshes, however short the keys live', async () => {
    const c = cache({ maxAgeMs: 100, refreshAheadMs: 50 })
    await c.getKeys()
    t = NOW + 60
    await vi.advanceTimersByTimeAsync(999)
    expect(fetches).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(fetches).toHaveLength(2)
  })

  it('after a failed refresh of keys still in use, tries again once the back-off is over, and stops when closed', async () => {
    const c = cache()
    await c.getKeys()
    answer = async () => { throw new Error('down') }
    t = NOW + 6 * HOUR
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(2)
    answer = async () => jwksOf(BETA)
    t += 10_001
    await vi.advanceTimersByTimeAsync(10_000)
    expect(fetches).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(fetches).toHaveLength(3)
    expect(kids(await c.getKeys())).toEqual(['beta'])
    c.close()
    await vi.advanceTimersByTimeAsync(12 * HOUR)
    expect(fetches).toHaveLength(3)
  })

  it('starts no background refresh while one runs or during a back-off', async () => {
    const c = cache()
    await c.getKeys()
    let release!: (v: unknown) => void
    answer = () => new Promise((r) => { release = r })
    t = NOW + 5.5 * HOUR
    await c.getKeys()
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(2)
    release(jwksOf(ALPHA))
    await settle()
    answer = async () => { throw new Error('down') }
    t = NOW + 12 * HOUR
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(3)
    t += 9_999
    await c.getKeys()
    await settle()
    expect(fetches).toHaveLength(3)
  })

  it('keeps one cache per base address and app definition, whatever trailing slashes the address has', () => {
    const set = new JwksCaches({ clock: () => t })
    const a = set.forApp('https://notebook.example/', 'app_1')
    expect(set.forApp('https://notebook.example', 'app_1')).toBe(a)
    expect(set.forApp('https://notebook.example///', 'app_1')).toBe(a)
    expect(set.forApp('https://notebook.example', 'app_2')).not.toBe(a)
    expect(set.forApp('https://other.example', 'app_1')).not.toBe(a)
    expect(a.url).toBe('https://notebook.example/api/v1/apps/app_1/jwks')
  })
})

describe('the JWKS fetch over HTTP', () => {
  it('asks for JSON, retries a server error as configured, and reads the key set', async () => {
    let calls = 0
    const accepts: (string | undefined)[] = []
    const server = http.createServer((req, res) => {
      calls += 1
      accepts.push(req.headers.accept)
      if (calls === 1) { res.writeHead(502).end(); return }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwksOf(ALPHA)))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const { port } = server.address() as AddressInfo
      const c = new JwksCache({ baseUrl: `http://127.0.0.1:${port}`, appDefinitionId: 'app_1', retries: 1, requestWaitMs: 5_000 })
      expect(kids(await c.getKeys())).toEqual(['alpha'])
      c.close()
      expect(calls).toBe(2)
      expect(accepts).toEqual(['application/json', 'application/json'])
    } finally {
      await new Promise((r) => server.close(r))
    }
  })

  it('gives each attempt its own timeout, so a hanging first attempt is retried', async () => {
    let calls = 0
    const server = http.createServer((_req, res) => {
      calls += 1
      if (calls === 1) return // hangs
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwksOf(ALPHA)))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const { port } = server.address() as AddressInfo
      const c = new JwksCache({ baseUrl: `http://127.0.0.1:${port}`, appDefinitionId: 'app_1', retries: 1, timeoutMs: 150, requestWaitMs: 5_000 })
      expect(kids(await c.getKeys())).toEqual(['alpha'])
      c.close()
      expect(calls).toBe(2)
    } finally {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })

  it('makes exactly one attempt when no retries are configured, and answers the failure as unavailable', async () => {
    let calls = 0
    const server = http.createServer((_req, res) => { calls += 1; res.writeHead(503).end() })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const { port } = server.address() as AddressInfo
      const c = new JwksCache({ baseUrl: `http://127.0.0.1:${port}`, appDefinitionId: 'app_1', retries: 0, requestWaitMs: 5_000 })
      await expect(c.getKeys()).rejects.toMatchObject({ name: 'JwksUnavailable', detail: 'ERR_NON_2XX_3XX_RESPONSE' })
      c.close()
      expect(calls).toBe(1)
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})

