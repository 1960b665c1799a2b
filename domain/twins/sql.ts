// Owns the twins concept's raw SQL (everything else goes through the tenant client of core/database/db.ts): each tenant function
// takes the organisation first and binds it in its filter; a function of a job that sweeps every organisation (the
// schedule claim, the abandoned-run sweep, the event reconciliation) says so in its name. Savepoints read no rows.
import type { AnyTx, Db, Tx } from '../../core/database'
import type { asTx } from '../../core/database'

/** Any client or transaction, tenant-scoped or not: what raw SQL needs of it. */
type Sql = Pick<Tx, '$queryRaw' | '$executeRaw' | '$executeRawUnsafe'>

// ---- runs ------------------------------------------------------------------------------------------------------------

/** Inserts a queued run unless its trigger has one queued already (unique index agent_runs_one_queued_per_trigger); answers the new id, or nothing. */
export function insertQueuedRun(
  tx: Sql, organizationId: string,
  input: { programId: string | null; kind?: string; initiatedBy: string; twinId: string; triggerId?: string | null; priority?: string; targetId?: string | null; startedByUserId?: string | null },
) {
  return tx.$queryRaw<{ id: string }[]>`
    INSERT INTO agent_runs (organization_id, program_id, kind, status, initiated_by, twin_id, trigger_id, priority, target_id, started_by_user_id)
    VALUES (${organizationId}::uuid, ${input.programId}::uuid, ${input.kind ?? 'twin_cycle'}, 'queued', ${input.initiatedBy},
      ${input.twinId}::uuid, ${input.triggerId ?? null}::uuid, ${input.priority ?? 'digest'}, ${input.targetId ?? null}, ${input.startedByUserId ?? null}::uuid)
    ON CONFLICT (trigger_id) WHERE status = 'queued' AND trigger_id IS NOT NULL DO NOTHING
    RETURNING id`
}

/** twin_schedule's sweep over every organisation: runs queued or running before `before` whose job is gone or spent. */
export function abandonedRunsAcrossOrganisations(db: Sql, before: Date) {
  return db.$queryRaw<{ id: string }[]>`
    SELECT r.id FROM agent_runs r
    WHERE r.kind IN ('twin_cycle', 'twin_handoff') AND r.status IN ('queued', 'running')
      AND COALESCE(r.started_at, r.created_at) < ${before}
      AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'twin_cycle:' || r.id AND j.attempts < j.max_attempts)
    LIMIT 1000`
}

// ---- schedules (the twin_schedule job, every organisation) -------------------------------------------------------------

export interface DueRow {
  schedule_id: string; trigger_id: string; twin_id: string; organization_id: string; program_id: string | null; user_id: string
  rrule: string; last_run_at: Date | null; min_interval_seconds: number; priority: string; next_run_at: Date
}

/** Claims up to `batch` due schedules of active, approved schedule triggers (FOR UPDATE OF the schedule SKIP LOCKED). */
export function dueSchedulesAcrossOrganisations(tx: Sql, now: Date, batch: number) {
  return tx.$queryRaw<DueRow[]>`
        SELECT s.id AS schedule_id, s.trigger_id, s.twin_id, s.organization_id, d.program_id, d.user_id, s.rrule, s.last_run_at,
               t.min_interval_seconds, t.priority::text AS priority, s.next_run_at
        FROM twin_schedules s
        JOIN twin_triggers t ON t.id = s.trigger_id AND t.organization_id = s.organization_id
        JOIN twin_definitions d ON d.id = s.twin_id AND d.organization_id = s.organization_id
        WHERE s.next_run_at <= ${now} AND t.enabled AND t.kind = 'schedule' AND d.status = 'active'
          AND t.standing_plan_approved_at IS NOT NULL
        ORDER BY s.next_run_at
        LIMIT ${batch}
        FOR UPDATE OF s SKIP LOCKED`
}

