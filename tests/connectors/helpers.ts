// Test helpers for the connector suites: the one fixture for a connected notebook (a file's stack and fake notebook, and
// tenants connected to it through the domain functions), webhook events, and a worker pass that runs what is due.
import http from 'node:http'
import { afterAll, beforeAll } from 'vitest'
import { Logger, runOnce } from 'graphile-worker'
import type { Db } from '../../core/database'
import { loadSession } from '../../core/identity'
import { createTaskList } from '../../jobs/worker'
import { startFakeNotebook, type FakeNotebook, type RegisteredApp } from '../../fakes/notebook/server'
import { sampleDays } from '../../fakes/notebook/entries'
import { createContext } from '../../subgraphs/shared/context'
import { createConnection, setConnectionCredentials } from '../../domain/connections'
import type { Tenant } from '../helpers/factories'
import { track } from '../helpers/resources'
import { useStack } from '../helpers/stack'

export const FOLDER = 'lib_illustrative_folder'

export type NotebookEvent = Record<string, unknown> & { type: string }
export type SendOptions = Omit<Parameters<FakeNotebook['control']['sendWebhook']>[0], 'url' | 'appDefinitionId' | 'event'>

export interface ConnectedNotebook extends AsyncDisposable {
  fake: FakeNotebook
  app: RegisteredApp
  connection: { id: string; organizationId: string; programId: string }
  /** The gateway (or connectors service) address of this connection's webhook. */
  hookUrl(base: string): string
  /** The fake signs and sends a webhook of this app to the connection's hook through the gateway (needs `gatewayUrl`). */
  send(event: NotebookEvent, options?: SendOptions): ReturnType<FakeNotebook['control']['sendWebhook']>
}

export async function ownerContext(db: Db, tenant: Tenant) {
  return createContext(db, await tenant.session('program_owner'), 'test')
}

/** A fake notebook on port 0, tracked by the leak guard and closed with `await using`. */
export async function startTestFakeNotebook(): Promise<FakeNotebook> {
  const fake = await startFakeNotebook()
  const close = fake.close // track replaces fake.close with its own
  return track('a fake notebook', fake, close)
}

/**
 * An app on the fake notebook and an active eln_provider connection of the tenant's program to it. Without `fake`, starts
 * its own, which `await using` closes; with one, disposing leaves the shared fake running.
 */
export async function connectNotebook(db: Db, tenant: Tenant, opts: { fake?: FakeNotebook; projectIds?: string[]; secret?: string; gatewayUrl?: string } = {}): Promise<ConnectedNotebook> {
  const fake = opts.fake ?? (await startTestFakeNotebook())
  const app = fake.control.registerApp({ client: { clientSecret: opts.secret } })
  const ctx = await ownerContext(db, tenant)
  const created = await createConnection(ctx, {
    programId: tenant.program.id, providerId: 'eln_provider', name: 'Test notebook',
    scopeRules: { projectIds: opts.projectIds ?? [FOLDER] }, baseUrl: fake.url, appDefinitionId: app.appDefinitionId, consent: true,
  })
  await setConnectionCredentials(ctx, created.id, { clientId: app.clientId!, clientSecret: app.clientSecret! })
  const hookUrl = (base: string) => `${base}/api/v1/hooks/eln_provider/${created.id}`
  return {
    fake, app, connection: created, hookUrl,
    send(event, options = {}) {
      if (!opts.gatewayUrl) throw new Error('connectNotebook: pass gatewayUrl to send webhooks')
      return fake.control.sendWebhook({ url: hookUrl(opts.gatewayUrl), appDefinitionId: app.appDefinitionId, event, ...options })
    },
    [Symbol.asyncDispose]: async () => { if (!opts.fake) await fake.close() },
  }
}

export interface NotebookStack {
  /** The file's stack (`.current.gatewayUrl`, `.db.url`). */
  stack: ReturnType<typeof useStack>
  /** The file's fake notebook: the same object for the whole file, listening from beforeAll on. */
  fake: FakeNotebook
  db(): Db
  /** Runs every job that is due now. */
  work(): Promise<void>
  /** Connects a tenant's program to the file's fake; its `send` goes through the gateway. */
  connect(tenant: Tenant, opts?: { projectIds?: string[]; secret?: string }): Promise<ConnectedNotebook>
}

/** The fixture every connector suite starts from: a stack and one fake notebook for the file, closed after it. */
export function useNotebookStack(): NotebookStack {
  const stack = useStack()
  const fake = {} as FakeNotebook
  beforeAll(async () => { Object.assign(fake, await startTestFakeNotebook()) })
  afterAll(async () => { await fake.close?.() })
  const db = () => stack.db.db
  return {
    stack, fake, db,
    work: () => runWorkerOnce(db(), stack.db.url),
    connect: (tenant, opts = {}) => connectNotebook(db(), tenant, { ...opts, fake, gatewayUrl: stack.current.gatewayUrl }),
  }
}

export function sampleEntry(fake: FakeNotebook, id: string, opts: { name?: string; variant?: number; attachment?: boolean; folderId?: string; reviewStatus?: 'IN_PROGRESS' | 'NEEDS_REVIEW' | 'ACCEPTED' } = {}) {
  fake.control.upsertEntry({ id, name: opts.name ?? `Entry ${id}`, folderId: opts.folderId ?? FOLDER, reviewStatus: opts.reviewStatus, days: sampleDays({ variant: opts.variant ?? 1 }) })
  if (opts.attachment) {
    fake.control.putAttachment(id, { id: `exf_${id}`, name: 'export.csv', content: `well,abs\nA1,0.1\n# ${id}\n`, appendToEntry: true })
  }
  return fake.control.getEntry(id)!
}

export const entryUpdated = (entryId: string) => ({ type: 'v2.entry.updated.fields', resourceId: entryId })

/** Runs every job that is due now, in this process (production runs the same task list in the worker). */
export async function runWorkerOnce(db: Db, url: string) {
  // Failing attempts are expected in several tests; their errors are asserted on the delivery rows instead.
  await runOnce({ connectionString: url, taskList: createTaskList({ db, databaseUrl: url }), noHandleSignals: true, logger: quiet })
}
const quiet = new Logger(() => () => {})

/** Makes every queued job due now (a retry scheduled later, a rescheduled delivery). */
export async function makeJobsDue(db: Db) {
  await db.$executeRaw`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE locked_at IS NULL`
}

export async function jobCount(db: Db, task: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE task_identifier = ${task}`
  return Number(rows[0].n)
}

/** POSTs raw bytes from a chosen local address (the gateway sees it as the delivery's source address). */
export function postFrom(localAddress: string, url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, localAddress }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let json: unknown
        try { json = JSON.parse(text) } catch { json = text }
        resolve({ status: res.statusCode ?? 0, json })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

export async function sessionOf(db: Db, userId: string) {
  return loadSession(db, userId)
}
