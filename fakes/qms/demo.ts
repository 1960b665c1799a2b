// Owns npm start's QMS demo (fakes/demos.ts): the fake QMS on FAKE_QMS_PORT with illustrative SOPs, connected to the
// illustrative program through the connectors domain (qms/demo.ts). Here, not in the domain, because it starts the
// fake: the domain imports no fake.
import { env } from '../../core/config'
import { log } from '../../core/config'
import type { DemoContext, DemoService } from '../../domain/adapters'
import { connectIllustrativeQms } from '../../domain/qms'
import { startDemoFake } from '../demo-start'
import { startFakeQms } from './server'
import { seedIllustrativeQms, ILLUSTRATIVE_QMS_USER, ILLUSTRATIVE_CLIENT_ID } from './seed'

/**
 * npm start's QMS demo: the fake QMS on FAKE_QMS_PORT with illustrative SOPs, connected to the illustrative program
 * (configured, credentials, health check) and a first poll queued for the worker. A taken port skips it instead of
 * failing start-up.
 */
export async function startQmsDemo(ctx: DemoContext): Promise<DemoService | null> {
  const fake = await startDemoFake('fake_qms', env().FAKE_QMS_PORT, (port) => startFakeQms({ port, host: '127.0.0.1' }))
  if (!fake) return null
  try {
    seedIllustrativeQms(fake.state)
    const connection = await connectIllustrativeQms(ctx.db, {
      programId: ctx.programId, ownerUserId: ctx.ownerUserId, qmsUrl: fake.url, instanceId: String(fake.state.vaultId),
      clientId: ILLUSTRATIVE_CLIENT_ID, username: ILLUSTRATIVE_QMS_USER.username, password: ILLUSTRATIVE_QMS_USER.password,
    })
    return { name: 'fake QMS', url: fake.url, note: `illustrative; connection ${connection.id}`, close: fake.close }
  } catch (error) {
    log.warn('fake_qms.not_connected', { error })
    await fake.close()
    return null
  }
}
