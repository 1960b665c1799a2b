// Owns the three oversight reads of the twins document (Board, metrics, export): the program board (open decisions,
// sent or accepted hand-offs, twins and their states, cursor pages), decision metrics per persona (by_user[] only under
// program.twins.read), and the organisation's twins export (metadata only, never tool_calls.arguments, keyset pages).
// Purpose limitation: nothing here reads inbox feedback or memory; metrics and export count proposals, tool calls,
// hand-offs and runs only.
import type { DomainContext } from '../../../../core/command'
import { BaselineMissing, InvalidInput } from '../../../../core/errors'
import { assertCan, can } from '../../../../core/session'
import { decodeCursor, encodeCursor, EXPORT_PAGE_MAX, pageSize, type Page, type PageArgs } from '../../../../core/pagination'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db'>

// ---- board --------------------------------------------------------------------------------------------------------

export interface BoardItem {
  kind: 'decision' | 'handoff' | 'twin'
  id: string
  title: string
  status: string
  /** decision: whose it is; hand-off: the sender; twin: its person. */
  userId: string
  /** hand-off: the persona it is addressed to; twin: its persona. */
  personaKey: string | null
  dueAt: Date | null
  createdAt: Date
}

type BoardRow = { kind: BoardItem['kind']; id: string; title: string; status: string; user_id: string; persona_key: string | null; due_at: Date | null; created_at: Date }

/**
 * GET P/board: what a lead looks at daily, newest first in cursor pages. Decisions are the program's open or snoozed
 * decision items (titles only), hand-offs those sent or accepted, twins every twin not retired. program.twins.read
 * (oversight).
 */
export async function programBoard(ctx: Ctx, programId: string, args: PageArgs): Promise<Page<BoardItem>> {
  assertCan(ctx.session, 'program.twins.read', programId)
  const first = pageSize(args.first)
  const after = args.after ? decodeCursor(args.after) : null
  const org = ctx.session.organizationId
  const rows = await ctx.db.$queryRaw<BoardRow[]>`
    SELECT * FROM (
      SELECT 'decision' AS kind, i.id, i.title, i.status::text AS status, i.user_id, NULL::text AS persona_key, i.due_at, i.created_at
        FROM inbox_items i
        WHERE i.organization_id = ${org}::uuid AND i.program_id = ${programId}::uuid AND i.kind = 'decision' AND i.status IN ('open', 'snoozed')
      UNION ALL
      SELECT 'handoff', h.id, h.kind::text || ': ' || COALESCE(r.title, t.title, h.linked_type), h.status::text, h.from_user_id, h.to_persona_key, NULL, h.created_at
        FROM handoff_requests h
        LEFT JOIN program_records r ON h.linked_type = 'program_record' AND r.id::text = h.linked_id AND r.organization_id = h.organization_id
        LEFT JOIN threads t ON h.linked_type = 'thread' AND t.id::text = h.linked_id AND t.organization_id = h.organization_id
        WHERE h.organization_id = ${org}::uuid AND h.program_id = ${programId}::uuid AND h.status IN ('sent', 'accepted')
      UNION ALL
      SELECT 'twin', d.id, d.persona_key, d.status::text, d.user_id, d.persona_key, NULL, d.created_at
        FROM twin_definitions d
        WHERE d.organization_id = ${org}::uuid AND d.program_id = ${programId}::uuid AND d.status <> 'retired'
    ) b
    WHERE ${after === null} OR b.created_at < ${after?.at ?? new Date(0)} OR (b.created_at = ${after?.at ?? new Date(0)} AND b.id < ${after?.id ?? '00000000-0000-0000-0000-000000000000'}::uuid)
    ORDER BY b.created_at DESC, b.id DESC
    LIMIT ${first + 1}`
  const edges = rows.slice(0, first).map((r) => ({
    cursor: encodeCursor({ at: r.created_at, id: r.id }),
    node: { kind: r.kind, id: r.id, title: r.title, status: r.status, userId: r.user_id, personaKey: r.persona_key, dueAt: r.due_at, createdAt: r.created_at },
  }))
  return { edges, pageInfo: { endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: rows.length > first } }
}

