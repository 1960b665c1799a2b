// Pins the permission catalogue and persona bundles to the specification's counts, and the workbench role catalogue to its rules.
import { describe, expect, it } from 'vitest'
import {
  ALL_PERMISSION_KEYS,
  ORG_PERSONAS,
  PERMISSIONS_BY_VERSION,
  PERSONA_BUNDLES,
  PERSONA_VERSION_BY_RELEASE,
  PERSONA_VERSIONS,
  PRODUCTS,
  PROGRAM_PERSONAS,
  bundleFor,
  hasPermission,
  productOf,
  type PersonaVersion,
  type ProgramPersona,
} from '../core/permissions'
import {
  EXPECTED_WORKBENCH_ROLE_COUNT,
  USER_SETTING_WORKBENCH_ROLE,
  WORKBENCH_ROLES,
  WORKBENCH_ROLE_VERSION,
  fallbackHarness,
  harnessKeyFor,
  isWorkbenchRoleHeld,
} from '../core/identity'

const keysAt = (v: PersonaVersion) => PERMISSIONS_BY_VERSION[v]
const groupCounts = (v: PersonaVersion) =>
  Object.fromEntries(PRODUCTS.map((p) => [p, keysAt(v).filter((k) => productOf(k) === p).length]))
const added = (from: PersonaVersion, to: PersonaVersion) => keysAt(to).filter((k) => !keysAt(from).includes(k))
const bundle = (v: PersonaVersion, p: ProgramPersona) => PERSONA_BUNDLES[v][p]
const gained = (p: ProgramPersona, from: PersonaVersion, to: PersonaVersion) =>
  [...bundle(to, p)].filter((k) => !bundle(from, p).has(k)).sort()
const lost = (p: ProgramPersona, from: PersonaVersion, to: PersonaVersion) =>
  [...bundle(from, p)].filter((k) => !bundle(to, p).has(k)).sort()

const R3_KEYS = [
  'program.twins.read',
  'program.twins.read_own',
  'program.twins.use',
  'program.twins.manage',
  'program.handoffs.read',
  'program.handoffs.manage',
]
const R4_KEYS = ['review.stage_reviews.approve', 'progress.stages.read', 'progress.stages.manage', 'progress.stages.approve']

