// npm start's demo vendors come from one list: each provider's demo hook (its adapter's startDemo) starts its fake and
// connects the illustrative program, so services.ts starts no fake by hand.
import { afterEach, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { env, setEnv } from '../../core/config'
import { startConnectorDemos } from '../../fakes/demos'
import { configureLiterature, sourceBaseUrl } from '../../domain/literature'

const t = useTestDatabase()
const saved = env()
afterEach(() => {
  setEnv(saved)
  configureLiterature({ baseUrl: undefined })
})

describe('connector demo hooks', () => {
  it('starts the fake notebook, the fake QMS and the fake literature sources through the providers\' demo hooks and connects the program to the two vendors', async () => {
    setEnv({ ...saved, FAKE_NOTEBOOK_PORT: 0, FAKE_QMS_PORT: 0, FAKE_LITERATURE_PORT: 0, LITERATURE_BASE_URL: undefined })
    const db = t.current.db
    const tenant = await createTenant(db, 'Demos')
    const demos = await startConnectorDemos({ db, programId: tenant.program.id, ownerUserId: tenant.users.program_owner.id, gatewayUrl: 'http://127.0.0.1:9' })
    try {
      expect(demos.map((d) => d.name)).toEqual(['fake notebook', 'fake QMS', 'fake literature sources'])
      const connections = await db.connection.findMany({ where: { programId: tenant.program.id }, orderBy: { providerId: 'asc' } })
      expect(connections.map((c) => [c.providerId, c.baseUrl, c.status])).toEqual([
        ['eln_provider', demos[0].url, 'active'],
        ['qms_provider', demos[1].url, 'active'],
      ])
      for (const [i, c] of connections.entries()) expect(demos[i].note).toBe(`illustrative; connection ${c.id}`)
      // The literature connector reads the fake's sources.
      expect(sourceBaseUrl('literature_index').startsWith(`${demos[2].url.replace(/\/$/, '')}/`)).toBe(true)
    } finally {
      for (const d of demos) await d.close()
    }
  })

  it('leaves the literature connector on the sources LITERATURE_BASE_URL names, starting no fake for it', async () => {
    setEnv({ ...saved, FAKE_NOTEBOOK_PORT: 0, FAKE_QMS_PORT: 0, FAKE_LITERATURE_PORT: 0, LITERATURE_BASE_URL: 'http://127.0.0.1:9/sources' })
    const db = t.current.db
    const tenant = await createTenant(db, 'DemosConfigured')
    const demos = await startConnectorDemos({ db, programId: tenant.program.id, ownerUserId: tenant.users.program_owner.id, gatewayUrl: 'http://127.0.0.1:9' })
    try {
      expect(demos.map((d) => d.name)).toEqual(['fake notebook', 'fake QMS'])
      expect(sourceBaseUrl('literature_index').startsWith('http://127.0.0.1:9/sources/')).toBe(true)
    } finally {
      for (const d of demos) await d.close()
    }
  })
})
