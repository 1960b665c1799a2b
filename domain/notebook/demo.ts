// Owns the demo wiring of npm start: the fake notebook on FAKE_NOTEBOOK_PORT and the illustrative program's notebook
// connection to it, made idempotently through the ordinary domain functions (as the illustrative program owner), then a
// first full sync (the adapter's startDemo hook).
import type { Db } from '../../core/database'
import { loadSession } from '../../core/identity'
import { enqueue } from '../../core/jobs'
import { domainContext } from '../../core/jobs'
import {
  checkConnectionHealth, createConnection, setConnectionCredentials, updateConnection,
} from '../connections'
import { decryptSecrets } from '../adapters'

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
