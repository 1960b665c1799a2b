// Notebook vendor client against the fake notebook over real HTTP: tokens, paging, rate limits, failures, attachments, canvases.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sampleDays } from '../../fakes/notebook/entries'
import { startFakeNotebook, type FakeNotebook, type RegisteredApp } from '../../fakes/notebook/server'
import {
  AttachmentTooLarge,
  NotebookClient,
  RateLimited,
  VendorAuthFailed,
  VendorNotFound,
  VendorRequestRejected,
  VendorResponseInvalid,
  VendorUnavailable,
  type NotebookClientOptions,
  type RateHeaders,
} from '../../domain/notebook'
import { entryPayloadHash } from '../../domain/notebook'
import { MINUTE, caught, settableClock } from './helpers'

let fake: FakeNotebook
let app: RegisteredApp
let clock: ReturnType<typeof settableClock>

beforeEach(async () => {
  fake = await startFakeNotebook()
  app = fake.control.registerApp()
  clock = settableClock()
})

afterEach(async () => {
  await fake.close()
})

const client = (extra: Partial<NotebookClientOptions> = {}) =>
  new NotebookClient({
    baseUrl: fake.url,
    clientId: app.clientId!,
    clientSecret: app.clientSecret!,
    clock: clock.now,
    retryBaseDelayMs: 5,
    ...extra,
  })

