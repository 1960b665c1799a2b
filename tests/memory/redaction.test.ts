// Credential redaction (core/text/redact.ts) as a rule, without a database: each kind of credential is replaced whole (no
// usable tail), counted, and found in every string of a JSON value; prose that only names a token is kept. Through
// the tool server and the gateway: tests/twins/agent-text.test.ts. Pure: runs in the mutation-testing run.
import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { REDACTED_SECRET, redactSecrets, redactSecretsDeep, type SecretFinding } from '../../core/text'

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJydW4tMTIzIiwib3JnIjoiYWJjIn0.c2lnbmF0dXJlLW9mLXRoZS1ydW4tdG9rZW4'
const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

/** Each kind of credential, with what of it must never be left. */
const CREDENTIALS: { kind: string; text: string; secret: string; kept?: string }[] = [
  { kind: 'a private key block', text: `key\n${pem}`, secret: pem.split('\n')[1]!, kept: 'key\n' },
  { kind: 'an unterminated private key block', text: '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49', secret: 'MIGHAgEAMBMGByqGSM49' },
  { kind: 'a bearer value', text: 'Authorization header Bearer abcDEF123456._~+/=', secret: 'abcDEF123456' },
  { kind: 'a basic value', text: 'basic  dXNlcjpwYXNzd29yZA==', secret: 'dXNlcjpwYXNzd29yZA' },
  { kind: 'a run token (JWT)', text: `my run token ${jwt} thanks`, secret: jwt.split('.')[2]!, kept: ' thanks' },
  { kind: 'a two-part signed link token', text: 'link eyJpZCI6IjEyMyJ9abcd.aGFzaGhhc2hoYXNo', secret: 'aGFzaGhhc2hoYXNo' },
  { kind: 'a connection string', text: 'DATABASE_URL postgresql://app:s3cretPassw0rd@db.internal:5432/prod', secret: 's3cretPassw0rd' },
  { kind: 'a provider key by prefix', text: 'vendor key sk-live-4f9aB27cD81eF03aB9cD', secret: '4f9aB27cD81eF03aB9cD' },
  { kind: 'a GitHub token', text: 'ghp_abcdefghij0123456789', secret: 'abcdefghij0123456789' },
  { kind: 'a Slack token', text: 'xoxb-1234567890-abcdefghij', secret: '1234567890-abcdefghij' },
  { kind: 'a webhook signing secret', text: 'whsec_abcdefghij0123456789', secret: 'abcdefghij0123456789' },
  { kind: 'an AWS key id', text: 'AKIAABCDEFGHIJKLMNOP is the key', secret: 'ABCDEFGHIJKLMNOP', kept: ' is the key' },
  { kind: 'a Google API key', text: 'AIzaSyA1234567890abcdefghijklmnopqrstu', secret: 'SyA1234567890abcdefghij' },
  { kind: 'a quoted api_key', text: 'api_key: "AbC123xYz789QwErTy"', secret: 'AbC123xYz789QwErTy' },
  { kind: 'an unquoted client_secret with digits', text: 'client_secret=Zq8Yw7Xv6Uu5Tt4', secret: 'Zq8Yw7Xv6Uu5Tt4' },
  { kind: 'a long unquoted password', text: "password = 'correcthorsebattery'", secret: 'correcthorsebattery' },
  { kind: 'a password of letters only, sixteen long', text: 'password: abcdefghijklmnopqr', secret: 'abcdefghijklmnopqr' },
]

describe('credential redaction', () => {
  it.each(CREDENTIALS)('replaces $kind whole with the redaction mark, once', ({ text, secret, kept }) => {
    const r = redactSecrets(text)
    expect(r.text).not.toContain(secret)
    expect(r.text).toContain(REDACTED_SECRET)
    expect(r.count).toBe(1)
    if (kept) expect(r.text).toContain(kept)
  })

  it('keeps prose that names a token, a key or a password, and short or already redacted values', () => {
    for (const text of ['the token: a barcode label', 'password: short', 'Bearer of bad news', 'the API key assay', `token: ${REDACTED_SECRET}`, 'sk-short']) {
      expect(redactSecrets(text), text).toEqual({ text, count: 0 })
    }
    expect(REDACTED_SECRET).toBe('[redacted: secret]')
  })

  it('counts every credential in a text', () => {
    const r = redactSecrets(`run ${jwt}\napi_key: "AbC123xYz789QwErTy"\nand ghp_abcdefghij0123456789`)
    expect(r.count).toBe(3)
    expect(r.text).toBe(`run ${REDACTED_SECRET}\n${REDACTED_SECRET}\nand ${REDACTED_SECRET}`)
  })

  it('walks every string of a JSON value, keeps keys, dates and numbers, and reports the fields with how many', () => {
    const when = new Date('2026-01-01T00:00:00Z')
    const found: SecretFinding[] = []
    const out = redactSecretsDeep({ title: 'Dose', body: `token ${jwt}`, list: ['ok', `Bearer ${jwt}`], nested: { deep: { s: 'sk-live-4f9aB27cD81eF03aB9cD' } }, when, n: 3, no: null }, found)
    expect(out).toEqual({ title: 'Dose', body: `token ${REDACTED_SECRET}`, list: ['ok', REDACTED_SECRET], nested: { deep: { s: REDACTED_SECRET } }, when, n: 3, no: null })
    expect(out.when).toBeInstanceOf(Date)
    expect(found).toEqual([{ field: 'body', count: 1 }, { field: 'list[1]', count: 1 }, { field: 'nested.deep.s', count: 1 }])
    const top: SecretFinding[] = []
    expect(redactSecretsDeep(`x ${jwt}`, top)).toBe(`x ${REDACTED_SECRET}`)
    expect(top).toEqual([{ field: '(value)', count: 1 }])
  })
})
