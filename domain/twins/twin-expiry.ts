// Owns how long what a twin files waits for its person: twin_definitions.expiry_hours (72 unless the person set it),
// read for every proposal, hand-off proposal and Keep question the twin files. Filings with no twin (a person's own
// proposal) and twins no longer found use the specification's 72.
import type { AnyTx } from '../../core/database'
import { asTx } from '../../core/database'

/** Limits: 'twin expiry_hours: 72' (twins document). */
export const DEFAULT_EXPIRY_HOURS = 72
/** What a person may set (updateTwin): an hour at least, thirty days at most. */
export const MIN_EXPIRY_HOURS = 1
export const MAX_EXPIRY_HOURS = 720

/** The twin's expiry_hours, or 72 with no twin. */
export async function expiryHoursOf(q: AnyTx, twinId: string | null | undefined): Promise<number> {
  if (!twinId) return DEFAULT_EXPIRY_HOURS
  const twin = await asTx(q).twinDefinition.findFirst({ where: { id: twinId }, select: { expiryHours: true } })
  return twin?.expiryHours ?? DEFAULT_EXPIRY_HOURS
}

/** When a filing of `twinId` made at `now` expires unwritten. */
export async function expiresAtFor(q: AnyTx, twinId: string | null | undefined, now = new Date()): Promise<Date> {
  return new Date(now.getTime() + (await expiryHoursOf(q, twinId)) * 3_600_000)
}
