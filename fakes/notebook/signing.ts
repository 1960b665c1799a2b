// The fake notebook's webhook signing: P-256 key pairs, their public JWKs, and the vendor's webhook-signature header.
// Deliberately independent of the service's verifier (domain/notebook/webhook-signature.ts).
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto'
import { randomId } from '../common/ids'

export interface PublicJwk {
  kty: 'EC'
  crv: 'P-256'
  x: string
  y: string
  kid: string
  alg: 'ES256'
  use: 'sig'
}

export interface SigningKey {
  kid: string
  privateKey: KeyObject
  publicJwk: PublicJwk
  createdAt: number
}

export function generateSigningKey(now: number = Date.now()): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const kid = randomId('kid', 12)
  const jwk = publicKey.export({ format: 'jwk' })
  return {
    kid,
    privateKey,
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y!, kid, alg: 'ES256', use: 'sig' },
    createdAt: now,
  }
}

export interface SignDeliveryInput {
  /** webhook-id; a fresh `msg_…` id when omitted. */
  id?: string
  /** Unix seconds; now when omitted. */
  timestamp?: number | string
  body: string | Buffer
  /** One `v1der,…` entry per key, in order (several during a rotation). */
  keys: ReadonlyArray<SigningKey | KeyObject>
}

export interface SignedDelivery {
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string; 'content-type': string }
  rawBody: Buffer
  deliveryId: string
  timestamp: number
}

/** The bytes the vendor signs: `${id}.${timestamp}.` followed by the raw body bytes. */
export function signingInput(id: string, timestamp: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body])
}

/** base64 DER ECDSA P-256/SHA-256 signature of `data`. */
export function derSignature(key: SigningKey | KeyObject, data: Buffer): string {
  const privateKey = 'privateKey' in key ? key.privateKey : key
  return sign('sha256', data, { key: privateKey, dsaEncoding: 'der' }).toString('base64')
}

/** Signs a delivery exactly as the vendor does; for the fake's sender, tests and benchmarks. */
export function signDelivery({ id = `msg_${randomUUID()}`, timestamp, body, keys }: SignDeliveryInput): SignedDelivery {
  const rawBody = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')
  const ts = String(timestamp ?? Math.floor(Date.now() / 1000))
  const data = signingInput(id, ts, rawBody)
  const signature = keys.map((k) => `v1der,${derSignature(k, data)}`).join(' ')
  return {
    headers: { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature, 'content-type': 'application/json' },
    rawBody,
    deliveryId: id,
    timestamp: Number(ts),
  }
}