// ---- decision metrics ---------------------------------------------------------------------------------------------

export interface DecisionCounts {
  filed: number
  approvedUnchanged: number
  edited: number
  declined: number
  declinedByReason: { reason: string; count: number }[]
  refused: number
  expired: number
}
export interface PersonaMetrics extends DecisionCounts { personaKey: string }
export interface UserMetrics extends DecisionCounts { userId: string; personaKey: string }
export interface DecisionMetrics {
  programId: string
  since: Date
  until: Date
  perPersona: PersonaMetrics[]
  /** null unless the caller holds program.twins.read. */
  byUser: UserMetrics[] | null
  baseline: { since: Date; until: Date; perPersona: PersonaMetrics[] } | null
}

/** Default window: the last 30 days. */
export const METRICS_DEFAULT_DAYS = 30
const DAY = 86_400_000

type OutcomeRow = { persona_key: string; user_id: string; outcome: string | null; reason: string | null; expired: boolean; n: number }
type RefusedRow = { persona_key: string; user_id: string; refused: number }

/** The counts of twin proposals filed in [since, until) in a program, per twin persona and person. */
async function counts(ctx: Ctx, programId: string, since: Date, until: Date, now: Date) {
  const org = ctx.session.organizationId
  // Proposals are detached write_approval interrupts naming their program and proposing twin (domain/proposals.ts).
  // One scan: grouped by twin, outcome and reason first, then joined to the (few) twins for persona and person.
  const outcomes = await ctx.db.$queryRaw<OutcomeRow[]>`
    WITH g AS (
      SELECT i.question->'proposer'->>'twinId' AS twin_id, i.answer->>'outcome' AS outcome,
        CASE WHEN i.answer->>'outcome' = 'declined' THEN COALESCE(i.answer->'reason'->>'code', 'unspecified') END AS reason,
        (i.answer IS NULL AND i.expires_at <= ${now}) AS expired, count(*)::int AS n
      FROM run_interrupts i
      WHERE i.organization_id = ${org}::uuid AND i.kind = 'write_approval' AND (i.question->>'programId') = ${programId}
        AND i.question->>'type' = 'proposal' AND i.created_at >= ${since} AND i.created_at < ${until}
      GROUP BY 1, 2, 3, 4
    )
    SELECT d.persona_key, d.user_id::text AS user_id, g.outcome, g.reason, g.expired, g.n
    FROM g JOIN twin_definitions d ON d.id::text = g.twin_id AND d.organization_id = ${org}::uuid`
  const refused = await ctx.db.$queryRaw<RefusedRow[]>`
    SELECT d.persona_key, d.user_id::text AS user_id, count(*)::int AS refused
    FROM tool_calls c JOIN twin_definitions d ON d.id = c.twin_id
    WHERE c.organization_id = ${org}::uuid AND c.program_id = ${programId}::uuid AND c.status = 'refused'
      AND c.created_at >= ${since} AND c.created_at < ${until}
      AND NOT c.output_violations @> '[{"code": "harness_denied"}]'::jsonb
    GROUP BY 1, 2`
  return { outcomes, refused }
}

const empty = (): DecisionCounts => ({ filed: 0, approvedUnchanged: 0, edited: 0, declined: 0, declinedByReason: [], refused: 0, expired: 0 })

function fold<K extends string>(data: Awaited<ReturnType<typeof counts>>, key: (r: { persona_key: string; user_id: string }) => K) {
  const out = new Map<K, DecisionCounts>()
  const at = (k: K) => out.get(k) ?? (out.set(k, empty()), out.get(k)!)
  for (const r of data.outcomes) {
    const c = at(key(r))
    c.filed += r.n
    if (r.outcome === 'approved') c.approvedUnchanged += r.n
    else if (r.outcome === 'approved_with_edits') c.edited += r.n
    else if (r.outcome === 'declined') {
      c.declined += r.n
      const reason = r.reason ?? 'unspecified'
      const e = c.declinedByReason.find((x) => x.reason === reason)
      if (e) e.count += r.n
      else c.declinedByReason.push({ reason, count: r.n })
    } else if (r.expired) c.expired += r.n
  }
  for (const c of out.values()) c.declinedByReason.sort((a, b) => a.reason.localeCompare(b.reason))
  for (const r of data.refused) at(key(r)).refused += r.refused
  return out
}

