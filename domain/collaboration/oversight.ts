// Owns the three oversight reads of the twins document (Board, metrics, export): the program board (open decisions,
// sent or accepted hand-offs, twins and their states, cursor pages), decision metrics per persona (by_user[] only under
// program.twins.read), and the organisation's twins export (metadata only, never tool_calls.arguments, keyset pages).
// Purpose limitation: nothing here reads inbox feedback or memory; metrics and export count proposals, tool calls,
// hand-offs and runs only.
import type { DomainContext } from '../../core/jobs'
import { BaselineMissing, InvalidInput } from '../../core/errors'
import { assertCan, can } from '../../core/identity'
import { decodeCursor, encodeCursor, EXPORT_PAGE_MAX, pageSize, type Page, type PageArgs } from '../../core/database'
import { programBoardRows, proposalOutcomeCounts, refusedToolCallCounts, twinsExportRows } from './sql'

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
  const rows = await programBoardRows(ctx.db, org, programId, after, first)
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


/** The counts of twin proposals filed in [since, until) in a program, per twin persona and person. */
async function counts(ctx: Ctx, programId: string, since: Date, until: Date, now: Date) {
  const org = ctx.session.organizationId
  // Proposals are detached write_approval interrupts naming their program and proposing twin (domain/proposals.ts).
  // One scan: grouped by twin, outcome and reason first, then joined to the (few) twins for persona and person.
  const outcomes = await proposalOutcomeCounts(ctx.db, org, programId, since, until, now)
  const refused = await refusedToolCallCounts(ctx.db, org, programId, since, until)
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
  const rows = await twinsExportRows(ctx.db, org, after, at, afterId, first)
  const edges = rows.slice(0, first).map((r) => ({
    cursor: encodeCursor({ at: r.created_at, id: r.id }),
    node: { kind: r.kind, id: r.id, programId: r.program_id, status: r.status, createdAt: r.created_at, metadata: r.metadata },
  }))
  return { edges, pageInfo: { endCursor: edges.at(-1)?.cursor ?? null, hasNextPage: rows.length > first } }
}
