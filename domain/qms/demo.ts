// Owns the demo wiring of npm start for the QMS: the illustrative program's qms_provider connection to the fake QMS
// (labelled illustrative), made idempotently through the ordinary domain functions as the program owner: create,
// configure (client id, instance id, lifecycle map without the vault's "Pending Retirement"), credentials, health
// check, then a first poll queued for the worker. The adapter's startDemo hook starts the fake first.
import type { Db } from '../../core/database'
import { domainContext } from '../../core/jobs'
import { loadSession } from '../../core/identity'
import { enqueue } from '../../core/jobs'
import { checkConnectionHealth, createConnection, setConnectionCredentials, updateConnection } from '../connections'
import { configureQmsConnection } from './review'
import { PROVIDER_ID } from './sync'

export const DEMO_QMS = {
  name: 'Illustrative QMS (fake QMS, labelled illustrative)',
  documentTypes: ['sop__c'],
  lifecycleMap: [
    { label: 'Draft', state: 'draft' }, { label: 'In Review', state: 'in_review' }, { label: 'Approved', state: 'in_review' },
    { label: 'Effective', state: 'effective' }, { label: 'Superseded', state: 'superseded' }, { label: 'Obsolete', state: 'obsolete' },
  ],
} as const

export async function connectIllustrativeQms(db: Db, opts: { programId: string; ownerUserId: string; qmsUrl: string; instanceId: string; clientId: string; username: string; password: string }) {
  const ctx = domainContext(db, await loadSession(db, opts.ownerUserId))
  let connection = await ctx.tdb.connection.findFirst({ where: { programId: opts.programId, providerId: PROVIDER_ID, status: 'active' } })
  if (!connection) {
    connection = await createConnection(ctx, { programId: opts.programId, providerId: PROVIDER_ID, name: DEMO_QMS.name, scopeRules: { documentTypes: [...DEMO_QMS.documentTypes] }, baseUrl: opts.qmsUrl, consent: true })
  } else if (connection.baseUrl !== opts.qmsUrl) {
    connection = await updateConnection(ctx, connection.id, { baseUrl: opts.qmsUrl })
  }
  await configureQmsConnection(ctx, { id: connection.id, clientId: opts.clientId, instanceId: opts.instanceId, integrationUser: 'sandbox', lifecycleMap: DEMO_QMS.lifecycleMap.map((m) => ({ ...m })) })
  await setConnectionCredentials(ctx, connection.id, { clientId: opts.username, clientSecret: opts.password })
  const checked = await checkConnectionHealth(ctx, connection.id)
  await enqueue(db, 'poll_qms', { connectionId: connection.id }, { jobKey: `poll_qms:${connection.id}` })
  return checked
}
