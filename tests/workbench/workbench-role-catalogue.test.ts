// The workbench role catalogue, the persona harness catalogue and the effective toolset, pinned against the memory and
// workbench roles document: fifteen roles, twenty harnesses, record types as permission resources held by a mapped
// persona, keys apart from personas and permission strings, the regulatory hand-off, duty templates, the fallback
// order, and the property that no workbench role widens a run's toolset.
import { describe, expect, it } from 'vitest'
import {
  EXPECTED_WORKBENCH_ROLE_COUNT, FALLBACK_PERSONA_ORDER, FOLDED_ROLES, RESERVED_DUTY_TEMPLATES, ROADMAP_NOT_KEYS, ROLE_DUTY_TEMPLATES,
  WORKBENCH_ROLES, WORKBENCH_ROLE_KEYS, WORKBENCH_ROLE_VERSION, fallbackHarness, harnessKeyFor, isWorkbenchRoleHeld, workbenchRole,
  workbenchRoleOut, wornRole,
} from '../../core/identity'
import { ALL_PERMISSION_KEYS, PERMISSIONS_BY_VERSION, PERSONAS, PROGRAM_PERSONAS, bundleFor, type PersonaVersion, type ProgramPersona } from '../../core/permissions'
import { currentPersonaVersion } from '../../core/identity'
import type { Session } from '../../core/identity'
import { ALWAYS_ALLOWED_TOOLS, EXPECTED_HARNESS_COUNT, PERSONA_HARNESSES, personaHarness } from '../../subgraphs/twins/harness/persona-harnesses'
import { PLANNING_TOOLS, READER_RUN_KINDS, RUN_KIND_ROLES, allowList, effectiveToolset, isReaderRunKind, runRoleTools } from '../../subgraphs/twins/tools/toolset'
import { TOOLS, toolByName } from '../../subgraphs/twins/tools/catalogue'
import { READER_RUN_ROLES, defineTool, isUntrusted } from '../../subgraphs/twins/tools/tool'
import { agentRunKinds } from '../../core/config'
import { z } from 'zod'
import { dutyRefusal, dutyTemplate } from '../../domain/twins'
import { DUTY_TEMPLATES } from '../../subgraphs/twins/harness/duties'
import { decisionFooter, workingAsOf } from '../../domain/proposals'

const PROGRAM = '00000000-0000-4000-8000-000000000001'
const session = (personas: readonly string[]): Session => ({
  userId: '00000000-0000-4000-8000-000000000002', organizationId: '00000000-0000-4000-8000-000000000003', email: 'p@test.example', name: 'P',
  programPersonas: new Map([[PROGRAM, [...personas]]]), orgPersonas: [], personaVersion: currentPersonaVersion(), version: 0,
})
/** Every non-empty combination of the six program personas (63). */
const COMBINATIONS: ProgramPersona[][] = Array.from({ length: 2 ** PROGRAM_PERSONAS.length - 1 }, (_, i) =>
  PROGRAM_PERSONAS.filter((_, bit) => ((i + 1) >> bit) & 1))