/** In one statement: the scheduled runs (a trigger with a queued run keeps it), a twin_cycle job per new run, a NOTIFY per run; answers how many were new. */
export function insertScheduledRunsAcrossOrganisations(tx: Sql, fire: Pick<DueRow, 'organization_id' | 'program_id' | 'twin_id' | 'trigger_id' | 'priority'>[]) {
  return tx.$queryRaw<{ n: number }[]>`
          WITH ins AS (
            INSERT INTO agent_runs (organization_id, program_id, kind, status, initiated_by, twin_id, trigger_id, priority)
            SELECT f.organization_id, f.program_id, 'twin_cycle', 'queued', 'schedule', f.twin_id, f.trigger_id, f.priority
            FROM unnest(${fire.map((f) => f.organization_id)}::uuid[], ${fire.map((f) => f.program_id)}::uuid[],
                        ${fire.map((f) => f.twin_id)}::uuid[], ${fire.map((f) => f.trigger_id)}::uuid[], ${fire.map((f) => f.priority)}::text[])
              AS f(organization_id, program_id, twin_id, trigger_id, priority)
            ON CONFLICT (trigger_id) WHERE status = 'queued' AND trigger_id IS NOT NULL DO NOTHING
            RETURNING id, organization_id, program_id
          ), jobs AS (
            SELECT graphile_worker.add_jobs(array_agg(
              ('twin_cycle', json_build_object('runId', ins.id), NULL, NULL, 3, 'twin_cycle:' || ins.id, NULL, NULL)::graphile_worker.job_spec
            )) FROM ins
          ), notes AS (
            SELECT pg_notify('twin_run_updated', json_build_object('id', ins.id, 'programId', ins.program_id, 'organizationId', ins.organization_id)::text)
            FROM ins WHERE ins.program_id IS NOT NULL
          )
          SELECT (SELECT count(*) FROM ins)::int + 0 * (SELECT count(*) FROM jobs)::int + 0 * (SELECT count(*) FROM notes)::int AS n`
}

/** Stamps the fired schedule triggers. */
export async function markTriggersFiredAcrossOrganisations(tx: Sql, triggerIds: string[], now: Date) {
  await tx.$executeRaw`
          UPDATE twin_triggers t SET last_fired_at = ${now}, fire_count = t.fire_count + 1, updated_at = ${now}
          WHERE t.id = ANY(${triggerIds}::uuid[])`
}

/** Moves each claimed schedule to its next occurrence (and its last run when it fired). */
export async function moveSchedulesAcrossOrganisations(tx: Sql, moves: { id: string; next: Date | null; fired: boolean }[], now: Date) {
  await tx.$executeRaw`
        UPDATE twin_schedules s SET next_run_at = m.next, locked_at = ${now}, updated_at = ${now},
               last_run_at = CASE WHEN m.fired THEN ${now}::timestamptz ELSE s.last_run_at END
        FROM unnest(${moves.map((m) => m.id)}::uuid[], ${moves.map((m) => m.next)}::timestamptz[], ${moves.map((m) => m.fired)}::boolean[]) AS m(id, next, fired)
        WHERE s.id = m.id`
}

// ---- event triggers ------------------------------------------------------------------------------------------------

/** The audit trail's last entry_seq (the trail is one sequence for every organisation): where a new event trigger starts. */
export async function auditTrailEndAcrossOrganisations(tx: Sql): Promise<bigint> {
  const [r] = await tx.$queryRaw<{ seq: bigint | null }[]>`SELECT max(entry_seq) AS seq FROM audit_events`
  return r?.seq ?? 0n
}

/** Moves an event trigger's watermark forward, and stamps its firing when a run was queued. */
export async function advanceTriggerWatermark(tx: Sql, organizationId: string, triggerId: string, seq: bigint, created: boolean, runAt: Date, now: Date) {
  await tx.$executeRaw`
    UPDATE twin_triggers SET last_entry_seq = GREATEST(last_entry_seq, ${seq}),
      last_fired_at = CASE WHEN ${created} THEN ${runAt}::timestamptz ELSE last_fired_at END,
      fire_count = fire_count + CASE WHEN ${created} THEN 1 ELSE 0 END, updated_at = ${now}
    WHERE id = ${triggerId}::uuid AND organization_id = ${organizationId}::uuid`
}

