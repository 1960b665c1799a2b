// Owns the twin_digest pass (60 s): for each active twin whose digest moment (digest_time, and any batch_times, on
// the person's clock) passed, once per moment and day, it writes the persona_brief artifact, then the digest
// notification (e-mailed through the outbox) with deliver_after after the person's quiet hours, in that order.
import type { TwinDefinition } from '../../generated/prisma/client'
import { forOrganization, type Db } from '../../core/database'
import { log } from '../../core/config'
import { notifyPerson } from '../../core/jobs'
import { instantAt, personTime, wallClock } from '../../core/text'
import { FIXED_PHRASES } from '../../core/text'
import { writePersonaBrief, type BriefContent } from './brief'
import { inboxLinkUrl } from './link-tokens'
import { DECIDED_KINDS } from './inbox'
import { lockDigestOf, servedDigestSlotsAcrossOrganisations } from './sql'

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/

/** The digest moments of a twin, in minutes after local midnight: digest_time first, then batch_times. */
export function digestMinutes(twin: Pick<TwinDefinition, 'digestTime' | 'batchTimes'>, settings: unknown): number[] {
  const main = personTime(settings, { digestTime: twin.digestTime }).digestMinute
  const batches = (Array.isArray(twin.batchTimes) ? twin.batchTimes : [])
    .map((v) => (typeof v === 'string' ? HHMM.exec(v) : null)).filter((m): m is RegExpExecArray => Boolean(m))
    .map((m) => Number(m[1]) * 60 + Number(m[2]))
  return [...new Set([main, ...batches])].sort((a, b) => a - b)
}

export const slotName = (w: { y: number; mo: number; d: number }, minute: number) =>
  `${w.y}-${String(w.mo).padStart(2, '0')}-${String(w.d).padStart(2, '0')}T${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`

/**
 * The latest digest moment of today (person's clock) that has passed and came after the twin was created, or null.
 * Only the latest: a worker that was down for hours sends one digest, not one per missed moment.
 */
export function dueSlot(twin: Pick<TwinDefinition, 'digestTime' | 'batchTimes' | 'createdAt'>, settings: unknown, now: Date) {
  const tz = personTime(settings).timezone
  const today = wallClock(now, tz)
  let due: { slot: string; at: Date } | null = null
  for (const minute of digestMinutes(twin, settings)) {
    const at = instantAt(tz, today.y, today.mo, today.d, minute)
    if (at.getTime() <= now.getTime() && at.getTime() >= twin.createdAt.getTime()) due = { slot: slotName(today, minute), at }
  }
  return due
}

/** The digest e-mail: counts, the fixed phrases, and one-click resolve links for items a link may resolve. No titles. */
async function digestEmail(brief: BriefContent, programName: string, itemOwner: { userId: string; organizationId: string }) {
  const lines = [
    FIXED_PHRASES.decisionsWaiting,
    '',
    `${brief.decisions_waiting} decision${brief.decisions_waiting === 1 ? '' : 's'} and ${brief.items_waiting} item${brief.items_waiting === 1 ? '' : 's'} in total wait in ${programName}.`,
    ...(brief.filing_paused ? ['', brief.filing_paused] : []),
    '',
  ]
  for (const i of brief.items) {
    const due = i.due_at ? ` (due ${i.due_at})` : ''
    if (DECIDED_KINDS.has(i.kind as never)) lines.push(`- a ${i.kind}${due}: open your inbox to decide`)
    else lines.push(`- a ${i.kind}${due}: mark done without opening it: ${await inboxLinkUrl({ id: i.id, ...itemOwner })}`)
  }
  if (brief.items_waiting > brief.items.length) lines.push(`- and ${brief.items_waiting - brief.items.length} more in your inbox`)
  lines.push('', FIXED_PHRASES.agentGeneratedDraft)
  return { subject: `${FIXED_PHRASES.decisionsWaiting}: ${brief.items_waiting} in ${programName}`, body: lines.join('\n') }
}

export interface DigestReport { briefs: number; notified: number }

/**
 * twin_digest's sweep: every organisation's active twins with a program, and their active people's settings (the
 * digest times). Each brief is then written on its twin's organisation's client.
 */
async function digestTwinsAcrossOrganisations(db: Db) {
  const twins = await db.twinDefinition.findMany({ where: { status: 'active', programId: { not: null } }, orderBy: { id: 'asc' } })
  if (!twins.length) return { twins, users: new Map<string, { id: string; settings: unknown }>() }
  const users = new Map((await db.user.findMany({ where: { id: { in: [...new Set(twins.map((t) => t.userId))] }, deactivatedAt: null }, select: { id: true, settings: true } })).map((u) => [u.id, u]))
  return { twins, users }
}

/**
 * One pass of twin_digest. Per twin and moment exactly once (an advisory lock per twin, and the slot recorded in the
 * brief, so two workers or a retried job never write it twice). A brief is written at every moment; the digest
 * notification only when something waits (an empty digest is noise; the brief still says when the next pass is).
 */
export async function runDigests(db: Db, now = new Date()): Promise<DigestReport> {
  const report: DigestReport = { briefs: 0, notified: 0 }
  const { twins, users } = await digestTwinsAcrossOrganisations(db)
  if (!twins.length) return report
  const due = twins.flatMap((twin) => {
    const user = users.get(twin.userId)
    const slot = user ? dueSlot(twin, user.settings, now) : null
    return slot ? [{ twin, due: slot }] : []
  })
  if (!due.length) return report
  // One read of the moments already served (a slot is at most a day old), so a pass costs one query when all is done.
  const served = await servedDigestSlotsAcrossOrganisations(db, new Date(now.getTime() - 2 * 86_400_000), due.map((d) => d.twin.id))
  for (const { twin, due: moment } of due) {
    if (served.has(`${twin.id}|${moment.slot}`)) continue
    try {
      // The twin's organisation's client: the brief reads and writes only there.
      await forOrganization(db, twin.organizationId).$transaction(async (tx) => {
        await lockDigestOf(tx, twin.id)
        const done = await tx.artifact.count({
          where: { organizationId: twin.organizationId, kind: 'persona_brief', AND: [{ content: { path: ['twin_id'], equals: twin.id } }, { content: { path: ['digest_slot'], equals: moment.slot } }] },
        })
        if (done) return
        const who = { organizationId: twin.organizationId, programId: twin.programId!, userId: twin.userId, twinId: twin.id, now }
        // The brief first, then the notification that points to it (twins document, Worker jobs: in that order).
        const artifact = await writePersonaBrief(tx, { ...who, extra: { digest_slot: moment.slot } })
        report.briefs++
        const brief = artifact.content as unknown as BriefContent
        if (brief.items_waiting === 0) return
        const program = await tx.program.findFirstOrThrow({ where: { id: twin.programId! }, select: { name: true } })
        await notifyPerson(tx, {
          organizationId: twin.organizationId, programId: twin.programId, userId: twin.userId, kind: 'digest', notBefore: now,
          payload: { artifact_id: artifact.id, twin_id: twin.id, digest_slot: moment.slot, decisions_waiting: brief.decisions_waiting, items_waiting: brief.items_waiting },
          email: await digestEmail(brief, program.name, { userId: twin.userId, organizationId: twin.organizationId }),
        })
        report.notified++
      }, { timeout: 30_000 })
    } catch (error) {
      // One twin's failure never holds back the others; the next pass (60 s) tries it again.
      log.error('twin_digest.failed', { twinId: twin.id, error })
    }
  }
  return report
}
