// Owns the twins export's download at the gateway: GET /orgs/current/twins/export with a bearer token streams the
// organisation's twins export as NDJSON (one metadata row a line), following Query.twinsExport's keyset pages of 300
// rows (its maximum, within the gateway's query cost limit) through the gateway's own GraphQL pipeline. Each page is
// one indexed read and re-checks org.audit.read live; nothing is buffered beyond a page and no artifact is written. Errors before the first byte answer
// {"error":{"code","message"}} with the catalogue's HTTP status; a failure mid-stream ends the body with a final
// {"error":…} line, so a client never mistakes a cut-off export for a complete one (a complete one ends with
// {"end":true,"rows":N}).
import { OUTAGE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE } from '../core/database'
import express from 'express'
import { GraphQLError } from 'graphql'
import { log } from '../core/config'
import type { ExecuteAs } from './inbox-routes'

export const TWINS_EXPORT_PATH = '/orgs/current/twins/export'
const PAGE = `query($after: String) { twinsExport(first: 300, after: $after) {
  nodes { kind id programId status createdAt metadata } pageInfo { endCursor hasNextPage } } }`

export function exportRestRoutes(opts: { execute: ExecuteAs }) {
  const router = express.Router()
  router.get(TWINS_EXPORT_PATH, async (req, res) => {
    let after: string | null = null
    let rows = 0
    try {
      for (;;) {
        const r = await opts.execute(req.headers.authorization, PAGE, { after })
        const err = r.errors?.[0]
        if (err) {
          const code = String(err.extensions?.code ?? 'INTERNAL_SERVER_ERROR')
          if (!res.headersSent) {
            if (code === SERVICE_UNAVAILABLE) res.set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS)) // the database is gone
            const status = code === 'UNAUTHENTICATED' ? 401 : code === 'FORBIDDEN' ? 403 : code === SERVICE_UNAVAILABLE ? 503 : 500
            return void res.status(status).json({ error: { code: code.toLowerCase(), message: err.message } })
          }
          res.end(`${JSON.stringify({ error: { code: code.toLowerCase(), message: err.message } })}\n`)
          return
        }
        if (!res.headersSent) {
          res.status(200)
          res.setHeader('content-type', 'application/x-ndjson; charset=utf-8')
          res.setHeader('content-disposition', 'attachment; filename="twins-export.ndjson"')
          res.setHeader('cache-control', 'no-store')
        }
        const page = r.data!.twinsExport as { nodes: unknown[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } }
        if (page.nodes.length) {
          rows += page.nodes.length
          // Respect back-pressure: wait for the socket to drain before reading the next page.
          if (!res.write(page.nodes.map((n) => JSON.stringify(n)).join('\n') + '\n')) await new Promise((ok) => res.once('drain', ok))
        }
        if (!page.pageInfo.hasNextPage) break
        after = page.pageInfo.endCursor
      }
      res.end(`${JSON.stringify({ end: true, rows })}\n`)
    } catch (e) {
      if (e instanceof GraphQLError && e.extensions?.code === 'UNAUTHENTICATED' && !res.headersSent) return void res.status(401).json({ error: { code: 'unauthenticated', message: e.message } })
      log.error('twins_export.failed', { error: e, rows })
      if (!res.headersSent) res.status(500).json({ error: { code: 'internal_server_error', message: 'Unexpected error.' } })
      else res.end(`${JSON.stringify({ error: { code: 'internal_server_error', message: 'Unexpected error.' } })}\n`)
    }
  })
  return router
}
