// A person's clock (core/text/person-time.ts): the settings read leniently, quiet hours across midnight and DST changes.
import { describe, expect, it } from 'vitest'
import { afterQuietHours, inQuietHours, instantAt, nextLocalMinute, personTime } from '../../core/text'

describe('a person\'s clock', () => {
  it('reads timezone, digest_time and quiet_hours, and falls back to the defaults on values that do not parse', () => {
    expect(personTime({ timezone: 'Europe/Berlin', digest_time: '07:30', quiet_hours: { start: '22:00', end: '06:00' } }))
      .toEqual({ timezone: 'Europe/Berlin', digestMinute: 450, quietHours: { start: 1320, end: 360 } })
    expect(personTime({ timezone: 'Mars/Olympus', digest_time: '25:00', quiet_hours: { start: 'late' } }))
      .toEqual({ timezone: 'UTC', digestMinute: 480, quietHours: null })
    expect(personTime({ digest_time: '08:00' }, { digestTime: '17:15' }).digestMinute).toBe(17 * 60 + 15)
    expect(personTime(null).quietHours).toBeNull()
  })

  it('holds a notification in quiet hours that wrap midnight until they end, in the person\'s timezone', () => {
    const t = personTime({ timezone: 'America/New_York', quiet_hours: { start: '22:00', end: '07:00' } })
    const lateEvening = new Date('2026-11-24T04:30:00Z') // 23:30 in New York (UTC-5)
    expect(inQuietHours(lateEvening, t)).toBe(true)
    expect(afterQuietHours(lateEvening, t).toISOString()).toBe('2026-11-24T12:00:00.000Z') // 07:00 local
    const noon = new Date('2026-11-24T17:00:00Z')
    expect(afterQuietHours(noon, t)).toBe(noon)
  })

  it('finds the local moment across a daylight-saving change', () => {
    // Berlin moves from UTC+2 to UTC+1 on 2026-10-25: 08:00 local is 06:00Z the day before and 07:00Z that day.
    expect(instantAt('Europe/Berlin', 2026, 10, 24, 8 * 60).toISOString()).toBe('2026-10-24T06:00:00.000Z')
    expect(instantAt('Europe/Berlin', 2026, 10, 25, 8 * 60).toISOString()).toBe('2026-10-25T07:00:00.000Z')
    expect(nextLocalMinute(new Date('2026-10-24T07:00:00Z'), 'Europe/Berlin', 8 * 60).toISOString()).toBe('2026-10-25T07:00:00.000Z')
  })
})
