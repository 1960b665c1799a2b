// Owns the checks a request and a socket upgrade pass before anything runs: the Host name (./host-check.ts, DNS
// rebinding outside production) and the browser Origin (./cors.ts). Both are answered here, so neither the GraphQL
// pipeline (which answers OPTIONS 405) nor Express ever sees a refused caller.
import type http from 'node:http'
import type { VerifyClientCallbackAsync } from 'ws'
import { env } from '../core/config'
import { allowedOrigins, CorsPolicy } from './cors'
import { HostPolicy } from './host-check'

/** Paths browsers never call: signed vendor webhooks (server to server) and the scrape endpoint (METRICS_ALLOW). */
const NO_CORS = /^\/(hooks|api\/v1\/hooks|metrics)(\/|\?|$)/

export interface RequestGuardOptions {
  production: boolean
  /** Browser origins allowed besides same-origin (default: CORS_ORIGINS, or the mode's default). */
  corsOrigins?: string[]
  /** The public origin (default PUBLIC_URL). */
  publicUrl?: string
}

export class RequestGuard {
  constructor(readonly cors: CorsPolicy, readonly hosts: HostPolicy) {}

  static forMode(opts: RequestGuardOptions): RequestGuard {
    const e = env()
    const cors = new CorsPolicy(opts.corsOrigins ? new Set(opts.corsOrigins)
      : allowedOrigins({ configured: e.CORS_ORIGINS, production: opts.production, publicUrl: e.PUBLIC_URL, gatewayPort: e.GATEWAY_PORT }))
    const hosts = HostPolicy.forMode({ production: opts.production, publicUrl: opts.publicUrl ?? e.PUBLIC_URL, corsOrigins: opts.corsOrigins ?? e.CORS_ORIGINS })
    return new RequestGuard(cors, hosts)
  }

  /** Answers an HTTP request that may not go further (a refused Host or Origin, a preflight). True when it was answered. */
  answers(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    // outside production, a name that is not loopback or configured is a rebound DNS name: nothing is served to it
    if (this.hosts.refuse(req, res)) return true
    // preflights and refused origins are answered here, before the GraphQL pipeline (which answers OPTIONS 405)
    return !NO_CORS.test(req.url ?? '/') && this.cors.handle(req, res)
  }

  /**
   * ws's verifyClient for the graphql-ws upgrade: a refused Host, or a browser's socket from a refused origin, is
   * answered 403 before it opens. A browser sends its page's Origin on the upgrade (and cookies, though none are
   * used); clients that are not browsers send no Origin and are let through.
   */
  readonly verifyUpgrade: VerifyClientCallbackAsync = ({ req }, done) =>
    !this.hosts.allows(req) ? done(false, 403, 'Host not allowed')
      : this.cors.allowsUpgrade(req) ? done(true) : done(false, 403, 'Origin not allowed')
}
