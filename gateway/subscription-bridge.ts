// Owns subscriptions through the gateway (which plans but will not execute them): each subscription is planned
// with the supergraph's query planner; its primary fetch runs over graphql-ws on the owning subgraph, and the
// rest (entity fields of other subgraphs) runs per event with the gateway's executor.
//
// Upstream sockets are shared: every person's subscriptions to a subgraph travel over a few sockets of this gateway
// (graphql-ws multiplexes them), not one socket per downstream connection. A shared socket's connection_init proves
// only that the caller is the gateway; each subscribe carries its person's own internal token in its extensions, and
// the subgraph builds that subscription's context from it (subgraphs/shared/server.ts).
import { QueryPlanner, type QueryPlan } from '@apollo/query-planner'
import { operationFromDocument, type Schema } from '@apollo/federation-internals'
import { coerceVariables, type Federation } from './federation'
import { operationContextOf, runQueryPlan, type DataSourceAnswer, type DataSourceRequest, type GraphQLDataSource, type ServiceMap } from './apollo-executor'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { GraphQLError, getOperationAST, print, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { boundedQueue, SlowConsumerError } from '../core/database'
import { INTERRUPTED_MESSAGE, SUBSCRIPTION_INTERRUPTED } from '../core/http'
import { log } from '../core/config'
import { boundedCache, type BoundedCache } from '../core/config'
import { inSpan, linkedRoot, SpanKind } from '../core/config'

const EVENT_SOURCE = '__subscription_event__'
/**
 * Events waiting for one downstream subscriber before it is closed as too slow. Bursts (a job expiring a thousand
 * inbox items) arrive faster than their entity fields can be fetched, so the bound is generous; a reader that
 * stops reading still reaches it, because the loop below only pulls when the socket took the previous event.
 */
export const BRIDGE_QUEUE_LIMIT = 4096
/** Queued events executed together: their identical entity fetches are sent once. */
const EVENT_BATCH = 64
/**
 * Shared upstream sockets per subgraph, at most. More than one so that a socket that closes interrupts only its share
 * of the streams, and so that subscriptions spread over the replicas behind a subgraph's load balancer.
 */
export const UPSTREAM_SOCKETS_PER_SUBGRAPH = 4
/**
 * Another shared socket opens only once the least-loaded busy one carries this many subscriptions (then each new
 * subscription goes to the least-loaded): a few people share one socket, while a few hundred already spread over
 * every socket (and so over the subgraph's replicas), and 10,000 over all four.
 */
export const UPSTREAM_SOCKET_FILL = 100

/** Plain Errors from the executor would end a graphql-ws stream: every error becomes a GraphQLError. */
const toGraphQLError = (e: unknown): GraphQLError => e instanceof GraphQLError ? e
  : new GraphQLError((e as Error)?.message ?? String(e), { originalError: e as Error, extensions: { code: 'SUBGRAPH_FETCH_FAILED' } })

interface State {
  planner: QueryPlanner
  apiSchema: Schema
  apiSchemaJs: GraphQLSchema
  supergraphSchemaJs: GraphQLSchema
  plans: BoundedCache<string, QueryPlan>
}

export interface BridgeOptions<C extends object> {
  /** The supergraph's schemas and query planner (shared with queries and mutations). */
  federation: Pick<Federation, 'planner' | 'apiSchema' | 'schema' | 'supergraphSchema'>
  /** The same data source instances the gateway built, so entity fetches carry the same identity. */
  dataSources: Map<string, GraphQLDataSource>
  /** Subgraph name -> its graphql-ws URL. */
  wsUrl: (subgraph: string) => string
  /** connection_init payload of a shared upstream socket: proves only that the caller is the gateway (no person). */
  upstreamConnectionParams: () => Promise<Record<string, unknown>>
  /** `extensions` of one upstream subscribe: the person's own identity (a fresh internal token), checked per subscription. */
  subscriptionExtensions: (context: C) => Promise<Record<string, unknown>>
  /** Identifies the downstream connection: caps count per connection, and its close ends only its subscriptions. */
  connectionKey: (context: C) => object
  /** Identifies the person: caps count per person, and identical entity fetches are shared only within one. */
  userKey: (context: C) => string
  limits: { perSocket: number; perUser: number }
}

const tooMany = (message: string) => ({ errors: [new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } })] })

/** One shared upstream socket: graphql-ws opens it with its first subscription and closes it after its last. */
interface Upstream {
  client: Client
  /** subscriptions placed on it and not yet released */
  subscriptions: number
  /** whether its WebSocket is open now */
  open: boolean
}

