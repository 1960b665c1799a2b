// Owns connection secrets at rest: AES-256-GCM under CONNECTION_SECRET_KEY (or a development key kept under DATA_DIR).
//
// The ciphertext is bound to its connection id (additional authenticated data), so a row's secrets cannot be copied onto
// another connection. Decrypted values only ever travel to the vendor's token endpoint; errors raised here name the
// connection, never the value.
import fs from 'node:fs'
import path from 'node:path'
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { env } from '../../core/config'

export interface ConnectionSecrets {
  clientId: string
  clientSecret: string
}

export class SecretsUnavailable extends Error {
  override readonly name = 'SecretsUnavailable'
}

const VERSION = 'v1'
let cached: { key: Buffer; keyId: string; dataDir: string; configured: string | undefined; nodeEnv: string } | undefined

function loadDevelopmentKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'keys', 'connection-secrets.key')
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  fs.mkdirSync(path.dirname(file), { recursive: true })
  try {
    // wx: two processes starting together must not each write their own key.
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex')
}

/** The key in force: CONNECTION_SECRET_KEY, or outside production a key generated once under DATA_DIR/keys. */
export function secretKey(): { key: Buffer; keyId: string } {
  const e = env()
  if (cached && cached.dataDir === e.DATA_DIR && cached.configured === e.CONNECTION_SECRET_KEY && cached.nodeEnv === e.NODE_ENV) return cached
  let key: Buffer
  if (e.CONNECTION_SECRET_KEY) key = Buffer.from(e.CONNECTION_SECRET_KEY, 'hex')
  else if (e.NODE_ENV === 'production') throw new SecretsUnavailable('CONNECTION_SECRET_KEY is required in production to store connection secrets.')
  else key = loadDevelopmentKey(e.DATA_DIR)
  if (key.length !== 32) throw new SecretsUnavailable('The connection secret key must be 32 bytes.')
  // Names the key without revealing it, so a row encrypted under another key is recognised as such.
  const keyId = createHash('sha256').update('connection-secret-key-id').update(key).digest('hex').slice(0, 12)
  cached = { key, keyId, dataDir: e.DATA_DIR, configured: e.CONNECTION_SECRET_KEY, nodeEnv: e.NODE_ENV }
  return cached
}

export function encryptSecrets(connectionId: string, secrets: ConnectionSecrets): { ciphertext: string; keyId: string } {
  const { key, keyId } = secretKey()
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(`connection:${connectionId}`, 'utf8'))
  const body = Buffer.concat([cipher.update(JSON.stringify({ clientId: secrets.clientId, clientSecret: secrets.clientSecret }), 'utf8'), cipher.final()])
  const tag = cipher.getAuthTag()
  return { ciphertext: [VERSION, iv.toString('base64'), tag.toString('base64'), body.toString('base64')].join(':'), keyId }
}

export function decryptSecrets(connectionId: string, ciphertext: string, keyId?: string | null): ConnectionSecrets {
  const { key, keyId: current } = secretKey()
  if (keyId && keyId !== current) throw new SecretsUnavailable(`The secrets of connection ${connectionId} were stored under another key; store them again.`)
  const [version, iv, tag, body] = ciphertext.split(':')
  if (version !== VERSION || !iv || !tag || !body) throw new SecretsUnavailable(`The secrets of connection ${connectionId} are unreadable.`)
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
    decipher.setAAD(Buffer.from(`connection:${connectionId}`, 'utf8'))
    decipher.setAuthTag(Buffer.from(tag, 'base64'))
    const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
    const parsed = JSON.parse(plain) as ConnectionSecrets
    return { clientId: parsed.clientId, clientSecret: parsed.clientSecret }
  } catch {
    throw new SecretsUnavailable(`The secrets of connection ${connectionId} could not be decrypted.`)
  }
}
