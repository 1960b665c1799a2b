// Owns the HTTP routing of the webhook ingress: POST /hooks/{provider_id}/{connection_id}, and the hook path a provider's
// vendor registers (settings.webhook.hookPath of its spec: the notebook's /api/v1/hooks/eln_provider/{connection_id}); no bearer. It reads the raw body (1 MB cap) when the domain asks for it,
// takes the client address the gateway vouches for, and answers within the ingress deadline; the decisions (verify,
// record, limit) are domain/webhooks/ingress.ts.
import express, { type Request, type Response } from 'express'
import type { Db } from '../../../core/database'
import { log } from '../../../core/config'
import { normalizeAddress } from '../../../core/config'
import { EDGE_CLIENT_HEADER, EDGE_TOKEN_HEADER, WEBHOOK_ANSWER_DEADLINE_MS, isEdgeToken } from '../../../core/http'
import { PROVIDERS } from '../../../domain/adapters'
import { MAX_BODY_BYTES, RETRY_SOON_SECONDS, createWebhookIngress, type IngressAnswer, type IngressOptions } from '../../../domain/webhooks'
import { readCappedBody } from '../../../core/http'

const GENERIC_HOOK_PATH = '/hooks'

const errorBody = (code: string, message: string) => ({ error: { code, message } })

/**
 * The client address: what the gateway states, only when the request carries the gateway's edge token; otherwise the
 * immediate peer. x-forwarded-for from anyone is ignored here (trusted proxies are resolved at the gateway).
 */
async function sourceAddress(req: Request): Promise<string> {
  const stated = req.headers[EDGE_CLIENT_HEADER]
  const token = req.headers[EDGE_TOKEN_HEADER]
  if (typeof stated === 'string' && stated && typeof token === 'string' && (await isEdgeToken(token))) return normalizeAddress(stated).slice(0, 64)
  return normalizeAddress(req.socket.remoteAddress).slice(0, 64) || 'unknown'
}

function send(res: Response, answer: IngressAnswer) {
  if (res.headersSent) return
  for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v)
  // An unread body is not drained: the connection closes after the answer.
  if (answer.unread) res.setHeader('connection', 'close')
  res.status(answer.status).json(answer.body)
}

export function createHookRoutes(db: Db, options: IngressOptions = {}) {
  const ingress = createWebhookIngress(db, options)

  const handle = (providerOf: (req: Request) => string) => async (req: Request, res: Response) => {
    const declared = Number(req.headers['content-length'])
    let deadlinePassed = false
    let deadline: NodeJS.Timeout | undefined
    // The vendor sees an answer within the deadline (the gateway waits a little longer), never a gateway timeout. It
    // runs from the end of the upload: a large body on a slow link is the sender's time, not ours.
    const startDeadline = () => {
      deadline = setTimeout(() => {
        deadlinePassed = true
        log.warn('webhook.deadline_passed', { path: req.path })
        send(res, { status: 503, headers: { 'retry-after': String(RETRY_SOON_SECONDS) }, body: errorBody('temporarily_unavailable', 'The delivery could not be stored in time; retry later.') })
      }, WEBHOOK_ANSWER_DEADLINE_MS)
    }
    try {
      const answer = await ingress.ingest({
        providerId: providerOf(req),
        requestedConnectionId: String(req.params.connectionId ?? ''),
        source: await sourceAddress(req),
        headers: req.headersDistinct,
        declaredBytes: Number.isFinite(declared) ? declared : null,
        readBody: () => readCappedBody(req, MAX_BODY_BYTES).finally(startDeadline),
      })
      if (!deadlinePassed) send(res, answer)
      else if (answer.rowId && answer.status !== 503) {
        // Stored after the vendor was told 503: the row records what the vendor saw (its retry is then a replay).
        await ingress.noteAnsweredStatus(answer.rowId, 503).catch((error) => log.error('webhook.note_status_failed', { error }))
      }
    } catch (error) {
      log.error('webhook.ingest_failed', { path: req.path, error })
      send(res, { status: 503, headers: { 'retry-after': String(RETRY_SOON_SECONDS) }, body: errorBody('temporarily_unavailable', 'The delivery could not be stored; retry later.') })
    } finally {
      if (deadline) clearTimeout(deadline)
    }
  }

  const router = express.Router()
  // A provider whose vendor registers its own hook path (its spec's settings.webhook.hookPath) gets it; every provider
  // is reached under /hooks/{provider_id}/{connection_id}.
  const own = PROVIDERS.flatMap((p) => (p.settings.webhook && p.settings.webhook.hookPath !== GENERIC_HOOK_PATH ? [{ id: p.id, prefix: p.settings.webhook.hookPath }] : []))
  for (const { id, prefix } of own) router.post(`${prefix}/${id}/:connectionId`, handle(() => id))
  router.post(`${GENERIC_HOOK_PATH}/:providerId/:connectionId`, handle((req) => String(req.params.providerId)))
  const routes = [...own.map(({ id, prefix }) => `${prefix}/${id}/{connection_id}`), `${GENERIC_HOOK_PATH}/{provider_id}/{connection_id}`]
  router.use([GENERIC_HOOK_PATH, ...new Set(own.map((o) => o.prefix))], (req, res) => {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST')
      return res.status(405).json(errorBody('method_not_allowed', 'Webhook routes take POST only.'))
    }
    return res.status(404).json(errorBody('not_found', `Use ${routes.join(' or ')}.`))
  })
  return { router, stats: ingress.stats }
}
