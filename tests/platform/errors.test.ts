// The error catalogue: every code of the three documents, one schema object per code, and the compatibility of
// `new DomainError(code, ...)` with the typed classes.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildASTSchema, isObjectType, parse } from 'graphql'
import { CORE_ERROR_CLASSES, DomainError, ERROR_CATALOGUE, ERROR_CODES, InvalidInput, InvalidTransition, NotFoundError, StaleProposal } from '../../core/errors'
import { RateLimited, VENDOR_ERROR_CLASSES } from '../../domain/adapters'
import { apiSchemaSdl } from '../../clients/console/codegen'
import { readSupergraph } from '../../gateway/supergraph'

const SPEC_DIR = path.resolve(process.cwd(), '../shared/spec')
const specErrorCodes = () => readdirSync(SPEC_DIR).filter((f) => f.endsWith('.txt')).flatMap((f) => {
  const text = readFileSync(path.join(SPEC_DIR, f), 'utf8')
  const section = text.slice(text.indexOf('## Errors'), text.indexOf('\n## ', text.indexOf('## Errors') + 1) >>> 0)
  // Table rows whose first cell opens with a code: `| stale_proposal | R3 | ...` or `| sop_external (409) | ...`.
  return [...section.matchAll(/^\| ([A-Za-z_]+)(?: \((\d{3}|typed)\))? \|/gm)].map((m) => ({ code: m[1], status: m[2] }))
})

describe('the error catalogue', () => {
  it.skipIf(!existsSync(SPEC_DIR))('holds every code of the three documents\' Errors tables, with the documented status', () => {
    const found = specErrorCodes().filter((c) => !['Code'].includes(c.code))
    expect(found.length).toBeGreaterThan(20)
    for (const { code, status } of found) {
      // 'NotSupported' is the adapters' refusal; its code here is not_supported.
      const key = code === 'NotSupported' ? 'not_supported' : code
      expect(ERROR_CATALOGUE, code).toHaveProperty(key)
      if (status && status !== 'typed') expect(ERROR_CATALOGUE[key as keyof typeof ERROR_CATALOGUE].status, code).toBe(Number(status))
    }
  })

  it('gives every code one class and one schema object implementing Error, with its data fields', async () => {
    const classes = [...CORE_ERROR_CLASSES, ...VENDOR_ERROR_CLASSES]
    expect(classes.map((k) => k.code).sort()).toEqual([...ERROR_CODES].sort())
    const api = buildASTSchema(parse(apiSchemaSdl(await readSupergraph())))
    for (const code of ERROR_CODES) {
      const type = api.getType(ERROR_CATALOGUE[code].type)
      expect(isObjectType(type), code).toBe(true)
      if (!isObjectType(type)) continue
      expect(type.getInterfaces().map((i) => i.name)).toEqual(['Error'])
      const spec = ERROR_CATALOGUE[code] as { data?: Record<string, unknown> }
      expect(Object.keys(type.getFields()).sort()).toEqual(['code', 'field', 'message', ...Object.keys(spec.data ?? {})].sort())
    }
  })

  it('turns new DomainError(code, message, extra) into the typed class of the code, data included', () => {
    const e = new DomainError('invalid_input', 'persona: unknown', { field: 'persona' })
    expect(e).toBeInstanceOf(InvalidInput)
    expect(e).toMatchObject({ code: 'invalid_input', field: 'persona', message: 'persona: unknown', issues: [{ field: 'persona', message: 'persona: unknown' }], httpStatus: 422 })
    expect(new DomainError('invalid_transition', 'no', { details: { from: 'disconnected', to: 'active' } })).toMatchObject({ from: 'disconnected', to: 'active', httpStatus: 409 })
    expect(new DomainError('invalid_transition')).toBeInstanceOf(InvalidTransition)
    expect(new DomainError('stale_proposal', undefined, { details: { currentBasis: 'b2' } })).toMatchObject({ currentBasis: 'b2', message: 'Changed since proposed.' })
    expect(new DomainError('not_found', 'Program was not found.')).toBeInstanceOf(NotFoundError)
    expect(new DomainError('RateLimited', undefined, { details: { source: 'eln_provider', retryAfterSeconds: 30 } })).toMatchObject({ source: 'eln_provider', retryAfterSeconds: 30 })
    expect(new StaleProposal('b1').extensions).toEqual({ code: 'STALE_PROPOSAL', errorCode: 'stale_proposal' })
    expect(new RateLimited('eln_provider', 12).extensions).toEqual({ code: 'RATE_LIMITED', errorCode: 'RateLimited' })
    expect(new RateLimited('eln_provider', 12)).toMatchObject({ code: 'RateLimited', httpStatus: 429, message: 'budget exhausted for source eln_provider, retry after 12 s' })
  })
})
