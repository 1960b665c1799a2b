// The literature source's line on the role home: it runs on platform keys with no connection in the program, so its
// status comes from the platform health the literature_health job records, never 'not_connected' while search works.
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { createTaskList } from '../../jobs/worker'
import { useFakeLiterature } from './helpers'

const stack = useStack()
const db = () => stack.db.db
const fake = useFakeLiterature(db)

const SOURCES = `query($p: ID!) { workbench(programId: $p) { sources { provider status verifiedOn } } }`
const literatureLine = async (t: Tenant) => {
  const r = await gql(`${stack.current.gatewayUrl}/graphql`, SOURCES, { p: t.program.id }, await t.token('scientist'))
  expect(r.body.errors).toBeUndefined()
  return r.body.data.workbench.sources.find((s: { provider: string }) => s.provider === 'literature_search')
}
/** The literature_health job as the worker runs it from its crontab entry. */
const runLiteratureHealthJob = async () => {
  const task = createTaskList({ db: db(), databaseUrl: stack.db.url }).literature_health!
  await task({ _cron: { ts: new Date().toISOString() } }, { logger: { info: () => {} }, job: { id: '1' } } as never)
}

describe('the literature source on the role home', () => {
  it('reads connected with no connection in the program, verified on the day the platform probe answered, and degraded when a source fails', async () => {
    const t = await createTenant(db(), 'Literature health')
    await db().platformSourceHealth.deleteMany({})
    expect(await db().connection.count({ where: { programId: t.program.id } })).toBe(0)
    // Before any probe: searches work on platform keys, so it is connected, not yet verified.
    expect(await literatureLine(t)).toEqual({ provider: 'literature_search', status: 'connected', verifiedOn: null })

    await runLiteratureHealthJob()
    const today = new Date().toISOString().slice(0, 10)
    expect(await literatureLine(t)).toEqual({ provider: 'literature_search', status: 'connected', verifiedOn: today })
    const row = await db().platformSourceHealth.findUniqueOrThrow({ where: { providerId: 'literature_search' } })
    expect(row.checks).toEqual([{ name: 'literature_index', ok: true, detail: 'answered' }, { name: 'citation_graph', ok: true, detail: 'answered' }])

    fake.current.control.setFaults('literature-index', { malformedNext: 20 })
    await runLiteratureHealthJob()
    expect(await literatureLine(t)).toEqual({ provider: 'literature_search', status: 'degraded', verifiedOn: null })
    const degraded = await db().platformSourceHealth.findUniqueOrThrow({ where: { providerId: 'literature_search' } })
    expect(degraded).toMatchObject({ status: 'degraded', lastOkAt: row.lastOkAt })
  })
})
