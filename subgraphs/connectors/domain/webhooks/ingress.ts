// Owns the inbound webhook gateway (REST shim): POST /api/v1/hooks/eln_provider/{connection_id} and
// POST /hooks/{provider_id}/{connection_id}, no bearer. The raw body is read with a 1 MB cap and the vendor signature is
// verified before anything is parsed. Every delivery gets a webhook_deliveries row, except a rejected delivery from a
// source address that is over its limit of rejected deliveries (counted, answered 429, nothing stored). An accepted
// delivery's row and its processing job commit in one transaction before the 202.
//
// | case                                              | status | outcome  | row                                             |
// |---------------------------------------------------|--------|----------|-------------------------------------------------|
// | valid signature, known event type                 | 202    | enqueued | payload stored, job notebook_process_delivery   |
// | same delivery id again within 72 h (verified)     | 200    | ignored  | replay = true, no payload, no job               |
// | valid signature, unknown event type               | 200    | ignored  | payload stored, reason unknown_event_type       |
// | valid signature, body not JSON                    | 400    | rejected | signature_ok, reason malformed_json, no payload |
// | valid signature, JSON without message.type        | 400    | rejected | reason invalid_envelope, no payload             |
// | bad signature / unknown key / garbage             | 401    | rejected | reason bad_signature, no payload                |
// | signature headers missing or malformed            | 401    | rejected | reason missing_signature / malformed_signature  |
// | timestamp outside ±5 minutes                      | 401    | rejected | reason stale_timestamp                          |
// | body over 1 MB                                    | 413    | rejected | reason payload_too_large, nothing parsed        |
// | unknown connection (or provider mismatch)         | 404    | rejected | organization_id null, reason unknown_connection |
// | provider that sends no webhooks                   | 404    | rejected | reason webhooks_not_supported                   |
// | disconnected connection                           | 410    | rejected | reason connection_disconnected                  |
// | connection without vendor app yet (step c)        | 409    | rejected | reason connection_not_ready                     |
// | the app's JWKS cannot be fetched                  | 503    | rejected | reason verification_unavailable (not counted    |
// |                                                   |        |          | against the source; the vendor retries)          |
// | source over 60 rejected deliveries per minute     | 429    | -        | no row; counted in ingress stats                |
// | database unavailable                              | 503    | -        | nothing stored; the vendor retries               |
import { randomUUID } from 'node:crypto'
import express, { type Request, type Response } from 'express'
import type { Db } from '../../../../core/db'
import { log } from '../../../../core/log'
import { TaskPayloads } from '../../../../jobs/registry'
import { adapterFor } from '../adapters'
import { providerSpec } from '../providers'
import { KNOWN_EVENTS } from '../notebook/adapter'
import { connectorRuntime } from '../runtime'

export const MAX_BODY_BYTES = 1024 * 1024
export const REPLAY_WINDOW_MS = 72 * 60 * 60_000
export const REJECTED_PER_MINUTE = 60

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface IngressOptions {
  rejectedPerMinute?: number
}

export interface IngressStats {
  accepted: number
  replays: number
  ignored: number
  rejected: number
  /** Rejected deliveries answered 429 without a stored row. */
  rateLimited: number
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
}

function sourceAddress(req: Request): string {
  // The gateway sets x-forwarded-for to the socket address it saw; the connectors service is only reached through it.
  const forwarded = String(req.headers['x-forwarded-for'] ?? '').split(',').map((s) => s.trim()).filter(Boolean).pop()
  const raw = forwarded || req.socket.remoteAddress || 'unknown'
  return raw.replace(/^::ffff:/, '').slice(0, 64)
}

async function readBody(req: Request): Promise<{ body: Buffer; tooLarge: false } | { tooLarge: true; seen: number }> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume() // discard without buffering
    return { tooLarge: true, seen: declared }
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) {
      req.resume()
      return { tooLarge: true, seen: size }
    }
    chunks.push(chunk as Buffer)
  }
  return { body: Buffer.concat(chunks), tooLarge: false }
}

const errorBody = (code: string, message: string) => ({ error: { code, message } })

