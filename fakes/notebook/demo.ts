// Owns npm start's notebook demo (fakes/demos.ts): the fake notebook on FAKE_NOTEBOOK_PORT, connected to the
// illustrative program through the connectors domain (notebook/demo.ts). Here, not in the domain, because it starts
// the fake: the domain imports no fake.
import { env } from '../../core/env'
import { log } from '../../core/log'
import { listenFailure } from '../../core/start-failure'
import type { DemoContext, DemoService } from '../../domain/adapters'
import { hookUrlFor } from '../../domain/adapters'
import { DEMO_NOTEBOOK, connectIllustrativeNotebook, finishIllustrativeOnboarding } from '../../domain/notebook'
import { startFakeNotebook } from './server'
import { seedIllustrative } from './seed'

/**
 * npm start's notebook demo: the fake notebook connected to the illustrative program (connection, vendor app with the
 * connection's hook URL, credentials, health check) and a first full sync queued for the worker. Idempotent across
 * restarts; a taken port skips the demo connection instead of failing start-up.
 */
export async function startNotebookDemo(ctx: DemoContext): Promise<DemoService | null> {
  const port = env().FAKE_NOTEBOOK_PORT
  let fake: Awaited<ReturnType<typeof startFakeNotebook>>
  try {
    fake = await startFakeNotebook({ port, host: '127.0.0.1' })
  } catch (error) {
    log.warn('fake_notebook.not_started', { port, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
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
