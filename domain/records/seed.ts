// Owns the illustrative program's records: a few of each product, written through the one write path as the seed's
// people (so each has its version, audit row and typed fields). Idempotent: a program that has records is left alone.
import { contextForUser } from '../../core/jobs'
import { forOrganization, type Db } from '../../core/database'
import { applyRecordChange, type RecordChange } from './write'

type Seeded = { organization: { id: string }; program: { id: string }; users: Record<string, { id: string }> }

export async function seedIllustrativeRecords(db: Db, seed: Seeded): Promise<number> {
  const programId = seed.program.id
  if (await forOrganization(db, seed.organization.id).programRecord.count({ where: { programId } })) return 0
  const as = (persona: string) => contextForUser(db, seed.users[persona].id, seed.organization.id)
  const create = async (persona: string, change: Omit<Extract<RecordChange, { kind: 'create' }>, 'kind' | 'programId'>) =>
    (await applyRecordChange(await as(persona), { kind: 'create', programId, ...change })).recordId
  await create('scientist', {
    recordType: 'evidence.hypotheses', title: 'ILL-101 binds the allosteric pocket of the target kinase (illustrative)',
    body: 'Potency tracks the pocket-facing substituent across the series.', fields: { confidence: 'medium', target: 'target kinase' },
  })
  await create('scientist', { recordType: 'evidence.findings', title: 'hERG IC50 above 30 µM (illustrative)', fields: { kind: 'result', species: 'in vitro' } })
  await create('scientist', { recordType: 'evidence.questions', title: 'Which tox species is most sensitive? (illustrative)', fields: { due_on: '2027-01-15' } })
  await create('scientist', { recordType: 'evidence.gaps', title: 'No GLP safety pharmacology core battery yet (illustrative)', fields: { severity: 'high', area: 'safety pharmacology' } })
  await create('manufacturing_specialist', { recordType: 'plans.plans', title: 'Non-GMP tox batch plan (illustrative)', fields: { plan_kind: 'cmc', period_start_on: '2027-01-01', period_end_on: '2027-04-30' } })
  const tox = await create('program_lead', { recordType: 'progress.milestones', title: 'GLP tox studies complete (illustrative)', fields: { due_on: '2027-06-30', tags: ['gate-critical'] } })
  const ind = await create('program_lead', { recordType: 'progress.milestones', title: 'IND submitted (illustrative)', fields: { due_on: '2027-09-30', tags: ['gate-critical'] } })
  await create('program_lead', { recordType: 'progress.dependencies', title: 'IND needs the GLP tox reports (illustrative)', fields: { from_record_id: ind, to_record_id: tox, dependency_kind: 'finish_to_start' } })
  await create('program_lead', { recordType: 'progress.open_items', title: 'Confirm the CRO slot for the dog study (illustrative)', fields: { priority: 'high' } })
  await create('quality_reviewer', { recordType: 'review.findings', title: 'Balance calibration record missing a signature (illustrative)', fields: { severity: 'minor', sop_reference: 'SOP-QA-012 §4.2' } })
  return 10
}
