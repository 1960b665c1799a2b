// Owns how the gateway serves a browser page and its built assets (GraphiQL, the web console): the headers of the
// page itself, the fingerprinted asset route, and the connect-src a page needs for its own origin (HTTP and
// graphql-ws). Each page module (./console-routes.ts, ./graphiql/router.ts) adds only what is its own.
import path from 'node:path'
import type { Request, RequestHandler } from 'express'
import type { BuiltAssets } from './asset-cache'

/** A Host header safe to write into a CSP (a name or an IPv6 literal, an optional port): anything else is left out. */
const HOST = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i

/** A page's connect-src before its own additions: its origin, and its ws:/wss: twin for graphql-ws. */
export function sameOriginConnect(req: Request): Set<string> {
  const connect = new Set(["'self'"])
  const host = req.headers.host
  if (host && HOST.test(host)) {
    connect.add(`ws://${host}`)
    connect.add(`wss://${host}`)
  }
  return connect
}

/** The headers of an HTML page: never cached (it names the current fingerprint), framed by nobody, no referrer. */
export function pageHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  }
}

/**
 * GET …/:fingerprint/:file of one build: immutable for a year (the fingerprint changes with the content); another
 * fingerprint, or a file the build does not list, is a 404 that is not cached.
 */
export function builtAssetRoute(assets: BuiltAssets, files: readonly string[]): RequestHandler<{ fingerprint: string; file: string }> {
  const allowed = new Set<string>(files)
  return (req, res) => {
    const { fingerprint, file } = req.params
    if (fingerprint !== assets.fingerprint || !allowed.has(file)) {
      res.status(404).set('Cache-Control', 'no-store').type('text/plain').send('not found')
      return
    }
    res.sendFile(path.join(assets.dir, file), {
      immutable: true,
      dotfiles: 'allow', // the asset cache lives under .data/
      maxAge: 365 * 24 * 3600 * 1000,
      headers: { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'same-origin' },
    })
  }
}
