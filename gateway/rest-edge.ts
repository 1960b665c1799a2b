// Owns the REST edge: vendor webhook requests are forwarded unparsed (bytes, headers, source address) to connectors.
import http from 'node:http'
import type { Request, Response } from 'express'
import { log } from '../core/log'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'])

export function forwardToConnectors(req: Request, res: Response, baseUrl: string) {
  const target = new URL(req.originalUrl, baseUrl)
  const headers: http.OutgoingHttpHeaders = {}
  for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v
  // The connectors service trusts these only from the gateway; it rate-limits rejected deliveries by source.
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? ''
  headers['x-forwarded-proto'] = req.protocol
  headers['x-forwarded-host'] = req.headers.host ?? ''
  const upstream = http.request(target, { method: req.method, headers, timeout: 10_000 }, (up) => {
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v
    res.writeHead(up.statusCode ?? 502, out)
    up.pipe(res)
  })
  upstream.on('timeout', () => upstream.destroy(new Error('connectors did not answer in time')))
  upstream.on('error', (err) => {
    log.warn('rest_edge.forward_failed', { path: req.path, message: err.message })
    if (!res.headersSent) res.status(502).json({ error: { code: 'upstream_unavailable', message: 'The webhook service is not reachable; retry later.' } })
    else res.destroy()
  })
  req.pipe(upstream)
}