export function createWebhookIngress(db: Db, options: IngressOptions = {}) {
  const limit = options.rejectedPerMinute ?? REJECTED_PER_MINUTE
  const stats: IngressStats = { accepted: 0, replays: 0, ignored: 0, rejected: 0, rateLimited: 0 }

  /** The hot path reads the connection with one raw query (the model API costs about a millisecond more). */
  async function findConnection(id: string) {
    const [row] = await db.$queryRaw<Array<{ id: string; organizationId: string; programId: string; providerId: string; status: string; baseUrl: string | null; appDefinitionId: string | null }>>`
      SELECT id, organization_id AS "organizationId", program_id AS "programId", provider_id AS "providerId", status,
             base_url AS "baseUrl", app_definition_id AS "appDefinitionId"
      FROM connections WHERE id = ${id}::uuid`
    return row ?? null
  }

  async function reject(
    res: Response,
    base: { providerId: string; requestedConnectionId: string; connection: { id: string; organizationId: string; programId: string } | null; source: string; bodyBytes: number },
    r: Rejection,
  ) {
    if (r.countsAgainstSource !== false) {
      const since = new Date(Date.now() - 60_000)
      const [row] = await db.$queryRaw<{ n: bigint }[]>`
        SELECT count(*)::bigint AS n FROM webhook_deliveries
        WHERE source_address = ${base.source} AND received_at > ${since} AND outcome = 'rejected' AND reason IS DISTINCT FROM 'verification_unavailable'`
      if (Number(row.n) >= limit) {
        stats.rateLimited += 1
        if (stats.rateLimited % 100 === 1) log.warn('webhook.rejected_rate_limited', { source: base.source, total: stats.rateLimited })
        res.setHeader('retry-after', '60')
        return res.status(429).json(errorBody('too_many_rejected_deliveries', 'Too many rejected deliveries from this address; retry later.'))
      }
    }
    await db.webhookDelivery.create({
      data: {
        organizationId: base.connection?.organizationId ?? null,
        programId: base.connection?.programId ?? null,
        connectionId: base.connection?.id ?? null,
        providerId: base.providerId.slice(0, 64),
        requestedConnectionId: base.requestedConnectionId.slice(0, 64),
        deliveryId: r.deliveryId ?? null,
        signatureOk: r.signatureOk,
        outcome: 'rejected',
        reason: r.code,
        statusCode: r.status,
        sourceAddress: base.source,
        bodyBytes: base.bodyBytes,
        webhookTimestamp: r.webhookTimestamp ? new Date(r.webhookTimestamp * 1000) : null,
      },
    })
    stats.rejected += 1
    return res.status(r.status).json(errorBody(r.code, r.message))
  }

  async function ingest(req: Request, res: Response, providerId: string, requestedConnectionId: string) {
    const source = sourceAddress(req)
    const read = await readBody(req)
    const bodyBytes = read.tooLarge ? read.seen : read.body.length
    const connection = UUID.test(requestedConnectionId) ? await connectorRuntime.webhookView(requestedConnectionId, findConnection) : null
    const known = connection && connection.providerId === providerId ? connection : null
    const base = { providerId, requestedConnectionId, connection: known, source, bodyBytes }

    if (read.tooLarge) {
      return reject(res, base, { status: 413, code: 'payload_too_large', message: `The body is over ${MAX_BODY_BYTES} bytes; nothing was read.`, signatureOk: false })
    }
    if (!known) return reject(res, base, { status: 404, code: 'unknown_connection', message: 'No connection of this provider has this id.', signatureOk: false })
    const spec = providerSpec(known.providerId)
    const adapter = adapterFor(known.providerId)
    if (!spec || !adapter || spec.eventVerification === 'none') {
      return reject(res, base, { status: 404, code: 'webhooks_not_supported', message: `${known.providerId} sends no webhooks.`, signatureOk: false })
    }
    if (known.status !== 'active') return reject(res, base, { status: 410, code: 'connection_disconnected', message: 'This connection was disconnected.', signatureOk: false })
    if (!known.baseUrl || !known.appDefinitionId) {
      return reject(res, base, { status: 409, code: 'connection_not_ready', message: 'The connection has no vendor app definition yet (onboarding step c).', signatureOk: false })
    }

    // Verify before parsing: nothing of an unverified body is read as JSON or stored.
    const body = read.body
    const verified = await adapter.verifyWebhook({ connection: known }, { headers: req.headers, rawBody: body })
    if (!verified.ok) {
      const byReason = {
        missing_headers: { status: 401, code: 'missing_signature', message: 'webhook-id, webhook-timestamp and webhook-signature are required.' },
        malformed_headers: { status: 401, code: 'malformed_signature', message: 'The signature headers are malformed.' },
        stale_timestamp: { status: 401, code: 'stale_timestamp', message: 'The webhook timestamp is outside the 5-minute tolerance.' },
        bad_signature: { status: 401, code: 'bad_signature', message: 'No signature verifies with the app\'s published keys.' },
        jwks_unavailable: { status: 503, code: 'verification_unavailable', message: 'The app\'s signing keys could not be fetched; retry later.', countsAgainstSource: false },
      }[verified.reason]
      return reject(res, base, { ...byReason, signatureOk: false, deliveryId: verified.deliveryId ?? null })
    }
    const { deliveryId, timestamp } = verified

    let envelope: Record<string, unknown>
    try {
      envelope = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    } catch {
      return reject(res, base, { status: 400, code: 'malformed_json', message: 'The body is not JSON.', signatureOk: true, deliveryId, webhookTimestamp: timestamp })
    }
    const message = envelope && typeof envelope === 'object' ? (envelope.message as Record<string, unknown> | undefined) : undefined
    const eventType = message && typeof message.type === 'string' ? message.type.slice(0, 200) : null
    if (!eventType) {
      return reject(res, base, { status: 400, code: 'invalid_envelope', message: 'The body is not a webhook envelope (message.type is missing).', signatureOk: true, deliveryId, webhookTimestamp: timestamp })
    }
    const knownType = KNOWN_EVENTS.has(eventType)

    // One statement, one round trip, its own transaction: claim the delivery id for the replay window (the first
    // delivery inside the window wins, concurrent copies wait on the claim's row lock), store the row, and add the
    // processing job only when the claim succeeded and the event type is known.
    const rowId = randomUUID()
    const job = JSON.stringify(TaskPayloads.notebook_process_delivery.parse({ deliveryId: rowId }))
    const [answer] = await db.$queryRaw<{ replay: boolean; outcome: string }[]>`
      WITH claim AS (
        INSERT INTO webhook_delivery_ids (connection_id, delivery_id, organization_id, first_received_at)
        VALUES (${known.id}::uuid, ${deliveryId}, ${known.organizationId}::uuid, now())
        ON CONFLICT (connection_id, delivery_id) DO UPDATE SET first_received_at = now()
          WHERE webhook_delivery_ids.first_received_at < now() - make_interval(secs => ${REPLAY_WINDOW_MS / 1000})
        RETURNING 1
      ), stored AS (
        INSERT INTO webhook_deliveries (id, organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
          event_type, signature_ok, replay, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp, payload)
        SELECT ${rowId}::uuid, ${known.organizationId}::uuid, ${known.programId}::uuid, ${known.id}::uuid, ${providerId}, ${requestedConnectionId},
          ${deliveryId}, ${eventType}, true, c.n = 0,
          (CASE WHEN c.n = 0 OR NOT ${knownType} THEN 'ignored' ELSE 'enqueued' END)::webhook_outcome,
          CASE WHEN c.n = 0 THEN 'replay' WHEN NOT ${knownType} THEN 'unknown_event_type' END,
          CASE WHEN c.n = 0 OR NOT ${knownType} THEN 200 ELSE 202 END,
          ${source}, ${bodyBytes}, ${new Date(timestamp * 1000)},
          CASE WHEN c.n = 0 THEN NULL ELSE ${body.toString('utf8')}::jsonb END
        FROM (SELECT count(*) AS n FROM claim) c
        RETURNING replay, outcome
      ), queued AS (
        SELECT graphile_worker.add_job('notebook_process_delivery', ${job}::json) FROM stored WHERE outcome = 'enqueued'
      )
      SELECT stored.replay, stored.outcome::text AS outcome, (SELECT count(*) FROM queued) AS jobs FROM stored`
    const result = answer.replay ? { kind: 'replay' as const } : answer.outcome === 'enqueued' ? { kind: 'enqueued' as const, id: rowId } : { kind: 'ignored' as const, id: rowId }
    if (result.kind === 'replay') {
      stats.replays += 1
      return res.status(200).json({ status: 'duplicate', delivery_id: deliveryId, id: rowId })
    }
    if (result.kind === 'ignored') {
      stats.ignored += 1
      return res.status(200).json({ status: 'ignored', reason: 'unknown_event_type', delivery_id: deliveryId, id: rowId })
    }
    stats.accepted += 1
    return res.status(202).json({ status: 'enqueued', delivery_id: deliveryId, id: rowId })
  }

  const guard = (providerOf: (req: Request) => string) => async (req: Request, res: Response) => {
    try {
      await ingest(req, res, providerOf(req), String(req.params.connectionId ?? ''))
    } catch (error) {
      log.error('webhook.ingest_failed', { path: req.path, error })
      if (!res.headersSent) res.status(503).json(errorBody('temporarily_unavailable', 'The delivery could not be stored; retry later.'))
    }
  }

  const router = express.Router()
  router.post('/api/v1/hooks/eln_provider/:connectionId', guard(() => 'eln_provider'))
  router.post('/hooks/:providerId/:connectionId', guard((req) => String(req.params.providerId)))
  router.use(['/hooks', '/api/v1/hooks'], (req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST')
      return res.status(405).json(errorBody('method_not_allowed', 'Webhook routes take POST only.'))
    }
    return res.status(404).json(errorBody('not_found', 'Use /api/v1/hooks/eln_provider/{connection_id} or /hooks/{provider_id}/{connection_id}.'))
  })
  return { router, stats }
}
