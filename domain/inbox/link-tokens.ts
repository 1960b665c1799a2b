// Owns the tokens of signed inbox links (inbox-links.ts uses them): single-purpose tokens that let a person resolve one
// inbox item from an e-mail or a phone without signing in and without reading the private thread. A token names the item, the person, the organisation
// and the action (only `resolve`), expires after LINK_TTL_SECONDS and works once (its id is recorded on use).
//
// Format: base64url(JSON claims) '.' base64url(HMAC-SHA256(claims)). The key is 32 random bytes kept under
// DATA_DIR/keys (shared by every component, like the gateway's key pair), created on first use; tokens are never
// stored, only the id of a used one.
import fs from 'node:fs/promises'
import path from 'node:path'
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { env } from '../../core/config'
import { InboxLinkExpired, InboxLinkInvalid } from '../../core/errors'
import { publicBaseUrl } from '../adapters'

/** A link works for a day: long enough for an e-mail read the next morning, short enough to go stale if forwarded. */
export const LINK_TTL_SECONDS = 24 * 3600
export const LINK_ACTIONS = ['resolve'] as const
export type LinkAction = (typeof LINK_ACTIONS)[number]

const Claims = z.object({
  v: z.literal(1),
  jti: z.string().uuid(),
  org: z.string().uuid(),
  sub: z.string().uuid(),
  item: z.string().uuid(),
  act: z.enum(LINK_ACTIONS),
  exp: z.number().int(),
}).strict()
export type LinkClaims = z.output<typeof Claims>

let cachedKey: { dir: string; key: Promise<Buffer> } | undefined

async function loadOrCreateKey(file: string): Promise<Buffer> {
  try {
    return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  await fs.mkdir(path.dirname(file), { recursive: true })
  // wx: two processes starting together keep the first key written.
  await fs.writeFile(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' }).catch((err) => { if (err.code !== 'EEXIST') throw err })
  return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'hex')
}

function linkKey(): Promise<Buffer> {
  const dir = env().DATA_DIR
  if (cachedKey?.dir !== dir) cachedKey = { dir, key: loadOrCreateKey(path.join(dir, 'keys', 'inbox-links.key')) }
  return cachedKey.key
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(`inbox-link.v1.${body}`).digest()

/** Mints a link token for one item, person and action. */
export async function signInboxLink(item: { id: string; userId: string; organizationId: string }, action: LinkAction = 'resolve', now = new Date()): Promise<string> {
  const claims: LinkClaims = {
    v: 1, jti: randomUUID(), org: item.organizationId, sub: item.userId, item: item.id, act: action,
    exp: Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS,
  }
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url')
  return `${body}.${mac(await linkKey(), body).toString('base64url')}`
}

/** The address a person opens (GET shows a confirmation; its button POSTs the same address). */
export async function inboxLinkUrl(item: { id: string; userId: string; organizationId: string }, base = publicBaseUrl()): Promise<string> {
  return `${base}/me/inbox/${item.id}/resolve?link=${await signInboxLink(item)}`
}

/**
 * The claims of a link for `itemId`, or inbox_link_invalid (bad shape, bad signature, another item) /
 * inbox_link_expired. Checks the signature before reading anything of the claims.
 */
export async function verifyInboxLink(token: string | undefined, itemId: string, now = new Date()): Promise<LinkClaims> {
  const [body, sig, extra] = (token ?? '').split('.')
  if (!body || !sig || extra !== undefined || token!.length > 1024) throw new InboxLinkInvalid()
  const expected = mac(await linkKey(), body)
  const given = Buffer.from(sig, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InboxLinkInvalid()
  let claims: LinkClaims
  try { claims = Claims.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))) } catch { throw new InboxLinkInvalid() }
  if (claims.item !== itemId.toLowerCase()) throw new InboxLinkInvalid()
  if (claims.exp * 1000 <= now.getTime()) throw new InboxLinkExpired()
  return claims
}

