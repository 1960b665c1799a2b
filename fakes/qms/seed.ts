// Illustrative content of the demo vault: three SOPs (one superseded by its successor, one in review) whose
// text has numbered sections with "shall" requirements, and one version under a label the demo connection does not map.
import type { FakeQmsState } from './state'

export const ILLUSTRATIVE_QMS_USER = { username: 'integration@illustrative-vault.example', password: 'illustrative-password' }
export const ILLUSTRATIVE_CLIENT_ID = 'evidence-workspace-illustrative'

const text = (title: string, lines: string[]) => `${title}\n\n${lines.join('\n')}\n`

export function seedIllustrativeQms(state: FakeQmsState) {
  state.addUser(ILLUSTRATIVE_QMS_USER.username, ILLUSTRATIVE_QMS_USER.password)
  const entry = state.addDocument({ id: '101', number: 'SOP-0001', name: 'Notebook entry documentation' })
  state.addVersion(entry.id, {
    major: 1, minor: 0, status: 'Superseded', effectiveDate: '2025-01-15T00:00:00.000Z', supersededDate: '2026-02-01T00:00:00.000Z',
    text: text('Notebook entry documentation (illustrative)', ['1 Scope', 'Each entry shall record the date of the experiment.']),
  })
  state.addVersion(entry.id, {
    major: 2, minor: 0, status: 'Effective', effectiveDate: '2026-02-01T00:00:00.000Z',
    text: text('Notebook entry documentation (illustrative)', [
      '1 Scope', 'This procedure applies to every notebook entry of the illustrative program.',
      '2 Entries', '2.1 Each entry shall record the date and the author of the experiment.', '2.2 Each entry shall name the batch or lot of every reagent used.',
      '3 Review', '3.1 A second scientist must review the entry within 5 working days.', '3.2 Deviations shall be recorded in the entry and reported to quality.',
    ]),
  })
  const assay = state.addDocument({ id: '102', number: 'SOP-0002', name: 'Assay qualification' })
  state.addVersion(assay.id, {
    major: 1, minor: 0, status: 'Effective',
    text: text('Assay qualification (illustrative)', ['1 Controls', '1.1 Every plate shall include positive and negative controls.', '1.2 The Z-prime of each plate must be at least 0.5.']),
  })
  state.addVersion(assay.id, { major: 1, minor: 1, status: 'In Review', text: text('Assay qualification (illustrative)', ['1 Controls', '1.1 Every plate shall include positive and negative controls.']) })
  const retired = state.addDocument({ id: '103', number: 'SOP-0003', name: 'Legacy sample labelling' })
  state.addVersion(retired.id, { major: 3, minor: 0, status: 'Pending Retirement', text: text('Legacy sample labelling (illustrative)', ['1 Labels', '1.1 Labels shall carry the sample id.']) })
  return { documents: ['101', '102', '103'] }
}
