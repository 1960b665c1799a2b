// Owns the retention windows memory_expire applies (memory document, Retention): tier 1 is soft-forgotten 90 days
// after membership in the program ends; episodic records expire 180 days after they were kept unless pinned. Tier 2
// goes with the user (memory_records.user_id cascades). Expired rows are erased tombstones, like forgotten ones, and
// Keep questions that expired unanswered lose their note.
import type { Db } from '../../core/database'
import { transitionAll } from '../../core/states'
import { memoryRecordStatus } from '../../core/states'
import { announceNotesBeneath, DAY_MS, MEMBERSHIP_GRACE_DAYS } from './store'
import { eraseExpiredNoteQuestionsAcrossOrganisations, recordsOfEndedMembershipsAcrossOrganisations } from './sql'

/** One sweep across organisations at `now` (a parameter, so tests move the clock). No audit: the job is the actor. */
export async function sweepMemory(db: Db, now: Date = new Date()): Promise<{ membershipEnded: number; episodicExpired: number; questionsErased: number }> {
  const cutoff = new Date(now.getTime() - MEMBERSHIP_GRACE_DAYS * DAY_MS)
  return sweepMemoryAcrossOrganisations(db, now, cutoff)
}

/** Every organisation's expired notes in one transaction: the retention windows are the platform's rule, not a tenant's. */
function sweepMemoryAcrossOrganisations(db: Db, now: Date, cutoff: Date) {
  const erased = { summary: '', body: null, forgottenAt: now, updatedAt: now }
  return db.$transaction(async (tx) => {
    const ended = await recordsOfEndedMembershipsAcrossOrganisations(tx, cutoff)
    const membershipEnded = ended.length
      ? (await transitionAll(tx, memoryRecordStatus, 'expire', { id: { in: ended.map((r) => r.id) } }, erased)).length
      : 0
    const episodic = await transitionAll(tx, memoryRecordStatus, 'expire',
      { tier: 'individual', kind: 'episodic', pinned: false, expiresAt: { lte: now } }, erased)
    // Keep questions nobody answered before they expired kept nothing, so nothing of their note stays either (the
    // shape of store.ts erasedNoteQuestion).
    // The proposal each note was shown beneath is read before the erasure, so its inbox item is announced.
    const questions = await eraseExpiredNoteQuestionsAcrossOrganisations(tx, now)
    await announceNotesBeneath(tx, questions)
    return { membershipEnded, episodicExpired: episodic.length, questionsErased: questions.length }
  })
}