const perPersona = (data: Awaited<ReturnType<typeof counts>>): PersonaMetrics[] =>
  [...fold(data, (r) => r.persona_key)].map(([personaKey, c]) => ({ personaKey, ...c })).sort((a, b) => a.personaKey.localeCompare(b.personaKey))

/**
 * GET P/metrics/decisions: per-persona aggregates of twin proposals filed in the window (program.audit.read); by_user[] only when the caller also holds program.twins.read. With a baseline window, the same
 * aggregates for it; a baseline window with no proposal filed answers baseline_missing (there is nothing to compare).
 */
export async function decisionMetrics(ctx: Ctx, programId: string, args: { since?: Date | null; until?: Date | null; baselineSince?: Date | null; baselineUntil?: Date | null }, now = new Date()): Promise<DecisionMetrics> {
  assertCan(ctx.session, 'program.audit.read', programId)
  const until = args.until ?? now
  const since = args.since ?? new Date(until.getTime() - METRICS_DEFAULT_DAYS * DAY)
  if (since >= until) throw InvalidInput.of('since', 'The window starts before it ends.')
  const data = await counts(ctx, programId, since, until, now)
  const byUser = can(ctx.session, 'program.twins.read', programId)
    ? [...fold(data, (r) => `${r.user_id}|${r.persona_key}`)].map(([k, c]) => ({ userId: k.split('|')[0], personaKey: k.split('|')[1], ...c }))
      .sort((a, b) => (a.userId + a.personaKey).localeCompare(b.userId + b.personaKey))
    : null
  let baseline: DecisionMetrics['baseline'] = null
  if (args.baselineSince || args.baselineUntil) {
    if (!args.baselineSince || !args.baselineUntil || args.baselineSince >= args.baselineUntil) throw InvalidInput.of('baselineSince', 'A baseline names a window: baselineSince before baselineUntil.')
    const b = perPersona(await counts(ctx, programId, args.baselineSince, args.baselineUntil, now))
    if (b.reduce((n, p) => n + p.filed, 0) === 0) throw new BaselineMissing('No twin proposal was filed in the baseline window, so there is nothing to compare against.', { field: 'baselineSince' })
    baseline = { since: args.baselineSince, until: args.baselineUntil, perPersona: b }
  }
  return { programId, since, until, perPersona: perPersona(data), byUser, baseline }
}

// ---- twins export -------------------------------------------------------------------------------------------------

export interface ExportRow {
  kind: 'twin' | 'trigger' | 'run' | 'tool_call' | 'handoff' | 'delegation'
  id: string
  programId: string | null
  status: string | null
  createdAt: Date
  /** Metadata only: names, keys, counts, hashes and ids. Never tool_calls.arguments, message text or memory. */
  metadata: Record<string, unknown>
}

// An export page holds up to EXPORT_PAGE_MAX rows (a page of the download; every field of 300 rows stays under the
// gateway's query cost limit), defined with the other page sizes.
export { EXPORT_PAGE_MAX }

type ExportDbRow = { kind: ExportRow['kind']; id: string; program_id: string | null; status: string | null; created_at: Date; metadata: Record<string, unknown> }

/**
 * GET /orgs/current/twins/export (org.audit.read): the organisation's twins, triggers, twin
 * runs, their tool calls, hand-offs and delegations as metadata rows, newest first in keyset pages of up to 300: a
 * large organisation streams it page by page (constant memory on both sides, each page one indexed read), no artifact
 * is written (the gateway streams the pages as one NDJSON download: gateway/export-routes.ts). Columns are listed explicitly: tool_calls.arguments, message_md and reasons are never selected.
 */
