// Connection secrets at rest: AES-256-GCM under CONNECTION_SECRET_KEY, bound to the connection, never in error messages.
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { env, parseEnv, setEnv } from '../../core/config'
import { decryptSecrets, encryptSecrets } from '../../domain/adapters'

const saved = env()
afterEach(() => setEnv(saved))
const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const secrets = { clientId: 'client-1', clientSecret: 'very-secret-value' }

describe('connection secrets', () => {
  it('encrypts with a fresh nonce each time and decrypts only for the same connection and key', () => {
    setEnv(parseEnv({ ...process.env, CONNECTION_SECRET_KEY: randomBytes(32).toString('hex') }))
    const one = encryptSecrets(A, secrets)
    const two = encryptSecrets(A, secrets)
    expect(one.ciphertext).not.toBe(two.ciphertext)
    expect(one.ciphertext).not.toContain('very-secret-value')
    expect(decryptSecrets(A, one.ciphertext, one.keyId)).toEqual(secrets)
    expect(() => decryptSecrets(B, one.ciphertext, one.keyId)).toThrow(/could not be decrypted/)
    setEnv(parseEnv({ ...process.env, CONNECTION_SECRET_KEY: randomBytes(32).toString('hex') }))
    let message = ''
    try { decryptSecrets(A, one.ciphertext, one.keyId) } catch (e) { message = (e as Error).message }
    expect(message).toMatch(/stored under another key/)
    expect(message).not.toContain('very-secret-value')
  })

  it('generates a development key once under DATA_DIR/keys when none is configured, and refuses to run without one in production', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-secrets-'))
    try {
      setEnv({ ...saved, CONNECTION_SECRET_KEY: undefined, DATA_DIR: dir, NODE_ENV: 'development' })
      const sealed = encryptSecrets(A, secrets)
      const file = path.join(dir, 'keys', 'connection-secrets.key')
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(decryptSecrets(A, sealed.ciphertext, sealed.keyId)).toEqual(secrets)
      setEnv({ ...saved, CONNECTION_SECRET_KEY: undefined, DATA_DIR: dir, NODE_ENV: 'production' })
      expect(() => encryptSecrets(A, secrets)).toThrow(/CONNECTION_SECRET_KEY is required in production/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
