// Owns the persona brief (artifact kind persona_brief, server-written, no model call) and the inbox summary it shares
// with the inbox: what waits for a person in a program (decisions waiting, the next pass of their twin, 'Filing
// paused: <N> decisions waiting' under backpressure, the empty state), composed from inbox_items and twin_schedules.
import type { Artifact } from '../../generated/prisma/client'
import { asTx, type TenantDb, type TenantTx } from '../../core/database'
import type { DomainContext } from '../../core/jobs'
import { can } from '../../core/identity'
import { FIXED_PHRASES, TWINS, nothingWaiting } from '../../core/text'
import { formatLocal, nextLocalMinute, personTime } from '../../core/text'
import { filingPaused, openDecisionCount } from './backpressure'

export const PERSONA_BRIEF = 'persona_brief'
/** Pointers listed in a brief (the rest is counted). */
const BRIEF_ITEMS = 10

/** The stored content of a persona_brief artifact (snake_case, as artifacts are stored). */
export interface BriefContent {
  heading: string
  user_id: string
  program_id: string
  twin_id: string | null
  generated_at: string
  /** Open decision items in this program. */
  decisions_waiting: number
  /** Decision items waiting (open or snoozed) across the person's programs: the backpressure count. */
  open_decisions_total: number
  /** Open items of every kind in this program. */
  items_waiting: number
  next_pass_at: string | null
  /** 'Nothing waiting. Your twin's next pass is at <time>.' when nothing waits; the viewer phrase for a viewer. */
  empty_state: string | null
  /** 'Filing paused: <N> decisions waiting' when backpressure applies. */
  filing_paused: string | null
  /** Pointers only (id, kind, due time): no title or thread text, so a brief can be e-mailed. */
  items: { id: string; kind: string; due_at: string | null }[]
  /** 'Agent-generated draft, unsigned.' when a twin's digest wrote it. */
  footer: string | null
}

export interface BriefFor {
  organizationId: string
  programId: string
  userId: string
  /** Set when a twin's digest writes the brief (its footer then reads 'Agent-generated draft, unsigned.'). */
  twinId?: string | null
  now?: Date
}

/**
 * The next pass of the person's twin in the program: the earliest next_run_at of the schedules of their active twins;
 * without a scheduled twin, the person's next digest moment (the twin's digest pass).
 */
export async function nextPassAt(q: TenantDb | TenantTx, who: BriefFor, settings: unknown): Promise<Date | null> {
  const tx = asTx(q as TenantTx)
  const twins = await tx.twinDefinition.findMany({
    where: { organizationId: who.organizationId, programId: who.programId, userId: who.userId, status: 'active' },
    select: { id: true, digestTime: true },
  })
  if (!twins.length) return null
  const schedule = await tx.twinSchedule.findFirst({
    where: { organizationId: who.organizationId, twinId: { in: twins.map((t) => t.id) }, nextRunAt: { not: null }, trigger: { enabled: true } },
    orderBy: { nextRunAt: 'asc' }, select: { nextRunAt: true },
  })
  if (schedule?.nextRunAt) return schedule.nextRunAt
  const t = personTime(settings, { digestTime: twins[0].digestTime })
  return nextLocalMinute(who.now ?? new Date(), t.timezone, t.digestMinute)
}

/** Composes what waits for a person in a program, now. Reads only. */
export async function composeBrief(q: TenantDb | TenantTx, who: BriefFor): Promise<BriefContent> {
  const tx = asTx(q as TenantTx)
  const now = who.now ?? new Date()
  const base = { organizationId: who.organizationId, programId: who.programId, userId: who.userId, status: 'open' as const }
  const [user, itemsWaiting, decisionsWaiting, openTotal, items, personas] = await Promise.all([
    tx.user.findFirstOrThrow({ where: { id: who.userId, organizationId: who.organizationId }, select: { settings: true } }),
    tx.inboxItem.count({ where: base }),
    tx.inboxItem.count({ where: { ...base, kind: 'decision' } }),
    // The backpressure count, as the harness reads it (domain/backpressure.ts), so the brief and filing agree on N.
    openDecisionCount(q, who.userId, who.organizationId),
    tx.inboxItem.findMany({ where: base, orderBy: [{ dueAt: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }], take: BRIEF_ITEMS, select: { id: true, kind: true, dueAt: true } }),
    tx.roleAssignment.findMany({ where: { organizationId: who.organizationId, programId: who.programId, userId: who.userId }, select: { personaKey: true } }),
  ])
  const next = await nextPassAt(q, who, user.settings)
  const viewerOnly = personas.length > 0 && personas.every((p) => p.personaKey === 'viewer')
  const tz = personTime(user.settings).timezone
  return {
    heading: FIXED_PHRASES.decisionsWaiting,
    user_id: who.userId, program_id: who.programId, twin_id: who.twinId ?? null, generated_at: now.toISOString(),
    decisions_waiting: decisionsWaiting, open_decisions_total: openTotal, items_waiting: itemsWaiting,
    next_pass_at: next?.toISOString() ?? null,
    empty_state: itemsWaiting > 0 ? null : viewerOnly ? TWINS.viewersHaveNoTwin : next ? nothingWaiting(formatLocal(next, tz)) : null,
    filing_paused: filingPaused(openTotal),
    items: items.map((i) => ({ id: i.id, kind: i.kind, due_at: i.dueAt?.toISOString() ?? null })),
    footer: who.twinId ? FIXED_PHRASES.agentGeneratedDraft : null,
  }
}

/** Writes the persona_brief artifact (server-written: no model call, no run) in the caller's transaction. */
export async function writePersonaBrief(q: TenantTx, who: BriefFor & { extra?: Record<string, unknown> }): Promise<Artifact> {
  const tx = asTx(q)
  const content = await composeBrief(q, who)
  return tx.artifact.create({
    data: {
      organizationId: who.organizationId, programId: who.programId, kind: PERSONA_BRIEF,
      content: { ...content, ...who.extra } as object, agentGenerated: Boolean(who.twinId), createdByUserId: null,
    },
  })
}

export interface Brief { artifactId: string | null; content: BriefContent }

/**
 * GET /me/brief: for each program the caller may read their own twins in (or the one asked for), the latest
 * persona_brief written for them; where none was written yet, the brief composed now (artifactId null).
 */
export async function myBriefs(ctx: Pick<DomainContext, 'session' | 'tdb'>, programId?: string | null): Promise<Brief[]> {
  const programs = [...ctx.session.programPersonas.keys()]
    .filter((p) => (!programId || p === programId) && can(ctx.session, 'program.twins.read_own', p))
    .sort()
  const out: Brief[] = []
  for (const p of programs) {
    const latest = await ctx.tdb.artifact.findFirst({
      where: { kind: PERSONA_BRIEF, programId: p, content: { path: ['user_id'], equals: ctx.session.userId } },
      orderBy: { createdAt: 'desc' },
    })
    out.push(latest
      ? { artifactId: latest.id, content: latest.content as unknown as BriefContent }
      : { artifactId: null, content: await composeBrief(ctx.tdb, { organizationId: ctx.session.organizationId, programId: p, userId: ctx.session.userId }) })
  }
  return out
}

/** The inbox's own header for a program, always now: heading, counts, empty state, backpressure line. */
export function myInboxSummary(ctx: Pick<DomainContext, 'session' | 'tdb'>, programId: string) {
  return composeBrief(ctx.tdb, { organizationId: ctx.session.organizationId, programId, userId: ctx.session.userId })
}
