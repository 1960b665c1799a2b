// Owns the raw SQL of collaboration (everything else goes through the tenant client of core/database/db.ts): hand-offs,
// delegations and the oversight reads. Each function takes the organisation first and binds it in its filter.
import type { Tx } from '../../core/database'

/** Any client or transaction, tenant-scoped or not: what raw SQL needs of it. */
type Sql = Pick<Tx, '$queryRaw' | '$executeRaw'>
type After = { at: Date; id: string } | null

export type BoardRow = { kind: 'decision' | 'handoff' | 'twin'; id: string; title: string; status: string; user_id: string; persona_key: string | null; due_at: Date | null; created_at: Date }
export type OutcomeRow = { persona_key: string; user_id: string; outcome: string | null; reason: string | null; expired: boolean; n: number }
export type RefusedRow = { persona_key: string; user_id: string; refused: number }
export type ExportDbRow = { kind: 'twin' | 'trigger' | 'run' | 'tool_call' | 'handoff' | 'delegation'; id: string; program_id: string | null; status: string | null; created_at: Date; metadata: Record<string, unknown> }

/**
 * Inserts a hand-off in sent unless one of the same item, persona and kind is sent or accepted (the partial unique
 * index decides a race between two sends); answers the new id, or nothing.
 */
export function insertHandoffUnlessOpen(
  tx: Sql, organizationId: string, fromUserId: string,
  d: { programId: string; toPersonaKey: string; toUserId?: string | null; kind: string; linkedType: string; linkedId: string; threadId?: string | null },
  origin: { fromTwinId?: string | null; proposalId?: string | null }, text: string, redactions: unknown[],
) {
  return tx.$queryRaw<{ id: string }[]>`
    INSERT INTO handoff_requests (organization_id, program_id, from_user_id, from_twin_id, to_persona_key, to_user_id, kind, linked_type, linked_id,
      message_md, redactions, status, thread_id, proposal_id)
    VALUES (${organizationId}::uuid, ${d.programId}::uuid, ${fromUserId}::uuid, ${origin.fromTwinId ?? null}::uuid, ${d.toPersonaKey},
      ${d.toUserId ?? null}::uuid, ${d.kind}::handoff_kind, ${d.linkedType}, ${d.linkedId}, ${text}, ${JSON.stringify(redactions)}::jsonb, 'sent',
      ${d.threadId ?? null}::uuid, ${origin.proposalId ?? null}::uuid)
    ON CONFLICT (linked_type, linked_id, to_persona_key, kind) WHERE status IN ('sent', 'accepted') DO NOTHING
    RETURNING id`
}

/** Locks one hand-off of the organisation (FOR UPDATE). */
export async function lockHandoff(tx: Sql, organizationId: string, id: string) {
  await tx.$executeRaw`SELECT 1 FROM handoff_requests WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/** Serialises the organisation's delegation writes, so two requests cannot both pass the overlap checks. */
export async function lockDelegationsOf(tx: Sql, organizationId: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('delegations:' || ${organizationId}))`
}

/** One page of a program's board (open decisions, live hand-offs, twins not retired), newest first. */
export function programBoardRows(q: Sql, organizationId: string, programId: string, after: After, first: number) {
  return q.$queryRaw<BoardRow[]>`
    SELECT * FROM (
      SELECT 'decision' AS kind, i.id, i.title, i.status::text AS status, i.user_id, NULL::text AS persona_key, i.due_at, i.created_at
        FROM inbox_items i
        WHERE i.organization_id = ${organizationId}::uuid AND i.program_id = ${programId}::uuid AND i.kind = 'decision' AND i.status IN ('open', 'snoozed')
      UNION ALL
      SELECT 'handoff', h.id, h.kind::text || ': ' || COALESCE(r.title, t.title, h.linked_type), h.status::text, h.from_user_id, h.to_persona_key, NULL, h.created_at
        FROM handoff_requests h
        LEFT JOIN program_records r ON h.linked_type = 'program_record' AND r.id::text = h.linked_id AND r.organization_id = h.organization_id
        LEFT JOIN threads t ON h.linked_type = 'thread' AND t.id::text = h.linked_id AND t.organization_id = h.organization_id
        WHERE h.organization_id = ${organizationId}::uuid AND h.program_id = ${programId}::uuid AND h.status IN ('sent', 'accepted')
      UNION ALL
      SELECT 'twin', d.id, d.persona_key, d.status::text, d.user_id, d.persona_key, NULL, d.created_at
        FROM twin_definitions d
        WHERE d.organization_id = ${organizationId}::uuid AND d.program_id = ${programId}::uuid AND d.status <> 'retired'
    ) b
    WHERE ${after === null} OR b.created_at < ${after?.at ?? new Date(0)} OR (b.created_at = ${after?.at ?? new Date(0)} AND b.id < ${after?.id ?? '00000000-0000-0000-0000-000000000000'}::uuid)
    ORDER BY b.created_at DESC, b.id DESC
    LIMIT ${first + 1}`
}

