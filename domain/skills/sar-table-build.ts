// chem.sar_table_build (class B, runs in the worker's skill_library_job): a comparison table of a
// compound series with R-groups, potency, selectivity, ligand-efficiency measures and properties,
// each cell carrying a source and licence chip.
//
// Decisions (listed in every result):
// - Core: `core_smarts` when given. Otherwise the maximum common substructure of all compounds
//   (RDKit FMCS, RingMatchesRingOnly and CompleteRingsOnly, 60 s budget). A completed MCS is
//   deterministic; an MCS that hits the budget or has fewer than 3 atoms is refused
//   (invalid_input on core_smarts: give the core), so a result never depends on machine speed.
// - R-groups: RDKit R-group decomposition (default parameters) of each compound on the core;
//   compounds that do not match the core are listed without R-groups.
// - Potency: pX = 9 - log10(value in nmol/L) = -log10(value in mol/L), values converted by UCUM
//   (molar units only: nmol/L, umol/L, ...; 'nM' is not UCUM). Several '=' records for one compound
//   and target are averaged in pX (geometric mean of the values). Qualified records ('<', '>')
//   are shown as bounds and are not averaged or used in LE/LLE/selectivity.
// - Selectivity (when primary_target is given): fold = value(other) / value(primary)
//   = 10^(pX primary - pX other).
// - LE = 1.37 x pX / heavy atoms (kcal/mol per heavy atom; 1.37 = ln(10) R T at about 298-300 K,
//   treating pX as -log10 of an affinity constant). LLE = pX - cLogP (Crippen).
// - Properties (RDKit descriptors): MW (amw), cLogP (CrippenClogP), TPSA, HBD (NumHBD), HBA
//   (NumHBA), heavy atoms (NumHeavyAtoms).
// - Licences: a licence is share-alike when its normalised form contains the token 'sa'
//   (CC BY-SA, CC BY-NC-SA) or is ODbL; any share-alike row adds the share-alike line.

import { z } from 'zod'
import { SkillInputError } from './errors'
import { citationSchema, quantitySchema } from './schema'
import type { SkillModule } from './skill'
import { boolValue, col, countValue, formatNumber, iv, numberValue, textValue, type IntermediateValue, type SkillCell, type SkillCitation, type SkillTable, type SkillValue } from './result'
import { loadRdkit, rdkitVersion, release, type RDKitMol } from './rdkit'
import { normaliseLabel, readQuantity } from './vocabulary'

export const LE_CONSTANT = 1.37
export const MCS_TIMEOUT_SECONDS = 60
export const ENDPOINTS = ['IC50', 'Ki', 'Kd', 'EC50'] as const

const input = z.strictObject({
  compounds: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(100),
        smiles: z.string().min(1).max(2000),
        name: z.string().max(200).optional(),
        source: z.string().min(1).max(200),
        licence: z.string().min(1).max(100),
      }),
    )
    .min(1)
    .max(1000),
  activities: z
    .array(
      z.strictObject({
        compound_id: z.string().min(1),
        target: z.string().min(1).max(100),
        endpoint: z.enum(ENDPOINTS).default('IC50'),
        relation: z.enum(['=', '<', '>']).default('='),
        value: quantitySchema.describe('molar concentration, e.g. {value: 12, unit: "nmol/L"}'),
        source: z.string().min(1).max(200),
        licence: z.string().min(1).max(100),
        citation: citationSchema,
      }),
    )
    .max(20000),
  core_smarts: z.string().min(1).max(2000).optional(),
  primary_target: z.string().min(1).max(100).optional(),
})
export type SarInput = z.output<typeof input>

export function normaliseLicence(l: string): string {
  return l
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
}

export function isShareAlike(licence: string): boolean {
  const n = normaliseLicence(licence)
  const tokens = n.split('_')
  return tokens.includes('sa') || n.includes('sharealike') || n.includes('share_alike') || tokens.includes('odbl')
}

interface Descriptors {
  amw: number
  CrippenClogP: number
  tpsa: number
  NumHBD: number
  NumHBA: number
  NumHeavyAtoms: number
}

interface ActivityAgg {
  px_values: number[]
  qualified: Array<{ relation: '<' | '>'; px: number }>
  sources: string[]
  licences: string[]
  citations: string[]
  endpoints: string[]
}