describe('the workbench role catalogue', () => {
  it('holds fifteen roles at version 1, with distinct keys and names, each a WorkbenchRoleOut with its status', () => {
    expect(WORKBENCH_ROLE_VERSION).toBe(1)
    expect(EXPECTED_WORKBENCH_ROLE_COUNT).toBe(15)
    expect(WORKBENCH_ROLES).toHaveLength(EXPECTED_WORKBENCH_ROLE_COUNT)
    expect(new Set(WORKBENCH_ROLE_KEYS).size).toBe(15)
    expect(WORKBENCH_ROLE_KEYS).toEqual([
      'medicinal_chemist', 'biologist_pharmacologist', 'dmpk_tox_scientist', 'cmc_process_scientist', 'clinical_pharmacologist',
      'regulatory_strategist', 'medical_writer', 'qa_reviewer', 'program_manager', 'analytical_qc_scientist', 'formulation_scientist',
      'computational_biologist', 'biostatistician', 'ip_analyst', 'portfolio_head',
    ])
    for (const r of WORKBENCH_ROLES) {
      const out = workbenchRoleOut(r)
      expect(out).toMatchObject({ key: r.key, name: r.name, version: 1, status: 'designed', label_map_key: `role_labels/${r.key}` })
      expect(r.decides.length).toBeGreaterThan(10)
      expect(r.rail.length).toBeGreaterThan(0)
    }
    expect(workbenchRole('qa_reviewer')!.name).toBe('Quality reviewer (QA)')
    expect(workbenchRole('program_manager')!.promotes_setup).toBe(true)
  })

  it('makes every record type a permission resource whose .manage key exists and is held by a mapped persona at the persona version in force', () => {
    const version = currentPersonaVersion() as PersonaVersion
    const keys = new Set(PERMISSIONS_BY_VERSION[version])
    for (const r of WORKBENCH_ROLES) {
      for (const type of r.record_types) {
        expect(type, `${r.key}: ${type}`).toMatch(/^(evidence|plans|review|progress|program)\.[a-z_]+$/)
        expect(keys.has(`${type}.manage`), `${type}.manage exists at v${version}`).toBe(true)
        const writers = r.record_type_personas[type]
        expect(writers.length).toBeGreaterThan(0)
        expect(writers.every((p) => r.personas.includes(p))).toBe(true)
        expect(writers.some((p) => bundleFor([p], version).has(`${type}.manage`)), `${r.key}: a mapped persona holds ${type}.manage`).toBe(true)
      }
    }
  })

  it('keeps every key apart from persona keys and from every permission string', () => {
    const permissionStrings = [...ALL_PERMISSION_KEYS]
    for (const key of WORKBENCH_ROLE_KEYS) {
      expect((PERSONAS as readonly string[]).includes(key), `${key} is a persona key`).toBe(false)
      expect(permissionStrings.filter((p) => p.includes(key)), `${key} inside a permission string`).toEqual([])
    }
    expect(WORKBENCH_ROLE_KEYS).toContain('qa_reviewer')
    expect(WORKBENCH_ROLE_KEYS).not.toContain('quality_reviewer')
  })

  it("makes a regulatory strategist's requirement set a hand-off to qa_reviewer, never a proposal in the strategist's own name", () => {
    const strategist = workbenchRole('regulatory_strategist')!
    const qa = workbenchRole('qa_reviewer')!
    const version = currentPersonaVersion()
    // Requirement sets are written under review.sops.manage, which the scientist persona lacks.
    expect(strategist.personas).toEqual(['scientist'])
    expect(bundleFor(strategist.personas, version).has('review.sops.manage')).toBe(false)
    expect(strategist.record_types).not.toContain('review.sops')
    expect(strategist.record_type_notes).toEqual(['requirement sets are a hand-off to qa_reviewer'])
    expect(qa.record_types).toEqual(['review.sops', 'review.findings', 'review.deviations'])
    expect(bundleFor(qa.personas, version).has('review.sops.manage')).toBe(true)
    // Nor does the strategist's harness carry a review proposal tool.
    const strategistTools = TOOLS.filter(personaHarness('regulatory_strategist')!.includes).map((t) => t.name)
    expect(strategistTools.filter((n) => n.startsWith('review.propose_'))).toEqual([])
  })

  it('keeps folded roles and the roadmap as data, never as keys', () => {
    for (const name of [...Object.keys(FOLDED_ROLES), ...ROADMAP_NOT_KEYS]) {
      expect(WORKBENCH_ROLE_KEYS.some((k) => k === name.replace(/[ /]+/g, '_'))).toBe(false)
    }
    expect(Object.values(FOLDED_ROLES).sort()).toEqual(['clinical_pharmacologist', 'clinical_pharmacologist', 'dmpk_tox_scientist', 'dmpk_tox_scientist'])
    expect(ROADMAP_NOT_KEYS).toEqual(['clinical operations lead', 'pharmacovigilance physician', 'data manager', 'alliance / BD'])
  })
})

