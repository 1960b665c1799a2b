// Owns the development GraphiQL page: GET /graphiql (HTML with a strict CSP, no-store) and
// GET /graphiql/assets/<fingerprint>/* (the esbuild bundles, immutable). Mounted by the gateway only when
// NODE_ENV !== 'production'.
import express from 'express'
import type { Request } from 'express'
import { ensureGraphiqlAssets, GRAPHIQL_ASSET_FILES } from './build'
import { builtAssetRoute, pageHeaders, sameOriginConnect } from '../static-assets'

export interface GraphiqlRouterOptions {
  /** Where built assets are cached (<dataDir>/graphiql/<fingerprint>/). */
  dataDir: string
  /** GraphQL endpoint for HTTP and graphql-ws (same path), relative to the page or absolute. Default '/graphql'. */
  endpoint?: string
  /** Operation shown in the editor on first visit. */
  defaultQuery?: string
  /** Introspect before a token is pasted (only if the endpoint allows anonymous introspection). Default false. */
  introspectWithoutToken?: boolean
  /**
   * Where a person signs in at the identity provider and comes back to GraphiQL (the console's sign-in with
   * `next=/graphiql`, OIDC_*); unset: only a pasted token.
   */
  signInUrl?: string
}

/** The page's configuration, read by app.jsx from a JSON data block (window.__GRAPHIQL__). */
export interface GraphiqlPageConfig {
  endpoint: string
  defaultQuery?: string
  introspectWithoutToken?: boolean
  signInUrl?: string
}

/**
 * script-src 'self' only (no inline script, no eval: the bundles use neither). style-src needs
 * 'unsafe-inline' because monaco and the dialog library insert <style> elements at run time without a
 * nonce. Fonts/images are data: URLs inlined by the bundle. connect-src: the page's origin, its ws:/wss:
 * twin for graphql-ws, and the endpoint's origin when it is absolute. Workers: same-origin bundle files.
 */
export function graphiqlContentSecurityPolicy(req: Request, endpoint: string): string {
  const connect = sameOriginConnect(req)
  if (/^(https?|wss?):\/\//i.test(endpoint)) {
    const u = new URL(endpoint)
    const http = u.protocol.replace(/^ws/, 'http')
    const ws = http.replace(/^http/, 'ws')
    connect.add(`${http}//${u.host}`)
    connect.add(`${ws}//${u.host}`)
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "worker-src 'self'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ')
}

function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

export function graphiqlPageHtml(assetBase: string, config: GraphiqlPageConfig): string {
  const base = escapeAttr(assetBase)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL</title>
<link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="stylesheet" href="${base}/app.css">
<script id="graphiql-config" type="application/json">${jsonForScriptBlock(config)}</script>
<script type="module" src="${base}/app.js"></script>
</head>
<body><div id="graphiql-root"></div></body>
</html>
`
}

export async function graphiqlRouter(opts: GraphiqlRouterOptions): Promise<express.Router> {
  const assets = await ensureGraphiqlAssets(opts.dataDir)
  const endpoint = opts.endpoint ?? '/graphql'
  const config: GraphiqlPageConfig = { endpoint }
  if (opts.defaultQuery !== undefined) config.defaultQuery = opts.defaultQuery
  if (opts.introspectWithoutToken) config.introspectWithoutToken = true
  if (opts.signInUrl) config.signInUrl = opts.signInUrl

  const router = express.Router()

  router.get('/graphiql', (req, res) => {
    res.set(pageHeaders(graphiqlContentSecurityPolicy(req, endpoint)))
    res.send(graphiqlPageHtml(`${req.baseUrl}/graphiql/assets/${assets.fingerprint}`, config))
  })

  router.get('/graphiql/assets/:fingerprint/:file', builtAssetRoute(assets, GRAPHIQL_ASSET_FILES))

  return router
}
