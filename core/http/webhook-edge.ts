// Owns what the gateway's REST edge and the connectors' webhook ingress agree on: the exact hook path shapes, the edge
// token that vouches for a forwarded client address, and the answer deadline both sides are tuned to.
import { signInternalToken, verifyInternalToken } from '../identity'
import { UUID_PATTERN } from '../text'
import { boundedCache } from '../config'

/** The connectors ingress answers within this (verification wait, body, write); the gateway waits a little longer. */
export const WEBHOOK_ANSWER_DEADLINE_MS = 1_800
/** Idle time the REST edge allows the connectors service before answering 503 itself: above the ingress deadline. */
export const REST_EDGE_UPSTREAM_TIMEOUT_MS = WEBHOOK_ANSWER_DEADLINE_MS + 700

const PROVIDER = '[a-z][a-z0-9_]{0,63}'
const HOOK_PATH = new RegExp(`^/(?:hooks/(${PROVIDER})|api/v1/hooks/(eln_provider))/(${UUID_PATTERN})$`)

/**
 * The provider and connection of a raw request path, or null unless the path is exactly one of
 * /hooks/{provider_id}/{connection_id} and /api/v1/hooks/eln_provider/{connection_id}. Matched on the raw bytes:
 * percent-encodings, dot segments, empty or extra segments never match.
 */
export function parseHookPath(rawPath: string): { providerId: string; connectionId: string } | null {
  const m = HOOK_PATH.exec(rawPath)
  if (!m) return null
  return { providerId: m[1] ?? m[2], connectionId: m[3].toLowerCase() }
}

// ---------------------------------------------------------------------------------------------------------------
// The edge token: the gateway's signed statement "this request came through me", so the connectors port believes the
// client address the gateway forwards and nothing else does. It is an internal token with a subject no user can have.

export const EDGE_TOKEN_HEADER = 'x-edge-token'
export const EDGE_CLIENT_HEADER = 'x-edge-client-address'
const EDGE_SUBJECT = 'urn:evidence-workspace:rest-edge'
const EDGE_TOKEN_REUSE_MS = 30_000 // internal tokens live 60 s

let minted: { token: string; at: number } | undefined
export async function edgeToken(): Promise<string> {
  if (!minted || Date.now() - minted.at > EDGE_TOKEN_REUSE_MS) {
    minted = { token: await signInternalToken({ userId: EDGE_SUBJECT, organizationId: EDGE_SUBJECT, requestId: 'rest-edge' }), at: Date.now() }
  }
  return minted.token
}

/** edge tokens verified, each remembered for EDGE_TOKEN_REUSE_MS (the gateway mints a new one as often) */
const verified = boundedCache<string, true>({ max: 64, ttlMs: EDGE_TOKEN_REUSE_MS })
/** True when the token is a valid, unexpired edge token (verified once per token, then remembered until it expires). */
export async function isEdgeToken(token: string | undefined): Promise<boolean> {
  if (!token || token.length > 2048) return false
  if (verified.get(token)) return true
  try {
    const identity = await verifyInternalToken(token)
    if (identity.userId !== EDGE_SUBJECT) return false
    verified.set(token, true)
    return true
  } catch {
    return false
  }
}

/** Forget minted and verified edge tokens (tests point DATA_DIR, hence the gateway key, elsewhere). */
export function resetEdgeTokens() {
  minted = undefined
  verified.clear()
}