describe('notebook client', () => {
  it('caches the access token and asks for a new one only after 12 minutes', async () => {
    const entry = fake.control.upsertEntry({ name: 'Token test' })
    const c = client()
    await c.getEntry(entry.id)
    await c.getEntry(entry.id)
    clock.advance(12 * MINUTE - 1)
    await c.getEntry(entry.id)
    expect(fake.control.getStats().tokensIssued).toBe(1)
    clock.advance(1)
    await c.getEntry(entry.id)
    expect(fake.control.getStats().tokensIssued).toBe(2)
  })

  it('asks for one token when several calls start at once', async () => {
    const entry = fake.control.upsertEntry({ name: 'Concurrent' })
    const c = client()
    await Promise.all([c.getEntry(entry.id), c.getEntry(entry.id), c.listEntries()])
    expect(fake.control.getStats().tokensIssued).toBe(1)
  })

  it('gets a new token and retries once when the vendor no longer accepts the cached one', async () => {
    const entry = fake.control.upsertEntry({ name: 'Expired token' })
    const c = client()
    await c.getEntry(entry.id)
    fake.control.expireTokens()
    expect((await c.getEntry(entry.id)).id).toBe(entry.id)
    expect(fake.control.getStats().tokensIssued).toBe(2)
  })

  it('refuses wrong client credentials with VendorAuthFailed and no secret in the message', async () => {
    const err = await caught(client({ clientSecret: 'wrong-secret-value' }).getEntry('etr_x'))
    expect(err).toBeInstanceOf(VendorAuthFailed)
    expect(err.message).not.toContain('wrong-secret-value')
    expect(JSON.stringify(err)).not.toContain('wrong-secret-value')
    expect((err as { cause?: unknown }).cause).toBeUndefined()
  })

  it('reports the x-rate-limit headers of every answer', async () => {
    const seen: RateHeaders[] = []
    const entry = fake.control.upsertEntry({ name: 'Headers' })
    await client({ onRateHeaders: (h) => seen.push(h) }).getEntry(entry.id)
    expect(seen).toEqual([
      { limit: 300, remaining: 299, resetSeconds: expect.any(Number) }, // token
      { limit: 300, remaining: 298, resetSeconds: expect.any(Number) }, // entry
    ])
  })

  it('turns a 429 into RateLimited with the retry delay in seconds and the rail phrase', async () => {
    const entry = fake.control.upsertEntry({ name: 'Limited' })
    const c = client()
    await c.getEntry(entry.id)
    fake.control.misbehave({ rateLimitNext: 1, rateLimitResetSeconds: 17 })
    const err = await caught(c.getEntry(entry.id))
    expect(err).toBeInstanceOf(RateLimited)
    expect(err).toMatchObject({ source: 'eln_provider', retryAfterSeconds: 17 })
    expect(err.message).toBe('budget exhausted for source eln_provider, retry after 17 s')
    expect(fake.control.getStats().entryReads).toBe(1) // not retried
  })

  it('hits the real window: the 4th request in a window of 3 is RateLimited until the window resets', async () => {
    fake.control.setRateLimit({ limit: 3, windowSeconds: 30 })
    const entry = fake.control.upsertEntry({ name: 'Window' })
    const c = client({ source: 'notebook (Illustrative lab)' })
    await c.getEntry(entry.id) // token + entry
    await c.getEntry(entry.id)
    const err = await caught(c.getEntry(entry.id))
    expect(err).toBeInstanceOf(RateLimited)
    expect((err as RateLimited).retryAfterSeconds).toBeGreaterThan(0)
    expect((err as RateLimited).retryAfterSeconds).toBeLessThanOrEqual(30)
    expect(err.message).toMatch(/^budget exhausted for source notebook \(Illustrative lab\), retry after \d+ s$/)
  })

  it('retries a 503 and reports VendorUnavailable when it persists', async () => {
    const entry = fake.control.upsertEntry({ name: 'Down' })
    const c = client({ retries: 2 })
    await c.getEntry(entry.id)
    fake.control.misbehave({ serverErrorNext: 3, pathPrefix: '/api/v2/entries' })
    const err = await caught(c.getEntry(entry.id))
    expect(err).toBeInstanceOf(VendorUnavailable)
    expect(err).toMatchObject({ reason: 'server_error', status: 503 })
    fake.control.misbehave({ serverErrorNext: 1 })
    expect((await c.getEntry(entry.id)).id).toBe(entry.id)
  })

  it('reports a slow vendor as VendorUnavailable (timeout)', async () => {
    const entry = fake.control.upsertEntry({ name: 'Slow' })
    const c = client({ timeoutMs: 100, retries: 0 })
    await c.getEntry(entry.id)
    fake.control.misbehave({ delayMs: 400 })
    const err = await caught(c.getEntry(entry.id))
    expect(err).toBeInstanceOf(VendorUnavailable)
    expect(err).toMatchObject({ reason: 'timeout' })
  })

  it('awaits beforeRequest for every HTTP attempt and stops when it throws', async () => {
    const entry = fake.control.upsertEntry({ name: 'Budget' })
    let draws = 0
    const c = client({
      beforeRequest: async () => {
        draws += 1
        if (draws > 2) throw new RateLimited('eln_provider', 9)
      },
    })
    await c.getEntry(entry.id)
    expect(draws).toBe(2) // token + entry
    await expect(c.getEntry(entry.id)).rejects.toThrow('budget exhausted for source eln_provider, retry after 9 s')
    expect(fake.control.getStats().entryReads).toBe(1)
  })

  it('pages through entries modified after a watermark, oldest first', async () => {
    const before = fake.control.upsertEntry({ name: 'Before the watermark' })
    const ids = Array.from({ length: 5 }, (_, i) => fake.control.upsertEntry({ name: `Paged ${i}` }).id)
    const c = client()
    const page1 = await c.listEntries({ modifiedAfter: before.modifiedAt, pageSize: 2 })
    expect(page1.entries.map((e) => e.id)).toEqual(ids.slice(0, 2))
    expect(page1.nextPageToken).toEqual(expect.any(String))
    const page2 = await c.listEntries({ modifiedAfter: before.modifiedAt, pageSize: 2, pageToken: page1.nextPageToken })
    expect(page2.entries.map((e) => e.id)).toEqual(ids.slice(2, 4))
    const page3 = await c.listEntries({ modifiedAfter: before.modifiedAt, pageSize: 2, pageToken: page2.nextPageToken })
    expect(page3.entries.map((e) => e.id)).toEqual(ids.slice(4))
    expect(page3.nextPageToken).toBeNull()
    const all: string[] = []
    for await (const e of c.iterateEntries({ pageSize: 4 })) all.push(e.id)
    expect(all).toEqual([before.id, ...ids])
  })

  it('sees a modified entry again after the watermark, with a new modifiedAt', async () => {
    const a = fake.control.upsertEntry({ name: 'A' })
    const b = fake.control.upsertEntry({ name: 'B' })
    const changed = fake.control.modifyEntry(a.id, (e) => {
      e.days = sampleDays({ variant: 2 })
    })
    expect(changed.modifiedAt > b.modifiedAt).toBe(true)
    const page = await client().listEntries({ modifiedAfter: b.modifiedAt })
    expect(page.entries.map((e) => e.id)).toEqual([a.id])
    expect(entryPayloadHash(page.entries[0])).not.toBe(entryPayloadHash(a as never))
  })

  it('lists archived entries by default so a sync sees the archiving', async () => {
    const a = fake.control.upsertEntry({ name: 'To archive' })
    fake.control.modifyEntry(a.id, { archiveRecord: { reason: 'Made in error' } })
    expect((await client().listEntries()).entries.map((e) => [e.id, e.archiveRecord])).toEqual([[a.id, { reason: 'Made in error' }]])
    expect((await client().listEntries({ includeArchived: false })).entries).toEqual([])
  })

  it('reports a deleted entry as VendorNotFound', async () => {
    const a = fake.control.upsertEntry({ name: 'Gone' })
    fake.control.deleteEntry(a.id)
    await expect(client().getEntry(a.id)).rejects.toBeInstanceOf(VendorNotFound)
  })

  it('downloads an attachment under 25 MB and checks it against the metadata digest', async () => {
    const entry = fake.control.upsertEntry({ name: 'With file' })
    const file = fake.control.putAttachment(entry.id, { content: 'well,value\nA1,1\n', appendToEntry: true })
    const got = await client().getAttachment(entry.id, file.id)
    expect(got.bytes.toString()).toBe('well,value\nA1,1\n')
    expect(got.sha256).toBe(file.sha256)
    expect(got.metadata).toMatchObject({ id: file.id, size: 16, sha256: file.sha256 })
    expect(fake.control.getEntry(entry.id)!.days.at(-1)!.notes.at(-1)).toMatchObject({ type: 'external_file', externalFileId: file.id })
  })

  it('refuses an attachment of 25 MB from its metadata without downloading a byte', async () => {
    const entry = fake.control.upsertEntry({ name: 'Big file' })
    const file = fake.control.putAttachment(entry.id, { size: 25 * 1024 * 1024 })
    const err = await caught(client().getAttachment(entry.id, file.id))
    expect(err).toBeInstanceOf(AttachmentTooLarge)
    expect(err).toMatchObject({ size: 25 * 1024 * 1024, limit: 25 * 1024 * 1024 })
    expect(fake.control.getStats()).toMatchObject({ attachmentMetadataReads: 1, attachmentDownloads: 0 })
  })

  it('refuses a download that is larger than the metadata announced, and one over the limit as AttachmentTooLarge', async () => {
    const entry = fake.control.upsertEntry({ name: 'Lying file' })
    const small = fake.control.putAttachment(entry.id, { size: 5000, declaredSize: 1000 })
    const big = fake.control.putAttachment(entry.id, { size: 2 * 1024 * 1024, declaredSize: 1000 })
    const c = client({ maxAttachmentBytes: 1024 * 1024 })
    expect(await caught(c.getAttachment(entry.id, small.id))).toBeInstanceOf(VendorResponseInvalid)
    expect(await caught(c.getAttachment(entry.id, big.id))).toBeInstanceOf(AttachmentTooLarge)
  })

  it('creates and updates a canvas, and the vendor refuses data of 5 kB or more', async () => {
    const entry = fake.control.upsertEntry({ name: 'Canvas host' })
    const c = client()
    const blocks = [{ id: 'prompt', type: 'MARKDOWN', value: 'Check this entry against the effective SOP' }, { id: 'check-sop', type: 'BUTTON', text: 'Check' }]
    const canvas = await c.createCanvas({ featureId: app.featureId, resourceId: entry.id, blocks, enabled: true, data: JSON.stringify({ step: 'prompt' }) })
    expect(canvas).toMatchObject({ featureId: app.featureId, resourceId: entry.id, enabled: true, blocks })
    const updated = await c.updateCanvas(canvas.id, { blocks: [{ id: 'open', type: 'MARKDOWN', value: '[Open in the service](http://x.invalid)' }] })
    expect(updated.blocks).toHaveLength(1)
    expect((await c.getCanvas(canvas.id)).blocks).toEqual(updated.blocks)
    const err = await caught(c.updateCanvas(canvas.id, { data: JSON.stringify({ pad: 'x'.repeat(5000) }) }))
    expect(err).toBeInstanceOf(VendorRequestRejected)
    expect(err).toMatchObject({ status: 400 })
    expect(fake.control.canvasList()).toHaveLength(1)
  })

  it('puts neither the token nor the secret into any error it raises', async () => {
    const entry = fake.control.upsertEntry({ name: 'Secrets' })
    const c = client({ retries: 0, timeoutMs: 100 })
    const token = await c.accessToken()
    const errors: Error[] = []
    fake.control.misbehave({ rateLimitNext: 1 })
    errors.push(await caught(c.getEntry(entry.id)))
    fake.control.misbehave({ serverErrorNext: 1 })
    errors.push(await caught(c.getEntry(entry.id)))
    fake.control.misbehave({ delayMs: 300 })
    errors.push(await caught(c.getEntry(entry.id)))
    fake.control.behave()
    errors.push(await caught(c.getEntry('etr_missing')))
    for (const err of errors) {
      const text = `${err.message} ${JSON.stringify(err)} ${String(err.stack)}`
      expect(text).not.toContain(token)
      expect(text).not.toContain(app.clientSecret!)
    }
  })
})
