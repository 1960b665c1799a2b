// Owns serving the web console (console/): its bundle under /console-assets/<fingerprint>/ (immutable), its runtime
// configuration at /console-config.json, and index.html with a strict CSP for every other GET that asks for HTML
// outside the API's own paths (the console's client routes: /, /sign-in, /p/<slug>/home, ...).
import express from 'express'
import type { Request } from 'express'
import fs from 'node:fs/promises'
import { ensureConsoleAssets, CONSOLE_ASSET_FILES, INDEX_TEMPLATE } from '../console/build'
import { builtAssetRoute, pageHeaders, sameOriginConnect } from './static-assets'

/** Paths that are never the console's: a browser asking for HTML there gets what that path serves (or a 404). */
const NOT_CONSOLE = /^\/(graphql|graphiql|api|hooks|healthz|readyz|metrics|console-assets)(\/|$|\?)/

/** The console's OpenID Connect sign-in (OIDC_*): a public client, discovery from the issuer (docs/operators.md). */
export interface ConsoleSignIn {
  issuer: string
  clientId: string
  scopes: string
  /** Sent as `resource` (RFC 8707) when set. */
  audience?: string
}

export interface ConsoleRouterOptions {
  /** Where built assets are cached (<dataDir>/console/<fingerprint>/). */
  dataDir: string
  /** Another gateway the console talks to (CONSOLE_GATEWAY_URL); unset: the origin that served the page. */
  gatewayUrl?: string
  /** Sign-in at the identity provider; unset: the development sign-in (outside production) or none. */
  signIn?: ConsoleSignIn
  /** How recent a sign-in must be for a signature (SIGNATURE_AUTH_MAX_AGE_SECONDS): the console steps up before it. */
  signatureMaxAgeSeconds: number
}

/**
 * No inline script and no eval (script-src 'self'); styles only from the bundle's stylesheet; connect-src the page's
 * origin, its ws:/wss: twin for graphql-ws, the remote gateway (http and ws) when one is configured, and the identity
 * provider's origin when the console signs people in there; never framed.
 */
export function consoleContentSecurityPolicy(req: Request, gatewayUrl?: string, issuer?: string): string {
  const connect = sameOriginConnect(req)
  if (gatewayUrl) {
    const u = new URL(gatewayUrl)
    connect.add(`${u.protocol}//${u.host}`)
    connect.add(`${u.protocol.replace(/^http/, 'ws')}//${u.host}`)
  }
  // discovery, the token request and renewal go to the identity provider; its sign-in page is a navigation (no entry)
  if (issuer) connect.add(new URL(issuer).origin)
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${[...connect].join(' ')}`,
    "worker-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ')
}

export async function consoleRouter(opts: ConsoleRouterOptions): Promise<express.Router> {
  const assets = await ensureConsoleAssets(opts.dataDir)
  const gatewayUrl = opts.gatewayUrl?.replace(/\/+$/, '')
  const template = await fs.readFile(INDEX_TEMPLATE, 'utf8')
  const router = express.Router()

  router.get('/console-config.json', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({
      gatewayUrl: gatewayUrl ?? '',
      signIn: opts.signIn ?? null,
      signatureMaxAgeSeconds: opts.signatureMaxAgeSeconds,
    })
  })

  router.get('/console-assets/:fingerprint/:file', builtAssetRoute(assets, CONSOLE_ASSET_FILES))

  router.get(/.*/, (req, res, next) => {
    // The page for a browser and for a plain `curl` (Accept */*); a client that prefers JSON gets the 404 as JSON.
    if (NOT_CONSOLE.test(req.path) || req.accepts(['html', 'json']) !== 'html') return next()
    res.set(pageHeaders(consoleContentSecurityPolicy(req, gatewayUrl, opts.signIn?.issuer)))
    res.send(template.replaceAll('%ASSET_BASE%', `${req.baseUrl}/console-assets/${assets.fingerprint}`))
  })

  return router
}
