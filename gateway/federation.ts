// Owns running queries and mutations over the supergraph: the API schema, one query plan per document and operation
// (planned on first use, then kept with the document), and Apollo's executeQueryPlan (./apollo-executor.ts) over the
// subgraphs' data sources.
// This is what ApolloGateway's executor does, without its per-request tracing spans, hashing and asynchronous plan
// cache. A plan that is one fetch selecting exactly what the caller selected is answered with the subgraph's own bytes
// when the subgraph says its answer holds data only (DATA_ONLY_HEADER): Apollo's re-shaping would give back the same
// JSON, and re-shaping plus parsing and printing it again were about a sixth of the gateway's CPU (issue 20 profile).
import { operationFromDocument, Supergraph, type Schema } from '@apollo/federation-internals'
import { QueryPlanner, type FetchNode, type QueryPlan } from '@apollo/query-planner'
import {
  getOperationAST, getVariableValues, GraphQLError, parse, print,
  type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql'
import { DATA_ONLY_HEADER } from '../core/http'
import { operationContextOf, runQueryPlan, type GraphQLDataSource, type OperationContext, type ServiceMap } from './apollo-executor'
import { installScalarParsers } from './edge-scalars'
import { postJson, subgraphHeaders, type SubgraphDataSource, type SubgraphCallContext } from './subgraph-http'

export interface PlannedOperation {
  operation: OperationDefinitionNode
  operationContext: OperationContext
  plan: QueryPlan
  /** the plan's only fetch, when its selection is the caller's own (a query): the subgraph's answer can be passed on */
  singleFetch?: FetchNode
}

export interface OperationRequest {
  /** the document's text, as the caller sent it */
  query: string
  variables?: Record<string, unknown>
  operationName?: string
}

/** An answer: a result to format, or the bytes of a subgraph's data-only answer, to send as they are. */
export type FederatedAnswer = { result: ExecutionResult; raw?: undefined } | { raw: Buffer; result?: undefined }

const PLANS_PER_DOCUMENT = 16

/**
 * The operation's variables coerced to their declared types, or the errors Apollo answers over HTTP for variables that
 * do not coerce (BAD_USER_INPUT): for queries and mutations here, for subscriptions in the bridge.
 */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown>):
  { coerced: Record<string, unknown>; errors?: undefined } | { errors: GraphQLError[]; coerced?: undefined } {
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], variables)
  if (!result.errors) return { coerced: result.coerced }
  // the nodes carry the source and positions: the locations are the same as the original error's
  return { errors: result.errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, originalError: e.originalError, extensions: { ...e.extensions, code: 'BAD_USER_INPUT' } })) }
}

/** The plan's one fetch when the gateway's answer would be that fetch's data unchanged; else undefined. */
function passThroughFetch(plan: QueryPlan, operation: OperationDefinitionNode): FetchNode | undefined {
  const node = plan.node
  if (operation.operation !== 'query' || node?.kind !== 'Fetch' || operation.directives?.length) return undefined
  if (node.requires?.length || node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length || node.hasDefers) return undefined
  const fetched = getOperationAST(parse(node.operation), node.operationName)
  // the same selection printed the same way: same fields, aliases, arguments and order, no fragments, no __typename
  // the planner added; the subgraph then answers exactly the JSON Apollo's result shaping would build
  return fetched && print(fetched.selectionSet) === print(operation.selectionSet) ? node : undefined
}

export class Federation {
  readonly apiSchema: Schema
  /** the API schema as graphql-js: what callers validate against and introspect */
  readonly schema: GraphQLSchema
  /** the supergraph as graphql-js: what executeQueryPlan reads */
  readonly supergraphSchema: GraphQLSchema
  readonly planner: QueryPlanner
  /** The services executeQueryPlan calls, by subgraph name. */
  private readonly services: ServiceMap
  private readonly plans = new WeakMap<DocumentNode, Map<string, PlannedOperation>>()
  /** Answers sent as a subgraph's own bytes since start (tests read it). */
  passedThrough = 0

  constructor(supergraphSdl: string, private readonly dataSources: Map<string, SubgraphDataSource>, private readonly singleFetchPassThrough = true) {
    const supergraph = Supergraph.build(supergraphSdl)
    this.apiSchema = supergraph.apiSchema()
    this.schema = this.apiSchema.toGraphQLJSSchema()
    installScalarParsers(this.schema) // variables of a custom scalar are checked where they are coerced
    this.supergraphSchema = supergraph.schema.toGraphQLJSSchema()
    this.planner = new QueryPlanner(supergraph)
    this.services = Object.fromEntries(dataSources)
  }


  /** The document's operation and its plan, planned once per (document, operation name); undefined for no such operation. */
  plan(document: DocumentNode, operationName: string | undefined): PlannedOperation | undefined {
    let byName = this.plans.get(document)
    const key = operationName ?? ''
    const hit = byName?.get(key)
    if (hit) return hit
    const operation = getOperationAST(document, operationName)
    if (!operation) return undefined
    const plan = this.planner.buildQueryPlan(operationFromDocument(this.apiSchema, document, { operationName }))
    const planned: PlannedOperation = {
      operation, plan,
      operationContext: operationContextOf(this.schema, document, operationName),
      singleFetch: this.singleFetchPassThrough ? passThroughFetch(plan, operation) : undefined,
    }
    if (!byName) this.plans.set(document, (byName = new Map()))
    if (byName.size < PLANS_PER_DOCUMENT) byName.set(key, planned)
    return planned
  }

  /** Runs a planned operation for the caller in `context`. Variables that do not coerce answer BAD_USER_INPUT, nothing runs. */
  async execute(planned: PlannedOperation, document: DocumentNode, request: OperationRequest, context: SubgraphCallContext): Promise<FederatedAnswer> {
    const variables = request.variables ?? {}
    const coerced = coerceVariables(this.schema, planned.operation, variables)
    if (coerced.errors) return { result: { errors: coerced.errors } }
    let services = this.services
    const fetch = planned.singleFetch
    if (fetch) {
      const source = this.dataSources.get(fetch.serviceName)!
      const sent = Object.fromEntries((fetch.variableUsages ?? []).filter((v) => v in variables).map((v) => [v, variables[v]]))
      const res = await postJson(source.url!, await subgraphHeaders(context), JSON.stringify({ query: fetch.operation, variables: sent, operationName: fetch.operationName }), fetch.serviceName)
      if (res.status === 200 && res.headers[DATA_ONLY_HEADER] === '1') {
        this.passedThrough++
        return { raw: res.bytes }
      }
      // errors, extensions or a failure: the answer already fetched goes through Apollo's shaping (nothing is sent twice)
      const answered: GraphQLDataSource = { process: () => source.responseOf(res) }
      services = { ...services, [fetch.serviceName]: answered }
    }
    const run = { query: request.query, variables, operationName: request.operationName, context }
    const result = await runQueryPlan(planned.plan, services, run, planned.operationContext, this.supergraphSchema, this.apiSchema)
    return { result }
  }
}
