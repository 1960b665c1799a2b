// Owns the persona brief (artifact kind persona_brief, server-written, no model call) and the inbox summary it shares
// with the inbox: what waits for a person in a program (decisions waiting, the next pass of their twin, 'Filing
// paused: <N> decisions waiting' under backpressure, the empty state), composed from inbox_items and twin_schedules.
import type { Artifact } from '../../generated/prisma/client'
import { asTx, forOrganization, type Db, type TenantTx } from '../../core/database'
import type { DomainContext } from '../../core/jobs'
import { can } from '../../core/identity'
import { FIXED_PHRASES, TWINS, nothingWaiting } from '../../core/text'
import { formatLocal, nextLocalMinute, personTime } from '../../core/text'
import { filingPaused } from './backpressure'
import { briefReadings, briefReadingsIn, type BriefItemRow, type BriefReadings } from './sql'

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
 * The next pass of the person's twin in the program: the earliest next_run_at of the enabled schedules of their active
 * twin (one per person and program); without a scheduled run, the person's next digest moment (the twin's digest
 * pass); without an active twin, none.
 */
function nextPassAt(r: BriefReadings, now: Date): Date | null {
  if (!r.hasActiveTwin) return null
  if (r.nextRunAt) return r.nextRunAt
  const t = personTime(r.settings, { digestTime: r.twinDigestTime })
  return nextLocalMinute(now, t.timezone, t.digestMinute)
}

/**
 * The readings of a brief, every one in one statement (domain/inbox/sql.ts): on the hot pool, or in the caller's
 * transaction when one is given; with the BRIEF_ITEMS item pointers, or none (the inbox summary's numbers only).
 */
async function readBrief(on: { db: Db } | { tx: TenantTx }, who: BriefFor, withItems: boolean): Promise<BriefReadings> {
  const r = 'tx' in on
    ? await briefReadingsIn(on.tx, who.organizationId, who.userId, who.programId, BRIEF_ITEMS)
    : await briefReadings(on.db, who.organizationId, who.userId, who.programId, withItems ? BRIEF_ITEMS : null)
  // users.settings is never null: a person who is not a user of the organisation fails as Prisma's read of it did
  if (r.settings === null) await ('tx' in on ? on.tx : forOrganization(on.db, who.organizationId)).user.findFirstOrThrow({ where: { id: who.userId, organizationId: who.organizationId }, select: { id: true } })
  return r
}

/** Composes what waits for a person in a program, now, from its readings. */
function composeBrief(r: BriefReadings, who: BriefFor, items: BriefItemRow[]): BriefContent {
  const now = who.now ?? new Date()
  const next = nextPassAt(r, now)
  const tz = personTime(r.settings).timezone
  return {
    heading: FIXED_PHRASES.decisionsWaiting,
    user_id: who.userId, program_id: who.programId, twin_id: who.twinId ?? null, generated_at: now.toISOString(),
    decisions_waiting: r.decisionsWaiting, open_decisions_total: r.openDecisions, items_waiting: r.itemsWaiting,
    next_pass_at: next?.toISOString() ?? null,
    empty_state: r.itemsWaiting > 0 ? null : r.viewerOnly ? TWINS.viewersHaveNoTwin : next ? nothingWaiting(formatLocal(next, tz)) : null,
    // The backpressure count is openDecisionCount's (domain/inbox/backpressure.ts), so the brief and filing agree on N.
    filing_paused: filingPaused(r.openDecisions),
    items,
    footer: who.twinId ? FIXED_PHRASES.agentGeneratedDraft : null,
  }
}

/** Writes the persona_brief artifact (server-written: no model call, no run) in the caller's transaction. */
export async function writePersonaBrief(q: TenantTx, who: BriefFor & { extra?: Record<string, unknown> }): Promise<Artifact> {
  const tx = asTx(q)
  const readings = await readBrief({ tx: q }, who, true)
  const content = composeBrief(readings, who, readings.items ?? [])
  return tx.artifact.create({
    data: {
      organizationId: who.organizationId, programId: who.programId, kind: PERSONA_BRIEF,
      content: { ...content, ...who.extra } as object, agentGenerated: Boolean(who.twinId), createdByUserId: null,
    },
  })
}

export interface Brief {
  artifactId: string | null
  content: BriefContent
  /** Set when the brief was composed without its item pointers (the inbox summary, content.items empty): reads them. */
  readItems?: () => Promise<BriefItemRow[]>
}

/**
 * GET /me/brief: for each program the caller may read their own twins in (or the one asked for), the latest
 * persona_brief written for them; where none was written yet, the brief composed now (artifactId null).
 */
export async function myBriefs(ctx: Pick<DomainContext, 'session' | 'db' | 'tdb'>, programId?: string | null): Promise<Brief[]> {
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
      : { artifactId: null, content: await composeNow(ctx, p) })
  }
  return out
}

/** The caller's brief in a program composed now, with its item pointers. */
async function composeNow(ctx: Pick<DomainContext, 'session' | 'db'>, programId: string): Promise<BriefContent> {
  const who = { organizationId: ctx.session.organizationId, programId, userId: ctx.session.userId }
  const readings = await readBrief({ db: ctx.db }, who, true)
  return composeBrief(readings, who, readings.items ?? [])
}

/**
 * The inbox's own header for a program, always now: heading, counts, empty state, backpressure line. The role home
 * asks three of its numbers, so its one statement reads no item pointers; they are read (the brief's own statement)
 * only when asked for, and are the ones the brief composed now lists.
 */
export async function myInboxSummary(ctx: Pick<DomainContext, 'session' | 'db'>, programId: string): Promise<Brief> {
  const who = { organizationId: ctx.session.organizationId, programId, userId: ctx.session.userId }
  const readings = await readBrief({ db: ctx.db }, who, false)
  return {
    artifactId: null,
    content: composeBrief(readings, who, []),
    readItems: async () => (await composeNow(ctx, programId)).items,
  }
}