export class SubscriptionBridge<C extends object> {
  private state?: State
  /** Shared upstream sockets by subgraph, at most UPSTREAM_SOCKETS_PER_SUBGRAPH each. */
  private readonly upstream = new Map<string, Upstream[]>()
  /** What ends each running subscription of a downstream connection (its close ends those, and only those). */
  private readonly byConnection = new WeakMap<object, Set<() => void>>()
  private active = 0
  private readonly perConnection = new Map<object, number>()
  private readonly perUser = new Map<string, number>()
  /** Entity fetches in flight, by person + subgraph + document + variables: concurrent identical ones share one. */
  private readonly inflight = new Map<string, Promise<unknown>>()

  constructor(private readonly opts: BridgeOptions<C>) {
    const f = opts.federation
    this.state = { planner: f.planner, apiSchema: f.apiSchema, apiSchemaJs: f.schema, supergraphSchemaJs: f.supergraphSchema, plans: boundedCache({ max: 1000 }) }
  }

  get schema(): GraphQLSchema {
    if (!this.state) throw new Error('gateway not loaded')
    return this.state.apiSchemaJs
  }

  /** Running subscriptions through this bridge (for tests and the readiness endpoint). */
  get activeCount() { return this.active }

  /** Upstream sockets open now, by subgraph (shared by every subscriber of this gateway). */
  get upstreamSockets(): Record<string, number> {
    return Object.fromEntries([...this.upstream].map(([name, pool]) => [name, pool.filter((u) => u.open).length]))
  }

  /** Upstream sockets open now, over every subgraph. */
  get upstreamSocketCount(): number {
    return Object.values(this.upstreamSockets).reduce((a, b) => a + b, 0)
  }

  private plan(st: State, document: DocumentNode, operationName?: string | null): QueryPlan {
    const key = `${operationName ?? ''}\n${print(document)}`
    let plan = st.plans.get(key)
    if (!plan) {
      const op = operationFromDocument(st.apiSchema, document, { operationName: operationName ?? undefined })
      plan = st.planner.buildQueryPlan(op)
      st.plans.set(key, plan)
    }
    return plan
  }

  /**
   * The shared socket a new subscription to `subgraph` goes on: the least-loaded busy one while it holds fewer than
   * UPSTREAM_SOCKET_FILL, else an idle or new one (up to UPSTREAM_SOCKETS_PER_SUBGRAPH), else the least-loaded.
   */
  private upstreamFor(subgraph: string): Upstream {
    let pool = this.upstream.get(subgraph)
    if (!pool) this.upstream.set(subgraph, (pool = []))
    const leastLoaded = (list: Upstream[]) => list.reduce<Upstream | undefined>((a, u) => !a || u.subscriptions < a.subscriptions ? u : a, undefined)
    const busy = leastLoaded(pool.filter((u) => u.subscriptions > 0))
    if (busy && busy.subscriptions < UPSTREAM_SOCKET_FILL) return busy
    const idle = pool.find((u) => u.subscriptions === 0)
    if (idle) return idle
    if (pool.length >= UPSTREAM_SOCKETS_PER_SUBGRAPH) return leastLoaded(pool)!
    const upstream: Upstream = {
      client: createClient({
        url: this.opts.wsUrl(subgraph),
        webSocketImpl: WebSocket,
        connectionParams: () => this.opts.upstreamConnectionParams(), // a fresh gateway token on every (re)connect
        lazy: true, // opens with the first subscription, closes after the last
        // No silent retry: events sent while the socket was down would be lost unnoticed. The streams on a socket that
        // closes end with SUBSCRIPTION_INTERRUPTED; the client refetches and subscribes again (through any replica).
        retryAttempts: 0,
        keepAlive: 10_000,
      }),
      subscriptions: 0,
      open: false,
    }
    upstream.client.on('opened', () => { upstream.open = true })
    upstream.client.on('closed', (event) => {
      upstream.open = false
      const code = (event as { code?: number })?.code
      if (code !== 1000) log.warn('bridge.upstream_closed', { subgraph, code, streams: upstream.subscriptions, note: 'its open streams end with SUBSCRIPTION_INTERRUPTED' })
    })
    pool.push(upstream)
    return upstream
  }