export async function twinsExport(ctx: Ctx, args: PageArgs): Promise<Page<ExportRow>> {
  assertCan(ctx.session, 'org.audit.read')
  const first = args.first == null ? EXPORT_PAGE_MAX : args.first
  if (!Number.isInteger(first) || first < 1 || first > EXPORT_PAGE_MAX) throw InvalidInput.of('first', `Ask for 1 to ${EXPORT_PAGE_MAX} rows a page.`)
  const after = args.after ? decodeCursor(args.after) : null
  const org = ctx.session.organizationId
  const at = after?.at ?? new Date(0)
  const afterId = after?.id ?? '00000000-0000-0000-0000-000000000000'
  const rows = await ctx.db.$queryRaw<ExportDbRow[]>`
    SELECT * FROM (
      SELECT 'twin' AS kind, d.id, d.program_id, d.status::text AS status, d.created_at,
        jsonb_build_object('userId', d.user_id, 'personaKey', d.persona_key, 'agentKey', d.agent_key, 'duties', d.duties, 'pausedReason', d.paused_reason,
          'budgetToolCallsMonth', d.budget_tool_calls_month, 'retiredAt', d.retired_at) AS metadata
        FROM twin_definitions d WHERE d.organization_id = ${org}::uuid
      UNION ALL
      SELECT 'trigger', t.id, t.program_id, CASE WHEN t.enabled THEN 'enabled' ELSE 'disabled' END, t.created_at,
        jsonb_build_object('twinId', t.twin_id, 'dutyKey', t.duty_key, 'kind', t.kind, 'eventAction', t.event_action, 'priority', t.priority,
          'standingPlanHash', t.standing_plan_hash, 'standingPlanApprovedAt', t.standing_plan_approved_at, 'fireCount', t.fire_count, 'lastFiredAt', t.last_fired_at)
        FROM twin_triggers t WHERE t.organization_id = ${org}::uuid
      UNION ALL
      SELECT 'run', r.id, r.program_id, r.status::text, r.created_at,
        jsonb_build_object('twinId', r.twin_id, 'kind', r.kind, 'initiatedBy', r.initiated_by, 'triggerId', r.trigger_id, 'targetId', r.target_id,
          'startedAt', r.started_at, 'finishedAt', r.finished_at)
        FROM agent_runs r WHERE r.organization_id = ${org}::uuid AND r.twin_id IS NOT NULL
      UNION ALL
      SELECT 'tool_call', c.id, c.program_id, c.status::text, c.created_at,
        jsonb_build_object('tool', c.tool, 'runId', c.run_id, 'twinId', c.twin_id, 'turn', c.turn, 'basisHash', c.basis_hash,
          'checkLogicVersion', c.check_logic_version, 'inputsHash', c.inputs_hash, 'resultArtifactId', c.result_artifact_id,
          'violations', jsonb_array_length(c.output_violations))
        FROM tool_calls c WHERE c.organization_id = ${org}::uuid AND c.twin_id IS NOT NULL
      UNION ALL
      SELECT 'handoff', h.id, h.program_id, h.status::text, h.created_at,
        jsonb_build_object('kind', h.kind, 'fromUserId', h.from_user_id, 'fromTwinId', h.from_twin_id, 'toPersonaKey', h.to_persona_key,
          'toUserId', h.to_user_id, 'linkedType', h.linked_type, 'linkedId', h.linked_id, 'decidedBy', h.decided_by, 'decidedAt', h.decided_at)
        FROM handoff_requests h WHERE h.organization_id = ${org}::uuid
      UNION ALL
      SELECT 'delegation', g.id, g.program_id, g.status::text, g.created_at,
        jsonb_build_object('userId', g.user_id, 'delegateUserId', g.delegate_user_id, 'startsAt', g.starts_at, 'endsAt', g.ends_at,
          'renewalCount', g.renewal_count, 'revokedAt', g.revoked_at)
        FROM delegations g WHERE g.organization_id = ${org}::uuid
    ) x
    WHERE ${after === null} OR x.created_at < ${at} OR (x.created_at = ${at} AND x.id < ${afterId}::uuid)
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT ${first + 1}`
  const edges = rows.slice(0, first).map((r) => ({
    cursor: encodeCursor({ at: r.created_at, id: r.id }),
    node: { kind: r.kind, id: r.id, programId: r.program_id, status: r.status, createdAt: r.created_at, metadata: r.metadata },
  }))
  return { edges, pageInfo: { endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: rows.length > first } }
}
