// Owns subscriptions through the gateway (which plans but will not execute them): each subscription is planned
// with the supergraph's query planner; its primary fetch runs over graphql-ws on the owning subgraph, and the
// rest (entity fields of other subgraphs) runs per event with the gateway's executor.
import { buildOperationContext, executeQueryPlan, type ApolloGateway, type GraphQLDataSource, type ServiceMap } from '@apollo/gateway'
import { QueryPlanner, type QueryPlan } from '@apollo/query-planner'
import { operationFromDocument, Supergraph, type Schema } from '@apollo/federation-internals'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'
import { GraphQLError, getOperationAST, print, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { getVariableValues } from 'graphql/execution/values'
import { boundedQueue, SlowConsumerError } from '../core/pubsub'
import { log } from '../core/log'

const EVENT_SOURCE = '__subscription_event__'
/** Events waiting for one downstream subscriber before it is closed as too slow. */
export const BRIDGE_QUEUE_LIMIT = 256

/** Plain Errors from the executor would end a graphql-ws stream: every error becomes a GraphQLError. */
const toGraphQLError = (e: unknown): GraphQLError => e instanceof GraphQLError ? e
  : new GraphQLError((e as Error)?.message ?? String(e), { originalError: e as Error, extensions: { code: 'SUBGRAPH_FETCH_FAILED' } })

interface State {
  planner: QueryPlanner
  apiSchema: Schema
  apiSchemaJs: GraphQLSchema
  supergraphSchemaJs: GraphQLSchema
  plans: Map<string, QueryPlan>
}

export interface BridgeOptions<C extends object> {
  gateway: ApolloGateway
  /** The same data source instances the gateway built, so entity fetches carry the same identity. */
  dataSources: Map<string, GraphQLDataSource>
  /** Subgraph name -> its graphql-ws URL. */
  wsUrl: (subgraph: string) => string
  /** connection_init payload for the upstream socket (the caller's identity as an internal token). */
  upstreamConnectionParams: (context: C) => Promise<Record<string, unknown>>
  /** Identifies the downstream connection; upstream sockets are shared per (connection, subgraph). */
  connectionKey: (context: C) => object
}

export class SubscriptionBridge<C extends object> {
  private state?: State
  private readonly upstream = new WeakMap<object, Map<string, Client>>()
  private active = 0

  constructor(private readonly opts: BridgeOptions<C>) {
    opts.gateway.onSchemaLoadOrUpdate(({ apiSchema, coreSupergraphSdl }) => {
      const supergraph = Supergraph.build(coreSupergraphSdl)
      this.state = {
        planner: new QueryPlanner(supergraph), apiSchema: supergraph.apiSchema(), apiSchemaJs: apiSchema,
        supergraphSchemaJs: supergraph.schema.toGraphQLJSSchema(), plans: new Map(),
      }
    })
  }

  get schema(): GraphQLSchema {
    if (!this.state) throw new Error('gateway not loaded')
    return this.state.apiSchemaJs
  }

  /** Running subscriptions through this bridge (for tests and the readiness endpoint). */
  get activeCount() { return this.active }

  private plan(st: State, document: DocumentNode, operationName?: string | null): QueryPlan {
    const key = `${operationName ?? ''}\n${print(document)}`
    let plan = st.plans.get(key)
    if (!plan) {
      const op = operationFromDocument(st.apiSchema, document, { operationName: operationName ?? undefined })
      plan = st.planner.buildQueryPlan(op)
      if (st.plans.size > 1000) st.plans.clear()
      st.plans.set(key, plan)
    }
    return plan
  }

  private clientFor(context: C, subgraph: string): Client {
    const connKey = this.opts.connectionKey(context)
    let pool = this.upstream.get(connKey)
    if (!pool) this.upstream.set(connKey, (pool = new Map()))
    let client = pool.get(subgraph)
    if (!client) {
      client = createClient({
        url: this.opts.wsUrl(subgraph),
        webSocketImpl: WebSocket,
        connectionParams: () => this.opts.upstreamConnectionParams(context), // fresh internal token on every (re)connect
        lazy: true, // opens with the first subscription, closes after the last
        retryAttempts: Infinity,
        shouldRetry: () => true,
        retryWait: (n) => new Promise((r) => setTimeout(r, Math.min(250 * 2 ** n, 5_000) + Math.random() * 250)),
        keepAlive: 10_000,
      })
      client.on('connected', (_s, _p, wasRetry) => {
        if (wasRetry) log.warn('bridge.upstream_reconnected', { subgraph, note: 'events during the outage are lost; clients refetch' })
      })
      pool.set(subgraph, client)
    }
    return client
  }

  /** Closes the upstream sockets of a downstream connection (graphql-ws onClose). */
  async release(context: C) {
    const connKey = this.opts.connectionKey(context)
    const pool = this.upstream.get(connKey)
    this.upstream.delete(connKey)
    await Promise.all([...(pool?.values() ?? [])].map((c) => c.dispose()))
  }

  /** graphql-ws `subscribe` implementation. */
  async subscribe(args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
    const st = this.state
    if (!st) return { errors: [new GraphQLError('Gateway not ready', { extensions: { code: 'SERVICE_UNAVAILABLE' } })] }
    const context = args.contextValue as C
    const opAst = getOperationAST(args.document, args.operationName)
    if (!opAst) return { errors: [new GraphQLError('Unable to identify the operation')] }
    const coerced = getVariableValues(st.apiSchemaJs, opAst.variableDefinitions ?? [], args.variableValues ?? {})
    if (coerced.errors) return { errors: coerced.errors }
    const variables = coerced.coerced as Record<string, unknown>

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
    const client = this.clientFor(context, primary.serviceName)
    unsubscribe = client.subscribe({
      query: primary.operation,
      operationName: primary.operationName,
      variables: Object.fromEntries((primary.variableUsages ?? []).filter((v) => v in variables).map((v) => [v, variables[v]])),
    }, {
      next: (value) => queue.push(value as ExecutionResult),
      error: (err) => { upstreamError = err; queue.iterator.return() },
      complete: () => { upstreamDone = true; queue.iterator.return() },
    })

    const perEventPlan: QueryPlan = {
      kind: 'QueryPlan',
      node: { kind: 'Sequence', nodes: [{ ...primary, serviceName: EVENT_SOURCE }, ...(rest ? [rest] : [])] },
    }
    const serviceMap: ServiceMap = Object.fromEntries(this.opts.dataSources)
    const operationContext = buildOperationContext({ schema: st.apiSchemaJs, operationDocument: args.document, operationName: args.operationName ?? undefined })
    const query = print(args.document)
    const bridge = this
    bridge.active++

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
          const event = next.value
          if (!event.data) { // an upstream error event (e.g. permission lost): pass it on, wrapped
            yield { errors: (event.errors ?? []).map((e: any) => new GraphQLError(e.message, { extensions: e.extensions })) }
            continue
          }
          const eventSource: GraphQLDataSource = { process: async () => ({ data: event.data, errors: event.errors as never }) }
          const requestContext = { // the minimal GatewayGraphQLRequestContext executeQueryPlan reads
            request: { query, variables, operationName: args.operationName ?? undefined },
            context, document: args.document, operation: opAst, operationName: args.operationName ?? null,
            schema: st!.apiSchemaJs, source: query, queryHash: '', metrics: {}, logger: console, overallCachePolicy: undefined,
          }
          try {
            const result = await executeQueryPlan(perEventPlan, { ...serviceMap, [EVENT_SOURCE]: eventSource },
              requestContext as never, operationContext, st!.supergraphSchemaJs, st!.apiSchema)
            yield { ...result, errors: result.errors?.map(toGraphQLError) } as ExecutionResult
          } catch (e) {
            yield { errors: [toGraphQLError(e)] } // one failed event never kills the stream
          }
        }
        if (upstreamError && !upstreamDone) {
          const errs = Array.isArray(upstreamError) ? upstreamError : [upstreamError]
          yield { errors: errs.map((e: any) => new GraphQLError(e?.message ?? 'Upstream subscription failed', { extensions: e?.extensions ?? { code: 'SUBGRAPH_SUBSCRIPTION_FAILED' } })) }
        }
      } finally {
        bridge.active--
        unsubscribe()
      }
    }
    const gen = run()
    // return() on a generator waits for its pending await: stop the upstream first, so a client's complete or
    // disconnect unsubscribes from the subgraph at once.
    const genReturn = gen.return.bind(gen)
    gen.return = async (v?: unknown) => { unsubscribe(); await queue.iterator.return(); return genReturn(v as never) }
    return gen
  }
}
