import { describe, expect, it } from 'vitest'
import { runSkillSync } from '../../domain/skills'
import { expectSkillError } from './helpers'

const KEY = 'tox.exposure_margin_table'
const human = { auc: { value: 250, unit: 'h.ng/mL' }, cmax: { value: 40, unit: 'ng/mL' }, citation: 'pk-projection:v2#table3' }
const run = (rows: unknown[], extra: Record<string, unknown> = {}) => runSkillSync(KEY, { noael_exposure: rows, human_projection: human, ...extra })

describe('tox.exposure_margin_table', () => {
  it('computes fold margins per species and endpoint after converting ug.h/mL and ug/mL to ng units', () => {
    const r = run([
      { species: 'rat', auc: { value: 2.5, unit: 'ug.h/mL' }, cmax: { value: 0.4, unit: 'ug/mL' }, citation: 'tk-rat#t2' },
      { species: 'dog', auc: { value: 1500, unit: 'ng.h/mL' }, cmax: { value: 120, unit: 'ng/mL' }, citation: 'tk-dog#t4' },
    ])
    expect(r.outputs['margin.rat.auc'].value).toBe(10)
    expect(r.outputs['margin.rat.cmax'].value).toBe(10)
    expect(r.outputs['margin.dog.auc'].value).toBe(6)
    expect(r.outputs['margin.dog.cmax'].value).toBe(3)
    expect(r.outputs['margin.dog.cmax'].display).toBe('3.00-fold')
    expect(r.outputs['margin.rat.auc'].unit_ucum).toBe('1')
    expect(r.outputs['lowest_margin.auc'].value).toBe(6)
    expect(r.outputs['lowest_margin.cmax.species'].value).toBe('dog')
    const rat = r.tables.margins.rows[0]
    expect(rat.auc.value).toBe(2500)
    expect(rat.auc.unit_ucum).toBe('h.ng/mL')
    expect(rat.auc.citation).toBe('tk-rat#t2')
    expect(r.citations.map((c) => c.field)).toEqual(['human_projection.citation', 'noael_exposure[0].citation', 'noael_exposure[1].citation'])
    expect(r.method_line).toBe('Method: Exposure margins at the NOAEL (fold) (ICH M3(R2), Step 4 2009, retrieved 2026-09-16), version 2')
  })

  it('accepts AUC units written time-first or time-last and in minutes', () => {
    const a = run([{ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' }])
    const b = run([{ species: 'rat', auc: { value: 2500, unit: 'ng.h/mL' }, citation: 'x' }])
    const c = run([{ species: 'rat', auc: { value: 150000, unit: 'min.ng/mL' }, citation: 'x' }])
    expect(a.outputs['margin.rat.auc'].value).toBe(10)
    expect(b.outputs['margin.rat.auc'].value).toBe(10)
    expect(c.outputs['margin.rat.auc'].value).toBe(10)
  })

  it('refuses an AUC given in a concentration unit, and a Cmax given in an AUC unit, with unit_mismatch', () => {
    const e = expectSkillError(() => run([{ species: 'rat', auc: { value: 2500, unit: 'ng/mL' }, citation: 'x' }]), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(e.message).toMatch(/concentration unit/)
    expectSkillError(() => run([{ species: 'rat', cmax: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' }]), 'unit_mismatch', 'noael_exposure[0].cmax.unit')
    expectSkillError(() => runSkillSync(KEY, { noael_exposure: [{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' }, citation: 'x' }], human_projection: { ...human, auc: { value: 1, unit: 'mg' } } }), 'unit_mismatch', 'human_projection.auc.unit')
  })

  it('refuses a missing unit with unit_required and a non-UCUM unit with unit_unsupported', () => {
    expectSkillError(() => run([{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' }, citation: 'x' }, { species: 'dog', cmax: { value: 1 }, citation: 'y' }]), 'unit_required', 'noael_exposure[1].cmax.unit')
    const e = expectSkillError(() => run([{ species: 'rat', cmax: { value: 1, unit: 'nM' }, citation: 'x' }]), 'unit_unsupported', 'noael_exposure[0].cmax.unit')
    expect(e.message).toMatch(/nmol\/L/)
  })

  it('needs a molecular weight to compare molar and mass units, and converts through UCUM when given', () => {
    const rows = [{ species: 'rat', auc: { value: 10, unit: 'h.umol/L' }, citation: 'x' }]
    expectSkillError(() => run(rows), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    const r = run(rows, { molecular_weight: { value: 250, unit: 'g/mol' } })
    expect(r.tables.margins.rows[0].auc.value).toBe(2500)
    expect(r.outputs['margin.rat.auc'].value).toBe(10)
  })

  it('refuses uncited rows, rows without any exposure and endpoints missing on the human side', () => {
    expectSkillError(() => run([{ species: 'rat', auc: { value: 1, unit: 'h.ng/mL' } }]), 'invalid_input', 'noael_exposure[0].citation')
    expectSkillError(() => run([{ species: 'rat', citation: 'x' }]), 'invalid_input', 'noael_exposure[0]')
    expectSkillError(
      () => runSkillSync(KEY, { noael_exposure: [{ species: 'rat', cmax: { value: 1, unit: 'ng/mL' }, citation: 'x' }], human_projection: { auc: human.auc, citation: 'h' } }),
      'invalid_input',
      'human_projection.cmax',
    )
  })

  it('warns when the animal and human matrices differ', () => {
    const r = run([{ species: 'rat', auc: { value: 2500, unit: 'h.ng/mL' }, matrix: 'serum', citation: 'x' }])
    expect(r.warnings.some((w) => /matrix serum differs/.test(w))).toBe(true)
  })

  it('keeps separate labelled rows for two sexes of one species', () => {
    const r = run([
      { species: 'rat', label: 'rat male', auc: { value: 2500, unit: 'h.ng/mL' }, citation: 'x' },
      { species: 'rat', label: 'rat female', auc: { value: 5000, unit: 'h.ng/mL' }, citation: 'y' },
    ])
    expect(r.outputs['margin.rat_male.auc'].value).toBe(10)
    expect(r.outputs['margin.rat_female.auc'].value).toBe(20)
    expect(r.outputs['lowest_margin.auc.species'].value).toBe('rat male')
  })
})

// What a pharmacologist reads back from the table: the interval labels, the warnings and the refusals, word for word.
// Each row's interval shows in the table's 'AUC interval' column; the warnings are the ones the result carries.
const rat = (extra: Record<string, unknown> = {}) => ({
  species: 'rat',
  auc: { value: 2500, unit: 'h.ng/mL' },
  citation: 'tk-rat#t2',
  ...extra,
})
const runWith = (rows: unknown[], projection: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  runSkillSync(KEY, {
    noael_exposure: rows,
    human_projection: { citation: 'pk-projection:v2#table3', ...projection },
    ...extra,
  })
/** The label the table's 'AUC interval' column shows for an animal interval (the human side gives AUCinf). */
const intervalOf = (auc_interval: string) => {
  const r = runWith([rat({ auc_interval })], {
    auc: human.auc,
    auc_interval: '0-inf',
  })
  return r.tables.margins.rows[0].auc_interval.value
}
/** The warnings of one rat row against the projection, each interval given or not (undefined). */
const intervalWarnings = (animal: string | undefined, projected: string | undefined) =>
  runWith([rat(animal === undefined ? {} : { auc_interval: animal })], {
    auc: human.auc,
    ...(projected === undefined ? {} : { auc_interval: projected }),
  }).warnings

describe('tox.exposure_margin_table: AUC intervals as written in study reports', () => {
  it('reads the bare open intervals tau, inf, infinity and tlast in any case and labels them tau, 0-inf and 0-tlast', () => {
    expect(intervalOf('tau')).toBe('tau')
    expect(intervalOf('TAU')).toBe('tau')
    expect(intervalOf('inf')).toBe('0-inf')
    expect(intervalOf('Infinity')).toBe('0-inf')
    expect(intervalOf('tlast')).toBe('0-tlast')
  })

  it('reads open intervals written from 0 (0-inf, 0-\u221e, 0-tlast, 0-last, 0-t, 0-tau) and labels them the same way', () => {
    expect(intervalOf('0-inf')).toBe('0-inf')
    expect(intervalOf('0-\u221e')).toBe('0-inf')
    expect(intervalOf('0-tlast')).toBe('0-tlast')
    expect(intervalOf('0-last')).toBe('0-tlast')
    expect(intervalOf('0-t')).toBe('0-tlast')
    expect(intervalOf('0-tau')).toBe('tau')
  })

  it('reads finite intervals with blanks, en dashes, minus signs, decimals, several digits and any UCUM time unit', () => {
    expect(intervalOf('  0-24 h  ')).toBe('0-24 h')
    expect(intervalOf('0 - 24 h')).toBe('0-24 h')
    expect(intervalOf('0\u201324 h')).toBe('0-24 h')
    expect(intervalOf('0\u221224 h')).toBe('0-24 h')
    expect(intervalOf('0-24h')).toBe('0-24 h')
    expect(intervalOf('12-24 h')).toBe('12-24 h')
    expect(intervalOf('0.25-24 h')).toBe('0.25-24 h')
    expect(intervalOf('0-12.25 h')).toBe('0-12.25 h')
    expect(intervalOf('0-1440 min')).toBe('0-1440 min')
    expect(intervalOf('0-1 d')).toBe('0-1 d')
  })

  it('refuses an interval it cannot read, naming the field and showing the forms it accepts', () => {
    const hint = "write e.g. '0-24 h', '0-inf', '0-tlast' or 'tau'"
    for (const text of ['all day', 'x0-24 h', '0-24 h!', '0-abc h']) {
      const e = expectSkillError(() => intervalOf(text), 'invalid_input', 'noael_exposure[0].auc_interval')
      expect(e.message).toBe(`AUC interval '${text}' not understood: ${hint}`)
    }
  })

  it('refuses an open interval that does not start at 0', () => {
    const e = expectSkillError(() => intervalOf('2-inf'), 'invalid_input', 'noael_exposure[0].auc_interval')
    expect(e.message).toBe("AUC interval '2-inf': an open interval starts at 0")
  })

  it('refuses a finite interval whose end is not after its start, including an empty one', () => {
    for (const text of ['24-0 h', '24-24 h']) {
      const e = expectSkillError(() => intervalOf(text), 'invalid_input', 'noael_exposure[0].auc_interval')
      expect(e.message).toBe(`AUC interval '${text}': the end must be after the start`)
    }
  })

  it('refuses a finite interval without a time unit with unit_required', () => {
    const e = expectSkillError(() => intervalOf('0-24'), 'unit_required', 'noael_exposure[0].auc_interval')
    expect(e.message).toBe("AUC interval '0-24' needs a time unit, e.g. '0-24 h'")
  })

  it('refuses an unreadable human interval on the human projection field', () => {
    expectSkillError(() => intervalWarnings('0-24 h', 'all day'), 'invalid_input', 'human_projection.auc_interval')
  })

  it('compares finite intervals in hours: 0-1 d, 0-1440 min and 24-48 h against 1-2 d match 0-24 h and raise no warning', () => {
    expect(intervalWarnings('0-1 d', '0-24 h')).toEqual([])
    expect(intervalWarnings('0-1440 min', '0-24 h')).toEqual([])
    expect(intervalWarnings('24-48 h', '1-2 d')).toEqual([])
    // Bounds that agree to nine significant figures are one interval (unit conversion leaves such residues).
    expect(intervalWarnings('0-24.00000001 h', '0-24 h')).toEqual([])
  })

  it('matches open intervals of the same kind: tau with tau, 0-inf with infinity', () => {
    expect(intervalWarnings('tau', 'tau')).toEqual([])
    expect(intervalWarnings('0-inf', 'infinity')).toEqual([])
    expect(intervalWarnings('0-tlast', 'tlast')).toEqual([])
  })

  it('computes the margin but warns when the intervals differ in their start, their end or their kind', () => {
    const differs = (a: string, h: string) => `rat: AUC interval ${a} differs from the human projection's ${h}; the AUC margin compares different intervals.`
    expect(intervalWarnings('0-12 h', '0-24 h')).toEqual([differs('0-12 h', '0-24 h')])
    expect(intervalWarnings('12-24 h', '0-24 h')).toEqual([differs('12-24 h', '0-24 h')])
    expect(intervalWarnings('0-24 h', '0-inf')).toEqual([differs('0-24 h', '0-inf')])
    expect(intervalWarnings('0-inf', '0-24 h')).toEqual([differs('0-inf', '0-24 h')])
    expect(intervalWarnings('tau', '0-inf')).toEqual([differs('tau', '0-inf')])
    expect(intervalWarnings('0-tlast', '0-inf')).toEqual([differs('0-tlast', '0-inf')])
    const r = runWith([rat({ auc_interval: 'tau' })], {
      auc: human.auc,
      auc_interval: '0-inf',
    })
    expect(r.outputs['margin.rat.auc'].value).toBe(10)
  })

  it('warns when an interval is not given, on the human side, the animal side or both, naming what it could not check', () => {
    const humanMissing =
      'Human projection: AUC interval not given; the AUC margins cannot be checked for matching intervals (give auc_interval, e.g. 0-24 h or 0-inf).'
    expect(intervalWarnings('0-24 h', undefined)).toEqual([humanMissing])
    expect(intervalWarnings(undefined, '0-24 h')).toEqual([
      "rat: AUC interval not given; the AUC margin cannot be checked against the human projection's 0-24 h.",
    ])
    expect(intervalWarnings(undefined, undefined)).toEqual([
      humanMissing,
      "rat: AUC interval not given; the AUC margin cannot be checked against the human projection's interval.",
    ])
  })

  it('says nothing about intervals for a row that gives only a Cmax', () => {
    const r = runWith(
      [
        {
          species: 'dog',
          cmax: { value: 120, unit: 'ng/mL' },
          citation: 'tk-dog#t4',
        },
      ],
      { auc: human.auc, auc_interval: '0-24 h', cmax: human.cmax },
    )
    expect(r.warnings).toEqual([])
    expect(r.tables.margins.rows[0].auc_interval).toEqual({
      value: null,
      display: 'not given',
    })
    expect(r.outputs['margin.dog.cmax'].value).toBe(3)
  })
})

describe('tox.exposure_margin_table: unit refusals a pharmacologist can act on', () => {
  it('says an AUC given in a concentration unit needs time x concentration, and a Cmax given in an AUC unit needs a concentration', () => {
    const auc = expectSkillError(() => run([rat({ auc: { value: 2500, unit: 'ng/mL' } })]), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(auc.message).toBe("'ng/mL' is a concentration unit; an AUC needs time x concentration, e.g. h.ng/mL")
    const molar = expectSkillError(() => run([rat({ auc: { value: 10, unit: 'umol/L' } })]), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(molar.message).toBe("'umol/L' is a concentration unit; an AUC needs time x concentration, e.g. h.ng/mL")
    const cmax = expectSkillError(
      () =>
        run([
          {
            species: 'rat',
            cmax: { value: 2500, unit: 'h.ng/mL' },
            citation: 'x',
          },
        ]),
      'unit_mismatch',
      'noael_exposure[0].cmax.unit',
    )
    expect(cmax.message).toBe("'h.ng/mL' is an AUC unit; Cmax needs a concentration unit, e.g. ng/mL")
  })

  it('does not call a unit of neither kind a concentration or an AUC unit', () => {
    const e = expectSkillError(() => runWith([rat()], { auc: { value: 1, unit: 'mg' } }), 'unit_mismatch', 'human_projection.auc.unit')
    expect(e.message).toBe(
      "'mg' (milligram) is a mass unit, not a AUC, time x mass concentration (e.g. h.ng/mL) or AUC, time x molar concentration (e.g. h.nmol/L) unit.",
    )
  })

  it('reports a non-positive exposure on its value, before the kind of its unit', () => {
    const e = expectSkillError(() => run([rat({ auc: { value: 0, unit: 'ng/mL' } })]), 'invalid_input', 'noael_exposure[0].auc.value')
    expect(e.message).toBe('noael_exposure[0].auc.value must be greater than 0')
  })

  it('says which side is molar and which is mass when molar and mass units meet without a molecular weight', () => {
    const aucMolar = expectSkillError(() => run([rat({ auc: { value: 10, unit: 'h.umol/L' } })]), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(aucMolar.message).toBe("'h.umol/L' is molar-based but the human AUC ('h.ng/mL') is not; give molecular_weight (g/mol) or use the same kind of unit")
    const cmaxMolar = expectSkillError(
      () =>
        run([
          {
            species: 'rat',
            cmax: { value: 10, unit: 'nmol/L' },
            citation: 'x',
          },
        ]),
      'unit_mismatch',
      'noael_exposure[0].cmax.unit',
    )
    expect(cmaxMolar.message).toBe("'nmol/L' is molar-based but the human Cmax ('ng/mL') is not; give molecular_weight (g/mol) or use the same kind of unit")
    const mass = expectSkillError(() => runWith([rat()], { auc: { value: 1, unit: 'h.nmol/L' } }), 'unit_mismatch', 'noael_exposure[0].auc.unit')
    expect(mass.message).toBe("'h.ng/mL' is mass-based but the human AUC ('h.nmol/L') is not; give molecular_weight (g/mol) or use the same kind of unit")
  })

  it('refuses a molecular weight that is not a molar mass on the molecular_weight field', () => {
    expectSkillError(() => run([rat()], { molecular_weight: { value: 250, unit: 'g' } }), 'unit_mismatch', 'molecular_weight.unit')
  })
})

describe('tox.exposure_margin_table: rows, labels and the human projection', () => {
  it('refuses a projection with neither AUC nor Cmax, and accepts one with a Cmax only', () => {
    const e = expectSkillError(() => runWith([rat()], {}), 'invalid_input', 'human_projection')
    expect(e.message).toBe('give the projected human AUC, Cmax or both')
    const r = runWith([{ species: 'rat', cmax: { value: 400, unit: 'ng/mL' }, citation: 'x' }], { cmax: human.cmax })
    expect(r.outputs['margin.rat.cmax'].value).toBe(10)
    expect(r.outputs['human.cmax'].display).toBe('40.0 ng/mL')
    // No projected AUC: no human AUC or interval to show, and the AUC column carries no unit.
    expect(Object.keys(r.outputs).filter((k) => k.startsWith('human.'))).toEqual(['human.cmax'])
    expect(r.tables.margins.columns.find((c) => c.key === 'auc')).toEqual({
      key: 'auc',
      label: 'AUC at NOAEL',
    })
    expect(r.warnings).toEqual([])
  })

  it('shows the projected exposures to 3 significant figures and the interval as given', () => {
    const r = runWith([rat()], {
      auc: { value: 1234.5, unit: 'h.ng/mL' },
      auc_interval: '0-24 h',
    })
    expect(r.outputs['human.auc'].display).toBe('1230 h·ng/mL')
    expect(r.outputs['human.auc'].value).toBe(1234.5)
    expect(r.outputs['human.auc_interval'].value).toBe('0-24 h')
  })

  it('shows the lowest margin of an endpoint no row gave as not computed, still in fold', () => {
    const r = run([rat()])
    expect(r.outputs['lowest_margin.cmax']).toEqual({
      value: null,
      unit_ucum: '1',
      unit_display: 'fold',
      display: 'not computed',
    })
    expect(r.outputs['lowest_margin.cmax.species']).toEqual({
      value: null,
      display: 'none',
    })
  })

  it('names the first row as the lowest margin when two rows tie', () => {
    const r = run([
      rat(),
      {
        species: 'dog',
        auc: { value: 2500, unit: 'h.ng/mL' },
        citation: 'tk-dog#t4',
      },
    ])
    expect(r.outputs['lowest_margin.auc.species'].value).toBe('rat')
    expect(r.outputs['lowest_margin.auc'].value).toBe(10)
  })

  it('refuses an unknown species on that row', () => {
    expectSkillError(() => run([rat(), rat({ species: 'unicorn' })]), 'invalid_input', 'noael_exposure[1].species')
  })

  it('refuses a label with characters other than letters, digits, blanks, - and _ at either end', () => {
    for (const label of ['(rat) male', 'rat male!']) {
      const e = expectSkillError(() => run([rat({ label })]), 'invalid_input', 'noael_exposure[0].label')
      expect(e.message).toBe(`label '${label}' may use letters, digits, blanks, '-' and '_' only`)
    }
  })

  it('refuses two rows that end up with one label, on the label when given and on the species otherwise', () => {
    const bySpecies = expectSkillError(() => run([rat(), rat()]), 'invalid_input', 'noael_exposure[1].species')
    expect(bySpecies.message).toBe("two rows are labelled 'rat' (rows 0 and 1): give each row a distinct label")
    const byLabel = expectSkillError(() => run([rat(), rat({ label: 'Rat male' }), rat({ label: 'rat-male' })]), 'invalid_input', 'noael_exposure[2].label')
    expect(byLabel.message).toBe("two rows are labelled 'rat_male' (rows 1 and 2): give each row a distinct label")
  })

  it('warns when the analytes differ, ignoring case and surrounding blanks', () => {
    const r = runWith([rat({ analyte: 'M1 metabolite' })], {
      auc: human.auc,
      auc_interval: '0-24 h',
      analyte: 'parent',
    })
    expect(r.warnings).toEqual([
      "rat: analyte 'M1 metabolite' differs from the human projection's analyte 'parent'.",
      "rat: AUC interval not given; the AUC margin cannot be checked against the human projection's 0-24 h.",
    ])
    const same = (row: string, projected: string) => runWith([rat({ analyte: row, auc_interval: '0-24 h' })], { auc: human.auc, auc_interval: '0-24 h', analyte: projected }).warnings
    expect(same(' Parent ', 'parent')).toEqual([])
    expect(same('parent', ' PARENT ')).toEqual([])
  })
})