function uniquePush(a: string[], v: string) {
  if (!a.includes(v)) a.push(v)
}

function chip(sources: string[], licences: string[]): { source: string; licence: string } {
  return { source: sources.join('; '), licence: licences.join('; ') }
}

async function compute(inp: SarInput) {
  const RDKit = await loadRdkit()
  const version = RDKit.version()
  const ivs: IntermediateValue[] = [iv('rdkit_version', version)]
  const warnings: string[] = []
  const citations: SkillCitation[] = []

  // ---- compounds ----
  const ids = new Map<string, number>()
  inp.compounds.forEach((c, i) => {
    if (ids.has(c.id)) throw new SkillInputError('invalid_input', `compounds[${i}].id`, `compound id '${c.id}' repeats compounds[${ids.get(c.id)}]`)
    ids.set(c.id, i)
  })

  // ---- activities (validated before any wasm object is created) ----
  const targets: string[] = []
  const targetKeys = new Map<string, string>()
  const acts = new Map<string, ActivityAgg>() // `${compoundIndex}\u0000${target}`
  inp.activities.forEach((a, j) => {
    const f = `activities[${j}]`
    const ci = ids.get(a.compound_id)
    if (ci === undefined) throw new SkillInputError('invalid_input', `${f}.compound_id`, `no compound has id '${a.compound_id}'`)
    const q = readQuantity(a.value, `${f}.value`, 'molar_concentration')
    const px = 9 - Math.log10(q.value)
    if (!targets.includes(a.target)) {
      const k = normaliseLabel(a.target).replace(/[^a-z0-9_]/g, '_')
      for (const [t, kk] of targetKeys) if (kk === k) throw new SkillInputError('invalid_input', `${f}.target`, `targets '${t}' and '${a.target}' collide after normalisation; rename one`)
      targets.push(a.target)
      targetKeys.set(a.target, k)
    }
    const key = `${ci}\u0000${a.target}`
    let agg = acts.get(key)
    if (!agg) {
      agg = { px_values: [], qualified: [], sources: [], licences: [], citations: [], endpoints: [] }
      acts.set(key, agg)
    }
    if (a.relation === '=') agg.px_values.push(px)
    // value '<' x means pX '>' 9 - log10(x)
    else agg.qualified.push({ relation: a.relation === '<' ? '>' : '<', px })
    uniquePush(agg.sources, a.source)
    uniquePush(agg.licences, a.licence)
    uniquePush(agg.citations, a.citation)
    uniquePush(agg.endpoints, a.endpoint)
    citations.push({ ref: a.citation, field: `${f}.citation` })
    ivs.push(iv(`${a.compound_id}.${targetKeys.get(a.target)}.p${a.endpoint}[${j}]`, px, undefined, `${a.relation} ${a.value.value} ${a.value.unit} -> ${q.value} nmol/L`))
  })
  if (inp.primary_target !== undefined && !targets.includes(inp.primary_target))
    throw new SkillInputError('invalid_input', 'primary_target', `no activity record has target '${inp.primary_target}'; targets: ${targets.join(', ') || 'none'}`)
  const primary = inp.primary_target ?? null

  // ---- wasm work: every object released in finally ----
  const mols: RDKitMol[] = []
  let coreQ: RDKitMol | null = null
  const molList = new RDKit.MolList()
  let rgd: ReturnType<typeof RDKit.get_rgd> = null
  const descs: Descriptors[] = []
  let coreSmarts: string
  let coreSource: 'input' | 'mcs'
  const rgroupRows: Array<Record<string, string> | null> = inp.compounds.map(() => null)
  try {
    inp.compounds.forEach((c, i) => {
      const m = RDKit.get_mol(c.smiles)
      if (!m || !m.is_valid()) {
        release(m)
        throw new SkillInputError('invalid_input', `compounds[${i}].smiles`, `compound '${c.id}': SMILES '${c.smiles}' cannot be parsed`)
      }
      mols.push(m)
      const d = JSON.parse(m.get_descriptors()) as Descriptors
      descs.push(d)
    })

    if (inp.core_smarts) {
      coreQ = RDKit.get_qmol(inp.core_smarts)
      if (!coreQ || !coreQ.is_valid()) throw new SkillInputError('invalid_input', 'core_smarts', `core SMARTS '${inp.core_smarts}' cannot be parsed`)
      coreSmarts = inp.core_smarts
      coreSource = 'input'
    } else {
      for (const m of mols) molList.append(m)
      const mcs = JSON.parse(
        RDKit.get_mcs_as_json(molList, JSON.stringify({ RingMatchesRingOnly: true, CompleteRingsOnly: true, Timeout: MCS_TIMEOUT_SECONDS })),
      ) as { smarts: string; canceled: boolean; numAtoms: number; numBonds: number }
      if (mcs.canceled)
        throw new SkillInputError('invalid_input', 'core_smarts', `the maximum common substructure search did not finish within ${MCS_TIMEOUT_SECONDS} s; give core_smarts`)
      if (!mcs.smarts || mcs.numAtoms < 3)
        throw new SkillInputError('invalid_input', 'core_smarts', `the compounds share no common core of at least 3 atoms (MCS ${mcs.numAtoms} atoms); give core_smarts`)
      coreSmarts = mcs.smarts
      coreSource = 'mcs'
      coreQ = RDKit.get_qmol(coreSmarts)
      ivs.push(iv('mcs_atoms', mcs.numAtoms))
      ivs.push(iv('mcs_bonds', mcs.numBonds))
      if (!coreQ) throw new SkillInputError('invalid_input', 'core_smarts', 'the maximum common substructure could not be used as a core; give core_smarts')
    }
    ivs.push(iv('core_smarts', coreSmarts, undefined, coreSource === 'input' ? 'input' : 'maximum common substructure (RDKit FMCS)'))

    rgd = RDKit.get_rgd(coreQ, JSON.stringify({}))
    if (!rgd) throw new SkillInputError('invalid_input', 'core_smarts', 'R-group decomposition could not be set up on this core')
    const addIndex: number[] = []
    mols.forEach((m, i) => {
      const idx = rgd!.add(m)
      if (idx >= 0) addIndex[idx] = i
    })
    rgd.process()
    const rows = rgd.get_rgroups_as_rows() as Array<Record<string, { get_smiles(): string; delete(): void }>>
    rows.forEach((r, k) => {
      const out: Record<string, string> = {}
      for (const name of Object.keys(r)) {
        out[name] = r[name].get_smiles()
        r[name].delete()
      }
      const ci = addIndex[k]
      if (ci !== undefined) rgroupRows[ci] = out
    })
  } finally {
    release(rgd)
    // MolList.append stores copies, so the list and the mols are released separately.
    release(molList)
    release(coreQ)
    for (const m of mols) release(m)
  }

  // ---- table ----
  const rLabels: string[] = []
  for (const r of rgroupRows) if (r) for (const k of Object.keys(r)) if (k !== 'Core' && !rLabels.includes(k)) rLabels.push(k)
  rLabels.sort((a, b) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || (a < b ? -1 : a > b ? 1 : 0))
  const unmatched = inp.compounds.filter((_, i) => !rgroupRows[i]).map((c) => c.id)
  if (unmatched.length) warnings.push(`${unmatched.length} compound(s) do not match the core and have no R-groups: ${unmatched.join(', ')}.`)

  const shareAlikeRows: string[] = []
  const shareAlikeLicences: string[] = []
  const columns = [col('id', 'Compound'), col('smiles', 'SMILES'), col('core_match', 'Core match')]
  for (const r of rLabels) columns.push(col(r.toLowerCase(), r))
  for (const t of targets) {
    const k = targetKeys.get(t)!
    columns.push(col(`px_${k}`, `pX ${t}`), col(`n_${k}`, `n ${t}`))
    if (primary && t !== primary) columns.push(col(`selectivity_${k}`, `Selectivity ${t} / ${primary}`, '1'))
    columns.push(col(`le_${k}`, `LE ${t}`, 'kcal/mol'), col(`lle_${k}`, `LLE ${t}`))
  }
  columns.push(
    col('mw', 'MW', 'g/mol'),
    col('clogp', 'cLogP (Crippen)'),
    col('tpsa', 'TPSA', 'Ao2'),
    col('hbd', 'HBD'),
    col('hba', 'HBA'),
    col('heavy_atoms', 'Heavy atoms'),
  )

  const tableRows: Array<Record<string, SkillCell>> = []
  inp.compounds.forEach((c, i) => {
    const d = descs[i]
    const cc = { source: c.source, licence: c.licence }
    if (isShareAlike(c.licence)) {
      uniquePush(shareAlikeRows, c.id)
      uniquePush(shareAlikeLicences, c.licence)
    }
    const row: Record<string, SkillCell> = {
      id: { value: c.id, ...cc },
      smiles: { value: c.smiles, ...cc },
      core_match: { ...boolValue(rgroupRows[i] !== null), ...cc },
    }
    for (const r of rLabels) {
      const v = rgroupRows[i]?.[r] ?? null
      row[r.toLowerCase()] = { value: v, display: v === null ? '' : v.replace(/\[\*:\d+\]/g, '*').replace(/^\[H\]\*$/, 'H'), ...cc }
    }
    const pxByTarget = new Map<string, number>()
    for (const t of targets) {
      const k = targetKeys.get(t)!
      const agg = acts.get(`${i}\u0000${t}`)
      if (!agg) {
        row[`px_${k}`] = { value: null, display: '' }
        row[`n_${k}`] = { value: 0, display: '0' }
        continue
      }
      for (const l of agg.licences)
        if (isShareAlike(l)) {
          uniquePush(shareAlikeRows, c.id)
          uniquePush(shareAlikeLicences, l)
        }
      const ac = { ...chip(agg.sources, agg.licences), citation: agg.citations.join('; ') }
      if (agg.px_values.length) {
        const px = agg.px_values.reduce((s, v) => s + v, 0) / agg.px_values.length
        pxByTarget.set(t, px)
        row[`px_${k}`] = { ...numberValue(px, null, { decimals: 2 }), ...ac }
        if (agg.px_values.length > 1) ivs.push(iv(`${c.id}.${k}.px_mean`, px, undefined, `mean of ${agg.px_values.length} pX values`))
      } else {
        // Only qualified values: report the tightest bound.
        const q = agg.qualified.reduce((b, v) => (b === null ? v : v.relation === '>' ? (v.px > b.px ? v : b) : v.px < b.px ? v : b), null as null | { relation: '<' | '>'; px: number })!
        row[`px_${k}`] = { value: q.px, display: `${q.relation} ${formatNumber(q.px, { decimals: 2 })}`, ...ac }
      }
      row[`n_${k}`] = { value: agg.px_values.length + agg.qualified.length, display: String(agg.px_values.length + agg.qualified.length), ...ac }
    }
    for (const t of targets) {
      const k = targetKeys.get(t)!
      const px = pxByTarget.get(t)
      const agg = acts.get(`${i}\u0000${t}`)
      const lic = agg ? { source: [...agg.sources, c.source].filter((v, x, a) => a.indexOf(v) === x).join('; '), licence: [...agg.licences, c.licence].filter((v, x, a) => a.indexOf(v) === x).join('; ') } : cc
      if (primary && t !== primary) {
        const pp = pxByTarget.get(primary)
        const sel = px !== undefined && pp !== undefined ? Math.pow(10, pp - px) : null
        const pagg = acts.get(`${i}\u0000${primary}`)
        const sc = agg && pagg ? chip([...agg.sources, ...pagg.sources].filter((v, x, a) => a.indexOf(v) === x), [...agg.licences, ...pagg.licences].filter((v, x, a) => a.indexOf(v) === x)) : {}
        row[`selectivity_${k}`] = { ...numberValue(sel, '1', { sig: 3 }), ...sc }
        if (sel !== null) ivs.push(iv(`${c.id}.selectivity_${k}`, sel, '1', `10^(pX ${primary} - pX ${t})`))
      }
      const le = px !== undefined ? (LE_CONSTANT * px) / d.NumHeavyAtoms : null
      const lle = px !== undefined ? px - d.CrippenClogP : null
      row[`le_${k}`] = { ...numberValue(le, 'kcal/mol', { decimals: 2 }), ...lic }
      row[`lle_${k}`] = { ...numberValue(lle, null, { decimals: 2 }), ...lic }
    }
    row.mw = { ...numberValue(d.amw, 'g/mol', { decimals: 1 }), ...cc }
    row.clogp = { ...numberValue(d.CrippenClogP, null, { decimals: 2 }), ...cc }
    row.tpsa = { ...numberValue(d.tpsa, 'Ao2', { decimals: 1 }), ...cc }
    row.hbd = { value: d.NumHBD, display: String(d.NumHBD), ...cc }
    row.hba = { value: d.NumHBA, display: String(d.NumHBA), ...cc }
    row.heavy_atoms = { value: d.NumHeavyAtoms, display: String(d.NumHeavyAtoms), ...cc }
    tableRows.push(row)
  })

  const shareAlikeLine = shareAlikeRows.length
    ? `Share-alike: ${shareAlikeRows.length === 1 ? 'row' : 'rows'} ${shareAlikeRows.join(', ')} ${shareAlikeRows.length === 1 ? 'carries' : 'carry'} a share-alike licence (${shareAlikeLicences.join(', ')}); this table mixes them with the other rows, so sharing it may have to follow the same licence terms.`
    : null
  if (shareAlikeLine) warnings.push(shareAlikeLine)
  if (inp.activities.length === 0) warnings.push('No activity records: the table lists structures, R-groups and properties only.')

  const outputs: Record<string, SkillValue> = {
    compound_count: countValue(inp.compounds.length),
    core_match_count: countValue(rgroupRows.filter((r) => r !== null).length),
    core_smarts: textValue(coreSmarts),
    core_source: textValue(coreSource),
    r_group_labels: textValue(rLabels.join(', ')),
    targets: textValue(targets.join(', ')),
    primary_target: textValue(primary),
    share_alike: boolValue(shareAlikeLine !== null),
    share_alike_line: textValue(shareAlikeLine),
  }

  const table: SkillTable = { title: 'SAR comparison table', columns, rows: tableRows }
  return {
    outputs,
    citations,
    warnings,
    tables: { comparison_table: table },
    how_computed: {
      intermediate_values: ivs,
      rules_applied: [
        `Toolkit: RDKit ${version} (MinimalLib, WebAssembly).`,
        coreSource === 'input'
          ? 'Core: core_smarts as given.'
          : `Core: maximum common substructure of all compounds (RDKit FMCS, RingMatchesRingOnly, CompleteRingsOnly, ${MCS_TIMEOUT_SECONDS} s budget; an unfinished search is refused).`,
        'R-groups: RDKit R-group decomposition on the core with default parameters; compounds not matching the core have no R-groups.',
        'Potency: pX = 9 - log10(value in nmol/L) (UCUM conversion of molar units); several = records per compound and target are averaged in pX (geometric mean); qualified records are shown as bounds only.',
        primary ? `Selectivity: fold = 10^(pX ${primary} - pX other target) (value other / value ${primary}).` : 'Selectivity: not computed (no primary_target).',
        `LE = ${LE_CONSTANT} x pX / heavy atoms (kcal/mol per heavy atom; ${LE_CONSTANT} = ln(10) R T at about 298-300 K).`,
        'LLE = pX - cLogP (Crippen, RDKit CrippenClogP).',
        'Properties: RDKit descriptors amw, CrippenClogP, tpsa, NumHBD, NumHBA, NumHeavyAtoms.',
        'Chips: structure-derived cells carry the compound source and licence; potency cells the activity records\' sources, licences and citations; LE/LLE both.',
        'Share-alike: a licence whose normalised form has the token sa (CC BY-SA, CC BY-NC-SA) or is ODbL adds the share-alike line.',
        'Display rounding: pX, LE, LLE and cLogP to 2 decimals, MW and TPSA to 1, selectivity to 3 significant figures; values keep full double precision.',
      ],
    },
  }
}

export const sarTableBuild: SkillModule<typeof input> = {
  key: 'chem.sar_table_build',
  name: 'SAR table build',
  product: 'evidence',
  run_role: 'evidence',
  workbench_role: 'medicinal_chemist',
  skill_class: 'B',
  check_logic_version: 1,
  release: 'R4',
  input,
  output_fields: ['compound_count', 'core_match_count', 'core_smarts', 'core_source', 'r_group_labels', 'targets', 'primary_target', 'share_alike', 'share_alike_line', 'comparison_table'],
  required_citations: ['activities[*].citation'],
  reference_keys: [],
  primary_reference: null,
  method_name: 'SAR comparison table',
  method_basis: () => `RDKit ${rdkitVersion() ?? '(not loaded)'}, no guidance document`,
  compute,
}
