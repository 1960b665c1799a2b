// Starts the real stack (three subgraphs + gateway) and workers on free ports for a test, with GraphQL helpers. Every
// factory answers an AsyncDisposable registered with the leak guard (tests/helpers/resources.ts): `await using` closes
// it at the end of a block, and a file that forgets one fails.
import { afterAll, beforeAll } from 'vitest'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { startStack } from '../../services'
import { startWorker } from '../../jobs/worker'
import { useTestDatabase, type TestDatabase } from './db'
import { track } from './resources'

export type Stack = Awaited<ReturnType<typeof startTestStack>>

/** The three subgraphs and the gateway on free ports over a test database; `await using stack = await startTestStack(t)`. */
export async function startTestStack(t: TestDatabase) {
  const stack = await startStack({ db: t.db, databaseUrl: t.url, dataDir: t.dataDir })
  return track('the stack (subgraphs and gateway)', stack, () => stack.stop())
}

/** A graphile-worker runner over a test database (one job at a time, no crontab unless asked). */
export async function startTestWorker(t: Pick<TestDatabase, 'db' | 'url'>, opts: { concurrency?: number; crontab?: boolean } = {}) {
  const runner = await startWorker({ db: t.db, databaseUrl: t.url }, { concurrency: 1, crontab: false, ...opts })
  return track('a worker runner', runner, () => runner.stop())
}

/** A stack for the whole file: started in beforeAll, stopped in afterAll; read `.current` and `.db` inside tests. */
export function useStack() {
  const t = useTestDatabase()
  const holder = {} as { current: Stack; db: TestDatabase }
  beforeAll(async () => {
    holder.db = t.current
    holder.current = await startTestStack(t.current)
  })
  afterAll(async () => { await holder.current?.close() })
  return holder
}

export interface GqlResult<T = any> { status: number; body: { data?: T; errors?: { message: string; extensions?: Record<string, any> }[] } }

export async function gql<T = any>(url: string, query: string, variables: Record<string, unknown> = {}, token?: string, headers: Record<string, string> = {}): Promise<GqlResult<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ query, variables }),
  })
  return { status: res.status, body: (await res.json()) as GqlResult<T>['body'] }
}

export function wsClient(url: string, token?: string, extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  return createClient({
    url: url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false,
    onNonLazyError: () => {}, // the refusal reaches the subscription's error sink; no console dump
    connectionParams: token ? { authorization: `Bearer ${token}` } : {}, ...extra,
  })
}

/** Collects a subscription's messages until `count` arrived (or the timeout). */
export function collect<T = any>(client: Client, query: string, count: number, timeoutMs = 10_000) {
  const received: { data?: T; errors?: any[] }[] = []
  let done: () => void
  let fail: (e: unknown) => void
  const finished = new Promise<void>((res, rej) => { done = res; fail = rej })
  const timer = setTimeout(() => fail(new Error(`timed out with ${received.length}/${count} messages: ${JSON.stringify(received)}`)), timeoutMs)
  const unsubscribe = client.subscribe<T>({ query }, {
    next: (m) => { received.push(m as never); if (received.length >= count) { clearTimeout(timer); done() } },
    error: (e) => { clearTimeout(timer); received.push({ errors: Array.isArray(e) ? e : [String((e as any)?.reason ?? e)] }); done() },
    complete: () => { clearTimeout(timer); done() },
  })
  return { received, finished, unsubscribe }
}

/** Polls until `check` holds (a condition another process or socket brings about), failing after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not reached within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