describe('permission catalogue', () => {
  it.each([
    [2, 81],
    [3, 87],
    [4, 91],
    [5, 92],
  ] as const)('holds %i -> %i keys', (v, n) => {
    expect(keysAt(v)).toHaveLength(n)
    expect(new Set(keysAt(v)).size).toBe(n)
  })

  it('maps R3, R4 and R5 to persona versions 3, 4 and 5, and earlier releases to version 2', () => {
    expect(PERSONA_VERSION_BY_RELEASE.R1).toBe(2)
    expect(PERSONA_VERSION_BY_RELEASE.R2).toBe(2)
    expect(PERSONA_VERSION_BY_RELEASE.R3).toBe(3)
    expect(PERSONA_VERSION_BY_RELEASE.R4).toBe(4)
    expect(PERSONA_VERSION_BY_RELEASE.R5).toBe(5)
  })

  it('groups 13 org and 74 program-scope keys at persona version 3 as the twins document counts them', () => {
    expect(groupCounts(3)).toEqual({ org: 13, program: 27, evidence: 13, plans: 14, review: 10, progress: 10 })
    expect(keysAt(3).filter((k) => productOf(k) !== 'org')).toHaveLength(74)
  })

  it('groups 13 org and 78 program-scope keys at persona version 4 (review 11, progress 13)', () => {
    expect(groupCounts(4)).toEqual({ org: 13, program: 27, evidence: 13, plans: 14, review: 11, progress: 13 })
    expect(keysAt(4).filter((k) => productOf(k) !== 'org')).toHaveLength(78)
  })

  it('has 21 program keys at persona version 2, before the six R3 twin and hand-off keys', () => {
    expect(groupCounts(2)).toEqual({ org: 13, program: 21, evidence: 13, plans: 14, review: 10, progress: 10 })
    expect(added(2, 3).sort()).toEqual([...R3_KEYS].sort())
  })

  it('adds the stage review and the three stage keys at persona version 4', () => {
    expect(added(3, 4).sort()).toEqual([...R4_KEYS].sort())
  })

  it('adds only org.twins.use at R5, held by org owner and org admin', () => {
    expect(added(4, 5)).toEqual(['org.twins.use'])
    expect(groupCounts(5).org).toBe(14)
    for (const p of ORG_PERSONAS) {
      expect(PERSONA_BUNDLES[5][p].has('org.twins.use')).toBe(p === 'org_owner' || p === 'org_admin')
    }
  })

  it('never removes a key from one version to the next', () => {
    for (const [from, to] of [[2, 3], [3, 4], [4, 5]] as const) {
      for (const k of keysAt(from)) expect(keysAt(to)).toContain(k)
    }
  })

  it('writes every key as product.resource.action with a known product', () => {
    for (const k of ALL_PERMISSION_KEYS) {
      expect(k).toMatch(/^[a-z_]+\.[a-z_]+\.[a-z_]+$/)
      expect(PRODUCTS).toContain(productOf(k))
    }
  })

  it('contains every key the documents name', () => {
    const named = [
      ...R3_KEYS,
      ...R4_KEYS,
      'org.twins.use',
      'org.audit.read',
      'org.role_memory.read',
      'org.role_memory.manage',
      'program.agent_memory.read',
      'program.agent_memory.manage',
      'program.members.manage',
      'program.settings.read',
      'program.settings.update',
      'program.audit.read',
      'program.connections.read',
      'program.connections.manage',
      'evidence.hypotheses.approve',
      'plans.plans.approve',
      'plans.plans.manage',
      'review.sops.manage',
      'evidence.agents.use',
      'plans.agents.use',
      'review.agents.use',
      'progress.agents.use',
    ]
    for (const k of named) expect(ALL_PERMISSION_KEYS).toContain(k)
  })

  it('gives org.role_memory.read to the four organisation personas and org.role_memory.manage to org owner and admin', () => {
    for (const v of PERSONA_VERSIONS) {
      expect(ORG_PERSONAS.filter((p) => PERSONA_BUNDLES[v][p].has('org.role_memory.read'))).toHaveLength(4)
      expect(ORG_PERSONAS.filter((p) => PERSONA_BUNDLES[v][p].has('org.role_memory.manage'))).toEqual(['org_owner', 'org_admin'])
    }
  })

  it('keeps organisation personas unchanged until R5, where org owner and org admin gain exactly one key', () => {
    for (const p of ORG_PERSONAS) {
      expect([...PERSONA_BUNDLES[3][p]]).toEqual([...PERSONA_BUNDLES[2][p]])
      expect([...PERSONA_BUNDLES[4][p]]).toEqual([...PERSONA_BUNDLES[2][p]])
      const gain = [...PERSONA_BUNDLES[5][p]].filter((k) => !PERSONA_BUNDLES[4][p].has(k))
      expect(gain).toEqual(p === 'org_owner' || p === 'org_admin' ? ['org.twins.use'] : [])
    }
  })

  it('gives program personas only program-scope keys and organisation personas only org keys', () => {
    for (const v of PERSONA_VERSIONS) {
      for (const p of PROGRAM_PERSONAS) for (const k of bundle(v, p)) expect(productOf(k)).not.toBe('org')
      for (const p of ORG_PERSONAS) for (const k of PERSONA_BUNDLES[v][p]) expect(productOf(k)).toBe('org')
    }
  })

  it('only grants keys that exist at that persona version', () => {
    for (const v of PERSONA_VERSIONS) {
      for (const b of Object.values(PERSONA_BUNDLES[v])) for (const k of b) expect(keysAt(v)).toContain(k)
    }
  })
})

