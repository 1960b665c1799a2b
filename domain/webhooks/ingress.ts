// Owns the decisions of the inbound webhook ingress (the HTTP routing is subgraphs/connectors/http/hooks.ts): which
// source may send, verify before parsing, what is recorded, the limit of rejected deliveries per source. The raw body
// is read with a 1 MB cap and the vendor signature is verified before anything is parsed. Every delivery gets a
// webhook_deliveries row, except a rejected delivery from a source address that is over its limit of rejected
// deliveries (counted, answered 429, nothing stored). An accepted delivery's row and its processing job commit in one
// statement before the 202.
//
// | case                                              | status | outcome  | row                                             |
// |---------------------------------------------------|--------|----------|-------------------------------------------------|
// | valid signature, known event type                 | 202    | enqueued | payload stored, job connector_delivery_process  |
// | same delivery id again within 72 h (verified)     | 200    | ignored  | replay = true, no payload, no job               |
// | valid signature, unknown event type               | 200    | ignored  | payload stored, reason unknown_event_type       |
// | valid signature, body not JSON                    | 400    | rejected | signature_ok, reason malformed_json, no payload |
// | valid signature, JSON without the event type      | 400    | rejected | reason invalid_envelope, no payload (the path   |
// |                                                   |        |          | is the provider's settings.webhook)             |
// | valid signature, JSON PostgreSQL cannot store     | 400    | rejected | reason unstorable_payload, no payload (a \u0000 |
// |                                                   |        |          | escape or a lone surrogate; jsonb refuses them) |
// | bad signature / unknown key / garbage             | 401    | rejected | reason bad_signature, no payload                |
// | signature headers missing or malformed            | 401    | rejected | reason missing_signature / malformed_signature  |
// |                                                   |        |          | (entries: every `v{n}der,` tag, any line/order) |
// | timestamp outside ±5 minutes                      | 401    | rejected | reason stale_timestamp                          |
// | body over 1 MB                                    | 413    | rejected | reason payload_too_large, nothing parsed        |
// | unknown connection (or provider mismatch)         | 404    | rejected | organization_id null, reason unknown_connection |
// | provider that sends no webhooks                   | 404    | rejected | reason webhooks_not_supported                   |
// | disconnected connection                           | 410    | rejected | reason connection_disconnected                  |
// | connection without vendor app yet (step c)        | 409    | rejected | reason connection_not_ready                     |
// | source outside WEBHOOK_ALLOWED_SOURCES (if set)   | 403    | rejected | reason source_not_allowed, body not read        |
// | no signing keys within 800 ms (cold or expired     | 503    | rejected | reason verification_unavailable, Retry-After;   |
// | JWKS whose fetch fails or hangs)                   |        |          | not counted against the source                  |
// | source over 60 rejected deliveries per minute     | 429    | -        | no row; Retry-After; counted in ingress stats;  |
// |                                                   |        |          | header-only rejections answered unread          |
// | no answer within 1.8 s (database slow)            | 503    | -        | Retry-After; a row stored later is marked 503    |
// | database unavailable                              | 503    | -        | nothing stored; the vendor retries               |
import { randomUUID } from 'node:crypto'
import type { Db } from '../../core/database'
import { log } from '../../core/config'
import { env } from '../../core/config'
import { parseAddressRanges, type AddressRanges } from '../../core/config'
import { TaskPayloads } from '../../core/jobs'
import { adapterFor } from '../adapters'
import { providerSpec } from '../adapters'
import type { HeaderBag } from '../adapters'
import { connectorRuntime } from '../connections'
import { REJECTED_PER_MINUTE, RejectionLimit, type RejectedRow } from './limits'
import { noteAnsweredStatusAcrossOrganisations, storeVerifiedDelivery, webhookConnectionAcrossOrganisations } from './sql'
import { isId } from '../../core/text'

export { REJECTED_PER_MINUTE } from './limits'
export const MAX_BODY_BYTES = 1024 * 1024
export const REPLAY_WINDOW_MS = 72 * 60 * 60_000
/** Retry-After for answers the vendor should retry soon (verification unavailable, deadline). */
export const RETRY_SOON_SECONDS = 5


