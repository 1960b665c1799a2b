// Owns the inbox's REST shim at the gateway: GET /me/brief and POST /me/inbox/{item_id}/resolve with a bearer token
// run the GraphQL operations (Query.myBrief, Mutation.resolveInboxItem) through the gateway's own pipeline; a resolve
// carrying a signed link (?link=…, from an e-mail or a phone, no bearer) is forwarded to the twins subgraph, which
// checks the link. Errors use {"error":{"code","message"}} with the catalogue's HTTP status.
import { isDatabaseUnavailable, OUTAGE_MESSAGE, OUTAGE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE } from '../core/database'
import express, { type Request, type Response } from 'express'
import { GraphQLError } from 'graphql'
import { ERROR_CATALOGUE, isErrorCode } from '../core/errors'
import { EDGE_TOKEN_HEADER, edgeToken } from '../core/http'
import { isId } from '../core/text'
import { log } from '../core/config'

export type ExecuteAs = (authorization: string | undefined, query: string, variables: Record<string, unknown>) =>
  Promise<{ data?: Record<string, any> | null; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] }>

const errorBody = (code: string, message: string) => ({ error: { code, message } })
const LINK_HEADERS = ['content-type', 'cache-control', 'referrer-policy', 'content-security-policy'] as const
const FORWARD_TIMEOUT_MS = 10_000

const BRIEF = `query($programId: ID) { myBrief(programId: $programId) {
  artifactId program { id name } twinId generatedAt heading decisionsWaiting openDecisionsTotal itemsWaiting nextPassAt
  emptyState filingPaused footer items { id kind dueAt } } }`
const RESOLVE = `mutation($id: ID!) { resolveInboxItem(id: $id) {
  __typename ... on MutationResolveInboxItemSuccess { item { id kind status doneAt } } ... on Error { code message field } } }`

/** The database is gone: 503 with Retry-After and the outage code, as /graphql answers (never a 400 or 500). */
function outage(res: Response) {
  res.status(503).set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS)).json(errorBody(SERVICE_UNAVAILABLE.toLowerCase(), OUTAGE_MESSAGE))
}

/** The status and body of a GraphQL answer run for a REST route. */
function restAnswer(res: Response, r: Awaited<ReturnType<ExecuteAs>>, pick: (data: Record<string, any>) => unknown) {
  const err = r.errors?.[0]
  if (err) {
    // a refusal's catalogue code (extensions.errorCode) is what REST answers, with its status; else the transport code
    const errorCode = err.extensions?.errorCode
    if (isErrorCode(errorCode)) return void res.status(ERROR_CATALOGUE[errorCode].status).json(errorBody(errorCode, err.message))
    const code = String(err.extensions?.code ?? 'INTERNAL_SERVER_ERROR')
    if (code === SERVICE_UNAVAILABLE) return void outage(res)
    const status = code === 'UNAUTHENTICATED' ? 401 : code === 'FORBIDDEN' ? 403 : code === 'INTERNAL_SERVER_ERROR' ? 500 : 400
    return void res.status(status).json(errorBody(code.toLowerCase(), err.message))
  }
  const body = pick(r.data ?? {}) as Record<string, any>
  if (body && typeof body.code === 'string' && isErrorCode(body.code)) return void res.status(ERROR_CATALOGUE[body.code].status).json(errorBody(body.code, body.message))
  res.json(body)
}

async function run(res: Response, execute: ExecuteAs, req: Request, query: string, variables: Record<string, unknown>, pick: (d: Record<string, any>) => unknown) {
  try {
    restAnswer(res, await execute(req.headers.authorization, query, variables), pick)
  } catch (e) {
    if (e instanceof GraphQLError && e.extensions?.code === 'UNAUTHENTICATED') return void res.status(401).json(errorBody('unauthenticated', e.message))
    if (isDatabaseUnavailable(e)) return void outage(res)
    log.error('inbox_rest.failed', { error: e })
    res.status(500).json(errorBody('internal_server_error', 'Unexpected error.'))
  }
}

/** Forwards a signed-link request to the twins subgraph with the gateway's edge token; nothing else of the caller. */
async function forwardLink(req: Request, res: Response, twinsBase: string, itemId: string, link: string) {
  try {
    const url = new URL(`/links/inbox/${itemId}/resolve`, twinsBase)
    url.searchParams.set('link', link)
    const up = await fetch(url, {
      method: req.method, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      headers: { accept: String(req.headers.accept ?? 'text/html'), [EDGE_TOKEN_HEADER]: await edgeToken() },
    })
    for (const h of LINK_HEADERS) { const v = up.headers.get(h); if (v) res.setHeader(h, v) }
    res.status(up.status).send(Buffer.from(await up.arrayBuffer()))
  } catch (error) {
    log.warn('inbox_link.forward_failed', { message: (error as Error).message })
    if (!res.headersSent) res.status(503).json(errorBody('upstream_unavailable', 'The inbox is not reachable; retry later.'))
  }
}

export function inboxRestRoutes(opts: { twinsBase: string; execute: ExecuteAs }) {
  const router = express.Router()
  router.get('/me/brief', (req, res) => {
    const programId = typeof req.query.program_id === 'string' ? req.query.program_id : undefined
    if (programId !== undefined && !isId(programId)) return void res.status(422).json(errorBody('invalid_input', 'program_id: not an id this service gave out'))
    return run(res, opts.execute, req, BRIEF, { programId }, (d) => ({ briefs: d.myBrief }))
  })
  router.all('/me/inbox/:itemId/resolve', (req, res) => {
    req.resume()
    const itemId = String(req.params.itemId)
    if (!isId(itemId)) return void res.status(404).json(errorBody('not_found', 'Not found.'))
    const link = typeof req.query.link === 'string' ? req.query.link : undefined
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST')
      return void res.status(405).json(errorBody('method_not_allowed', 'Use POST (GET only shows a link\'s confirmation).'))
    }
    if (link !== undefined) return void forwardLink(req, res, opts.twinsBase, itemId.toLowerCase(), link)
    if (req.method !== 'POST') return void res.status(405).set('allow', 'POST').json(errorBody('method_not_allowed', 'Resolve with POST and a bearer token, or open a signed link.'))
    return run(res, opts.execute, req, RESOLVE, { id: itemId }, (d) => d.resolveInboxItem?.item ? { item: d.resolveInboxItem.item } : d.resolveInboxItem)
  })
  return router
}
