// The client factory of @evidence-workspace/client: typed requests over HTTP (POST to /graphql) and over graphql-ws
// (subscriptions, and queries or mutations on the socket), with the bearer token supplied by a function the client
// calls for every HTTP request and every (re)connection, so an application that renews its token never restarts
// the client. Nothing here caches: pair it with Apollo Client or urql for that (possibleTypes ships beside it).
import { print, type ExecutionResult, type GraphQLFormattedError } from 'graphql'
import { createClient as createSocketClient, type Client as SocketClient } from 'graphql-ws'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'

export interface WorkspaceClientOptions {
  /** The gateway's GraphQL endpoint, e.g. https://workspace.example/graphql (the socket uses the same path, ws/wss). */
  url: string
  /** The current bearer token (without "Bearer "), called for every HTTP request and every socket connection. */
  token: () => string | Promise<string>
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch
  /** A WebSocket implementation (default: the global WebSocket: browsers, Node 22+). */
  webSocketImpl?: unknown
}

/** A GraphQL error answered for a request (top-level errors[]: UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT, …). */
export class WorkspaceRequestError extends Error {
  constructor(readonly errors: readonly GraphQLFormattedError[], readonly status: number) {
    super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`)
    this.name = 'WorkspaceRequestError'
  }
  /** The first error's extensions.code. */
  get code(): string | undefined { return this.errors[0]?.extensions?.code as string | undefined }
}

/** Variables are optional for documents without required ones. */
type VariablesArg<V> = Record<string, never> extends V ? [variables?: V] : [variables: V]

/**
 * Close codes after which the socket reconnects: 4401 (the token expired: the next connection asks `token()` for a
 * fresh one), 1013 (the service was briefly unavailable) and network closes. 4403 (no valid token) is final.
 */
const RETRY_CLOSE_CODES = new Set([4401, 1001, 1006, 1011, 1012, 1013])

export function createWorkspaceClient(options: WorkspaceClientOptions) {
  const doFetch = options.fetch ?? fetch
  let socket: SocketClient | undefined
  const socketClient = () => socket ??= createSocketClient({
    url: options.url.replace(/^http/, 'ws'),
    webSocketImpl: options.webSocketImpl,
    // graphql-ws calls this on every connection: a reconnection carries the token current then
    connectionParams: async () => ({ authorization: `Bearer ${await options.token()}` }),
    retryAttempts: 5,
    shouldRetry: (event) => {
      const code = (event as { code?: unknown } | null)?.code
      return typeof code !== 'number' || RETRY_CLOSE_CODES.has(code)
    },
  })

  return {
    /** Runs a query or mutation over HTTP; resolves with its data, rejects with WorkspaceRequestError for top-level errors. */
    async request<R, V extends Record<string, unknown>>(document: TypedDocumentNode<R, V>, ...[variables]: VariablesArg<V>): Promise<R> {
      const res = await doFetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: `Bearer ${await options.token()}` },
        body: JSON.stringify({ query: print(document), variables: variables ?? {} }),
      })
      let body: ExecutionResult<R>
      try { body = (await res.json()) as ExecutionResult<R> } catch { throw new WorkspaceRequestError([], res.status) }
      if (body.errors?.length || body.data == null) throw new WorkspaceRequestError((body.errors ?? []) as unknown as GraphQLFormattedError[], res.status)
      return body.data
    },

    /**
     * Runs an operation over graphql-ws: each result goes to `onResult`; returns a function that ends it. A
     * subscription runs until ended or until the server ends it (SUBSCRIPTION_INTERRUPTED: refetch and subscribe again).
     */
    subscribe<R, V extends Record<string, unknown>>(
      document: TypedDocumentNode<R, V>, variables: V,
      sink: { onResult: (result: ExecutionResult<R>) => void; onError?: (error: unknown) => void; onComplete?: () => void },
    ): () => void {
      return socketClient().subscribe<R>({ query: print(document), variables }, {
        next: (result) => sink.onResult(result as ExecutionResult<R>),
        error: (error) => sink.onError?.(error),
        complete: () => sink.onComplete?.(),
      })
    },

    /** Closes the socket, if one was opened. */
    async dispose(): Promise<void> {
      await socket?.dispose()
      socket = undefined
    },
  }
}
export type WorkspaceClient = ReturnType<typeof createWorkspaceClient>
