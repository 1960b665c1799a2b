// Owns a person's clock: the time settings of users.settings (timezone, digest_time, quiet_hours) read leniently, and
// the wall-clock arithmetic notifications need (the next digest moment, the end of quiet hours) in any IANA timezone.
//
// Formats (the specification names the settings, not their shape): timezone an IANA name ('Europe/Berlin', default
// 'UTC'); digest_time 'HH:MM' local (default '08:00'); quiet_hours null or { start: 'HH:MM', end: 'HH:MM' } local,
// wrapping midnight when start > end ('22:00'-'07:00'). A value that does not parse reads as the default, so one bad
// setting never stops a person's notifications.

export interface PersonTime {
  timezone: string
  /** Minutes after local midnight. */
  digestMinute: number
  quietHours: { start: number; end: number } | null
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/
const minuteOf = (v: unknown): number | null => {
  const m = typeof v === 'string' ? HHMM.exec(v) : null
  return m ? Number(m[1]) * 60 + Number(m[2]) : null
}

/**
 * Names already checked: building an Intl.DateTimeFormat to test a name cost 3.6 % of the twins subgraph's CPU under
 * the role home's load (one per person's settings read). Bounded, since any text a person saved lands here.
 */
const checkedTimezones = new Map<string, boolean>()
const CHECKED_TIMEZONES_MAX = 2_000

export function isTimezone(tz: unknown): tz is string {
  if (typeof tz !== 'string' || !tz) return false
  let valid = checkedTimezones.get(tz)
  if (valid === undefined) {
    try { new Intl.DateTimeFormat('en-US', { timeZone: tz }); valid = true } catch { valid = false }
    if (checkedTimezones.size < CHECKED_TIMEZONES_MAX) checkedTimezones.set(tz, valid)
  }
  return valid
}

/** The time settings of a users.settings value; `digestTime` (a twin's digest_time) wins over the person's. */
export function personTime(settings: unknown, opts: { digestTime?: string | null } = {}): PersonTime {
  const s = (settings && typeof settings === 'object' ? settings : {}) as Record<string, unknown>
  const q = s.quiet_hours as Record<string, unknown> | string | null | undefined
  const [qs, qe] = typeof q === 'string' ? q.split('-') : [q?.start, q?.end]
  const start = minuteOf(qs)
  const end = minuteOf(qe)
  return {
    timezone: isTimezone(s.timezone) ? s.timezone : 'UTC',
    digestMinute: minuteOf(opts.digestTime) ?? minuteOf(s.digest_time) ?? 8 * 60,
    quietHours: start !== null && end !== null && start !== end ? { start, end } : null,
  }
}

interface Wall { y: number; mo: number; d: number; minute: number }

/** The local calendar date and minute of the day of `at` in `tz`. */
export function wallClock(at: Date, tz: string): Wall {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
  }).formatToParts(at).map((p) => [p.type, p.value]))
  return { y: Number(parts.year), mo: Number(parts.month), d: Number(parts.day), minute: Number(parts.hour) * 60 + Number(parts.minute) }
}

/** The instant when the wall clock in `tz` reads `minute` on the local date y-mo-d (DST gaps move forward). */
export function instantAt(tz: string, y: number, mo: number, d: number, minute: number): Date {
  const target = Date.UTC(y, mo - 1, d, 0, minute)
  let guess = target
  for (let i = 0; i < 3; i++) {
    const w = wallClock(new Date(guess), tz)
    const seen = Date.UTC(w.y, w.mo - 1, w.d, 0, w.minute)
    if (seen === target) break
    guess += target - seen
  }
  return new Date(guess)
}

const addDays = (w: Wall, days: number) => {
  const t = new Date(Date.UTC(w.y, w.mo - 1, w.d + days))
  return { y: t.getUTCFullYear(), mo: t.getUTCMonth() + 1, d: t.getUTCDate() }
}

/** The first moment at or after `now` when the local clock reads `minute`. */
export function nextLocalMinute(now: Date, tz: string, minute: number): Date {
  const w = wallClock(now, tz)
  for (const days of [0, 1, 2]) {
    const day = addDays(w, days)
    const at = instantAt(tz, day.y, day.mo, day.d, minute)
    if (at.getTime() >= now.getTime()) return at
  }
  return new Date(now.getTime() + 86_400_000)
}

/** Whether `at` falls in the person's quiet hours (start inclusive, end exclusive). */
export function inQuietHours(at: Date, t: PersonTime): boolean {
  if (!t.quietHours) return false
  const { start, end } = t.quietHours
  const m = wallClock(at, t.timezone).minute
  return start < end ? m >= start && m < end : m >= start || m < end
}

/** `at`, or the end of the quiet hours `at` falls in: when a notification may reach the person. */
export function afterQuietHours(at: Date, t: PersonTime): Date {
  if (!t.quietHours || !inQuietHours(at, t)) return at
  return nextLocalMinute(at, t.timezone, t.quietHours.end)
}

/** 'HH:MM' of `at` on the person's clock, with the timezone named ('08:00 Europe/Berlin'). */
export function formatLocal(at: Date, tz: string): string {
  const w = wallClock(at, tz)
  const hh = String(Math.floor(w.minute / 60)).padStart(2, '0')
  const mm = String(w.minute % 60).padStart(2, '0')
  return `${w.y}-${String(w.mo).padStart(2, '0')}-${String(w.d).padStart(2, '0')} ${hh}:${mm} ${tz}`
}
