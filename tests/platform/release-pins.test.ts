// Release pins (the gate list's "check and verify green with the counts above"): the tables this backend migrates and
// the specification routes it serves, pinned so a migration or a route cannot arrive without re-pinning in the same
// commit. The documents' own totals (tables 53 / 59 / 61 / 63, routes 157 / 189 / 196 / 198 / 206) count the whole
// platform these three documents belong to, most of it outside them, and disagree with each other; how this
// backend's counts reconcile with them is in docs/contributors.md (Kinds and pins).
import { describe, expect, it } from 'vitest'
import routeMap from '../../schema/route-map.json'
import { useTestDatabase } from '../helpers/db'

const t = useTestDatabase()

/** Tables of the service, not of the product: they hold process state, never a record a person or vendor made. */
const SERVICE_TABLES = ['agent_limit_counters', 'platform_source_health', 'worker_leases'] as const
/** Product tables at R4, re-pinned in one commit with the migration that changes them: 53 since audit_chain_heads (issue 35; the document allows "one more if an audit chain table ships"), 54 since twin_model_settings (issue 39: the model-backed harness's settings), 55 since audit_chain_entries (issue 35: the chain's positions moved out of audit_events so that table is never updated). */
const PRODUCT_TABLE_COUNT = 55

describe('release pins', () => {
  it('migrates exactly the pinned product tables plus the named service tables (graphile-worker keeps its own schema)', async () => {
    const rows = await t.current.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY table_name`
    const tables = rows.map((r) => r.table_name)
    for (const s of SERVICE_TABLES) expect(tables).toContain(s)
    const product = tables.filter((n) => !(SERVICE_TABLES as readonly string[]).includes(n))
    expect(product.length, `product tables now: ${product.join(', ')}`).toBe(PRODUCT_TABLE_COUNT)
  })

  it('serves the 58 routes the three documents name: 53 available, 2 vendor webhooks on the REST shim, 1 reserved for R5, 2 planned', () => {
    const by = (status: string) => routeMap.routes.filter((r) => r.status === status).length
    expect(routeMap.routes.length).toBe(58)
    expect({ available: by('available'), rest: by('rest'), reserved: by('reserved'), planned: by('planned') })
      .toEqual({ available: 53, rest: 2, reserved: 1, planned: 2 })
    const perDocument = Object.fromEntries(['connectors', 'memory_workbench', 'twins_skills'].map((d) => [d, routeMap.routes.filter((r) => r.document === d).length]))
    expect(perDocument).toEqual({ connectors: 3, memory_workbench: 11, twins_skills: 44 })
  })
})
