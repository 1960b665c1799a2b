// Owns the retention windows memory_expire applies (memory document, Retention): tier 1 is soft-forgotten 90 days
// after membership in the program ends; episodic records expire 180 days after they were kept unless pinned. Tier 2
// goes with the user (memory_records.user_id cascades). Expired rows are erased tombstones, like forgotten ones, and
// Keep questions that expired unanswered lose their note.
import type { Db } from '../../../../core/db'
import { transitionAll } from '../../../../core/state-machine'
import { memoryRecordStatus } from '../../../../core/states/memory'
import { announceNotesBeneath, DAY_MS, MEMBERSHIP_GRACE_DAYS, type NoteBeneath } from './store'

/** One sweep across organisations at `now` (a parameter, so tests move the clock). No audit: the job is the actor. */
export async function sweepMemory(db: Db, now: Date = new Date()): Promise<{ membershipEnded: number; episodicExpired: number; questionsErased: number }> {
  const cutoff = new Date(now.getTime() - MEMBERSHIP_GRACE_DAYS * DAY_MS)
  const erased = { summary: '', body: null, forgottenAt: now, updatedAt: now }
  return db.$transaction(async (tx) => {
    const ended = await tx.$queryRaw<{ id: string }[]>`
      SELECT m.id FROM memory_records m
      JOIN program_memberships pm ON pm.program_id = m.program_id AND pm.user_id = m.user_id
      WHERE m.tier = 'individual' AND m.status IN ('kept', 'promoted') AND pm.ended_at IS NOT NULL AND pm.ended_at <= ${cutoff}`
    const membershipEnded = ended.length
      ? (await transitionAll(tx, memoryRecordStatus, 'expire', { id: { in: ended.map((r) => r.id) } }, erased)).length
      : 0
    const episodic = await transitionAll(tx, memoryRecordStatus, 'expire',
      { tier: 'individual', kind: 'episodic', pinned: false, expiresAt: { lte: now } }, erased)
    // Keep questions nobody answered before they expired kept nothing, so nothing of their note stays either (the
    // shape of store.ts erasedNoteQuestion).
    // The proposal each note was shown beneath is read before the erasure, so its inbox item is announced.
    const questions = await tx.$queryRaw<NoteBeneath[]>`
      WITH expired AS (
        SELECT id, question->'memory_note'->>'proposalRef' AS proposal_ref FROM run_interrupts
        WHERE kind = 'write_approval' AND question->>'type' = 'memory_note' AND question ? 'memory_note'
          AND answered_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ${now}
        FOR UPDATE)
      UPDATE run_interrupts r SET question = jsonb_build_object('type', 'memory_note', 'userId', r.question->'userId', 'twinId', r.question->'twinId', 'erased', true)
      FROM expired WHERE r.id = expired.id
      RETURNING r.organization_id::text AS "organizationId", r.question->>'userId' AS "userId", expired.proposal_ref AS "proposalRef"`
    await announceNotesBeneath(tx, questions)
    return { membershipEnded, episodicExpired: episodic.length, questionsErased: questions.length }
  })
}