/** twin_events_reconcile over every organisation: each enabled event trigger's newest matching entry past its watermark. */
export function missedTriggerEventsAcrossOrganisations(db: Sql) {
  return db.$queryRaw<{ id: string; organization_id: string; seq: bigint; target_id: string }[]>`
    SELECT t.id, t.organization_id, a.entry_seq AS seq, a.target_id
    FROM twin_triggers t
    JOIN twin_definitions d ON d.id = t.twin_id AND d.status = 'active'
    CROSS JOIN LATERAL (
      SELECT entry_seq, target_id FROM audit_events a
      WHERE a.action = t.event_action AND a.program_id = t.program_id AND a.organization_id = t.organization_id
        AND a.entry_seq > t.last_entry_seq AND a.twin_id IS DISTINCT FROM t.twin_id
      ORDER BY a.entry_seq DESC LIMIT 1
    ) a
    WHERE t.kind = 'event' AND t.enabled AND t.standing_plan_approved_at IS NOT NULL`
}

/** Locks an event trigger still behind `seq` (SKIP LOCKED: another pass has it); answers it when locked. */
export async function lockTriggerBehind(tx: Sql, organizationId: string, triggerId: string, seq: bigint) {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM twin_triggers WHERE id = ${triggerId}::uuid AND organization_id = ${organizationId}::uuid AND last_entry_seq < ${seq} FOR UPDATE SKIP LOCKED`
  return locked
}

// ---- evaluation (per twin, never aggregated per person) ----------------------------------------------------------------

/** The twin's proposals since `since`: filed, approved unchanged, approved with edits, declined. */
export async function proposalOutcomesOf(db: Sql, organizationId: string, twinId: string, since: Date) {
  const [p] = await db.$queryRaw<{ filed: number; approved: number; edited: number; declined: number }[]>`
    SELECT count(*)::int AS filed,
      count(*) FILTER (WHERE answer->>'outcome' = 'approved')::int AS approved,
      count(*) FILTER (WHERE answer->>'outcome' = 'approved_with_edits')::int AS edited,
      count(*) FILTER (WHERE answer->>'outcome' = 'declined')::int AS declined
    FROM run_interrupts
    WHERE organization_id = ${organizationId}::uuid AND kind = 'write_approval' AND question->>'type' = 'proposal'
      AND question->'proposer'->>'twinId' = ${twinId} AND created_at >= ${since}`
  return p
}

/** The twin's declined proposals since `since`, by reason code. */
export function declineReasonsOf(db: Sql, organizationId: string, twinId: string, since: Date) {
  return db.$queryRaw<{ reason: string; n: number }[]>`
    SELECT COALESCE(answer->'reason'->>'code', 'unspecified') AS reason, count(*)::int AS n
    FROM run_interrupts
    WHERE organization_id = ${organizationId}::uuid AND kind = 'write_approval' AND question->>'type' = 'proposal'
      AND question->'proposer'->>'twinId' = ${twinId} AND created_at >= ${since} AND answer->>'outcome' = 'declined'
    GROUP BY 1 ORDER BY 1`
}

/** Tool calls of the twin's runs since `since` that a tool refused (harness denials left out). */
export async function refusedCallsOf(db: Sql, organizationId: string, twinId: string, since: Date) {
  const [r] = await db.$queryRaw<{ refused: number }[]>`
    SELECT count(*)::int AS refused FROM tool_calls c JOIN agent_runs r ON r.id = c.run_id
    WHERE r.organization_id = ${organizationId}::uuid AND r.twin_id = ${twinId}::uuid AND c.status = 'refused' AND c.created_at >= ${since}
      -- a harness denial (a tool outside the toolset, budget, per-turn) is an attempt the server refused, not a tool's refusal
      AND NOT c.output_violations @> '[{"code": "harness_denied"}]'::jsonb`
  return r
}

/** Feedback on the twin's items, per trigger: how many were rated and how many not useful. */
export function feedbackByTriggerOf(db: Sql, organizationId: string, twinId: string) {
  return db.$queryRaw<{ trigger_id: string; rated: number; not_useful: number }[]>`
    SELECT trigger_id, count(*)::int AS rated, count(*) FILTER (WHERE feedback = 'not_useful')::int AS not_useful
    FROM inbox_items
    WHERE organization_id = ${organizationId}::uuid AND twin_id = ${twinId}::uuid AND trigger_id IS NOT NULL AND feedback <> 'none'
    GROUP BY trigger_id ORDER BY trigger_id`
}

// ---- savepoints ------------------------------------------------------------------------------------------------------

/** A named savepoint in `tx`: a failure after it can roll back to it and leave the transaction usable. */
export async function savepoint(tx: Sql, name: 'twin_resume') {
  await tx.$executeRawUnsafe(`SAVEPOINT ${name}`)
}

export async function releaseSavepoint(tx: Sql, name: 'twin_resume') {
  await tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${name}`)
}