describe('harnesses and duty templates', () => {
  it("holds twenty harnesses: one per workbench role plus the five neutral persona harnesses (the R4 gate's 'harnesses 20')", () => {
    expect(EXPECTED_HARNESS_COUNT).toBe(20)
    expect(PERSONA_HARNESSES).toHaveLength(20)
    expect(PERSONA_HARNESSES.filter((h) => h.kind === 'workbench_role').map((h) => h.key)).toEqual([...WORKBENCH_ROLE_KEYS])
    expect(PERSONA_HARNESSES.filter((h) => h.kind === 'persona').map((h) => h.key))
      .toEqual(['scientist', 'quality_reviewer', 'program_lead', 'program_owner', 'manufacturing_specialist'])
    expect(personaHarness('medicinal_chemist')!.prompt).toBe('own')
    expect(personaHarness('dmpk_tox_scientist')!.prompt).toBe('own')
    expect(personaHarness('biologist_pharmacologist')!.prompt).toBe('scientist')
    expect(personaHarness('cmc_process_scientist')!.prompt).toBeNull()
    expect(personaHarness('viewer')).toBeUndefined()
    for (const h of PERSONA_HARNESSES) expect(TOOLS.filter(h.includes).map((t) => t.name)).toEqual(expect.arrayContaining([...ALWAYS_ALLOWED_TOOLS]))
  })

  it('ships sar_refresh and study_gate_check at R4 and keeps guidance_watch, stability_pull_reminder and shortage_watch reserved, never run', () => {
    expect(ROLE_DUTY_TEMPLATES.filter((d) => !d.reserved).map((d) => [d.key, d.role])).toEqual([['sar_refresh', 'medicinal_chemist'], ['study_gate_check', 'dmpk_tox_scientist']])
    expect(RESERVED_DUTY_TEMPLATES).toEqual(['guidance_watch', 'stability_pull_reminder', 'shortage_watch'])
    expect(dutyTemplate('sar_refresh')!.workbenchRole).toBe('medicinal_chemist')
    expect(dutyTemplate('study_gate_check')!.workbenchRole).toBe('dmpk_tox_scientist')
    for (const key of RESERVED_DUTY_TEMPLATES) {
      expect(DUTY_TEMPLATES[key], `${key} has no implementation`).toBeUndefined()
      expect(dutyRefusal(key, 'scientist', PROGRAM, { workbench_role: { [PROGRAM]: 'regulatory_strategist' } })).toBe(`The duty ${key} is reserved for R5.`)
    }
    // Persona templates run whether or not the role is worn; role templates need the role.
    expect(dutyRefusal('blocker_scan', 'scientist', PROGRAM, {})).toBeNull()
    expect(dutyRefusal('sar_refresh', 'scientist', PROGRAM, {})).toMatch(/needs the workbench role medicinal_chemist/)
    expect(dutyRefusal('sar_refresh', 'scientist', PROGRAM, { workbench_role: { [PROGRAM]: 'medicinal_chemist' } })).toBeNull()
  })
})

