// Starts the real stack (three subgraphs + gateway) on free ports for a test file, with GraphQL helpers.
import { afterAll, beforeAll } from 'vitest'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { startStack } from '../../services'
import { useTestDatabase, type TestDatabase } from './db'

export type Stack = Awaited<ReturnType<typeof startStack>>

export function useStack() {
  const t = useTestDatabase()
  const holder = {} as { current: Stack; db: TestDatabase }
  beforeAll(async () => {
    holder.db = t.current
    holder.current = await startStack({ db: t.current.db, databaseUrl: t.current.url, dataDir: t.current.dataDir })
  })
  afterAll(async () => { await holder.current?.stop() })
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