describe('persona bundles', () => {
  const COUNTS: Record<ProgramPersona, [number, number, number]> = {
    program_owner: [68, 74, 78],
    program_lead: [67, 73, 77],
    scientist: [47, 49, 50],
    quality_reviewer: [38, 43, 45],
    manufacturing_specialist: [34, 38, 40],
    viewer: [27, 29, 30],
  }

  it.each(PROGRAM_PERSONAS.flatMap((p) => ([2, 3, 4] as const).map((v, i) => [p, COUNTS[p][i], v] as const)))(
    'grants the %s %i permissions at persona version %i',
    (p, n, v) => {
      expect(bundle(v, p).size).toBe(n)
    },
  )

  it('grants the program owner all 68 program-scope keys of the 81 at persona version 2', () => {
    expect(bundle(2, 'program_owner').size).toBe(68)
    expect(keysAt(2).filter((k) => productOf(k) !== 'org')).toHaveLength(68)
  })

  it('at persona version 5 gives the quality reviewer and manufacturing specialist program.agent_memory.manage and nothing else', () => {
    expect(gained('quality_reviewer', 4, 5)).toEqual(['program.agent_memory.manage'])
    expect(gained('manufacturing_specialist', 4, 5)).toEqual(['program.agent_memory.manage'])
    expect(bundle(5, 'quality_reviewer').size).toBe(46)
    expect(bundle(5, 'manufacturing_specialist').size).toBe(41)
    for (const p of ['program_owner', 'program_lead', 'scientist', 'viewer'] as const) {
      expect([...bundle(5, p)]).toEqual([...bundle(4, p)])
    }
  })

  it('lets owners and leads absorb every key added at persona versions 3, 4 and 5', () => {
    for (const [from, to] of [[2, 3], [3, 4], [4, 5]] as const) {
      for (const k of added(from, to).filter((k) => productOf(k) !== 'org')) {
        expect(bundle(to, 'program_owner')).toContain(k)
        expect(bundle(to, 'program_lead')).toContain(k)
      }
    }
  })

  it('keeps the owner holding every program-scope key and the lead all but one at every version', () => {
    for (const v of PERSONA_VERSIONS) {
      const programKeys = keysAt(v).filter((k) => productOf(k) !== 'org')
      expect([...bundle(v, 'program_owner')].sort()).toEqual([...programKeys].sort())
      expect(programKeys.filter((k) => !bundle(v, 'program_lead').has(k))).toEqual(['program.ownership.transfer'])
    }
  })

  it('at persona version 3 the scientist gains the twin and hand-off keys and loses the two approve keys', () => {
    expect(gained('scientist', 2, 3)).toEqual(
      ['program.handoffs.manage', 'program.handoffs.read', 'program.twins.read_own', 'program.twins.use'].sort(),
    )
    expect(lost('scientist', 2, 3)).toEqual(['evidence.hypotheses.approve', 'plans.plans.approve'])
  })

  it('at persona version 3 the quality reviewer gains twin oversight, own twin, twin use and both hand-off keys', () => {
    expect(gained('quality_reviewer', 2, 3)).toEqual(
      [
        'program.twins.read',
        'program.twins.read_own',
        'program.twins.use',
        'program.handoffs.read',
        'program.handoffs.manage',
      ].sort(),
    )
    expect(lost('quality_reviewer', 2, 3)).toEqual([])
  })

  it('at persona version 3 the manufacturing specialist gains own twin, twin use and both hand-off keys', () => {
    expect(gained('manufacturing_specialist', 2, 3)).toEqual(
      ['program.twins.read_own', 'program.twins.use', 'program.handoffs.read', 'program.handoffs.manage'].sort(),
    )
    expect(lost('manufacturing_specialist', 2, 3)).toEqual([])
  })

  it('at persona version 3 the viewer gains only program.twins.read_own and program.handoffs.read', () => {
    expect(gained('viewer', 2, 3)).toEqual(['program.handoffs.read', 'program.twins.read_own'])
    expect(bundle(3, 'viewer').has('program.twins.use')).toBe(false)
  })

  it('at persona version 4 scientist, quality reviewer and manufacturing specialist gain exactly the listed stage keys', () => {
    expect(gained('scientist', 3, 4)).toEqual(['progress.stages.read'])
    expect(gained('quality_reviewer', 3, 4)).toEqual(['progress.stages.read', 'review.stage_reviews.approve'])
    expect(gained('manufacturing_specialist', 3, 4)).toEqual(['progress.stages.manage', 'progress.stages.read'])
    expect(gained('viewer', 3, 4)).toEqual(['progress.stages.read'])
    for (const p of PROGRAM_PERSONAS) expect(lost(p, 3, 4)).toEqual([])
  })

  it('gives the R3 and R4 keys to exactly the holders of the twins document', () => {
    const holders = (v: PersonaVersion, k: string) => PROGRAM_PERSONAS.filter((p) => bundle(v, p).has(k))
    const allButViewer = PROGRAM_PERSONAS.filter((p) => p !== 'viewer')
    expect(holders(3, 'program.twins.read')).toEqual(['program_owner', 'program_lead', 'quality_reviewer'])
    expect(holders(3, 'program.twins.read_own')).toEqual([...PROGRAM_PERSONAS])
    expect(holders(3, 'program.twins.use')).toEqual(allButViewer)
    expect(holders(3, 'program.twins.manage')).toEqual(['program_owner', 'program_lead'])
    expect(holders(3, 'program.handoffs.read')).toEqual([...PROGRAM_PERSONAS])
    expect(holders(3, 'program.handoffs.manage')).toEqual(allButViewer)
    expect(holders(4, 'review.stage_reviews.approve')).toEqual(['program_owner', 'program_lead', 'quality_reviewer'])
    expect(holders(4, 'progress.stages.read')).toEqual([...PROGRAM_PERSONAS])
    expect(holders(4, 'progress.stages.manage')).toEqual(['program_owner', 'program_lead', 'manufacturing_specialist'])
    expect(holders(4, 'progress.stages.approve')).toEqual(['program_owner', 'program_lead'])
  })

  it('gives program.agent_memory.manage to scientist, lead and owner at persona version 3', () => {
    const holders = PROGRAM_PERSONAS.filter((p) => bundle(3, p).has('program.agent_memory.manage'))
    expect(holders).toEqual(['program_owner', 'program_lead', 'scientist'])
  })

  it('keeps review.sops.manage away from the scientist, so requirement sets travel as a hand-off', () => {
    for (const v of PERSONA_VERSIONS) expect(bundle(v, 'scientist').has('review.sops.manage')).toBe(false)
  })
})