/** Twin proposals of a program filed in [since, until), grouped by twin persona, person, outcome and decline reason. */
export function proposalOutcomeCounts(q: Sql, organizationId: string, programId: string, since: Date, until: Date, now: Date) {
  return q.$queryRaw<OutcomeRow[]>`
    WITH g AS (
      SELECT i.question->'proposer'->>'twinId' AS twin_id, i.answer->>'outcome' AS outcome,
        CASE WHEN i.answer->>'outcome' = 'declined' THEN COALESCE(i.answer->'reason'->>'code', 'unspecified') END AS reason,
        (i.answer IS NULL AND i.expires_at <= ${now}) AS expired, count(*)::int AS n
      FROM run_interrupts i
      WHERE i.organization_id = ${organizationId}::uuid AND i.kind = 'write_approval' AND (i.question->>'programId') = ${programId}
        AND i.question->>'type' = 'proposal' AND i.created_at >= ${since} AND i.created_at < ${until}
      GROUP BY 1, 2, 3, 4
    )
    SELECT d.persona_key, d.user_id::text AS user_id, g.outcome, g.reason, g.expired, g.n
    FROM g JOIN twin_definitions d ON d.id::text = g.twin_id AND d.organization_id = ${organizationId}::uuid`
}

/** Tool calls of a program's twins the tool server refused in [since, until) (harness denials left out). */
export function refusedToolCallCounts(q: Sql, organizationId: string, programId: string, since: Date, until: Date) {
  return q.$queryRaw<RefusedRow[]>`
    SELECT d.persona_key, d.user_id::text AS user_id, count(*)::int AS refused
    FROM tool_calls c JOIN twin_definitions d ON d.id = c.twin_id
    WHERE c.organization_id = ${organizationId}::uuid AND c.program_id = ${programId}::uuid AND c.status = 'refused'
      AND c.created_at >= ${since} AND c.created_at < ${until}
      AND NOT c.output_violations @> '[{"code": "harness_denied"}]'::jsonb
    GROUP BY 1, 2`
}

/** One page of the organisation's twins export (metadata only, listed columns), newest first. */
export function twinsExportRows(q: Sql, organizationId: string, after: After, at: Date, afterId: string, first: number) {
  return q.$queryRaw<ExportDbRow[]>`
    SELECT * FROM (
      SELECT 'twin' AS kind, d.id, d.program_id, d.status::text AS status, d.created_at,
        jsonb_build_object('userId', d.user_id, 'personaKey', d.persona_key, 'agentKey', d.agent_key, 'duties', d.duties, 'pausedReason', d.paused_reason,
          'budgetToolCallsMonth', d.budget_tool_calls_month, 'retiredAt', d.retired_at) AS metadata
        FROM twin_definitions d WHERE d.organization_id = ${organizationId}::uuid
      UNION ALL
      SELECT 'trigger', t.id, t.program_id, CASE WHEN t.enabled THEN 'enabled' ELSE 'disabled' END, t.created_at,
        jsonb_build_object('twinId', t.twin_id, 'dutyKey', t.duty_key, 'kind', t.kind, 'eventAction', t.event_action, 'priority', t.priority,
          'standingPlanHash', t.standing_plan_hash, 'standingPlanApprovedAt', t.standing_plan_approved_at, 'fireCount', t.fire_count, 'lastFiredAt', t.last_fired_at)
        FROM twin_triggers t WHERE t.organization_id = ${organizationId}::uuid
      UNION ALL
      SELECT 'run', r.id, r.program_id, r.status::text, r.created_at,
        jsonb_build_object('twinId', r.twin_id, 'kind', r.kind, 'initiatedBy', r.initiated_by, 'triggerId', r.trigger_id, 'targetId', r.target_id,
          'startedAt', r.started_at, 'finishedAt', r.finished_at)
        FROM agent_runs r WHERE r.organization_id = ${organizationId}::uuid AND r.twin_id IS NOT NULL
      UNION ALL
      SELECT 'tool_call', c.id, c.program_id, c.status::text, c.created_at,
        jsonb_build_object('tool', c.tool, 'runId', c.run_id, 'twinId', c.twin_id, 'turn', c.turn, 'basisHash', c.basis_hash,
          'checkLogicVersion', c.check_logic_version, 'inputsHash', c.inputs_hash, 'resultArtifactId', c.result_artifact_id,
          'violations', jsonb_array_length(c.output_violations))
        FROM tool_calls c WHERE c.organization_id = ${organizationId}::uuid AND c.twin_id IS NOT NULL
      UNION ALL
      SELECT 'handoff', h.id, h.program_id, h.status::text, h.created_at,
        jsonb_build_object('kind', h.kind, 'fromUserId', h.from_user_id, 'fromTwinId', h.from_twin_id, 'toPersonaKey', h.to_persona_key,
          'toUserId', h.to_user_id, 'linkedType', h.linked_type, 'linkedId', h.linked_id, 'decidedBy', h.decided_by, 'decidedAt', h.decided_at)
        FROM handoff_requests h WHERE h.organization_id = ${organizationId}::uuid
      UNION ALL
      SELECT 'delegation', g.id, g.program_id, g.status::text, g.created_at,
        jsonb_build_object('userId', g.user_id, 'delegateUserId', g.delegate_user_id, 'startsAt', g.starts_at, 'endsAt', g.ends_at,
          'renewalCount', g.renewal_count, 'revokedAt', g.revoked_at)
        FROM delegations g WHERE g.organization_id = ${organizationId}::uuid
    ) x
    WHERE ${after === null} OR x.created_at < ${at} OR (x.created_at = ${at} AND x.id < ${afterId}::uuid)
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT ${first + 1}`
}
