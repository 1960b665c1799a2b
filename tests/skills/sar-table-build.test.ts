import { describe, expect, it } from 'vitest'
import { executeSkill, outputViolations, runSkill } from '../../domain/skills'
import { isShareAlike, LE_CONSTANT } from '../../domain/skills'
import { expectSkillErrorAsync } from './helpers'

const KEY = 'chem.sar_table_build'
const CORE = '[*:1]c1ccc(cc1)C(=O)N[*:2]'
// A small para-substituted benzamide series (illustrative structures).
const compounds = [
  { id: 'BZ-1', smiles: 'Cc1ccc(cc1)C(=O)NC', source: 'chembl_34', licence: 'CC BY-SA 3.0' },
  { id: 'BZ-2', smiles: 'Clc1ccc(cc1)C(=O)NCC', source: 'eln:proj-7', licence: 'internal' },
  { id: 'BZ-3', smiles: 'Oc1ccc(cc1)C(=O)NC(C)C', source: 'eln:proj-7', licence: 'internal' },
  { id: 'BZ-4', smiles: 'c1ccc(cc1)C(=O)N', source: 'eln:proj-7', licence: 'internal' },
]
const act = (compound_id: string, target: string, value: number, unit: string, licence = 'internal', source = 'eln:proj-7') => ({
  compound_id,
  target,
  value: { value, unit },
  source,
  licence,
  citation: `assay:${compound_id}:${target}`,
})
const activities = [
  act('BZ-1', 'KDR', 10, 'nmol/L', 'CC BY-SA 3.0', 'chembl_34'),
  act('BZ-1', 'FLT3', 1, 'umol/L', 'CC BY-SA 3.0', 'chembl_34'),
  act('BZ-2', 'KDR', 100, 'nmol/L'),
  act('BZ-2', 'KDR', 1000, 'nmol/L'),
  act('BZ-3', 'KDR', 50, 'nmol/L'),
  act('BZ-3', 'FLT3', 50, 'nmol/L'),
]