describe('fallback and the harness a person works under', () => {
  it('falls back by owner, lead, quality reviewer, manufacturing specialist, scientist (first wins) for every persona combination; a viewer has no harness', () => {
    expect(FALLBACK_PERSONA_ORDER).toEqual(['program_owner', 'program_lead', 'quality_reviewer', 'manufacturing_specialist', 'scientist'])
    for (const held of COMBINATIONS) {
      const expected = FALLBACK_PERSONA_ORDER.find((p) => held.includes(p)) ?? null
      expect(fallbackHarness(held), held.join('+')).toBe(expected)
      const worn = wornRole(held, null)
      expect(worn).toMatchObject({ workbenchRoleKey: null, harnessKey: expected, fallback: true })
    }
    expect(fallbackHarness(['viewer'])).toBeNull()
    expect(fallbackHarness(['scientist', 'manufacturing_specialist'])).toBe('manufacturing_specialist')
    expect(fallbackHarness(['scientist', 'quality_reviewer', 'program_lead'])).toBe('program_lead')
    expect(fallbackHarness(['viewer', 'scientist'])).toBe('scientist')
  })

  it('wears a role only while a held persona maps to it, and "neutral of the persona held" applies the fallback order to the shared personas', () => {
    for (const held of COMBINATIONS) {
      for (const r of WORKBENCH_ROLES) {
        const worn = wornRole(held, r.key)
        const holds = r.personas.some((p) => held.includes(p))
        expect(isWorkbenchRoleHeld(r.key, held)).toBe(holds)
        expect(worn.fallback).toBe(!holds)
        if (holds) expect(worn).toMatchObject({ workbenchRoleKey: r.key, workingAs: r.name, harnessKey: harnessKeyFor(held, r.key) })
      }
    }
    expect(harnessKeyFor(['scientist'], 'cmc_process_scientist')).toBe('scientist')
    expect(harnessKeyFor(['scientist', 'manufacturing_specialist'], 'cmc_process_scientist')).toBe('manufacturing_specialist')
    expect(wornRole(['scientist'], 'not_a_role')).toMatchObject({ fallback: true, harnessKey: 'scientist', workingAs: 'Scientist' })
  })
})

