// Owns the demo wiring of npm start: the fake notebook on FAKE_NOTEBOOK_PORT and the illustrative program's notebook
// connection to it, made idempotently through the ordinary domain functions (as the illustrative program owner), then a
// first full sync (the adapter's startDemo hook).
import type { Db } from '../../../../core/db'
import { env } from '../../../../core/env'
import { log } from '../../../../core/log'
import { listenFailure } from '../../../../core/start-failure'
import type { DemoContext, DemoService } from '../adapters/contract'
import { hookUrlFor } from '../urls'
import { loadSession } from '../../../../core/session'
import { enqueue } from '../../../../core/jobs'
import { domainContext } from '../../../../core/command'
import {
  checkConnectionHealth, createConnection, setConnectionCredentials, updateConnection,
} from '../connections'
import { decryptSecrets } from '../secrets'

export const DEMO_NOTEBOOK = {
  appDefinitionId: 'appdef_illustrative',
  clientId: 'illustrative-client',
  clientSecret: 'illustrative-secret',
  /** The fake's illustrative entries sit in this folder. */
  projectId: 'lib_illustrative_folder',
  name: 'Illustrative notebook (fake notebook, labelled illustrative)',
} as const

export async function connectIllustrativeNotebook(db: Db, opts: { programId: string; ownerUserId: string; notebookUrl: string }) {
  const ctx = domainContext(db, await loadSession(db, opts.ownerUserId))
  let connection = await ctx.tdb.connection.findFirst({ where: { programId: opts.programId, providerId: 'eln_provider', status: 'active' } })
  if (!connection) {
    connection = await createConnection(ctx, {
      programId: opts.programId, providerId: 'eln_provider', name: DEMO_NOTEBOOK.name,
      scopeRules: { projectIds: [DEMO_NOTEBOOK.projectId] }, baseUrl: opts.notebookUrl,
      appDefinitionId: DEMO_NOTEBOOK.appDefinitionId, consent: true,
    })
  } else if (connection.baseUrl !== opts.notebookUrl || connection.appDefinitionId !== DEMO_NOTEBOOK.appDefinitionId) {
    connection = await updateConnection(ctx, connection.id, { baseUrl: opts.notebookUrl, appDefinitionId: DEMO_NOTEBOOK.appDefinitionId })
  }
  let stored: { clientId: string; clientSecret: string } | null = null
  try {
    stored = connection.secretsCiphertext ? decryptSecrets(connection.id, connection.secretsCiphertext, connection.secretsKeyId) : null
  } catch {
    stored = null
  }
  if (!stored || stored.clientId !== DEMO_NOTEBOOK.clientId || stored.clientSecret !== DEMO_NOTEBOOK.clientSecret) {
    connection = await setConnectionCredentials(ctx, connection.id, { clientId: DEMO_NOTEBOOK.clientId, clientSecret: DEMO_NOTEBOOK.clientSecret })
  }
  return connection
}

/** After the fake knows the hook URL: the health check (step e) and a first full sync, run by the worker. */
export async function finishIllustrativeOnboarding(db: Db, opts: { connectionId: string; ownerUserId: string }) {
  const ctx = domainContext(db, await loadSession(db, opts.ownerUserId))
  const connection = await checkConnectionHealth(ctx, opts.connectionId)
  await enqueue(db, 'connector_sync', { connectionId: connection.id, mode: 'full' }, { jobKey: `connector_sync:${connection.id}` })
  return connection
}

/**
 * The adapter's demo hook: the fake notebook connected to the illustrative program (connection, vendor app with the
 * connection's hook URL, credentials, health check) and a first full sync queued for the worker. Idempotent across
 * restarts; a taken port skips the demo connection instead of failing start-up.
 */
export async function startNotebookDemo(ctx: DemoContext): Promise<DemoService | null> {
  const { startFakeNotebook } = await import('../../../../fakes/notebook/server')
  const { seedIllustrative } = await import('../../../../fakes/notebook/seed')
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
