import { describe, expect, it } from 'vitest'
import { parseEnv, EnvError } from '../../core/config'
import { ILLUSTRATIVE } from '../../core/database'
import { seedIllustrative } from '../../subgraphs/seed'
import { itemStatus, personaVersionFor } from '../../core/identity'
import { useTestDatabase } from '../helpers/db'

const t = useTestDatabase()

describe('environment', () => {
  it('lists every bad variable at once instead of stopping at the first', () => {
    try {
      parseEnv({ GATEWAY_PORT: 'abc', RELEASE: 'R9', R4_GATE_PASSED: 'maybe', DATABASE_URL: 'not a url', CONNECTION_SECRET_KEY: 'short' })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(EnvError)
      const problems = (e as EnvError).problems.join('\n')
      for (const name of ['GATEWAY_PORT', 'RELEASE', 'R4_GATE_PASSED', 'DATABASE_URL', 'CONNECTION_SECRET_KEY']) expect(problems).toContain(name)
    }
  })

  it('defaults to release R4 with the R4 gate not passed, so R4 items read designed', () => {
    const e = parseEnv({})
    expect(e.RELEASE).toBe('R4')
    expect(e.R4_GATE_PASSED).toBe(false)
    expect(itemStatus('R4', { release: 'R4', gatePassed: false })).toBe('designed')
    expect(itemStatus('R4', { release: 'R4', gatePassed: true })).toBe('preview')
    expect(itemStatus('R5', { release: 'R4', gatePassed: true })).toBeNull()
    expect(personaVersionFor('R4')).toBe(4)
    expect(personaVersionFor('R3')).toBe(3)
  })
})

describe('illustrative seed', () => {
  it('creates one organisation, one illustrative program and a user per persona, and is idempotent', async () => {
    const first = await seedIllustrative(t.current.db)
    const second = await seedIllustrative(t.current.db)
    expect(second.program.id).toBe(first.program.id)
    expect(first.program.illustrative).toBe(true)
    expect(await t.current.db.organization.count({ where: { slug: ILLUSTRATIVE.organization.slug } })).toBe(1)
    expect(await t.current.db.user.count({ where: { organizationId: first.organization.id } })).toBe(7)
    const personas = await t.current.db.roleAssignment.findMany({ where: { programId: first.program.id }, select: { personaKey: true } })
    expect(personas.map((p) => p.personaKey).sort()).toEqual(
      ['manufacturing_specialist', 'program_lead', 'program_owner', 'quality_reviewer', 'scientist', 'viewer'])
    expect(await t.current.db.orgRoleAssignment.count({ where: { organizationId: first.organization.id, personaKey: 'org_admin' } })).toBe(1)
    // A few program records, once, each with its first version.
    expect(await t.current.db.programRecord.count({ where: { programId: first.program.id } })).toBe(10)
    expect(await t.current.db.programRecordVersion.count({ where: { organizationId: first.organization.id } })).toBe(10)
  })
})
