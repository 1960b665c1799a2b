// npm start's QMS demo wiring: the fake QMS's illustrative vault connected to a program through the ordinary domain
// functions (configure, credentials, health check), a first poll queued and run by the worker's task list.
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { seedIllustrativeQms, ILLUSTRATIVE_CLIENT_ID, ILLUSTRATIVE_QMS_USER } from '../../fakes/qms/seed'
import { connectIllustrativeQms } from '../../domain/qms'
import { runWorkerOnce } from '../connectors/helpers'
import { startTestFakeQms } from './helpers'

const t = useTestDatabase()

describe('QMS demo wiring', () => {
  it('connects the illustrative vault, checks its health (the unmapped label surfaced) and ingests it with the queued poll', async () => {
    await using fake = await startTestFakeQms()
    seedIllustrativeQms(fake.state)
    const db = t.current.db
    const tenant = await createTenant(db, 'Demo')
    const args = {
      programId: tenant.program.id, ownerUserId: tenant.users.program_owner.id, qmsUrl: fake.url, instanceId: String(fake.state.vaultId),
      clientId: ILLUSTRATIVE_CLIENT_ID, username: ILLUSTRATIVE_QMS_USER.username, password: ILLUSTRATIVE_QMS_USER.password,
    }
    const c = await connectIllustrativeQms(db, args)
    const health = c.health as { status: string; checks: { name: string; ok: boolean; detail: string }[] }
    expect(health.status).toBe('degraded')
    expect(health.checks.filter((k) => !k.ok).map((k) => k.name)).toEqual(['lifecycle_map'])
    await runWorkerOnce(db, t.current.url)
    const versions = await db.sopVersion.findMany({ where: { connectionId: c.id } })
    expect(versions).toHaveLength(5)
    expect(versions.filter((v) => v.lifecycleState === 'unmapped').map((v) => v.vendorLabel)).toEqual(['Pending Retirement'])
    expect(versions.every((v) => v.textSource === 'text_endpoint')).toBe(true)
    // Idempotent across restarts: the same connection.
    expect((await connectIllustrativeQms(db, args)).id).toBe(c.id)
  })
})
