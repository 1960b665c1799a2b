// Owns npm start's notebook demo (one of fakes/demos.ts): the fake notebook on FAKE_NOTEBOOK_PORT, and the
// illustrative program connected to it through the connectors domain's demo functions
// (domain/notebook/demo.ts). It lives here, not in the domain, because it starts the fake: the
// domain imports no fake.
import { env } from '../../core/config'
import { log } from '../../core/config'
import type { DemoContext, DemoService } from '../../domain/adapters'
import { hookUrlFor } from '../../domain/adapters'
import { DEMO_NOTEBOOK, connectIllustrativeNotebook, finishIllustrativeOnboarding } from '../../domain/notebook'
import { startDemoFake } from '../demo-start'
import { startFakeNotebook } from './server'
import { seedIllustrative } from './seed'

/**
 * The fake notebook connected to the illustrative program (connection, vendor app with the connection's hook URL,
 * credentials, health check) and a first full sync queued for the worker. Idempotent across restarts; a taken port
 * skips the demo instead of failing start-up, and so does a failed connection (the fake is closed again).
 */
export async function startNotebookDemo(ctx: DemoContext): Promise<DemoService | null> {
  const fake = await startDemoFake('fake_notebook', env().FAKE_NOTEBOOK_PORT, (port) => startFakeNotebook({ port, host: '127.0.0.1' }))
  if (!fake) return null
  try {
    const connection = await connectIllustrativeNotebook(ctx.db, { programId: ctx.programId, ownerUserId: ctx.ownerUserId, notebookUrl: fake.url })
    seedIllustrative(fake.control, {
      appDefinitionId: DEMO_NOTEBOOK.appDefinitionId, clientId: DEMO_NOTEBOOK.clientId,
      clientSecret: DEMO_NOTEBOOK.clientSecret, webhookUrl: hookUrlFor(connection, ctx.gatewayUrl) ?? undefined,
    })
    await finishIllustrativeOnboarding(ctx.db, { connectionId: connection.id, ownerUserId: ctx.ownerUserId })
    return { name: 'fake notebook', url: fake.url, note: `illustrative; connection ${connection.id}`, close: fake.close }
  } catch (error) {
    log.warn('fake_notebook.not_connected', { error })
    await fake.close()
    return null
  }
}