describe('chem.sar_table_build', () => {
  it('builds a comparison table with R-groups, potency, selectivity, LE, LLE and properties for a small series', async () => {
    const r = await executeSkill(KEY, { compounds, activities, core_smarts: CORE, primary_target: 'KDR' })
    const t = r.tables.comparison_table
    expect(t.rows).toHaveLength(4)
    expect(r.outputs.r_group_labels.value).toBe('R1, R2')
    expect(r.outputs.core_source.value).toBe('input')
    const [bz1, bz2, bz3, bz4] = t.rows
    expect([bz1.r1.value, bz1.r2.value]).toEqual(['C[*:1]', 'C[*:2]'])
    expect([bz2.r1.value, bz2.r2.value]).toEqual(['Cl[*:1]', 'CC[*:2]'])
    expect(bz3.r2.value).toBe('CC(C)[*:2]')
    expect(bz4.r1.display).toBe('H')
    // pIC50 = 9 - log10(IC50 nM)
    expect(bz1.px_kdr.value).toBeCloseTo(8, 12)
    expect(bz1.px_flt3.value).toBeCloseTo(6, 12)
    expect(bz1.selectivity_flt3.value).toBeCloseTo(100, 9)
    expect(bz3.selectivity_flt3.value).toBeCloseTo(1, 9)
    // two KDR records for BZ-2: mean pX of 7 and 6 (geometric mean of 100 and 1000 nM)
    expect(bz2.px_kdr.value).toBeCloseTo(6.5, 12)
    expect(bz2.n_kdr.value).toBe(2)
    expect(bz4.px_kdr.value).toBeNull()
    // LE = 1.37 x pX / heavy atoms; LLE = pX - cLogP
    expect(bz1.heavy_atoms.value).toBe(11)
    expect(bz1.le_kdr.value).toBeCloseTo((LE_CONSTANT * 8) / 11, 12)
    expect(bz1.lle_kdr.value).toBeCloseTo(8 - (bz1.clogp.value as number), 12)
    expect(bz1.mw.value).toBeCloseTo(149.19, 2)
    expect(bz1.tpsa.value).toBeCloseTo(29.1, 6)
    expect([bz1.hbd.value, bz1.hba.value]).toEqual([1, 1])
    expect(r.method_line).toMatch(/^Method: SAR comparison table \(RDKit 2026\.\d\d\.\d+, no guidance document\), version 1$/)
  })

  it('puts a source and licence chip on every cell with a value', async () => {
    const r = await executeSkill(KEY, { compounds, activities, core_smarts: CORE, primary_target: 'KDR' })
    for (const row of r.tables.comparison_table.rows)
      for (const [k, cell] of Object.entries(row)) {
        if (cell.value === null || k.startsWith('n_')) continue
        expect(cell.source, k).toBeTruthy()
        expect(cell.licence, k).toBeTruthy()
      }
    const bz1 = r.tables.comparison_table.rows[0]
    expect(bz1.px_kdr).toMatchObject({ source: 'chembl_34', licence: 'CC BY-SA 3.0', citation: 'assay:BZ-1:KDR' })
    expect(r.citations).toHaveLength(activities.length)
  })

  it('adds the share-alike line when a share-alike row is mixed in, and omits it otherwise', async () => {
    const r = await executeSkill(KEY, { compounds, activities, core_smarts: CORE })
    expect(r.outputs.share_alike.value).toBe(true)
    expect(r.outputs.share_alike_line.value).toMatch(/^Share-alike: row BZ-1 carries a share-alike licence \(CC BY-SA 3\.0\)/)
    expect(r.warnings).toContain(r.outputs.share_alike_line.value)
    const internal = await executeSkill(KEY, { compounds: compounds.slice(1), activities: activities.slice(2), core_smarts: CORE })
    expect(internal.outputs.share_alike.value).toBe(false)
    expect(internal.outputs.share_alike_line.value).toBeNull()
    expect(['CC BY-SA 4.0', 'cc_by_sa', 'CC-BY-NC-SA-3.0', 'ODbL'].every(isShareAlike)).toBe(true)
    expect(['CC BY 4.0', 'CC0', 'internal', 'proprietary'].some(isShareAlike)).toBe(false)
  })

  it('finds the common core by maximum common substructure when no core is given', async () => {
    const r = await executeSkill(KEY, { compounds, activities })
    expect(r.outputs.core_source.value).toBe('mcs')
    expect(r.outputs.core_match_count.value).toBe(4)
    expect(r.how_computed.intermediate_values.find((v) => v.name === 'mcs_atoms')!.value).toBe(9)
  })

  it('lists compounds that do not match the core without R-groups', async () => {
    const r = await executeSkill(KEY, { compounds: [...compounds, { id: 'X-1', smiles: 'CCCCO', source: 's', licence: 'internal' }], activities, core_smarts: CORE })
    const x = r.tables.comparison_table.rows[4]
    expect(x.core_match.value).toBe(false)
    expect(x.r1.value).toBeNull()
    expect(r.warnings.some((w) => /do not match the core/.test(w))).toBe(true)
  })

  it('is a class B skill: runSkill returns a promise', async () => {
    const p = runSkill(KEY, { compounds, activities, core_smarts: CORE })
    expect(p).toBeInstanceOf(Promise)
    expect(outputViolations(await p)).toEqual([])
    // input errors of a class B skill are rejections, not synchronous throws
    const bad = runSkill(KEY, { compounds: [] })
    expect(bad).toBeInstanceOf(Promise)
    await expectSkillErrorAsync(() => bad as Promise<unknown>, 'invalid_input', 'compounds')
  })

  it('refuses an invalid SMILES, an invalid core, a non-UCUM potency unit and an unknown compound with their fields', async () => {
    const bad = [...compounds]
    bad[1] = { ...bad[1], smiles: 'C1CC(' }
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds: bad, activities: [], core_smarts: CORE }), 'invalid_input', 'compounds[1].smiles')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [], core_smarts: 'c1ccc(' }), 'invalid_input', 'core_smarts')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [act('BZ-1', 'KDR', 10, 'nM')], core_smarts: CORE }), 'unit_unsupported', 'activities[0].value.unit')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [act('BZ-1', 'KDR', 10, 'ng/mL')], core_smarts: CORE }), 'unit_unsupported', 'activities[0].value.unit')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [act('BZ-1', 'KDR', 10, 'h')], core_smarts: CORE }), 'unit_mismatch', 'activities[0].value.unit')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [act('BZ-9', 'KDR', 10, 'nmol/L')], core_smarts: CORE }), 'invalid_input', 'activities[0].compound_id')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities, core_smarts: CORE, primary_target: 'EGFR' }), 'invalid_input', 'primary_target')
    const { citation: _c, ...uncited } = act('BZ-1', 'KDR', 10, 'nmol/L')
    await expectSkillErrorAsync(() => executeSkill(KEY, { compounds, activities: [uncited], core_smarts: CORE }), 'invalid_input', 'activities[0].citation')
  })

  it('gives byte-identical results for the same inputs', async () => {
    const a = await executeSkill(KEY, { compounds, activities, core_smarts: CORE, primary_target: 'KDR' })
    const b = await executeSkill(KEY, { compounds, activities, core_smarts: CORE, primary_target: 'KDR' })
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
  })
})