describe('the effective toolset', () => {
  it('is never widened by a workbench role: for every role and persona combination and run kind it stays inside run-role tools ∩ the allow-list and inside the toolset without a role', () => {
    let checked = 0
    for (const held of COMBINATIONS) {
      const s = session(held)
      const allowed = new Set(allowList(s, PROGRAM).map((t) => t.name))
      for (const kind of [...Object.keys(RUN_KIND_ROLES), 'stage_readiness']) {
        const byRunRole = new Set(runRoleTools(kind).map((t) => t.name))
        const neutral = worn(held, null)
        const withoutRole = new Set(effectiveToolset(s, { kind, programId: PROGRAM, ...neutral }).map((t) => t.name))
        // The neutral harness narrows nothing: run-role tools ∩ the allow-list.
        expect([...withoutRole].sort()).toEqual([...byRunRole].filter((n) => allowed.has(n)).sort())
        for (const r of WORKBENCH_ROLES) {
          const tools = effectiveToolset(s, { kind, programId: PROGRAM, ...worn(held, r.key) }).map((t) => t.name)
          for (const name of tools) {
            expect(allowed.has(name) && byRunRole.has(name) && withoutRole.has(name), `${r.key} as ${held.join('+')} (${kind}) widened to ${name}`).toBe(true)
          }
          // The always-allowed set is never removed by a role: present whenever the run role and the allow-list admit it.
          for (const name of ALWAYS_ALLOWED_TOOLS) expect(tools.includes(name)).toBe(allowed.has(name) && byRunRole.has(name))
          expect(tools).not.toContain('memory.propose_promotion')
          // Untrusted tools (outside content) only in a reader agent's toolset (R4 gate list, container tests).
          if (!isReaderRunKind(kind)) expect(tools.filter((n) => isUntrusted(toolByName(n)!)), `${kind} is a non-reader agent`).toEqual([])
          checked++
        }
      }
    }
    expect(checked).toBe(63 * 3 * 15)
  })

  it('keeps untrusted tools out of every non-reader agent by construction: only reader run roles hold them, no non-reader run kind or planning pass lists one, and a definition that breaks this never loads', () => {
    const untrusted = TOOLS.filter(isUntrusted)
    expect(untrusted.map((t) => [t.name, t.outside])).toEqual([
      ['qa.check_readiness', 'qms'], ['evidence.search_literature', 'literature'], ['documents.list_assets', 'documents'], ['documents.read_table_rows', 'documents'],
    ])
    for (const t of untrusted) expect(READER_RUN_ROLES).toContain(t.runRole)
    expect(TOOLS.filter((t) => !READER_RUN_ROLES.includes(t.runRole)).some(isUntrusted)).toBe(false)
    expect(READER_RUN_KINDS).toEqual(['twin_cycle'])
    expect(PLANNING_TOOLS.filter((n) => isUntrusted(toolByName(n)!))).toEqual([])
    // Every run kind of the release: only twin_cycle reads outside content; every other kind lists no untrusted tool.
    const everyone = session(PROGRAM_PERSONAS)
    for (const kind of agentRunKinds('R4')) {
      const names = effectiveToolset(everyone, { kind, programId: PROGRAM }).map((t) => t.name)
      if (kind === 'twin_cycle') expect(names).toEqual(expect.arrayContaining(['documents.list_assets', 'documents.read_table_rows', 'evidence.search_literature']))
      else expect(names.filter((n) => isUntrusted(toolByName(n)!)), kind).toEqual([])
    }
    // documents.list_assets is present for every persona combination's twin_cycle (everyone holds program.documents.read).
    for (const held of COMBINATIONS) expect(effectiveToolset(session(held), { kind: 'twin_cycle', programId: PROGRAM, ...worn(held, null) }).map((t) => t.name)).toContain('documents.list_assets')
    expect(() => defineTool({ name: 'console.read_web', description: '', kind: 'read', runRole: 'console', outside: 'literature', permission: 'program.twins.read_own', input: z.object({}), handler: async () => ({ result: {} }) }))
      .toThrow(/returns outside content \(literature\) and may not have the non-reader run role console/)
  })

  it('narrows a role to its own proposals and skills: a medicinal chemist files findings and runs the SAR table, not reports or tox skills', () => {
    const s = session(['scientist'])
    const names = effectiveToolset(s, { kind: 'twin_cycle', programId: PROGRAM, ...worn(['scientist'], 'medicinal_chemist') }).map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['evidence.propose_finding', 'evidence.propose_question', 'chem.sar_table_build', 'evidence.list_gaps', 'memory.recall']))
    expect(names).not.toContain('plans.propose_report')
    expect(names).not.toContain('tox.fih_dose_projection')
    const tox = effectiveToolset(s, { kind: 'twin_cycle', programId: PROGRAM, ...worn(['scientist'], 'dmpk_tox_scientist') }).map((t) => t.name)
    expect(tox).toEqual(expect.arrayContaining(['tox.fih_dose_projection', 'evidence.propose_gap', 'plans.propose_report']))
    expect(tox).not.toContain('chem.sar_table_build')
  })
})

describe('footers', () => {
  it("reads 'working as <workbench role>' under a role and 'working as <persona name>' under a neutral persona harness", () => {
    expect(decisionFooter({ proposerName: 'Sam Scientist', workingAs: workingAsOf({ workbenchRoleKey: 'medicinal_chemist', harnessKey: 'medicinal_chemist' }), decidedByName: 'Sam Scientist' }))
      .toBe("Proposed by Sam Scientist's twin (agent, working as Medicinal chemist); decided by Sam Scientist")
    expect(decisionFooter({ proposerName: 'Quinn Quality', workingAs: workingAsOf({ workbenchRoleKey: null, harnessKey: 'quality_reviewer' }), decidedByName: 'Lee Lead' }))
      .toBe("Proposed by Quinn Quality's twin (agent, working as Quality reviewer); decided by Lee Lead")
    expect(decisionFooter({ proposerName: 'Sam', workingAs: workingAsOf({}), decidedByName: 'Lee' })).toBe("Proposed by Sam's twin (agent); decided by Lee")
  })
})

function worn(held: readonly string[], key: string | null) {
  const w = wornRole(held, key)
  return { harnessKey: w.harnessKey, workbenchRoleKey: w.workbenchRoleKey }
}
