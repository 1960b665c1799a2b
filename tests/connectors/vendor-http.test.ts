// The generic connector layer over real HTTP: the one vendor client every provider uses (client-credentials tokens,
// Retry-After, short 429 waits, rate headers by vendor, egress lookup, typed errors without secrets), and the layer's
// independence from any provider.
import { readFileSync, readdirSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { listen } from '../../fakes/common/listen'
import { readRateHeaders } from '../../domain/adapters'
import { RateLimited, VendorAuthFailed, VendorError, VendorUnavailable } from '../../domain/adapters'
import { VendorHttpClient, type VendorHttpOptions } from '../../domain/adapters'
import { DomainError } from '../../core/errors'
import { caught } from '../notebook/helpers'

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** A vendor whose answers the test scripts, one handler per request (the last one repeats). */
async function scriptedVendor(...handlers: Handler[]) {
  const seen: Array<{ method: string; path: string; authorization?: string; body: string; at: number }> = []
  const server = await listen(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    seen.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization, body, at: Date.now() })
    handlers[Math.min(seen.length - 1, handlers.length - 1)](req, res, body)
  })
  return { ...server, seen, [Symbol.asyncDispose]: server.close }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}
const token: Handler = json(200, { access_token: 'tok_illustrative', token_type: 'Bearer', expires_in: 900 })

const client = (url: string, extra: Partial<VendorHttpOptions> = {}) =>
  new VendorHttpClient({ baseUrl: url, source: 'illustrative_source', retryBaseDelayMs: 5, ...extra })

describe('vendor HTTP client', () => {
  it('sends client credentials in the form body when the vendor wants them there, and caches the token', async () => {
    await using vendor = await scriptedVendor(token, json(200, { ok: 1 }))
    const c = client(vendor.url, { clientCredentials: { tokenPath: 'oauth/token', clientId: 'cid', clientSecret: 's3cret', style: 'body' } })
    expect(await c.requestJson('GET', 'things', { resource: 'things' })).toEqual({ ok: 1 })
    expect(await c.requestJson('GET', 'things', { resource: 'things' })).toEqual({ ok: 1 })
    expect(vendor.seen.map((s) => s.path)).toEqual(['/oauth/token', '/things', '/things'])
    expect(new URLSearchParams(vendor.seen[0].body).get('client_secret')).toBe('s3cret')
    expect(vendor.seen[1].authorization).toBe('Bearer tok_illustrative')
  })

  it('refuses wrong credentials as VendorAuthFailed, a DomainError that never repeats the secret', async () => {
    await using vendor = await scriptedVendor(json(401, { error: 'invalid_client: s3cret-value' }))
    const err = await caught(client(vendor.url, { clientCredentials: { tokenPath: 'token', clientId: 'cid', clientSecret: 's3cret-value' } }).accessToken())
    expect(err).toBeInstanceOf(VendorAuthFailed)
    expect(err).toBeInstanceOf(DomainError)
    expect(err).toMatchObject({ code: 'VendorAuthFailed', source: 'illustrative_source', httpStatus: 502 })
    expect(JSON.stringify({ ...err, text: err.message })).not.toContain('s3cret')
  })

  it("waits at least the vendor's Retry-After before retrying a 503", async () => {
    await using vendor = await scriptedVendor(json(503, { error: 'busy' }, { 'retry-after': '1' }), json(200, { ok: 2 }))
    expect(await client(vendor.url).send('GET', 'x').then((a) => a.status)).toBe(200)
    expect(vendor.seen[1].at - vendor.seen[0].at).toBeGreaterThanOrEqual(950)
  })

  it('does not retry a 503 whose Retry-After is longer than a request should wait', async () => {
    await using vendor = await scriptedVendor(json(503, { error: 'maintenance' }, { 'retry-after': '600' }))
    const err = await caught(client(vendor.url).send('GET', 'x'))
    expect(err).toBeInstanceOf(VendorUnavailable)
    expect(vendor.seen).toHaveLength(1)
  })

  it('leaves a 429 to the budget by default, and waits out a short one when allowed', async () => {
    const limited = json(429, { error: { message: 'Rate limit exceeded.' } }, { 'retry-after': '1' })
    await using vendor = await scriptedVendor(limited, limited, json(200, { ok: 3 }))
    const err = await caught(client(vendor.url).send('GET', 'x'))
    expect(err).toBeInstanceOf(RateLimited)
    expect(err).toMatchObject({ retryAfterSeconds: 1, message: 'budget exhausted for source illustrative_source, retry after 1 s' })
    expect(vendor.seen).toHaveLength(1)
    expect((await client(vendor.url, { maxRateLimitWaitSeconds: 2 }).send('GET', 'x')).status).toBe(200)
    expect(vendor.seen).toHaveLength(3)
  })

  it("reads each vendor's own rate-limit header names", async () => {
    const names = { limit: 'x-ratelimit-limit', remaining: 'x-ratelimit-remaining', reset: 'x-ratelimit-reset' }
    await using vendor = await scriptedVendor(json(200, {}, { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '7', 'X-RateLimit-Reset': '3' }))
    const seen: unknown[] = []
    await client(vendor.url, { rateHeaderNames: names, onRateHeaders: (h) => seen.push(h) }).send('GET', 'x')
    expect(seen).toEqual([{ limit: 100, remaining: 7, resetSeconds: 3 }])
    expect(readRateHeaders({ 'x-rate-limit-remaining': '4' })).toEqual({ limit: null, remaining: 4, resetSeconds: null })
  })

  it('sends every request and download through the egress lookup it is given', async () => {
    await using vendor = await scriptedVendor(json(200, {}))
    const looked: string[] = []
    const refuse = ((hostname: string, _options: unknown, callback: (err: Error | null) => void) => {
      looked.push(hostname)
      callback(Object.assign(new Error(`egress refused for ${hostname}`), { code: 'EACCES' }))
    }) as never
    const c = client(vendor.url, { dnsLookup: refuse, retries: 0 })
    const byName = new URL(`http://localhost:${vendor.port}/`)
    expect(await caught(c.send('GET', new URL('x', byName)))).toMatchObject({ name: 'VendorUnavailable', reason: 'network' })
    const download = await caught(c.download(new URL('file', byName), { resource: 'file', maxBytes: 10, tooMany: () => new VendorUnavailable('x', 'network') }))
    expect(download).toBeInstanceOf(VendorError)
    expect(looked).toEqual(['localhost', 'localhost'])
    expect(vendor.seen).toHaveLength(0)
  })
})

describe('connector layer', () => {
  it('keeps the generic layer free of any provider: only the registry names one', () => {
    const generic = [
      ...['adapters', 'budgets', 'connections', 'documents', 'webhooks'].flatMap((c) =>
        readdirSync(`domain/${c}`).filter((f) => f.endsWith('.ts')).map((f) => `domain/${c}/${f}`)),
      ...readdirSync('subgraphs/connectors/http').filter((f) => f.endsWith('.ts')).map((f) => `subgraphs/connectors/http/${f}`),
    ]
    const offending = generic.filter((f) => /from '[^']*\/(notebook|qms|literature)(\/[^']*)?'/.test(readFileSync(f, 'utf8')))
    expect(offending).toEqual([])
  })
})
