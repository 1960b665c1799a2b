// Validation records of the skills: published datasets with published results that a skill's golden tests
// reproduce. They are evidence that a skill computes what it says, not guidance a result is computed under, so
// they are kept apart from the reference entries (references.ts: the specification's 13 entries, 5 verified)
// and shown beside a skill's status (Skill.validation in the API). Since issue 30 tox.pk_parameter_extraction
// is validated against the two published NCA datasets of nca-golden.ts (tests/skills/nca-golden.test.ts);
// the specification keeps its skill designed 'until a published dataset is cited', which this record does.

import { canonicalSha256 } from './hash'
import { NCA_GOLDEN_INDOMETH, NCA_GOLDEN_THEOPH } from './nca-golden'

export interface ValidationRecord {
  key: string
  title: string
  /** Who published the data and the reference results. */
  publisher: string
  url: string | null
  retrieved_on: string
  version: string
  /** The data and reference results as transcribed; constants_sha256 lets a reviewer detect any change. */
  constants: Readonly<Record<string, unknown>>
  constants_sha256: string
  /** Where the skill is run against it. */
  golden_test: string
  /** The record in words, where the skill's status is shown. */
  status_line: string
}

function record(e: Omit<ValidationRecord, 'constants_sha256'>): ValidationRecord {
  return Object.freeze({ ...e, constants_sha256: canonicalSha256(e.constants) })
}

export const VALIDATION_RECORDS: readonly ValidationRecord[] = Object.freeze([
  record({
    key: 'nca_golden_theoph',
    title: 'Theophylline pharmacokinetics after oral administration, 12 subjects (NCA golden dataset) with Phoenix WinNonlin 6.3/7.0 results',
    publisher: 'Boeckmann AJ, Sheiner LB, Beal SL, NONMEM Users Guide Part V (NONMEM Project Group, UCSF, 1994); distributed with R as datasets::Theoph; WinNonlin results published in the NonCompart validation report (Han S, 2018)',
    url: 'https://github.com/asancpt/NonCompart-tests/blob/master/validation.md',
    retrieved_on: '2026-11-26',
    version: 'R datasets::Theoph (src/library/datasets/data/Theoph.R); validation report tests 1 and 2 (linear; linear-up/log-down), 320 mg, extravascular',
    constants: NCA_GOLDEN_THEOPH,
    golden_test: 'tests/skills/nca-golden.test.ts: every subject with both AUC methods',
    status_line: 'Validated against published data: Theoph (Boeckmann 1994), 12 subjects, Phoenix WinNonlin 6.3/7.0 results reproduced',
  }),
  record({
    key: 'nca_golden_indometh',
    title: 'Indomethacin pharmacokinetics after intravenous administration, 6 subjects (NCA golden dataset) with Phoenix WinNonlin 6.3/7.0 results',
    publisher: 'Kwan KC, Breault GO, Umbenhauer ER, McMahon FG, Duggan DE, J Pharmacokinet Biopharm 4:255-280 (1976), doi:10.1007/BF01063617; distributed with R as datasets::Indometh; WinNonlin results published in the NonCompart validation report (Han S, 2018)',
    url: 'https://github.com/asancpt/NonCompart-tests/blob/master/validation.md',
    retrieved_on: '2026-11-26',
    version: 'R datasets::Indometh (src/library/datasets/data/Indometh.R); validation report tests 3 to 6 (bolus and 0.25 h infusion; linear; linear-up/log-down), 25 mg',
    constants: NCA_GOLDEN_INDOMETH,
    golden_test: 'tests/skills/nca-golden.test.ts: every subject as a bolus and as an infusion with both AUC methods',
    status_line: 'Validated against published data: Indometh (Kwan 1976), 6 subjects, Phoenix WinNonlin 6.3/7.0 results reproduced',
  }),
])

const BY_KEY: ReadonlyMap<string, ValidationRecord> = new Map(VALIDATION_RECORDS.map((r) => [r.key, r]))

export function getValidationRecord(key: string): ValidationRecord | undefined {
  return BY_KEY.get(key)
}
