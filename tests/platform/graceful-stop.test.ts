// Every component stops gracefully on SIGTERM and SIGINT, each proven on its own process: it takes no new work, lets
// what is in flight finish (a job, a request) or releases it after SHUTDOWN_GRACE_SECONDS, closes its sockets with 1001
// (Going away) and exits 0. A request is held in flight by a table lock the test takes and lets go after the signal.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import WebSocket from 'ws'
import { describe, expect, it } from 'vitest'
import { freePort } from '../../core/database'
import { INTERNAL_HEADER, signGatewayToken, signInternalToken } from '../../core/identity'
import { createTenant, type Tenant } from '../helpers/factories'
import { runEntry, startComponentProcess } from '../helpers/processes'
import { startTestWorker } from '../helpers/stack'
import { entryUpdated, sampleEntry, useNotebookStack } from '../connectors/helpers'
import { connect, runningRun } from '../twins/tools-helpers'

const { stack, fake, connect: connectNotebook } = useNotebookStack()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

/** Spawns an entry (jobs/main.ts, main.ts) as its own Node process; `exited` resolves with its exit code (null: killed). */
function spawnEntry(file: string, env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NODE_ENV|VITEST.*|AUTH_.*)$/.test(k)))
  const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...clean, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (c: Buffer) => { output += c })
  child.stderr!.on('data', (c: Buffer) => { output += c })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, exited, output: () => output, kill: async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); await exited } }
}

