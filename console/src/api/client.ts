// Owns the GraphQL client: urql over HTTP for queries and mutations, graphql-ws for subscriptions, one client per
// token (a new sign-in gets a new socket whose connection_init carries the new token).
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql'
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws'
import type { ConsoleConfig } from './config'

/** Fired when the socket reconnects: subscription events are not durable, so lists refetch. */
export const RECONNECTED_EVENT = 'console:reconnected'

export interface ApiClient {
  client: Client
  dispose(): void
}

export function createApiClient(config: ConsoleConfig, token: string): ApiClient {
  const authorization = token ? `Bearer ${token}` : undefined
  let connects = 0
  const ws: WsClient = createWsClient({
    url: config.wsUrl,
    lazy: true,
    connectionParams: authorization ? { authorization } : {},
    retryAttempts: 20,
    on: {
      connected: () => {
        if (connects++ > 0) window.dispatchEvent(new Event(RECONNECTED_EVENT))
      },
    },
  })
  const client = new Client({
    url: config.httpUrl,
    preferGetMethod: false,
    fetchOptions: (): RequestInit => ({ headers: authorization ? { authorization } : ({} as Record<string, string>) }),
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' }
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink)
              return { unsubscribe }
            },
          }
        },
      }),
    ],
  })
  return { client, dispose: () => void ws.dispose() }
}