export async function rollbackToSavepoint(tx: Sql, name: 'twin_resume') {
  await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`)
}

/** The USD a twin's runs reported since `since` (null when none reported any). */
export async function usdSpentSince(q: AnyTx | Db, organizationId: string, twinId: string, since: Date): Promise<string | null> {
  const [row] = await (q as ReturnType<typeof asTx>).$queryRaw<{ spent: string | null }[]>`
    SELECT sum((outcome->>'cost_usd')::numeric) AS spent FROM agent_runs
    WHERE organization_id = ${organizationId}::uuid AND twin_id = ${twinId}::uuid AND created_at >= ${since}
      AND jsonb_typeof(outcome->'cost_usd') = 'number'`
  return row?.spent ?? null
}

/**
 * Reserves `amountUsd` on the run (agent_runs.usd_reserved) when it fits the twin's budget_usd_month: the twin's cost
 * reported since `since` plus what its running runs hold reserved, plus `amountUsd`, at most the budget (no budget:
 * it always fits). Under the twin's lock (taken first, so the counting statement's snapshot sees every reservation
 * committed before it; each reserver holds the lock until it commits), runs reserving at once are admitted up to the
 * budget and no further. Answers the twin's status and budget, what was counted, whether the amount fits and whether
 * the run (still running) now holds it;
 * nothing when the twin does not exist. Call it in a transaction.
 */
export async function reserveTwinUsd(tx: Sql, organizationId: string, input: { twinId: string; runId: string; amountUsd: number; since: Date }) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`twin_usd:${input.twinId}`}, 0))`
  const [row] = await tx.$queryRaw<{ status: string; budget: string | null; counted: string; fits: boolean; reserved: boolean }[]>`
    WITH twin AS (
      SELECT status::text AS status, budget_usd_month AS budget FROM twin_definitions
      WHERE id = ${input.twinId}::uuid AND organization_id = ${organizationId}::uuid
    ), counted AS (
      SELECT COALESCE(sum(CASE WHEN jsonb_typeof(outcome->'cost_usd') = 'number' THEN (outcome->>'cost_usd')::numeric ELSE 0 END), 0)
           + COALESCE(sum(usd_reserved) FILTER (WHERE status = 'running' AND id <> ${input.runId}::uuid), 0) AS total
      FROM agent_runs
      WHERE organization_id = ${organizationId}::uuid AND twin_id = ${input.twinId}::uuid AND created_at >= ${input.since}
    ), reserved AS (
      UPDATE agent_runs r SET usd_reserved = ${input.amountUsd}::numeric
      FROM twin, counted
      WHERE r.id = ${input.runId}::uuid AND r.organization_id = ${organizationId}::uuid AND r.status = 'running'
        AND twin.status = 'active' AND (twin.budget IS NULL OR counted.total + ${input.amountUsd}::numeric <= twin.budget)
      RETURNING r.id
    )
    SELECT twin.status, twin.budget::text AS budget, counted.total::text AS counted,
      (twin.budget IS NULL OR counted.total + ${input.amountUsd}::numeric <= twin.budget) AS fits, EXISTS (SELECT 1 FROM reserved) AS reserved
    FROM twin, counted`
  return row
}

/** Writes a model call's real cost on the run (its outcome) and gives its reservation back, in one statement. */
export async function settleTwinUsd(q: Sql, organizationId: string, runId: string, outcome: Record<string, unknown>) {
  await q.$executeRaw`
    UPDATE agent_runs SET outcome = ${JSON.stringify(outcome)}::jsonb, usd_reserved = 0
    WHERE id = ${runId}::uuid AND organization_id = ${organizationId}::uuid AND status = 'running'`
}