  /**
   * The gateway's data sources, where a fetch identical to one already in flight for the same person (same
   * document, same variables: the same answer under the same live permissions) waits for that one instead.
   */
  private sharedServices(userKey: string): ServiceMap {
    return Object.fromEntries([...this.opts.dataSources].map(([name, ds]) => [name, {
      process: (options: DataSourceRequest) => {
        const key = `${userKey}\n${name}\n${options.request.query}\n${JSON.stringify(options.request.variables ?? {})}`
        let pending = this.inflight.get(key)
        if (!pending) {
          pending = ds.process(options).finally(() => this.inflight.delete(key))
          this.inflight.set(key, pending)
        }
        // each plan merges the response into its own result tree: never share the objects themselves
        return pending.then((r) => structuredClone(r)) as ReturnType<GraphQLDataSource['process']>
      },
    } satisfies GraphQLDataSource]))
  }

  /**
   * Ends the subscriptions of a downstream connection that closed (graphql-ws onClose): each is unsubscribed upstream;
   * the shared sockets stay open for everyone else's (a socket left with none closes by itself).
   */
  async release(context: C) {
    const connKey = this.opts.connectionKey(context)
    const stops = this.byConnection.get(connKey)
    this.byConnection.delete(connKey)
    for (const stop of stops ?? []) stop()
  }

  /** Closes every shared upstream socket (the gateway's shutdown, after its own sockets closed). */
  async close() {
    const pools = [...this.upstream.values()]
    this.upstream.clear()
    await Promise.all(pools.flat().map((u) => u.client.dispose()))
  }

  /**
   * graphql-ws `subscribe` implementation. With tracing on, subscribing is a span (`subscribe <operation>`), and each
   * event's fetches run in a trace of their own linked to it (`subscription event <operation>`).
   */
  subscribe(args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
    const operation = args.operationName ?? getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous'
    return inSpan(`subscribe ${operation}`, SpanKind.SERVER, { 'graphql.operation.type': 'subscription', 'graphql.operation.name': operation },
      () => this.subscribeTraced(args, operation))
  }

  private async subscribeTraced(args: ExecutionArgs, operation: string): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
    const st = this.state
    if (!st) return { errors: [new GraphQLError('Gateway not ready', { extensions: { code: 'SERVICE_UNAVAILABLE' } })] }
    const context = args.contextValue as C
    const connKey = this.opts.connectionKey(context)
    const userKey = this.opts.userKey(context)
    // The person's own identity travels with the subscription (the shared socket proves only the gateway); read before
    // the caps are counted, so no await lies between counting and taking a place.
    let extensions: Record<string, unknown>
    try { extensions = await this.opts.subscriptionExtensions(context) } catch (e) { return { errors: [toGraphQLError(e)] } }
    const { perSocket, perUser } = this.opts.limits
    if ((this.perConnection.get(connKey) ?? 0) >= perSocket) return tooMany(`A socket may hold ${perSocket} subscriptions at a time: complete one first.`)
    if ((this.perUser.get(userKey) ?? 0) >= perUser) return tooMany(`A person may hold ${perUser} subscriptions at a time: complete one first.`)
    const opAst = getOperationAST(args.document, args.operationName)
    if (!opAst) return { errors: [new GraphQLError('Unable to identify the operation')] }
    const coerced = coerceVariables(st.apiSchemaJs, opAst, args.variableValues ?? {})
    if (coerced.errors) return { errors: coerced.errors }
    const variables = coerced.coerced

    let plan: QueryPlan
    try { plan = this.plan(st, args.document, args.operationName) } catch (e) {
      return { errors: [new GraphQLError(`Query planning failed: ${(e as Error).message}`)] }
    }
    const node = plan.node
    if (node?.kind !== 'Subscription') return { errors: [new GraphQLError('Expected a subscription plan')] }
    const { primary, rest } = node

    // Upstream events land in a bounded queue; a downstream client that stops reading is closed, not buffered.
    let unsubscribe = () => {}
    const queue = boundedQueue<ExecutionResult>(BRIDGE_QUEUE_LIMIT, () => unsubscribe())
    let upstreamError: unknown = null
    let upstreamDone = false
    const upstream = this.upstreamFor(primary.serviceName)
    upstream.subscriptions++
    unsubscribe = upstream.client.subscribe({
      query: primary.operation,
      operationName: primary.operationName,
      variables: Object.fromEntries((primary.variableUsages ?? []).filter((v) => v in variables).map((v) => [v, variables[v]])),
      extensions,
    }, {
      next: (value) => queue.push(value as ExecutionResult),
      // Ending the queue settles its consumer's pending read; the callback has nothing to wait for (void).
      error: (err) => { upstreamError = err; void queue.iterator.return() },
      complete: () => { upstreamDone = true; void queue.iterator.return() },
    })