/** Holds an ACCESS EXCLUSIVE lock on `tables` until release(): any statement reading them waits. */
async function holdTables(url: string, tables: string[]) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('BEGIN')
  await client.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`)
  return {
    /** Some statement of another session waits on a lock (the request is in flight). */
    waiters: async () => Number((await client.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`)).rows[0].n),
    activity: async () => (await client.query(`SELECT application_name, state, wait_event_type, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows,
    release: async () => { await client.query('COMMIT').catch(() => {}); await client.end() },
  }
}

/**
 * A graphql-ws socket with one subscription open; `closed` resolves with the close code the server sent. `extensions`:
 * the subscribe message's (a subgraph's socket wants the person's internal token there).
 */
async function openSubscription(url: string, connectionParams: Record<string, unknown>, query: string, extensions?: Record<string, unknown>) {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws')
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })))
    socket.once('error', reject)
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString())
      if (message.type === 'connection_ack') resolve()
    })
    void closed.then((c) => reject(new Error(`the socket closed before its ack: ${c.code} ${c.reason}`)))
  })
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, extensions } }))
  await sleep(500) // the subscription is set up (the gateway's bridge opens its upstream socket)
  return { closed, close: () => socket.terminate() }
}

const post = (url: string, query: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) })
    .then(async (r) => ({ status: r.status, body: await r.json() as any }))

/** SIGTERM while `inFlight` waits behind the lock, the lock let go after a moment: the request's answer. */
async function stopDuringRequest<T>(lock: Awaited<ReturnType<typeof holdTables>>, inFlight: () => Promise<T>, signal: () => void) {
  let settled: unknown
  const answer = inFlight()
  answer.then((a) => { settled = a }, (e) => { settled = e })
  await waitFor(async () => {
    if (settled) throw new Error(`the request did not wait on the lock: ${JSON.stringify(settled)}`)
    return (await lock.waiters()) > 0
  }, 20_000, 'the request to wait on the lock').catch(async (e) => { throw new Error(`${(e as Error).message}: ${JSON.stringify(await lock.activity())}`) })
  signal()
  await sleep(1_500) // the process is stopping with the request in flight
  await lock.release()
  return answer
}

/** Leaves only the delivery's job queued (connecting queued others), and answers the vendor's request count now. */
async function onlyTheDeliveryJob() {
  await stack.db.db.$executeRaw`
    DELETE FROM graphile_worker._private_jobs WHERE task_id IN (SELECT id FROM graphile_worker._private_tasks WHERE identifier <> 'connector_delivery_process')`
  return fake.control.getStats().requests
}

/** The worker process runs the delivery's job (its debug log says so) and asked the vendor for the entry (held back). */
async function jobInFlight(worker: { output(): string }, requestsBefore: number) {
  await waitFor(() => /"event":"job\.started".*"task":"connector_delivery_process"/.test(worker.output()), 60_000, 'the worker to start the job')
  await waitFor(() => fake.control.getStats().requests >= requestsBefore + 2, 30_000, 'the worker to call the vendor for the entry')
}

const baseEnv = () => ({ DATABASE_URL: stack.db.url, DATA_DIR: stack.db.dataDir })
const me = '{ me { user { id } } }'

describe('graceful stop of each component in its own process', () => {
  it('the worker lets a running job finish on SIGTERM and exits 0', { timeout: 120_000 }, async () => {
    const db = stack.db.db
    const tenant = await createTenant(db, 'Stop worker')
    const nb = await connectNotebook(tenant)
    sampleEntry(fake, 'etr_stop_1')
    fake.control.misbehave({ delayMs: 4_000, pathPrefix: '/api/v2/entries' })
    const sent = await nb.send(entryUpdated('etr_stop_1'))
    expect(sent.status).toBe(202)
    const calls = await onlyTheDeliveryJob()
    const worker = spawnEntry('jobs/main.ts', { ...baseEnv(), WORKER_CONCURRENCY: '1', NOTEBOOK_HTTP_TIMEOUT_MS: '60000', LOG_LEVEL: 'debug' })
    try {
      await jobInFlight(worker, calls)
      worker.child.kill('SIGTERM')
      expect(await worker.exited).toBe(0)
      const row = await db.webhookDelivery.findFirstOrThrow({ where: { deliveryId: sent.deliveryId } })
      expect(row).toMatchObject({ processingResult: 'created', processingAttempts: 1 })
      expect(worker.output()).toContain('"worker.stopped"')
    } finally {
      fake.control.behave()
      await worker.kill()
    }
  })

  it('the worker releases a job still running when the grace period ends, exits 0, and the next worker runs it at once', { timeout: 120_000 }, async () => {
    const db = stack.db.db
    const tenant = await createTenant(db, 'Stop worker late')
    const nb = await connectNotebook(tenant)
    sampleEntry(fake, 'etr_stop_2')
    fake.control.misbehave({ delayMs: 30_000, pathPrefix: '/api/v2/entries' })
    const sent = await nb.send(entryUpdated('etr_stop_2'))
    const calls = await onlyTheDeliveryJob()
    const worker = spawnEntry('jobs/main.ts', { ...baseEnv(), WORKER_CONCURRENCY: '1', NOTEBOOK_HTTP_TIMEOUT_MS: '60000', SHUTDOWN_GRACE_SECONDS: '1', LOG_LEVEL: 'debug' })
    try {
      await jobInFlight(worker, calls)
      worker.child.kill('SIGINT')
      expect(await worker.exited).toBe(0)
      expect(worker.output()).toContain('"worker.grace_period_over"')
      // Released, not failed: unlocked, due now, no error recorded against it.
      const [job] = await db.$queryRaw<{ locked_by: string | null; last_error: string | null; due: boolean }[]>`
        SELECT locked_by, last_error, run_at <= now() AS due FROM graphile_worker.jobs WHERE task_identifier = 'connector_delivery_process'`
      expect(job).toEqual({ locked_by: null, last_error: null, due: true })
      expect((await db.webhookDelivery.findFirstOrThrow({ where: { deliveryId: sent.deliveryId } })).processedAt).toBeNull()
      fake.control.behave()
      await using _next = await startTestWorker(stack.db)
      const processed = await waitFor(async () => {
        const r = await db.webhookDelivery.findFirstOrThrow({ where: { deliveryId: sent.deliveryId } })
        return r.processedAt ? r : null
      }, 20_000, 'the next worker to process the delivery')
      expect(processed.processingResult).toBe('created')
    } finally {
      fake.control.behave()
      await worker.kill()
    }
  })

  it('the gateway answers the request in flight, closes its sockets with 1001 and exits 0 on SIGTERM', { timeout: 150_000 }, async () => {
    const tenant: Tenant = await createTenant(stack.db.db, 'Stop gateway')
    const token = await tenant.token('program_lead')
    const port = await freePort()
    const urls = stack.current.subgraphUrls
    const gateway = await startComponentProcess('gateway/main.ts', {
      ...baseEnv(), GATEWAY_PORT: String(port), CONNECTORS_URL: urls.connectors, WORKBENCH_URL: urls.workbench, TWINS_URL: urls.twins,
    })
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)))
    const url = `http://127.0.0.1:${port}/graphql`
    const subscription = await openSubscription(url, { authorization: `Bearer ${token}` }, 'subscription { inboxChanged { id } }')
    const lock = await holdTables(stack.db.url, ['users'])
    try {
      const answer = await stopDuringRequest(lock, () => post(url, me, { authorization: `Bearer ${token}` }), () => gateway.child.kill('SIGTERM'))
      expect(answer.status).toBe(200)
      expect(answer.body.data.me.user.id).toBe(tenant.users.program_lead.id)
      expect((await subscription.closed).code).toBe(1001)
      expect(await exited).toBe(0)
    } finally {
      await lock.release()
      subscription.close()
      await gateway.close()
    }
  })

  it('each subgraph answers the request in flight, closes its sockets with 1001 and exits 0 on SIGTERM', { timeout: 180_000 }, async () => {
    const tenant: Tenant = await createTenant(stack.db.db, 'Stop subgraphs')
    const ports = { CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort() }
    const files = { connectors: 'subgraphs/connectors/main.ts', workbench: 'subgraphs/workbench/main.ts', twins: 'subgraphs/twins/main.ts' } as const
    const portOf = { connectors: ports.CONNECTORS_PORT, workbench: ports.WORKBENCH_PORT, twins: ports.TWINS_PORT }
    const processes = await Promise.all((Object.keys(files) as (keyof typeof files)[]).map(async (name) => {
      const p = await startComponentProcess(files[name], { ...baseEnv(), [`${name.toUpperCase()}_PORT`]: String(portOf[name]) })
      return { name, p, exited: new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code))) }
    }))
    const internal = (persona: 'program_lead' | 'scientist' = 'program_lead') =>
      signInternalToken({ userId: tenant.users[persona].id, organizationId: tenant.organization.id, requestId: randomUUID() })
    const queries = { connectors: `{ connection(id: "${randomUUID()}") { id } }`, workbench: me, twins: '{ myInbox(first: 1) { nodes { id } } }' }
    // Each process loads a caller's session on its first request from that caller (the socket's caller is another one).
    try {
      const twinsUrl = `http://127.0.0.1:${portOf.twins}/graphql`
      // as the gateway's bridge opens it: the gateway's own token on the socket, the person's on the subscription
      const subscription = await openSubscription(twinsUrl, { internalToken: await signGatewayToken() }, 'subscription { inboxChanged { id } }', { internalToken: await internal() })
      for (const { name, p, exited } of processes) {
        const url = `http://127.0.0.1:${portOf[name]}/graphql`
        // Warmed up by another person's request (a fresh process's first query prepares its database client first).
        expect((await post(url, queries[name], { [INTERNAL_HEADER]: await internal() })).status).toBe(200)
        const lock = await holdTables(stack.db.url, ['users'])
        const headers = { [INTERNAL_HEADER]: await internal('scientist') }
        try {
          const answer = await stopDuringRequest(lock, () => post(url, queries[name], headers), () => p.child.kill('SIGTERM'))
          expect([name, answer.status, answer.body.errors]).toEqual([name, 200, undefined])
          if (name === 'twins') expect((await subscription.closed).code).toBe(1001)
          expect([name, await exited]).toEqual([name, 0])
        } finally { await lock.release() }
      }
      subscription.close()
    } finally {
      for (const { p } of processes) await p.close()
    }
  })

  it('the tool server answers the tool call in flight and exits 0 on SIGTERM', { timeout: 150_000 }, async () => {
    const db = stack.db.db
    const tenant = await createTenant(db, 'Stop tools')
    const run = await runningRun(db, tenant, 'program_lead')
    const port = await freePort()
    const tools = await startComponentProcess('subgraphs/twins/tools/main.ts', { ...baseEnv(), TOOLS_PORT: String(port) })
    const exited = new Promise<number | null>((resolve) => tools.child.once('exit', (code) => resolve(code)))
    const client = await connect(`http://127.0.0.1:${port}`, run)
    const lock = await holdTables(stack.db.url, ['agent_runs'])
    try {
      const result = await stopDuringRequest(lock, () => client.call('console.get_twin', {}), () => tools.child.kill('SIGTERM'))
      expect(result.ok).toBe(true)
      expect(await exited).toBe(0)
    } finally {
      await lock.release()
      await client.close().catch(() => {})
      await tools.close()
    }
  })

  it('npm start (every component in one process) answers the request in flight, closes sockets with 1001 and exits 0 on SIGTERM', { timeout: 240_000 }, async () => {
    const names = ['GATEWAY_PORT', 'CONNECTORS_PORT', 'WORKBENCH_PORT', 'TWINS_PORT', 'TOOLS_PORT', 'FAKE_NOTEBOOK_PORT', 'FAKE_QMS_PORT', 'FAKE_LITERATURE_PORT']
    const ports = Object.fromEntries(await Promise.all(names.map(async (k) => [k, String(await freePort())])))
    const service = spawnEntry('main.ts', { ...baseEnv(), ...ports })
    let subscription: Awaited<ReturnType<typeof openSubscription>> | undefined
    try {
      await waitFor(() => service.output().includes('Evidence workspace is running') && /eyJ[\w-]+\.[\w-]+\.[\w-]+/.test(service.output()), 180_000, 'npm start to print its banner')
      const token = /eyJ[\w-]+\.[\w-]+\.[\w-]+/.exec(service.output())![0]
      // The banner's hint keeps npm's own lines out of a captured token; finished jobs do not push it off screen.
      expect(service.output()).toContain('npm run -s token -- --user <email>')
      await stack.db.db.$executeRaw`SELECT graphile_worker.add_job('inbox_expire', '{}'::json, job_key => 'graceful-stop-banner')`
      await waitFor(async () => (await stack.db.db.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM graphile_worker.jobs WHERE key = 'graceful-stop-banner'`)[0].n === 0n, 60_000, 'npm start\'s worker to run a job')
      expect(service.output()).not.toContain('"job.done"')
      // A helper command in another terminal, with no variable repeated, uses this service's database and keys.
      const minted = await runEntry('scripts/token.ts', { args: ['--user', 'lead@illustrative.example'] })
      expect([minted.code, minted.stderr]).toEqual([0, expect.any(String)])
      const lead = await post(`http://127.0.0.1:${ports.GATEWAY_PORT}/graphql`, '{ me { user { email } } }', { authorization: `Bearer ${minted.stdout.trim()}` })
      expect(lead.body.data.me.user.email).toBe('lead@illustrative.example')
      const url = `http://127.0.0.1:${ports.GATEWAY_PORT}/graphql`
      subscription = await openSubscription(url, { authorization: `Bearer ${token}` }, 'subscription { inboxChanged { id } }')
      const lock = await holdTables(stack.db.url, ['users'])
      try {
        const answer = await stopDuringRequest(lock, () => post(url, me, { authorization: `Bearer ${token}` }), () => service.child.kill('SIGTERM'))
        expect(answer.status).toBe(200)
        expect(answer.body.data.me.user.id).toBeTruthy()
      } finally { await lock.release() }
      expect((await subscription.closed).code).toBe(1001)
      expect(await service.exited).toBe(0)
    } finally {
      subscription?.close()
      await service.kill()
    }
  })
})
