// Owns the gateway's REST routes (Express), in the order they are tried: the webhook edge forwarded to connectors,
// the inbox and export shims (bearer, run through the GraphQL pipeline), and the health endpoints; and the one error
// answer every Express route shares (restErrorAnswer, mounted last).
import express from 'express'
import type { Db } from '../core/database'
import { databaseAnswers } from '../core/sql'
import { formattedServiceUnavailable, isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../core/database'
import { log } from '../core/config'
import type { IdentityResolver } from './identity'
import { SUBGRAPH_NAMES, type SubgraphName } from './supergraph'
import { forwardToConnectors } from './rest-edge'
import type { EdgePipeline } from './graphql-http'
import { inboxRestRoutes, type ExecuteAs } from './inbox-routes'
import { exportRestRoutes } from './export-routes'

export interface RestRouteOptions {
  db: Db
  subgraphUrls: Record<SubgraphName, string>
  /** Base URL of the connectors service for the webhook edge (default: derived from its GraphQL URL). */
  connectorsBaseUrl?: string
  pipeline: EdgePipeline
  identities: IdentityResolver
}

export function installRestRoutes(app: express.Express, opts: RestRouteOptions) {
  // The webhook edge comes first: raw bytes, no JSON parsing, no bearer (authenticity is the vendor signature).
  const connectorsBase = opts.connectorsBaseUrl ?? new URL(opts.subgraphUrls.connectors).origin
  app.use(['/hooks', '/api/v1/hooks'], (req, res) => forwardToConnectors(req, res, connectorsBase))

  // The inbox's REST shim: GET /me/brief and POST /me/inbox/{item_id}/resolve (bearer, through the GraphQL pipeline,
  // or a signed link forwarded to the twins subgraph).
  const executeAs: ExecuteAs = async (authorization, query, variables) =>
    opts.pipeline.execute({ query, variables }, { identity: await opts.identities.resolve(authorization) })
  app.use(inboxRestRoutes({ twinsBase: new URL(opts.subgraphUrls.twins).origin, execute: executeAs }))
  // The twins export as a streamed NDJSON download (GET /orgs/current/twins/export, bearer, org.audit.read).
  app.use(exportRestRoutes({ execute: executeAs }))

  app.get('/healthz', (_req, res) => { res.json({ ok: true }) })
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {}
    checks.database = await databaseAnswers(opts.db)
    for (const name of SUBGRAPH_NAMES) {
      checks[name] = await fetch(new URL('/healthz', opts.subgraphUrls[name]), { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false)
    }
    const ok = Object.values(checks).every(Boolean)
    res.status(ok ? 200 : 503).json({ ok, checks })
  })
}

/** Errors of the REST routes (a body too large or not JSON): a GraphQL-shaped answer, no stack trace. */
export function restErrorAnswer(err: any, _req: express.Request, res: express.Response, next: express.NextFunction) {
  if (!err) return next()
  // The database is gone (stopped, restarting): the outage answer /graphql gives, not a 500 (the console says the
  // service is unavailable, a client retries after Retry-After).
  if (isDatabaseUnavailable(err)) {
    return void res.status(503).set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS)).json({ errors: [formattedServiceUnavailable()] })
  }
  const status = err.status ?? err.statusCode ?? 500
  if (status >= 500) log.error('gateway.http_error', { error: err })
  res.status(status).json({ errors: [{ message: status === 413 ? 'The request body is larger than 1 MB.' : status === 400 ? 'The request body is not valid JSON.' : 'Unexpected error.', extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 400 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR' } }] })
}