describe('bundleFor', () => {
  it('returns the union of the bundles of several personas', () => {
    const union = bundleFor(['scientist', 'manufacturing_specialist'], 4)
    const expected = new Set([...bundle(4, 'scientist'), ...bundle(4, 'manufacturing_specialist')])
    expect([...union].sort()).toEqual([...expected].sort())
    expect(union.size).toBeGreaterThan(bundle(4, 'scientist').size)
    expect(union.has('progress.stages.manage')).toBe(true)
    expect(union.has('evidence.hypotheses.manage')).toBe(true)
  })

  it('returns an empty set for no personas and ignores unknown persona names', () => {
    expect(bundleFor([], 3).size).toBe(0)
    expect([...bundleFor(['viewer', 'not_a_persona'], 3)].sort()).toEqual([...bundle(3, 'viewer')].sort())
  })

  it('refuses an unknown persona version', () => {
    expect(() => bundleFor(['viewer'], 1)).toThrow(RangeError)
  })
})

describe('hasPermission', () => {
  const grants = {
    programPersonas: new Map([
      ['prog-a', ['scientist']],
      ['prog-b', ['viewer']],
    ]),
    orgPersonas: ['org_auditor'],
  }

  it('checks program keys against the personas held in that program only', () => {
    expect(hasPermission(grants, 'evidence.hypotheses.manage', 'prog-a', 3)).toBe(true)
    expect(hasPermission(grants, 'evidence.hypotheses.manage', 'prog-b', 3)).toBe(false)
    expect(hasPermission(grants, 'evidence.hypotheses.manage', 'prog-c', 3)).toBe(false)
    expect(hasPermission(grants, 'evidence.hypotheses.manage', null, 3)).toBe(false)
  })

  it('checks org keys against organisation personas whatever the program', () => {
    expect(hasPermission(grants, 'org.audit.read', null, 3)).toBe(true)
    expect(hasPermission(grants, 'org.audit.read', 'prog-a', 3)).toBe(true)
    expect(hasPermission(grants, 'org.members.manage', null, 3)).toBe(false)
  })

  it('follows the persona version: the scientist approves hypotheses at v2 but not at v3', () => {
    expect(hasPermission(grants, 'evidence.hypotheses.approve', 'prog-a', 2)).toBe(true)
    expect(hasPermission(grants, 'evidence.hypotheses.approve', 'prog-a', 3)).toBe(false)
  })

  it('denies a key that does not exist yet at the version and throws on a key that never exists', () => {
    expect(hasPermission(grants, 'progress.stages.read', 'prog-a', 3)).toBe(false)
    expect(hasPermission(grants, 'progress.stages.read', 'prog-a', 4)).toBe(true)
    expect(() => hasPermission(grants, 'evidence.hypotheses.delete', 'prog-a', 3)).toThrow(RangeError)
  })
})

