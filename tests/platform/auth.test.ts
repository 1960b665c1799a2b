import { describe, expect, it } from 'vitest'
import * as jose from 'jose'
import { mintDevToken, signGatewayToken, signInternalToken, verifyCallerToken, verifyGatewayToken, verifyInternalToken, devKeyPair } from '../../core/identity'
import { env } from '../../core/config'
import { useTestDatabase } from '../helpers/db'

useTestDatabase()
const user = { id: '6f1c1f0e-8a55-4a52-9d55-6c1c2a3b4d5e', email: 'someone@test.example' }

async function codeOf(p: Promise<unknown>) {
  try { await p } catch (e: any) { return { code: e.extensions?.code, message: e.message as string } }
  return { code: 'accepted', message: '' }
}

describe('caller tokens', () => {
  it('accepts a development token signed by the local key, which says its person authenticated when it was minted', async () => {
    const before = Math.floor(Date.now() / 1000)
    const claims = await verifyCallerToken(`Bearer ${await mintDevToken(user)}`)
    expect(claims).toEqual({ sub: user.id, email: user.email, authTime: expect.any(Number) })
    expect(claims.authTime).toBeGreaterThanOrEqual(before)
    expect(claims.authTime).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000))
  })

  it('refuses an expired token with UNAUTHENTICATED and says it expired', async () => {
    const { privateKey, kid } = await devKeyPair()
    const expired = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256', kid }).setSubject(user.id)
      .setIssuer(env().AUTH_ISSUER).setAudience(env().AUTH_AUDIENCE).setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600).sign(privateKey)
    expect(await codeOf(verifyCallerToken(`Bearer ${expired}`))).toEqual({ code: 'UNAUTHENTICATED', message: 'The bearer token has expired.' })
  })

  it('refuses a token signed by another key, with no stack trace or key material in the message', async () => {
    const { privateKey } = await jose.generateKeyPair('ES256')
    const forged = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setSubject(user.id)
      .setIssuer(env().AUTH_ISSUER).setAudience(env().AUTH_AUDIENCE).setExpirationTime('1h').sign(privateKey)
    const r = await codeOf(verifyCallerToken(`Bearer ${forged}`))
    expect(r).toEqual({ code: 'UNAUTHENTICATED', message: 'The bearer token is not valid.' })
  })

  it('refuses a missing, malformed or wrong-audience token', async () => {
    expect((await codeOf(verifyCallerToken(undefined))).code).toBe('UNAUTHENTICATED')
    expect((await codeOf(verifyCallerToken('Bearer not-a-jwt'))).code).toBe('UNAUTHENTICATED')
    const { privateKey, kid } = await devKeyPair()
    const otherAudience = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256', kid }).setSubject(user.id)
      .setIssuer(env().AUTH_ISSUER).setAudience('someone-else').setExpirationTime('1h').sign(privateKey)
    expect((await codeOf(verifyCallerToken(`Bearer ${otherAudience}`))).code).toBe('UNAUTHENTICATED')
  })

  it('does not accept a caller token where the internal gateway token is required', async () => {
    expect((await codeOf(verifyInternalToken(await mintDevToken(user)))).code).toBe('UNAUTHENTICATED')
    const internal = await signInternalToken({ userId: user.id, organizationId: 'org-1', requestId: 'r1' })
    expect(await verifyInternalToken(internal)).toMatchObject({ userId: user.id, organizationId: 'org-1', requestId: 'r1', sessionVersion: null })
    const versioned = await signInternalToken({ userId: user.id, organizationId: 'org-1', sessionVersion: 7 })
    expect(await verifyInternalToken(versioned)).toMatchObject({ userId: user.id, organizationId: 'org-1', requestId: '', sessionVersion: 7 })
  })

  it('keeps the gateway\'s own token and a person\'s internal token apart: neither is accepted where the other is required', async () => {
    const gateway = await signGatewayToken()
    const person = await signInternalToken({ userId: user.id, organizationId: 'org-1' })
    expect((await codeOf(verifyGatewayToken(gateway))).code).toBe('accepted')
    expect((await codeOf(verifyInternalToken(gateway))).code).toBe('UNAUTHENTICATED')
    expect((await codeOf(verifyGatewayToken(person))).code).toBe('UNAUTHENTICATED')
    expect((await codeOf(verifyGatewayToken(await mintDevToken(user)))).code).toBe('UNAUTHENTICATED')
    expect((await codeOf(verifyGatewayToken(undefined))).code).toBe('UNAUTHENTICATED')
    const { privateKey } = await jose.generateKeyPair('ES256')
    const forged = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256' }).setSubject('urn:evidence-workspace:gateway')
      .setIssuer('urn:evidence-workspace:gateway').setAudience('urn:evidence-workspace:subgraph-socket').setExpirationTime('60s').sign(privateKey)
    expect((await codeOf(verifyGatewayToken(forged))).code).toBe('UNAUTHENTICATED')
  })
})
