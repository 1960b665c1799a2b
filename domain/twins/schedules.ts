// Owns twin schedules as RFC 5545 rules (the rrule package): parsing and checking a rule with its timezone, the next
// run no sooner than the cadence floor, and twin_schedule's claim of due schedules (FOR UPDATE SKIP LOCKED, in batches:
// runs inserted and twin_cycle jobs added in the same transaction, backpressure and the cadence floor honoured).
import * as rrulePkg from 'rrule'
import type { RRule, RRuleSet } from 'rrule'
import type { Db } from '../../core/database'
import { dueSchedulesAcrossOrganisations, insertScheduledRunsAcrossOrganisations, markTriggersFiredAcrossOrganisations, moveSchedulesAcrossOrganisations, type DueRow } from './sql'
import { InvalidInput } from '../../core/errors'
import { log } from '../../core/config'
import { isFilingPaused, openDecisionCountsAcrossOrganisations } from '../inbox'
import { boundedCache } from '../../core/config'

// rrule ships CommonJS: Node's ESM loader sees its exports on `default`, vite's on the namespace.
const { rrulestr } = ((rrulePkg as unknown as { default?: typeof rrulePkg }).default ?? rrulePkg) as typeof rrulePkg

/** Schedules claimed per transaction. */
export const CLAIM_BATCH = 2000
/** The controllable clock: domain code asks this, tests and the demo pass `now` explicitly. */
export const clock = { now: () => new Date() }

function validTimezone(tz: string): boolean {
  try { new Intl.DateTimeFormat('en-GB', { timeZone: tz }); return true } catch { return false }
}

/** Wall-clock time of `at` in `tz` as an RFC 5545 local date-time (YYYYMMDDTHHMMSS). */
function localStamp(at: Date, tz: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', {
    timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(at).map((p) => [p.type, p.value]))
  return `${parts.year}${parts.month}${parts.day}T${parts.hour}${parts.minute}00`
}

// Parsed rules and computed next occurrences, shared by every schedule with the same rule (daily at 08:00 ...).
const parsed = boundedCache<string, RRule | RRuleSet>({ max: 50_000 })
function rule(text: string): RRule | RRuleSet {
  let r = parsed.get(text)
  if (!r) {
    r = rrulestr(text)
    parsed.set(text, r)
  }
  return r
}

const RANGES: Record<string, [number, number]> = { BYHOUR: [0, 23], BYMINUTE: [0, 59], BYSECOND: [0, 60], BYMONTH: [1, 12], BYMONTHDAY: [-31, 31] }

/**
 * A schedule as stored: RFC 5545 text with DTSTART in the person's timezone (TZID), checked. `input` is an RRULE
 * (with or without the 'RRULE:' prefix) or a full text with its own DTSTART. Refusals are invalid_input on `rrule`
 * (or `timezone`), each problem named. Rules more frequent than hourly are refused (the cadence floor).
 */
export function normaliseSchedule(input: string, timezone: string, now = clock.now()): { rrule: string; timezone: string } {
  const issues: { field: string; message: string }[] = []
  if (!validTimezone(timezone)) issues.push({ field: 'timezone', message: `${timezone} is not an IANA timezone (e.g. Europe/Berlin).` })
  const text = input.trim()
  if (!text) issues.push({ field: 'rrule', message: 'A rule is required, e.g. FREQ=DAILY;BYHOUR=8;BYMINUTE=0.' })
  if (issues.length) throw new InvalidInput(issues)
  const body = /DTSTART/i.test(text) ? text : `DTSTART;TZID=${timezone}:${localStamp(now, timezone)}\n${/^RRULE:/i.test(text) ? text : `RRULE:${text}`}`
  const line = body.split(/\r?\n/).find((l) => /^RRULE:/i.test(l)) ?? ''
  const parts = new Map(line.replace(/^RRULE:/i, '').split(';').filter(Boolean).map((p) => p.split('=') as [string, string]))
  const freq = parts.get('FREQ')?.toUpperCase()
  if (!freq) issues.push({ field: 'rrule', message: 'The rule needs FREQ (YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY).' })
  else if (freq === 'MINUTELY' || freq === 'SECONDLY') issues.push({ field: 'rrule', message: `FREQ=${freq} is more often than the cadence floor (once an hour).` })
  for (const [k, [lo, hi]] of Object.entries(RANGES)) {
    const v = parts.get(k)
    if (v && v.split(',').some((n) => !/^-?\d+$/.test(n) || Number(n) < lo || Number(n) > hi)) issues.push({ field: 'rrule', message: `${k} must be within ${lo}..${hi}.` })
  }
  if (!issues.length) {
    try {
      const r = rrulestr(body)
      if (!r.after(now)) issues.push({ field: 'rrule', message: 'The rule has no occurrence after now.' })
    } catch (e) {
      issues.push({ field: 'rrule', message: `Not an RFC 5545 rule: ${(e as Error).message}` })
    }
  }
  if (issues.length) throw new InvalidInput(issues)
  return { rrule: body, timezone }
}

