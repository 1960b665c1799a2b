// Owns what the gateway serves to browsers besides the API: GraphiQL (outside production), the console's development
// sign-in (where this service mints tokens), and the web console with its static assets, mounted last because its
// index.html answers any other GET asking for HTML (its client routes). Where their built assets are cached is
// decided here too.
import path from 'node:path'
import type express from 'express'
import type { Db } from '../core/database'
import { env, ROOT_DIR } from '../core/config'
import { consoleRouter } from './console-routes'
import { devSignInRoutes } from './dev-sign-in'
import { GRAPHQL_PATH } from './routing'

export interface BrowserPageOptions {
  db: Db
  production: boolean
  /** Where a production gateway caches built assets. */
  dataDir: string
  /** The gateway the web console talks to when not this one (default CONSOLE_GATEWAY_URL). */
  consoleGatewayUrl?: string
}

export async function installBrowserPages(app: express.Express, opts: BrowserPageOptions) {
  const e = env()
  // Built assets are a cache shared by every data folder outside production (tests use a fresh DATA_DIR per file).
  const assetsDir = opts.production ? opts.dataDir : path.join(ROOT_DIR, '.data')
  if (!opts.production) {
    const { graphiqlRouter } = await import('./graphiql/router')
    // With an identity provider, GraphiQL signs in through the console's sign-in and comes back (one redirect URI).
    app.use(await graphiqlRouter({ dataDir: assetsDir, endpoint: GRAPHQL_PATH, ...(e.OIDC_ISSUER && e.OIDC_CLIENT_ID ? { signInUrl: '/sign-in?next=/graphiql' } : {}) }))
  }
  // The console's development sign-in exists only where this service mints tokens (never in production).
  if (!opts.production && !e.AUTH_JWKS_URL) app.use(devSignInRoutes(opts.db))
  app.use(await consoleRouter({
    dataDir: assetsDir, gatewayUrl: opts.consoleGatewayUrl ?? e.CONSOLE_GATEWAY_URL,
    signIn: e.OIDC_ISSUER && e.OIDC_CLIENT_ID
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, scopes: e.OIDC_SCOPES, ...(e.OIDC_AUDIENCE ? { audience: e.OIDC_AUDIENCE } : {}) }
      : undefined,
    signatureMaxAgeSeconds: e.SIGNATURE_AUTH_MAX_AGE_SECONDS,
  }))
}
