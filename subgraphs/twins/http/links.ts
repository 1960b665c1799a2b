// Owns the HTTP side of signed inbox links on the twins subgraph: GET shows a small confirmation (what kind of item,
// nothing of its thread), POST resolves. Only the gateway reaches it (its edge token); the person is named by the
// link, never by a session. Answers HTML for browsers and JSON ({"status"} or {"error":{"code","message"}}) when asked.
import express, { type Request, type Response } from 'express'
import { GraphQLError } from 'graphql'
import type { Db } from '../../../core/database'
import { DomainError } from '../../../core/errors'
import { EDGE_TOKEN_HEADER, isEdgeToken } from '../../../core/http'
import { isId } from '../../../core/text'
import { log } from '../../../core/config'
import { describeInboxLink, useInboxLink } from '../../../domain/inbox'

/** Where the gateway forwards /me/inbox/{item_id}/resolve?link=… (twins subgraph HTTP). */
export const INBOX_LINK_PATH = '/links/inbox/:itemId/resolve'

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`
}

const wantsJson = (req: Request) => (req.headers.accept ?? '').includes('application/json')

function answer(req: Request, res: Response, status: number, json: object, title: string, html: string) {
  // The token is in the address: no caching, no referrer, no scripts or outside resources.
  res.setHeader('cache-control', 'no-store')
  res.setHeader('referrer-policy', 'no-referrer')
  res.setHeader('content-security-policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
  if (wantsJson(req)) return void res.status(status).json(json)
  res.status(status).type('html').send(page(title, html))
}

function refuse(req: Request, res: Response, err: unknown) {
  if (err instanceof DomainError) {
    return answer(req, res, err.httpStatus, { error: { code: err.code, message: err.message } }, 'This link cannot be used', `<p>${escape(err.message)}</p>`)
  }
  if (err instanceof GraphQLError && err.extensions?.code === 'FORBIDDEN') {
    // The person named by the link no longer holds the permission in the item's program (removed since).
    return answer(req, res, 403, { error: { code: 'forbidden', message: 'You can no longer act on this item.' } }, 'This link cannot be used', '<p>You can no longer act on this item.</p>')
  }
  log.error('inbox_link.failed', { error: err })
  answer(req, res, 500, { error: { code: 'unexpected', message: 'Something went wrong; open the inbox instead.' } }, 'Something went wrong', '<p>Open the inbox instead.</p>')
}

export function createInboxLinkRoutes(db: Db) {
  const router = express.Router()
  router.use(INBOX_LINK_PATH, async (req, res, next) => {
    const token = req.headers[EDGE_TOKEN_HEADER]
    if (typeof token !== 'string' || !(await isEdgeToken(token))) return void res.status(404).json({ error: { code: 'not_found', message: 'Not found.' } })
    if (!isId(req.params.itemId)) return void res.status(404).json({ error: { code: 'inbox_link_invalid', message: 'This link is not valid.' } })
    next()
  })
  router.get(INBOX_LINK_PATH, async (req, res) => {
    const link = typeof req.query.link === 'string' ? req.query.link : undefined
    try {
      const item = await describeInboxLink(db, link, String(req.params.itemId))
      if (!item.resolvable) {
        return answer(req, res, 409, { error: { code: 'decision_required', message: 'This item resolves when you decide in the inbox.' }, kind: item.kind },
          'Decide in the inbox', '<p>This item waits for your decision. Open the inbox to decide; a link cannot stand in for that.</p>')
      }
      const action = `/me/inbox/${escape(String(req.params.itemId))}/resolve?link=${encodeURIComponent(link!)}`
      answer(req, res, 200, { kind: item.kind, status: item.status, resolvable: true, method: 'POST' }, 'Mark this item done?',
        `<p>One ${escape(item.kind)} item in your inbox. Marking it done changes nothing else.</p>` +
        `<form method="post" action="${action}"><button type="submit">Mark as done</button></form>`)
    } catch (err) { refuse(req, res, err) }
  })
  router.post(INBOX_LINK_PATH, async (req, res) => {
    req.resume() // no body is read: the link is in the address
    const link = typeof req.query.link === 'string' ? req.query.link : undefined
    try {
      const item = await useInboxLink(db, link, String(req.params.itemId))
      answer(req, res, 200, { status: 'done', item: { id: item.id, kind: item.kind, status: item.status } }, 'Done', '<p>Marked as done. Nothing else changed.</p>')
    } catch (err) { refuse(req, res, err) }
  })
  return router
}