    const perEventPlan: QueryPlan = {
      kind: 'QueryPlan',
      node: { kind: 'Sequence', nodes: [{ ...primary, serviceName: EVENT_SOURCE }, ...(rest ? [rest] : [])] },
    }
    const serviceMap = this.sharedServices(userKey)
    const operationContext = operationContextOf(st.apiSchemaJs, args.document, args.operationName ?? undefined)
    const query = print(args.document)
    const bridge = this
    bridge.active++
    bridge.perConnection.set(connKey, (bridge.perConnection.get(connKey) ?? 0) + 1)
    bridge.perUser.set(userKey, (bridge.perUser.get(userKey) ?? 0) + 1)
    const ownStops = bridge.byConnection.get(connKey) ?? new Set<() => void>()
    bridge.byConnection.set(connKey, ownStops)
    // the downstream connection's close (release(context)) ends this stream: unsubscribed upstream, its reader woken
    const stop = () => { release(); void queue.iterator.return() }
    ownStops.add(stop)
    let released = false
    const release = () => { // once, whether the generator ran or was returned before it started
      if (released) return
      released = true
      upstream.subscriptions--
      ownStops.delete(stop)
      bridge.active--
      const c = bridge.perConnection.get(connKey)! - 1
      if (c > 0) bridge.perConnection.set(connKey, c); else bridge.perConnection.delete(connKey)
      const u = bridge.perUser.get(userKey)! - 1
      if (u > 0) bridge.perUser.set(userKey, u); else bridge.perUser.delete(userKey)
      unsubscribe()
    }

    const eventTrace = linkedRoot()
    const executeEvent = (event: ExecutionResult) => eventTrace.run(`subscription event ${operation}`, SpanKind.CONSUMER, { 'graphql.operation.name': operation }, () => executeEventUntraced(event))
    const executeEventUntraced = async (event: ExecutionResult): Promise<ExecutionResult> => {
      if (!event.data) { // an upstream error event (e.g. permission lost): pass it on, wrapped
        return { errors: (event.errors ?? []).map((e: any) => new GraphQLError(e.message, { extensions: e.extensions })) }
      }
      const eventSource: GraphQLDataSource = { process: async () => ({ data: event.data, errors: event.errors as DataSourceAnswer['errors'] }) }
      const run = { query, variables, operationName: args.operationName ?? undefined, context }
      try {
        const result = await runQueryPlan(perEventPlan, { ...serviceMap, [EVENT_SOURCE]: eventSource },
          run, operationContext, st.supergraphSchemaJs, st.apiSchema)
        return { ...result, errors: result.errors?.map(toGraphQLError) } as ExecutionResult
      } catch (e) {
        return { errors: [toGraphQLError(e)] } // one failed event never kills the stream
      }
    }

    async function* run(): AsyncGenerator<ExecutionResult> {
      try {
        for (;;) {
          let next: IteratorResult<ExecutionResult>
          try { next = await queue.iterator.next() } catch (e) {
            if (e instanceof SlowConsumerError) {
              yield { errors: [new GraphQLError(e.message, { extensions: { code: 'SLOW_CONSUMER' } })] }
              return
            }
            throw e
          }
          if (next.done) break
          // Events already waiting run together (their identical entity fetches go out once), then go out in order.
          const batch = [next.value, ...queue.takeAvailable(EVENT_BATCH - 1)]
          for (const result of await Promise.all(batch.map(executeEvent))) yield result
        }
        if (upstreamError && !upstreamDone) {
          // A socket that closed (CloseEvent) or failed to open (Error): the replica went away, events may be lost.
          if (!Array.isArray(upstreamError)) {
            yield { errors: [new GraphQLError(INTERRUPTED_MESSAGE, { extensions: { code: SUBSCRIPTION_INTERRUPTED } })] }
            return
          }
          const errs = upstreamError
          yield { errors: errs.map((e: any) => new GraphQLError(e?.message ?? 'Upstream subscription failed', { extensions: e?.extensions ?? { code: 'SUBGRAPH_SUBSCRIPTION_FAILED' } })) }
        }
      } finally {
        release()
      }
    }
    const gen = run()
    // return() on a generator waits for its pending await: stop the upstream first, so a client's complete or
    // disconnect unsubscribes from the subgraph at once.
    const genReturn = gen.return.bind(gen)
    gen.return = async (v?: unknown) => { release(); await queue.iterator.return(); return genReturn(v as never) }
    return gen
  }
}
