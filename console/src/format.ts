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
