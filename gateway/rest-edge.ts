// Owns the REST edge: vendor webhook requests of the exact hook path shapes are forwarded unparsed (bytes, the headers
// the ingress reads, the client address) to connectors; any other path under the hook prefixes never leaves the gateway.
import http from 'node:http'
import type { Request, Response } from 'express'
import { env } from '../core/config'
import { log } from '../core/config'
import { clientAddress, parseAddressRanges, type AddressRanges } from '../core/config'
import { EDGE_CLIENT_HEADER, EDGE_TOKEN_HEADER, REST_EDGE_UPSTREAM_TIMEOUT_MS, edgeToken, parseHookPath } from '../core/http'

/**
 * The only caller headers the ingress needs. Never the caller's authorization, cookies, x-internal-token or
 * x-forwarded-*: the gateway states the client address itself, vouched for by its edge token.
 */
const FORWARDED = ['content-type', 'content-length', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const

let trusted: { spec: string; ranges: AddressRanges } | undefined
function trustedProxies(): AddressRanges {
  const spec = env().TRUSTED_PROXIES
  if (trusted?.spec !== spec) trusted = { spec, ranges: parseAddressRanges(spec) }
  return trusted.ranges
}

const errorBody = (code: string, message: string) => ({ error: { code, message } })

export function forwardToConnectors(req: Request, res: Response, baseUrl: string) {
  const rawPath = req.originalUrl.split('?')[0]
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST')
    return void res.status(405).json(errorBody('method_not_allowed', 'Webhook routes take POST only.'))
  }
  const hook = parseHookPath(rawPath)
  if (!hook) {
    req.resume()
    return void res.status(404).json(errorBody('not_found', 'Use /api/v1/hooks/eln_provider/{connection_id} or /hooks/{provider_id}/{connection_id}.'))
  }
  const target = new URL(rawPath, baseUrl)
  void edgeToken().then((token) => {
    const headers: Record<string, string | string[]> = {}
    for (const name of FORWARDED) {
      // Several header lines stay several lines (a vendor may send one webhook-signature line per key).
      const lines = req.headersDistinct[name]
      if (lines?.length) headers[name] = lines.length === 1 ? lines[0] : lines
    }
    if (req.headers['transfer-encoding']) headers['transfer-encoding'] = 'chunked'
    headers[EDGE_CLIENT_HEADER] = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies())
    headers[EDGE_TOKEN_HEADER] = token
    const upstream = http.request(target, { method: 'POST', headers, timeout: REST_EDGE_UPSTREAM_TIMEOUT_MS }, (up) => {
      const out: Record<string, string | string[]> = {}
      for (const name of ['content-type', 'content-length', 'retry-after', 'allow'] as const) {
        const v = up.headers[name]
        if (v !== undefined) out[name] = v
      }
      res.writeHead(up.statusCode ?? 502, out)
      up.pipe(res)
    })
    // The ingress answers within its own deadline; past this the vendor gets a 503 to retry, never a hang.
    upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('connectors did not answer in time'), { code: 'ETIMEDOUT' })))
    upstream.on('error', (err) => {
      log.warn('rest_edge.forward_failed', { path: rawPath, message: err.message })
      if (!res.headersSent) {
        res.setHeader('retry-after', '5')
        res.status(503).json(errorBody('upstream_unavailable', 'The webhook service is not reachable; retry later.'))
      } else res.destroy()
    })
    // Headers go out at once: the ingress may answer from them alone (an over-limit source) without waiting for a body.
    upstream.flushHeaders()
    req.pipe(upstream)
  }, (err) => {
    log.error('rest_edge.edge_token_failed', { message: (err as Error).message })
    if (!res.headersSent) res.status(503).json(errorBody('upstream_unavailable', 'The webhook service is not reachable; retry later.'))
  })
}
