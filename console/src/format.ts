// Owns how dates and times read: day month year and a 24-hour clock, in the person's time zone. No raw timestamp is
// ever shown.
const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' })
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' })
const DATE_TIME = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' })

function parse(value: string | null | undefined): Date | null {
  if (!value) return null
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? null : d
}

export function formatDate(value: string | null | undefined): string {
  const d = parse(value)
  return d ? DATE.format(d) : ''
}

export function formatTime(value: string | null | undefined): string {
  const d = parse(value)
  return d ? TIME.format(d) : ''
}

export function formatDateTime(value: string | null | undefined): string {
  const d = parse(value)
  return d ? DATE_TIME.format(d) : ''
}

const CALENDAR_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

/**
 * A line the service composed (a skill's method line, a run's footer) with its calendar dates ('2026-11-26') as people
 * read them ('26 November 2026'); a calendar date names a day, not an instant, so it is read in UTC.
 */
export function withReadableDates(text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}\b(?!T)/g, (iso) => {
    const d = parse(`${iso}T00:00:00Z`)
    return d ? CALENDAR_DATE.format(d) : iso
  })
}

/** A person's text as they wrote it, or null when it holds nothing but spaces: never trimmed (a person's words are data). */
export const asWritten = (text: string): string | null => (text.trim() ? text : null)