export interface IngressOptions {
  rejectedPerMinute?: number
  /** Sending ranges allowed to deliver (default: WEBHOOK_ALLOWED_SOURCES; empty allows every address). */
  allowedSources?: string
}

export interface IngressStats {
  accepted: number
  replays: number
  ignored: number
  rejected: number
  /** Rejected deliveries answered 429 without a stored row. */
  rateLimited: number
  /** Of those, refused from the headers alone, without reading the body. */
  refusedUnread: number
}

export type { CappedBody as BodyRead } from '../../core/http'
import type { CappedBody as BodyRead } from '../../core/http'

/** One inbound request as the HTTP layer hands it over: the body is read only when a decision needs it. */
export interface InboundDelivery {
  providerId: string
  requestedConnectionId: string
  /** The client address (the edge-vouched one behind the gateway). */
  source: string
  /** Header lines as received (several lines of one header stay several). */
  headers: HeaderBag
  declaredBytes: number | null
  readBody(): Promise<BodyRead>
}

export interface IngressAnswer {
  status: number
  body: unknown
  headers?: Record<string, string>
  /** The webhook_deliveries row written for this answer, if any. */
  rowId?: string
  /** The body was not read: the HTTP layer closes the connection instead of draining it. */
  unread?: boolean
}

interface Rejection {
  status: number
  code: string
  message: string
  signatureOk: boolean
  deliveryId?: string | null
  webhookTimestamp?: number | null
  /** Deliveries the sender cannot be blamed for are not counted against its address. */
  countsAgainstSource?: boolean
  retryAfter?: number
}

const errorBody = (code: string, message: string) => ({ error: { code, message } })

/** Text columns refuse NUL and lone surrogates; a path or header value with them must not turn a rejection into a 5xx. */
const storable = (s: string, max: number) => s.slice(0, max).replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
/** True when PostgreSQL jsonb would refuse the parsed value: a NUL character or a lone surrogate in any key or string. */
export function refusedByJsonb(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (v.includes('\u0000') || LONE_SURROGATE.test(v)) return true
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x)
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000') || LONE_SURROGATE.test(k)) return true
        stack.push(x)
      }
    }
  }
  return false
}

/** SQLSTATEs of values PostgreSQL cannot store as text/jsonb (untranslatable character, bad JSON text, bad byte). */
const UNSTORABLE_SQLSTATES = new Set(['22P05', '22P02', '22021'])
function unstorableError(e: unknown): boolean {
  const text = `${(e as { code?: string })?.code ?? ''} ${(e as Error)?.message ?? ''}`
  return [...UNSTORABLE_SQLSTATES].some((code) => text.includes(code)) || /unsupported Unicode escape|surrogate|invalid byte sequence/i.test(text)
}

/** The event type an envelope names at the provider's path (its spec's settings.webhook.eventTypePath), bounded; else null. */
function eventTypeOf(envelope: unknown, path: readonly string[]): string | null {
  let at: unknown = envelope
  for (const key of path) at = at && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined
  return typeof at === 'string' && at ? at.slice(0, 200) : null
}

const SIGNATURE_REJECTIONS = {
  missing_headers: { status: 401, code: 'missing_signature', message: 'webhook-id, webhook-timestamp and webhook-signature are required.' },
  malformed_headers: { status: 401, code: 'malformed_signature', message: 'The signature headers are malformed.' },
  stale_timestamp: { status: 401, code: 'stale_timestamp', message: 'The webhook timestamp is outside the 5-minute tolerance.' },
  bad_signature: { status: 401, code: 'bad_signature', message: 'No signature verifies with the app\'s published keys.' },
  jwks_unavailable: {
    status: 503, code: 'verification_unavailable', message: 'The app\'s signing keys could not be fetched in time; retry later.',
    countsAgainstSource: false, retryAfter: RETRY_SOON_SECONDS,
  },
} as const

