// Owns the literature source's platform health. literature_search runs on platform keys: searches work in every program
// without a connection, so its line on the role home cannot come from a connection's health. The literature_health job
// probes the sources every 15 minutes (the same two calls as the adapter's health_check) and keeps one row per provider
// in platform_source_health; the home reads that row. The probe draws from the sources' platform windows under the
// platform's own fair-share key (PLATFORM_PROBE_ORGANIZATION), never from an organisation's share.
import type { Db } from '../../core/database'
import type { HealthReport } from '../adapters'
import { isVendorError } from '../adapters'
import { literatureClients } from './clients'
import { PROVIDER } from './budget'

/** The fair-share key the probe draws under: no organisation has this id (uuid v4 ids never have version 0). */
export const PLATFORM_PROBE_ORGANIZATION = '00000000-0000-0000-0000-000000000000'

/** One small index search and one citation-graph search: each called source answers, or says why not. */
export async function probeLiteratureHealth(db: Db, organizationId: string, now: Date = new Date()): Promise<HealthReport> {
  const clients = literatureClients(db, organizationId)
  const checks: HealthReport['checks'] = []
  const probe = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run()
      checks.push({ name, ok: true, detail: 'answered' })
    } catch (e) {
      if (!isVendorError(e)) throw e
      checks.push({ name, ok: false, detail: e.message })
    }
  }
  await probe('literature_index', () => clients.index.search('kinase', { pageSize: 1 }))
  await probe('citation_graph', () => clients.citations.search('kinase'))
  const failing = checks.filter((c) => !c.ok).length
  return { status: failing === 0 ? 'ok' : failing === checks.length ? 'failing' : 'degraded', checkedAt: now.toISOString(), checks }
}

/** The literature_health job: probe, then record the report (last_ok_at moves only on an ok report). */
export async function recordLiteratureHealth(db: Db, now: Date = new Date()): Promise<HealthReport> {
  const report = await probeLiteratureHealth(db, PLATFORM_PROBE_ORGANIZATION, now)
  const checkedAt = new Date(report.checkedAt)
  const lastOk = report.status === 'ok' ? { lastOkAt: checkedAt } : {}
  await db.platformSourceHealth.upsert({
    where: { providerId: PROVIDER },
    create: { providerId: PROVIDER, status: report.status, checks: report.checks as object[], checkedAt, ...lastOk },
    update: { status: report.status, checks: report.checks as object[], checkedAt, ...lastOk },
  })
  return report
}

export interface PlatformSourceState { status: HealthReport['status'] | null; checkedAt: Date | null; lastOkAt: Date | null }

/** What the last probe found; status null before the first probe ran. */
export async function literaturePlatformHealth(db: Db): Promise<PlatformSourceState> {
  const row = await db.platformSourceHealth.findUnique({ where: { providerId: PROVIDER } })
  return { status: (row?.status as HealthReport['status'] | undefined) ?? null, checkedAt: row?.checkedAt ?? null, lastOkAt: row?.lastOkAt ?? null }
}
