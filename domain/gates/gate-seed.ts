// Owns the illustrative program's stage gate: one open gate from its first stage to the next, opened by the lead
// through the gate's own write path (audited, readiness computed, its first readiness_brief queued), so the demo shows
// '<N> of <M> required records present' and the live stream moving as the illustrative records are decided.
// Idempotent: a program that has a gate is left alone.
import { contextForUser } from '../../core/jobs'
import { forOrganization, type Db } from '../../core/database'
import { openStageGate } from './gates'

type Seeded = { organization: { id: string }; program: { id: string }; users: Record<string, { id: string }> }

export async function seedIllustrativeGate(db: Db, seed: Seeded): Promise<number> {
  const programId = seed.program.id
  const tdb = forOrganization(db, seed.organization.id)
  if (await tdb.stageGate.count({ where: { programId } })) return 0
  const stages = await tdb.programStage.findMany({ where: { programId }, orderBy: { position: 'asc' }, take: 2 })
  if (stages.length < 2) return 0
  const lead = await contextForUser(db, seed.users.program_lead.id, seed.organization.id)
  await openStageGate(lead, {
    programId, stageId: stages[0].id, nextStageId: stages[1].id,
    requiredRecords: [
      { kind: 'decided_record', recordType: 'evidence.hypotheses', label: 'Target hypothesis decided' },
      { kind: 'decided_record', recordType: 'evidence.findings', label: 'hERG finding confirmed' },
      { kind: 'skill_result', skillKey: 'tox.fih_dose_projection', label: 'FIH dose projection run' },
    ],
  })
  return 1
}