export function createWebhookIngress(db: Db, options: IngressOptions = {}) {
  const limit = new RejectionLimit(db, options.rejectedPerMinute ?? REJECTED_PER_MINUTE)
  const stats: IngressStats = { accepted: 0, replays: 0, ignored: 0, rejected: 0, rateLimited: 0, refusedUnread: 0 }
  let allowed: { spec: string; ranges: AddressRanges } | undefined
  const allowedSources = () => {
    const spec = options.allowedSources ?? env().WEBHOOK_ALLOWED_SOURCES
    if (allowed?.spec !== spec) allowed = { spec, ranges: parseAddressRanges(spec) }
    return allowed.ranges
  }

  /** The hot path reads the connection with one raw query (the model API costs about a millisecond more). */
  const findConnection = (id: string) => webhookConnectionAcrossOrganisations(db, id)

  const tooMany = (retryAfter: number, unread = false): IngressAnswer => {
    stats.rateLimited += 1
    if (unread) stats.refusedUnread += 1
    if (stats.rateLimited % 100 === 1) log.warn('webhook.rejected_rate_limited', { total: stats.rateLimited, unread: stats.refusedUnread })
    return {
      status: 429, unread,
      headers: { 'retry-after': String(retryAfter) },
      body: errorBody('too_many_rejected_deliveries', 'Too many rejected deliveries from this address; retry later.'),
    }
  }

  type Base = { providerId: string; requestedConnectionId: string; connection: { id: string; organizationId: string; programId: string } | null; source: string; bodyBytes: number }

  async function reject(base: Base, r: Rejection, unread = false): Promise<IngressAnswer> {
    const counts = r.countsAgainstSource !== false
    if (counts) {
      // Known over the limit in this process: no statement at all.
      const blocked = limit.blockedFor(base.source)
      if (blocked > 0) return tooMany(blocked, unread)
    }
    const row: RejectedRow = {
      organizationId: base.connection?.organizationId ?? null,
      programId: base.connection?.programId ?? null,
      connectionId: base.connection?.id ?? null,
      providerId: storable(base.providerId, 64),
      requestedConnectionId: storable(base.requestedConnectionId, 64),
      deliveryId: r.deliveryId ? storable(r.deliveryId, 256) : null,
      signatureOk: r.signatureOk,
      reason: r.code,
      statusCode: r.status,
      sourceAddress: storable(base.source, 64),
      bodyBytes: base.bodyBytes,
      webhookTimestamp: r.webhookTimestamp ? new Date(r.webhookTimestamp * 1000) : null,
    }
    const over = await limit.store(row, counts)
    if (over !== null) return tooMany(over, unread)
    stats.rejected += 1
    return {
      status: r.status, unread, body: errorBody(r.code, r.message),
      ...(r.retryAfter ? { headers: { 'retry-after': String(r.retryAfter) } } : {}),
    }
  }

  async function ingest(d: InboundDelivery): Promise<IngressAnswer> {
    const { providerId, requestedConnectionId, source } = d
    // Over its limit: whatever the headers already condemn is refused unread and without a query (not even the
    // connection lookup, so a flood of random connection ids costs nothing); a validly signed delivery still gets in.
    const blocked = limit.blockedFor(source)
    if (blocked > 0 && ((d.declaredBytes ?? 0) > MAX_BODY_BYTES || !isId(requestedConnectionId) || !adapterFor(providerId)?.checkWebhookHeaders(d.headers).ok)) {
      return tooMany(blocked, true)
    }
    const connection = isId(requestedConnectionId) ? await connectorRuntime.webhookView(requestedConnectionId, findConnection) : null
    const known = connection && connection.providerId === providerId ? connection : null
    const base: Base = { providerId, requestedConnectionId, connection: known, source, bodyBytes: d.declaredBytes ?? 0 }

    // Decisions the headers alone make come before the body: an unwanted sender costs no body read.
    const ranges = allowedSources()
    if (!ranges.empty && !ranges.has(source)) {
      return reject(base, { status: 403, code: 'source_not_allowed', message: 'This address may not deliver webhooks here.', signatureOk: false }, true)
    }
    if (blocked > 0 && !known) return tooMany(blocked, true)

    const read = await d.readBody()
    base.bodyBytes = read.tooLarge ? read.seen : read.body.length
    if (read.tooLarge) {
      return reject(base, { status: 413, code: 'payload_too_large', message: `The body is over ${MAX_BODY_BYTES} bytes; nothing was read.`, signatureOk: false })
    }
    if (!known) return reject(base, { status: 404, code: 'unknown_connection', message: 'No connection of this provider has this id.', signatureOk: false })
    const spec = providerSpec(known.providerId)
    const adapter = adapterFor(known.providerId)
    if (!spec || !adapter || spec.eventVerification === 'none') {
      return reject(base, { status: 404, code: 'webhooks_not_supported', message: `${known.providerId} sends no webhooks.`, signatureOk: false })
    }
    if (known.status !== 'active') return reject(base, { status: 410, code: 'connection_disconnected', message: 'This connection was disconnected.', signatureOk: false })
    if (!known.baseUrl || !known.appDefinitionId) {
      return reject(base, { status: 409, code: 'connection_not_ready', message: 'The connection has no vendor app definition yet (onboarding step c).', signatureOk: false })
    }

    // Verify before parsing: nothing of an unverified body is read as JSON or stored.
    const body = read.body
    const verified = await adapter.verifyWebhook({ connection: known }, { headers: d.headers, rawBody: body })
    if (!verified.ok) {
      // an unavailable key set says when a retry will be let through (the key fetch's back-off), else RETRY_SOON_SECONDS
      const retry = verified.retryAfterSeconds ? { retryAfter: verified.retryAfterSeconds } : {}
      return reject(base, { ...SIGNATURE_REJECTIONS[verified.reason], ...retry, signatureOk: false, deliveryId: verified.deliveryId ?? null })
    }
    const { deliveryId, timestamp } = verified
    const signed = { signatureOk: true, deliveryId, webhookTimestamp: timestamp }
    const unstorable = () => reject(base, {
      status: 400, code: 'unstorable_payload', message: 'The body holds a \\u0000 escape or a lone surrogate, which cannot be stored.',
      ...signed, countsAgainstSource: false,
    })

    let envelope: Record<string, unknown>
    const text = body.toString('utf8')
    try {
      envelope = JSON.parse(text) as Record<string, unknown>
    } catch {
      return reject(base, { status: 400, code: 'malformed_json', message: 'The body is not JSON.', ...signed })
    }
    const typePath = spec.settings.webhook?.eventTypePath ?? ['type']
    const eventType = eventTypeOf(envelope, typePath)
    if (!eventType) {
      return reject(base, { status: 400, code: 'invalid_envelope', message: `The body is not a webhook envelope (${typePath.join('.')} is missing).`, ...signed })
    }
    if (refusedByJsonb(envelope)) return unstorable()
    const knownType = adapter.knowsEvent(eventType)

    // One statement: claim the delivery id for the replay window, store the row, queue the processing job (./sql.ts).
    const rowId = randomUUID()
    const job = JSON.stringify(TaskPayloads.connector_delivery_process.parse({ deliveryId: rowId }))
    let answer: { replay: boolean; outcome: string }
    try {
      answer = await storeVerifiedDelivery(db, known.organizationId, {
        rowId, connection: known, providerId, requestedConnectionId, deliveryId, eventType, knownType, source, bodyBytes: base.bodyBytes,
        timestamp: new Date(timestamp * 1000), text, replayWindowSeconds: REPLAY_WINDOW_MS / 1000, job: { task: 'connector_delivery_process', payload: job },
      })
    } catch (e) {
      // Whatever else PostgreSQL refuses in a verified body is recorded, never answered 5xx forever.
      if (unstorableError(e)) return unstorable()
      throw e
    }
    if (answer.replay) {
      stats.replays += 1
      return { status: 200, rowId, body: { status: 'duplicate', delivery_id: deliveryId, id: rowId } }
    }
    if (answer.outcome !== 'enqueued') {
      stats.ignored += 1
      return { status: 200, rowId, body: { status: 'ignored', reason: 'unknown_event_type', delivery_id: deliveryId, id: rowId } }
    }
    stats.accepted += 1
    return { status: 202, rowId, body: { status: 'enqueued', delivery_id: deliveryId, id: rowId } }
  }

  /** The HTTP layer answered something else than the row says (its deadline passed first): the row says what was sent. */
  async function noteAnsweredStatus(rowId: string, status: number) {
    await noteAnsweredStatusAcrossOrganisations(db, rowId, status)
  }

  return { ingest, noteAnsweredStatus, stats, limit }
}

export type WebhookIngress = ReturnType<typeof createWebhookIngress>
