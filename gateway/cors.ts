// Owns which browser origins may call the gateway (CORS on /graphql and the REST shims, the Origin check on the
// graphql-ws upgrade). Credentials travel in the Authorization header only (a bearer, or connection_init on a socket),
// never in cookies: Access-Control-Allow-Credentials is never sent, so a page on another origin can act only with a
// token it holds itself. Same-origin requests (the console served by the gateway at /) are always allowed.
import type http from 'node:http'

/** Local ports a console is commonly served on in development (CRA/Next, Vite dev and preview, misc). */
export const DEV_PORTS = [3000, 5173, 4173, 8080] as const

/** Headers a browser client may send: the bearer, JSON, and what Apollo's CSRF prevention accepts instead of JSON. */
const ALLOW_HEADERS = 'authorization, content-type, apollo-require-preflight, x-apollo-operation-name, graphql-client-name, graphql-client-version'
/** Response headers a browser client may read besides the safelisted ones. */
const EXPOSE_HEADERS = 'x-request-id, retry-after, content-disposition'
const ALLOW_METHODS = 'GET, POST, OPTIONS'
/** How long a browser may reuse a preflight answer, in seconds. */
export const PREFLIGHT_MAX_AGE = 600

/** The origin of a URL as a browser writes it (scheme://host[:port], default port dropped, lower case), or null. */
export function normaliseOrigin(value: string): string | null {
  try {
    const u = new URL(value)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
    return u.origin
  } catch {
    return null
  }
}

/**
 * The origins allowed besides same-origin: CORS_ORIGINS when set (in every mode); otherwise, outside production,
 * PUBLIC_URL and localhost/127.0.0.1 on the common development ports and the gateway's port; in production, PUBLIC_URL only.
 */
export function allowedOrigins(opts: { configured?: string; production: boolean; publicUrl?: string; gatewayPort: number }): Set<string> {
  const origins = new Set<string>()
  if (opts.publicUrl) origins.add(normaliseOrigin(opts.publicUrl)!)
  if (opts.configured !== undefined && opts.configured.trim() !== '') {
    for (const o of opts.configured.split(',').map((s) => s.trim()).filter(Boolean)) {
      const n = normaliseOrigin(o)
      if (n) origins.add(n)
    }
    return origins
  }
  if (opts.production) return origins
  for (const port of [...DEV_PORTS, opts.gatewayPort]) {
    for (const host of ['localhost', '127.0.0.1', '[::1]']) origins.add(`http://${host}:${port}`)
  }
  return origins
}

export type OriginVerdict = 'none' | 'same-origin' | 'allowed' | 'refused'

export class CorsPolicy {
  constructor(readonly origins: ReadonlySet<string>) {}

  /** Whether a request's Origin may call: absent (not a browser, or a same-origin navigation), same-origin, listed, or refused. */
  judge(req: http.IncomingMessage): OriginVerdict {
    const origin = req.headers.origin
    if (origin === undefined) return 'none'
    const normalised = normaliseOrigin(origin)
    if (!normalised) return 'refused' // 'null' (sandboxed frames, file:) and anything unparsable
    if (this.origins.has(normalised)) return 'allowed'
    // the page was served by this gateway: its origin is the Host it reached us by
    const host = req.headers.host
    if (host && new URL(normalised).host === host.toLowerCase()) return 'same-origin'
    return 'refused'
  }

  /**
   * Applies the policy to one HTTP request: sets the CORS headers for an allowed origin, answers a preflight
   * (204, or 403 for a refused origin) and a refused origin's request (403). True when the request was answered here.
   */
  handle(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    res.setHeader('Vary', 'Origin')
    const verdict = this.judge(req)
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined
    if (verdict === 'refused') {
      req.resume()
      const body = JSON.stringify({ errors: [{ message: `The origin ${req.headers.origin} may not call this API: ask the operator to add it to CORS_ORIGINS.`, extensions: { code: 'ORIGIN_NOT_ALLOWED' } }] })
      res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body)
      return true
    }
    if (verdict !== 'none') {
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin!)
      res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS)
    }
    if (preflight) {
      req.resume()
      res.writeHead(204, {
        'Access-Control-Allow-Methods': ALLOW_METHODS,
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE),
        'content-length': '0',
      }).end()
      return true
    }
    return false
  }

  /** The graphql-ws upgrade: a browser's socket from a refused origin never opens (cross-site WebSocket hijacking). */
  allowsUpgrade(req: http.IncomingMessage): boolean {
    return this.judge(req) !== 'refused'
  }
}