describe('workbench roles', () => {
  it('has 15 roles at workbench role version 1 and stores the choice under workbench_role', () => {
    expect(WORKBENCH_ROLE_VERSION).toBe(1)
    expect(EXPECTED_WORKBENCH_ROLE_COUNT).toBe(15)
    expect(WORKBENCH_ROLES).toHaveLength(EXPECTED_WORKBENCH_ROLE_COUNT)
    expect(new Set(WORKBENCH_ROLES.map((r) => r.key)).size).toBe(15)
    expect(USER_SETTING_WORKBENCH_ROLE).toBe('workbench_role')
  })

  it.each(WORKBENCH_ROLES.map((r) => [r.key, r] as const))(
    'finds every record type of %s as a .manage key held by a mapped persona at persona version 3',
    (_key, r) => {
      for (const t of r.record_types) {
        const key = `${t}.manage`
        expect(keysAt(3)).toContain(key)
        const writers = r.record_type_personas[t]
        expect(writers.length).toBeGreaterThan(0)
        for (const p of writers) expect(r.personas).toContain(p)
        expect(writers.some((p) => bundle(3, p).has(key))).toBe(true)
      }
    },
  )

  it('respects the persona the table names per record type for the CMC and formulation roles', () => {
    const cmc = WORKBENCH_ROLES.find((r) => r.key === 'cmc_process_scientist')!
    for (const p of cmc.record_type_personas['plans.plans']) expect(bundle(3, p).has('plans.plans.manage')).toBe(true)
    expect(bundle(3, 'manufacturing_specialist').has('progress.milestones.manage')).toBe(true)
    expect(bundle(3, 'manufacturing_specialist').has('progress.dependencies.manage')).toBe(true)
    expect(bundle(3, 'scientist').has('plans.protocols.manage')).toBe(true)
    expect(bundle(3, 'scientist').has('evidence.findings.manage')).toBe(true)
    const formulation = WORKBENCH_ROLES.find((r) => r.key === 'formulation_scientist')!
    expect(formulation.record_type_personas['progress.dependencies']).toEqual(['manufacturing_specialist'])
  })

  it('never uses a persona key as a workbench role key', () => {
    const personas = new Set<string>([...PROGRAM_PERSONAS, ...ORG_PERSONAS])
    for (const r of WORKBENCH_ROLES) expect(personas.has(r.key)).toBe(false)
  })

  it('never uses a workbench role key inside any permission string at any version', () => {
    for (const r of WORKBENCH_ROLES) for (const k of ALL_PERMISSION_KEYS) expect(k.includes(r.key)).toBe(false)
  })

  it('falls back to owner, lead, quality reviewer, manufacturing specialist, scientist, first wins; a viewer gets no harness', () => {
    expect(fallbackHarness(['scientist', 'program_lead'])).toBe('program_lead')
    expect(fallbackHarness(['scientist', 'manufacturing_specialist'])).toBe('manufacturing_specialist')
    expect(fallbackHarness(['scientist', 'quality_reviewer', 'program_owner'])).toBe('program_owner')
    expect(fallbackHarness(['viewer'])).toBeNull()
    expect(fallbackHarness(['viewer', 'scientist'])).toBe('scientist')
  })

  it('runs the neutral harness of the persona held for a role mapped to two personas', () => {
    expect(harnessKeyFor(['scientist'], 'cmc_process_scientist')).toBe('scientist')
    expect(harnessKeyFor(['manufacturing_specialist', 'scientist'], 'cmc_process_scientist')).toBe('manufacturing_specialist')
    expect(harnessKeyFor(['scientist'], 'medicinal_chemist')).toBe('medicinal_chemist')
    expect(harnessKeyFor(['quality_reviewer'], null)).toBe('quality_reviewer')
  })

  it('offers a workbench role only to people holding one of its personas', () => {
    expect(isWorkbenchRoleHeld('qa_reviewer', ['scientist'])).toBe(false)
    expect(isWorkbenchRoleHeld('qa_reviewer', ['quality_reviewer'])).toBe(true)
    expect(isWorkbenchRoleHeld('formulation_scientist', ['manufacturing_specialist'])).toBe(true)
    expect(isWorkbenchRoleHeld('no_such_role', ['scientist'])).toBe(false)
    expect(harnessKeyFor(['scientist'], 'qa_reviewer')).toBe('scientist')
  })

  it('ships eleven roles at R4 and reserves formulation, computational biology, biostatistics and portfolio head for R5', () => {
    expect(WORKBENCH_ROLES.filter((r) => r.release === 'R5').map((r) => r.key)).toEqual([
      'formulation_scientist',
      'computational_biologist',
      'biostatistician',
      'portfolio_head',
    ])
    expect(WORKBENCH_ROLES.filter((r) => r.release === 'R4')).toHaveLength(11)
  })
})
