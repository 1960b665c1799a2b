// Owns which Host names the gateway answers outside production (DNS rebinding): a web page whose own name re-resolves
// to 127.0.0.1 reaches a developer's gateway as a same-origin caller (its Origin equals the Host it sent), so without
// this check it could mint a development token, call /graphql and open sockets. Outside production only loopback
// names and the hosts of PUBLIC_URL and CORS_ORIGINS are answered, on every route and on socket upgrades. In
// production the operator's proxy fixes the name and PUBLIC_URL/CORS_ORIGINS decide the browser origins (./cors.ts).
import type http from 'node:http'

export const HOST_NOT_ALLOWED = 'HOST_NOT_ALLOWED'

/** The host name of a Host header value or URL host (no port, lower case, no trailing dot, IPv6 without brackets). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase()
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']')) : h.replace(/:\d*$/, '')
  return name.replace(/\.$/, '')
}

/** localhost and its subdomains (browsers resolve *.localhost to loopback themselves), 127.0.0.0/8 and ::1. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true
  return name === '::1' || name === '0:0:0:0:0:0:0:1'
}

/** The host names of PUBLIC_URL and of each CORS_ORIGINS entry (comma-separated origins). */
export function configuredHostNames(opts: { publicUrl?: string; corsOrigins?: string | readonly string[] }): Set<string> {
  const names = new Set<string>()
  const list = typeof opts.corsOrigins === 'string' ? opts.corsOrigins.split(',') : [...(opts.corsOrigins ?? [])]
  for (const value of [opts.publicUrl, ...list]) {
    if (!value?.trim()) continue
    try {
      names.add(hostName(new URL(value.trim()).host))
    } catch { /* env.ts refuses what is not a URL at start */ }
  }
  return names
}

export class HostPolicy {
  /** `null`: every Host is answered (production). */
  constructor(private readonly names: ReadonlySet<string> | null) {}

  static forMode(opts: { production: boolean; publicUrl?: string; corsOrigins?: string | readonly string[] }): HostPolicy {
    return new HostPolicy(opts.production ? null : configuredHostNames(opts))
  }

  /** Whether a request's Host may be answered. A request without Host (HTTP/1.0, not a browser) carries no name to rebind. */
  allows(req: http.IncomingMessage): boolean {
    if (this.names === null) return true
    const host = req.headers.host
    if (host === undefined) return true
    const name = hostName(host)
    return isLoopbackName(name) || this.names.has(name)
  }

  /** Answers a request for a refused Host (403 with HOST_NOT_ALLOWED, nothing run). True when it was answered here. */
  refuse(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    if (this.allows(req)) return false
    req.resume()
    const body = JSON.stringify({ errors: [{ message: refusalMessage(req.headers.host ?? ''), extensions: { code: HOST_NOT_ALLOWED } }] })
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' }).end(body)
    return true
  }
}

function refusalMessage(host: string): string {
  const shown = host.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)
  return `This development service answers only localhost and the hosts of PUBLIC_URL and CORS_ORIGINS, not ${shown}: open it at localhost, or add the name to PUBLIC_URL or CORS_ORIGINS.`
}
