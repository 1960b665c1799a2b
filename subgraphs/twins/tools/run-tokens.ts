// Owns run tokens: the short-lived credential a twin run presents to the tool server, naming the run, the twin and
// the person (never the person's own token), signed ES256 with a key the service holds under DATA_DIR/keys.
import path from 'node:path'
import * as jose from 'jose'
import { loadOrCreateKeyPair } from '../../../core/identity'
import { env } from '../../../core/config'

const ALG = 'ES256'
const ISSUER = 'urn:evidence-workspace:runs'
const AUDIENCE = 'urn:evidence-workspace:tools'

export interface RunTokenClaims {
  runId: string
  twinId: string
  userId: string
  organizationId: string
  expiresAt: Date
}

/** Why a token was refused; the tool server turns each into its typed HTTP answer. */
export type RunTokenRefusal = 'missing' | 'invalid' | 'expired' | 'other_run' | 'finished'

export class RunTokenRefused extends Error {
  constructor(readonly reason: RunTokenRefusal, message: string) { super(message) }
}

const keys = new Map<string, ReturnType<typeof loadOrCreateKeyPair>>()
const keyPair = () => {
  const file = path.join(env().DATA_DIR, 'keys', 'run-tokens.jwk.json')
  let k = keys.get(file)
  if (!k) keys.set(file, (k = loadOrCreateKeyPair(file)))
  return k
}

/** Minted when a run starts (by the harness that executes it); lives RUN_TOKEN_TTL_SECONDS unless told otherwise. */
export async function mintRunToken(run: { runId: string; twinId: string; userId: string; organizationId: string }, ttlSeconds = env().RUN_TOKEN_TTL_SECONDS): Promise<string> {
  const { privateKey, kid } = await keyPair()
  return new jose.SignJWT({ run: run.runId, twin: run.twinId, org: run.organizationId })
    .setProtectedHeader({ alg: ALG, kid })
    .setSubject(run.userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(privateKey)
}

/**
 * Verifies `Authorization: Bearer <run token>` for the run the request names. The signature, issuer, audience and
 * expiry are checked here (no clock tolerance: a run token is short-lived on purpose); whether the run is still
 * running is the caller's database check.
 */
export async function verifyRunToken(authorization: string | undefined | null, runId: string): Promise<RunTokenClaims> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  if (!match) throw new RunTokenRefused('missing', 'A run token is required (Authorization: Bearer <run token>).')
  let payload: jose.JWTPayload
  try {
    payload = (await jose.jwtVerify(match[1], (await keyPair()).publicKey, { issuer: ISSUER, audience: AUDIENCE, algorithms: [ALG] })).payload
  } catch (err) {
    if (err instanceof jose.errors.JWTExpired) throw new RunTokenRefused('expired', 'The run token has expired.')
    throw new RunTokenRefused('invalid', 'The run token is not valid.')
  }
  const claims = { runId: String(payload.run ?? ''), twinId: String(payload.twin ?? ''), userId: String(payload.sub ?? ''), organizationId: String(payload.org ?? '') }
  if (!claims.runId || !claims.twinId || !claims.userId || !claims.organizationId) throw new RunTokenRefused('invalid', 'The run token is not valid.')
  if (claims.runId !== runId) throw new RunTokenRefused('other_run', 'The run token was issued for another run.')
  return { ...claims, expiresAt: new Date((payload.exp ?? 0) * 1000) }
}
