// Owns inbox_items.batch_key: what a twin files from a digest-priority run (a trigger of priority digest) is batched
// for the next digest moment of its twin (digest_time, then any batch_times, on the person's clock: digest.ts), and the
// key names that moment: '<twin id>@<YYYY-MM-DDTHH:MM>'. Items sharing a key are the batch the digest presents and
// the person approves together (batch_approval). What a run of priority now files, or what no twin files, has no key.
import type { AgentRun } from '../../generated/prisma/client'
import type { TenantTx } from '../../core/database'
import { instantAt, personTime, wallClock } from '../../core/text'
import { digestMinutes, slotName } from './digest'

export interface Batching { priority: 'now' | 'digest'; batchKey: string | null }

const NOW: Batching = { priority: 'now', batchKey: null }

/** The next digest moment of `twin` strictly after `now`, as its slot name (today's or tomorrow's, person's clock). */
export function nextDigestSlot(twin: Parameters<typeof digestMinutes>[0], settings: unknown, now: Date): string {
  const tz = personTime(settings).timezone
  const minutes = digestMinutes(twin, settings)
  for (const day of [wallClock(now, tz), wallClock(new Date(now.getTime() + 86_400_000), tz)]) {
    for (const minute of minutes) {
      if (instantAt(tz, day.y, day.mo, day.d, minute).getTime() > now.getTime()) return slotName(day, minute)
    }
  }
  return slotName(wallClock(new Date(now.getTime() + 86_400_000), tz), minutes[0] ?? 0)
}

/** How an item a twin files from `run` is delivered: now, or batched under the key of the twin's next digest moment. */
export async function batchingFor(tx: TenantTx, run: Pick<AgentRun, 'priority' | 'twinId'>, now = new Date()): Promise<Batching> {
  if (!run.twinId || run.priority !== 'digest') return NOW
  const twin = await tx.twinDefinition.findFirst({ where: { id: run.twinId }, select: { id: true, userId: true, digestTime: true, batchTimes: true } })
  if (!twin) return NOW
  const user = await tx.user.findFirst({ where: { id: twin.userId }, select: { settings: true } })
  return { priority: 'digest', batchKey: `${twin.id}@${nextDigestSlot(twin, user?.settings, now)}` }
}