/** The next occurrence of `text` after `now`, and no sooner than `lastRunAt + minIntervalSeconds` (the cadence floor). */
export function nextRunAt(text: string, opts: { now: Date; lastRunAt?: Date | null; minIntervalSeconds?: number }): Date | null {
  const floor = opts.lastRunAt ? new Date(opts.lastRunAt.getTime() + (opts.minIntervalSeconds ?? 3600) * 1000 - 1) : null
  const from = floor && floor > opts.now ? floor : opts.now
  // Schedules share rules (daily at 08:00 ...) and a claim pass shares `now`: one computation per rule and instant.
  const key = `${from.getTime()}|${text}`
  const hit = nextCache.get(key)
  if (hit) return hit.next
  let next: Date | null
  try { next = rule(text).after(from, false) } catch { next = null }
  nextCache.set(key, { next })
  return next
}
// Boxed, so a rule with no next occurrence (null) is cached too.
const nextCache = boundedCache<string, { next: Date | null }>({ max: 50_000 })

export interface ClaimReport { claimed: number; enqueued: number; deferred: number; floored: number; coalesced: number; batches: number }

/**
 * twin_schedule: claims due schedules in batches of `batch` (FOR UPDATE OF the schedule SKIP LOCKED, so two workers
 * never take one schedule), and in the same transaction inserts their twin_cycle runs (initiated_by schedule,
 * conflict-ignored: a trigger keeps one queued run), adds one job per new run with graphile_worker.add_jobs, announces
 * each run, and moves each schedule to its next occurrence. A person with 25 or more open decisions is deferred (the
 * schedule moves on, nothing is queued); a schedule due before its cadence floor moves to the floor without a run.
 */
export async function claimDueSchedules(db: Db, opts: { now?: Date; batch?: number; maxBatches?: number } = {}): Promise<ClaimReport> {
  const now = opts.now ?? clock.now()
  const report: ClaimReport = { claimed: 0, enqueued: 0, deferred: 0, floored: 0, coalesced: 0, batches: 0 }
  for (let i = 0; i < (opts.maxBatches ?? 100); i++) {
    const n = await claimBatchAcrossOrganisations(db, now, opts.batch ?? CLAIM_BATCH, report)
    if (n === 0) break
    report.batches++
  }
  if (report.claimed) log.info('twin_schedule.claimed', { ...report })
  return report
}

/**
 * One batch of due schedules, whoever's they are: the claim locks and moves every organisation's due schedules in one
 * transaction (SKIP LOCKED shares them among workers), so the sweep is the platform's, not a tenant's.
 */
function claimBatchAcrossOrganisations(db: Db, now: Date, batch: number, report: ClaimReport): Promise<number> {
  return db.$transaction(async (tx) => {
    const due = await dueSchedulesAcrossOrganisations(tx, now, batch)
    if (due.length === 0) return 0
    const open = await openDecisionCountsAcrossOrganisations(tx, [...new Set(due.map((d) => d.user_id))])
    const busy = new Set([...open].filter(([, n]) => isFilingPaused(n)).map(([userId]) => userId))
    const fire: DueRow[] = []
    const moves: { id: string; next: Date | null; fired: boolean }[] = []
    for (const d of due) {
      const floor = d.last_run_at ? new Date(d.last_run_at.getTime() + d.min_interval_seconds * 1000) : null
      if (floor && floor > now) {
        report.floored++
        moves.push({ id: d.schedule_id, next: nextRunAt(d.rrule, { now, lastRunAt: d.last_run_at, minIntervalSeconds: d.min_interval_seconds }), fired: false })
      } else if (busy.has(d.user_id)) {
        report.deferred++
        moves.push({ id: d.schedule_id, next: nextRunAt(d.rrule, { now }), fired: false })
      } else {
        fire.push(d)
        moves.push({ id: d.schedule_id, next: nextRunAt(d.rrule, { now, lastRunAt: now, minIntervalSeconds: d.min_interval_seconds }), fired: true })
      }
    }
    if (fire.length) {
      // One statement: the runs (a trigger with a queued run already keeps that one), a job per new run, a NOTIFY per run.
      const created = await insertScheduledRunsAcrossOrganisations(tx, fire)
      report.enqueued += created[0].n
      report.coalesced += fire.length - created[0].n
      await markTriggersFiredAcrossOrganisations(tx, fire.map((f) => f.trigger_id), now)
    }
    await moveSchedulesAcrossOrganisations(tx, moves, now)
    report.claimed += due.length
    return due.length
  }, { timeout: 60_000 })
}
