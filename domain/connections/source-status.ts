// Owns the sources line of the role home (memory document, WorkbenchOut.sources): one entry per connector provider
// with its status in a program from connection health. connected: an active connection whose last health check did
// not fail (verified_on: the date of the last passing check, absent before one passed); degraded: an active connection
// whose health check reported degraded or failing; not_connected: no active connection. terms_changed is R5 and does
// not exist here. A provider reached on platform keys (literature_search) needs no connection: its status is the
// platform's, from the literature_health probe (connected before the first probe, as searches work; degraded when the
// last probe found a source failing; verified_on the date of the last probe that answered ok).
import type { DomainContext } from '../../core/jobs'
import { can } from '../../core/identity'
import { PROVIDERS } from '../adapters'

export const SOURCE_STATUSES = ['connected', 'not_connected', 'degraded'] as const
export type SourceStatus = (typeof SOURCE_STATUSES)[number]

export interface WorkbenchSource { provider: string; displayName: string; status: SourceStatus; verifiedOn: string | null }

const RANK: Record<SourceStatus, number> = { not_connected: 0, connected: 1, degraded: 2 }

/** The sources of a program for a member (program.settings.read, what the home needs); [] for anyone else. */
export async function programSources(ctx: Pick<DomainContext, 'session' | 'tdb'>, programId: string): Promise<WorkbenchSource[]> {
  if (!can(ctx.session, 'program.settings.read', programId)) return []
  const [connections, platform] = await Promise.all([
    ctx.tdb.connection.findMany({
      where: { programId, status: 'active' },
      select: { providerId: true, health: true, healthCheckedAt: true },
    }),
    ctx.tdb.platformSourceHealth.findMany({ select: { providerId: true, status: true, lastOkAt: true } }),
  ])
  return PROVIDERS.map((p) => {
    if (p.credentialClass === 'platform_keys') {
      const health = platform.find((h) => h.providerId === p.id)
      const status: SourceStatus = health && health.status !== 'ok' ? 'degraded' : 'connected'
      const verifiedOn = status === 'connected' && health?.lastOkAt ? health.lastOkAt.toISOString().slice(0, 10) : null
      return { provider: p.id, displayName: p.displayName, status, verifiedOn }
    }
    let status: SourceStatus = 'not_connected'
    let verifiedOn: Date | null = null
    for (const c of connections.filter((c) => c.providerId === p.id)) {
      const health = (c.health ?? {}) as { status?: string }
      // Several connections of one provider: the worst status shows (a degraded one is worth a look).
      const s: SourceStatus = health.status === 'degraded' || health.status === 'failing' ? 'degraded' : 'connected'
      if (RANK[s] > RANK[status]) status = s
      if (health.status === 'ok' && c.healthCheckedAt && (!verifiedOn || c.healthCheckedAt > verifiedOn)) verifiedOn = c.healthCheckedAt
    }
    return { provider: p.id, displayName: p.displayName, status, verifiedOn: status === 'connected' && verifiedOn ? verifiedOn.toISOString().slice(0, 10) : null }
  })
}
