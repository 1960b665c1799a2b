// Owns every touch point between the gateway and Apollo's query-plan executor (@apollo/gateway, pinned exactly): no
// other file imports @apollo/gateway, and only its public exports are used here. Types come from its public functions
// and interfaces, never from its dist/ folders. Each touch point has a test in tests/gateway/apollo-executor.test.ts
// that fails when an upgrade changes what the gateway relies on:
//   1. buildOperationContext: the operation and its fragments, built once per planned operation (operationContextOf).
//   2. executeQueryPlan: its third argument is typed as Apollo Server's whole request context, but the executor reads
//      four fields of it (PLAN_REQUEST_FIELDS) and hands the object on to data sources, whose process() ours never read
//      it from. The gateway builds those four; the one widening to the full type is in runQueryPlan.
//   3. GraphQLDataSource: the interface the gateway's own data sources implement (gateway/subgraph-http.ts): what
//      process() receives (the fetch's query, variables and operation name, the caller's context) and what the
//      executor reads of its answer (data, errors, extensions).
import { buildOperationContext, executeQueryPlan, type GraphQLDataSource, type ServiceMap } from '@apollo/gateway'
import type { QueryPlan } from '@apollo/query-planner'
import type { Schema } from '@apollo/federation-internals'
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql'

export type { GraphQLDataSource, ServiceMap }
export type OperationContext = ReturnType<typeof buildOperationContext>
/** What a data source's process() receives. */
export type DataSourceRequest = Parameters<GraphQLDataSource['process']>[0]
/** What a data source's process() answers. */
export type DataSourceAnswer = Awaited<ReturnType<GraphQLDataSource['process']>>

type PlanRequestContext = Parameters<typeof executeQueryPlan>[2]
/** The fields of the request context executeQueryPlan reads; tests/gateway/apollo-executor.test.ts checks it reads no other. */
export const PLAN_REQUEST_FIELDS = ['request', 'context', 'logger', 'metrics'] as const
export type PlanRequest = Pick<PlanRequestContext, (typeof PLAN_REQUEST_FIELDS)[number]>

/** The operation (and its fragments) the executor shapes the answer by. */
export function operationContextOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): OperationContext {
  return buildOperationContext({ schema, operationDocument: document, operationName })
}

/** One run of a plan: the caller's variables (as the executor should see them) and context (what data sources get). */
export interface PlanRun {
  query: string
  variables: Record<string, unknown>
  operationName?: string
  context: Record<string, any>
}

/** The request context the executor reads, built from a run. */
export function planRequestOf(run: PlanRun): PlanRequest {
  return {
    request: { query: run.query, variables: run.variables, operationName: run.operationName },
    context: run.context, logger: console, metrics: {},
  }
}

/** Runs a query plan over `services` (queries and mutations, and a subscription's per-event plan). */
export function runQueryPlan(plan: QueryPlan, services: ServiceMap, run: PlanRun, operationContext: OperationContext,
  supergraphSchema: GraphQLSchema, apiSchema: Schema): Promise<ExecutionResult> {
  // the widening touch point 2 describes: the executor reads nothing of the full type beyond PlanRequest
  return executeQueryPlan(plan, services, planRequestOf(run) as PlanRequestContext, operationContext, supergraphSchema, apiSchema)
}
