// Test helpers for the notebook suites: a webhook receiver that verifies like the gateway will, and a settable clock.
import type { IncomingHttpHeaders } from 'node:http'
import { listen } from '../../fakes/common/listen'
import { verifyWebhook, type KeySource, type VerifyResult } from '../../domain/notebook'

export interface Received {
  headers: IncomingHttpHeaders
  rawBody: Buffer
  result: VerifyResult
}

/** Answers 202 to a verified delivery and 401 otherwise (parsing nothing), recording what it saw. */
export async function startReceiver(keys: () => KeySource, now: () => number = Date.now) {
  const received: Received[] = []
  const server = await listen(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const rawBody = Buffer.concat(chunks)
    const result = await verifyWebhook({ headers: req.headers, rawBody, jwks: keys(), now: now() })
    received.push({ headers: req.headers, rawBody, result })
    res.writeHead(result.ok ? 202 : result.reason === 'jwks_unavailable' ? 503 : 401, { 'content-type': 'application/json' })
    res.end(JSON.stringify(result.ok ? { accepted: result.deliveryId } : { error: { code: result.reason } }))
  })
  return { url: `${server.url}/api/v1/hooks/eln_provider/conn_test`, received, close: server.close, [Symbol.asyncDispose]: server.close }
}

export function settableClock(start = Date.now()) {
  let t = start
  return {
    now: () => t,
    advance(ms: number) {
      t += ms
    },
    set(ms: number) {
      t = ms
    },
  }
}

/** Reverses the key order of every object, recursively (JSON content unchanged). */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).reverse().map(([k, v]) => [k, reverseKeys(v)])) as T
  }
  return value
}

/** The error a promise rejects with; fails when it resolves. */
export async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (err) {
    return err as Error
  }
  throw new Error('expected a rejection')
}

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
