// Owns the gateway's GraphQL request pipeline: POST and GET on /graphql, and the same pipeline for queries and
// mutations sent over graphql-ws and through the REST shims. Apollo Server's request rules and answer shapes (CSRF
// prevention, request checks, codes and statuses, content negotiation with negotiator as Apollo's), the edge's limits
// (./edge-limits.ts), one cached parse + validate per document and one plan per operation (./federation.ts). Apollo Server with Express cost
// about a sixth of the gateway's CPU under the console's load (issue 20 profile) for a pipeline this file holds whole.
import type http from 'node:http'
import Negotiator from 'negotiator'
import { getOperationAST, GraphQLError, NoSchemaIntrospectionCustomRule, specifiedRules, type DocumentNode, type ExecutionResult, type FormattedExecutionResult, type GraphQLFormattedError, type ValidationRule } from 'graphql'
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE, serviceUnavailable } from '../core/database'
import { BadRequest, readBody } from '../core/http'
import { DocumentCache } from '../core/http'
import { asGraphQLError, formatErrors } from '../core/http'
import { checkDocumentSize, checkInputSize, formatEdgeError, parseLimited, type EdgeMode } from './edge-limits'
import type { Federation, OperationRequest } from './federation'
import type { SubgraphCallContext } from './subgraph-http'
import { boundedCache, inSpan, nameOperationSpan, SpanKind } from '../core/config'
import { DOCUMENT_NOT_FOUND, OPERATION_NOT_REGISTERED, type TrustedDocuments } from './trusted-documents'

export interface GraphQLRequest extends OperationRequest {
  extensions?: Record<string, unknown>
  /** a registered operation's id (`sha256:<hex>`) sent instead of its document (./trusted-documents.ts) */
  documentId?: string
}

/** An answer ready to send: status, headers and either a formatted result or a subgraph's data-only bytes. */
export interface EdgeAnswer {
  status: number
  headers: Record<string, string>
  result?: FormattedExecutionResult
  raw?: Buffer
}

const JSON_TYPE = 'application/json; charset=utf-8'
const NEWLINE = Buffer.from('\n')
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8'
const ANSWER_TYPES = [JSON_TYPE, GRAPHQL_RESPONSE_TYPE]
/** Content types a browser may POST across origins without a preflight (Apollo Server's CSRF prevention). */
const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight']

const badRequest = (message: string, status = 400, code = 'BAD_REQUEST') => new GraphQLError(message, { extensions: { code, http: { status } } })
const essence = (contentType: string) => contentType.split(';')[0].trim().toLowerCase()
const isRecord = (o: unknown): o is Record<string, unknown> => !!o && typeof o === 'object' && !Array.isArray(o)

/**
 * Refuses a request a browser could send from another site without asking (no preflight): Apollo's rule and message,
 * plus one exception: a request carrying an Authorization header is always preflighted by a browser (it is not a
 * CORS-safelisted header), and the gateway reads no cookies, so such a request cannot be forged by another site.
 */
function preventCsrf(headers: http.IncomingHttpHeaders) {
  if (typeof headers.authorization === 'string' && headers.authorization.length > 0) return
  const type = headers['content-type']
  if (type !== undefined && !SIMPLE_TYPES.includes(essence(type))) return
  if (PREFLIGHT_HEADERS.some((h) => typeof headers[h] === 'string' && headers[h]!.length > 0)) return
  throw badRequest('This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a '
    + `'content-type' header (with a type that is not one of ${SIMPLE_TYPES.join(', ')}) or provide a non-empty value for one `
    + `of the following headers: ${PREFLIGHT_HEADERS.join(', ')}\n`)
}

/** A client sends the same Accept header on every request: its negotiation is done once ('' for none accepted). */
const acceptedTypes = boundedCache<string, string>({ max: 100 })

/**
 * The answer's content type for the Accept header, chosen as Apollo Server chooses it (negotiator over the same two
 * types, in the same order: application/json unless the caller prefers the GraphQL response type), or null when the
 * caller accepts neither (406).
 */
export function answerContentType(accept: string | undefined): string | null {
  if (!accept) return JSON_TYPE
  let chosen = acceptedTypes.get(accept)
  if (chosen === undefined) {
    chosen = new Negotiator({ headers: { accept } }).mediaType(ANSWER_TYPES) ?? ''
    if (accept.length <= 200) acceptedTypes.set(accept, chosen)
  }
  return chosen || null
}

/** The request of a GET: Apollo's rules for search parameters. */
function requestOfSearch(url: string | undefined, contentType: string | undefined): GraphQLRequest {
  if (contentType !== undefined && essence(contentType) !== 'application/json') {
    throw badRequest('GET requests may not have a content-type header other than application/json.', 415)
  }
  const params = new URL(url ?? '/', 'http://gateway').searchParams
  const once = (name: string) => {
    const values = params.getAll(name)
    if (values.length > 1) throw badRequest(`The '${name}' search parameter may only be specified once.`)
    return values[0]
  }
  const json = (name: string) => {
    const v = once(name)
    if (v === undefined) return undefined
    let parsed: unknown
    try { parsed = JSON.parse(v) } catch { throw badRequest(`The ${name} search parameter contains invalid JSON.`) }
    if (!isRecord(parsed)) throw badRequest(`The ${name} search parameter should contain a JSON-encoded object.`)
    return parsed
  }
  return { query: once('query') as string, operationName: once('operationName'), variables: json('variables'), extensions: json('extensions'), documentId: once('documentId') }
}

/**
 * Why a batched request (a JSON array of operations, BAD_REQUEST) is refused and what to send instead. Each operation runs through the edge's limits on its own; over
 * keep-alive (or HTTP/2) separate requests cost little, and one document may ask for several root fields at once.
 */
export const BATCH_REFUSED = 'Batched requests (a JSON array of operations) are not accepted: send each operation as its own POST '
  + 'to /graphql (turn off your client\'s batching, e.g. use HttpLink rather than BatchHttpLink), or ask for several root fields in one operation.'

/** The request of a POST body: Apollo's checks and messages. */
function requestOfBody(body: unknown): GraphQLRequest {
  if (Array.isArray(body)) throw badRequest(BATCH_REFUSED)
  if (!isRecord(body) || Object.keys(body).length === 0) throw badRequest('POST body missing, invalid Content-Type, or JSON object has no keys.')
  if (body.query != null && typeof body.query !== 'string') throw badRequest('GraphQL queries must be strings.')
  if (typeof body.variables === 'string') throw badRequest('`variables` in a POST body should be provided as an object, not a recursively JSON-encoded string.')
  if (typeof body.extensions === 'string') throw badRequest('`extensions` in a POST body should be provided as an object, not a recursively JSON-encoded string.')
  if (body.extensions != null && !isRecord(body.extensions)) throw badRequest('`extensions` in a POST body must be an object if provided.')
  if (body.variables != null && !isRecord(body.variables)) throw badRequest('`variables` in a POST body must be an object if provided.')
  if (body.operationName != null && typeof body.operationName !== 'string') throw badRequest('`operationName` in a POST body must be a string if provided.')
  if (body.documentId != null && typeof body.documentId !== 'string') throw badRequest('`documentId` in a POST body must be a string if provided.')
  return {
    documentId: (body.documentId as string | null) ?? undefined,
    query: body.query as string, operationName: (body.operationName as string | null) ?? undefined,
    variables: (body.variables as Record<string, unknown> | null) ?? undefined, extensions: (body.extensions as Record<string, unknown> | null) ?? undefined,
  }
}

// a subgraph that could not build its context answers 503 itself: its data source turns that into this code
const unavailable = (e: GraphQLFormattedError) => e.extensions?.code === SERVICE_UNAVAILABLE

export interface EdgePipelineOptions {
  federation: Federation
  mode: EdgeMode
  /** the edge's limit rules (./edge-limits.ts edgeValidationRules) */
  limitRules: ValidationRule[]
  /** where graphql-ws listens: a subscription sent over HTTP is told to go there */
  websocketPath: string
  /** the registered operations, runnable by their id */
  trustedDocuments?: TrustedDocuments
  /** run only registered operations (TRUSTED_DOCUMENTS_ONLY), except for callers `mayRunUnregistered` lets through */
  trustedDocumentsOnly?: boolean
  /** whether a caller may run an unregistered operation where only registered ones run (administrators' GraphiQL) */
  mayRunUnregistered?: (context: SubgraphCallContext) => Promise<boolean>
}

/** Why an unregistered operation is refused where only registered ones run. */
export const NOT_REGISTERED_MESSAGE = 'This service runs only registered operations (trusted documents): send an operation the console '
  + 'registers, by its documentId or as its document; an organisation administrator may run others.'

/** The code of a subscription sent over HTTP, which serves queries and mutations only. */
export const SUBSCRIPTION_OVER_HTTP = 'SUBSCRIPTION_REQUIRES_WEBSOCKET'

export function createEdgePipeline(opts: EdgePipelineOptions) {
  const { federation, mode } = opts
  const rules = [...specifiedRules, ...(mode.production ? [NoSchemaIntrospectionCustomRule] : []), ...opts.limitRules]
  const documents = new DocumentCache(federation.schema, { parse: (source) => parseLimited(source, mode), rules })

  /** Errors → the answer Apollo Server gave: formatted once for the edge, status from the errors, 503 for an outage. */
  const answerWith = (errors: readonly unknown[], fallbackStatus: number, data?: unknown, extensions?: Record<string, unknown>): EdgeAnswer => {
    const f = formatErrors(errors, mode.stackTraces, (formatted, error) => formatEdgeError(formatted, error, mode))
    const headers: Record<string, string> = {}
    let status = f.status ?? fallbackStatus
    if (f.errors.some(unavailable)) {
      status = 503
      headers['retry-after'] = String(OUTAGE_RETRY_AFTER_SECONDS)
    }
    const result: FormattedExecutionResult = { errors: f.errors }
    if (data !== undefined) result.data = data as never
    if (extensions) result.extensions = extensions
    return { status, headers, result }
  }

  const trusted = opts.trustedDocuments

  /** Null when the document may run for the caller; else the refusal (an unregistered operation where only registered ones run). */
  async function registrationRefusal(document: DocumentNode, context: SubgraphCallContext): Promise<GraphQLError | null> {
    if (!opts.trustedDocumentsOnly || trusted?.registered(document)) return null
    if (await opts.mayRunUnregistered?.(context)) return null
    return badRequest(NOT_REGISTERED_MESSAGE, 400, OPERATION_NOT_REGISTERED)
  }

  /** The document a request names by id (documentId, or a registered persistedQuery hash sent without its query). */
  function namedDocument(request: GraphQLRequest): GraphQLRequest | GraphQLError | undefined {
    if (typeof request.documentId === 'string') {
      const query = trusted?.document(request.documentId)
      return query ? { ...request, query } : badRequest(`No registered operation has the documentId ${request.documentId.slice(0, 80)}: send the operation's document in \`query\` instead.`, 400, DOCUMENT_NOT_FOUND)
    }
    const hash = (request.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash
    if (!request.query && typeof hash === 'string') {
      const query = trusted?.document(hash)
      if (query) return { ...request, query }
    }
    return undefined
  }

  /** Runs one request for a caller whose context is known: everything after the HTTP layer. */
  async function run(request: GraphQLRequest, context: SubgraphCallContext, method: 'GET' | 'POST' = 'POST'): Promise<EdgeAnswer> {
    try {
      const named = namedDocument(request)
      if (named instanceof GraphQLError) return answerWith([named], 400)
      if (named) request = named
      else if (request.extensions?.persistedQuery) {
        // automatic persisted queries are not kept here: clients that try them send the whole document next
        return { ...answerWith([new GraphQLError('PersistedQueryNotSupported', { extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } })], 200), headers: { 'cache-control': 'private, no-cache, must-revalidate' } }
      }
      if (typeof request.query !== 'string' || !request.query) {
        return answerWith([badRequest('GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.')], 400)
      }
      const prepared = documents.prepare(request.query)
      if (prepared.errors) return answerWith(prepared.errors, 400)
      const refusal = await registrationRefusal(prepared.document, context)
      if (refusal) return answerWith([refusal], 400)
      if (getOperationAST(prepared.document, request.operationName)?.operation === 'subscription') {
        // the planner's executor cannot run one (a masked 500 before): say where subscriptions are served
        return answerWith([badRequest(`Subscriptions are not served over HTTP: open a WebSocket to ${opts.websocketPath} with the graphql-ws protocol (subprotocol graphql-transport-ws) and subscribe there.`, 400, SUBSCRIPTION_OVER_HTTP)], 400)
      }
      const planned = federation.plan(prepared.document, request.operationName)
      if (!planned) {
        const operations = prepared.document.definitions.filter((d) => d.kind === 'OperationDefinition').length
        const message = request.operationName ? `Unknown operation named "${request.operationName}".`
          : operations > 1 ? 'Must provide operation name if query contains multiple operations.' : 'Must provide an operation.'
        return answerWith([badRequest(message, 400, 'OPERATION_RESOLUTION_FAILURE')], 400)
      }
      nameOperationSpan(planned.operation.operation, planned.operation.name?.value)
      if (method === 'GET' && planned.operation.operation !== 'query') {
        return { ...answerWith([badRequest(`GET requests only support query operations, not ${planned.operation.operation} operations`, 405)], 405), headers: { allow: 'POST' } }
      }
      checkInputSize(prepared.document, request.variables, mode)
      const answer = await federation.execute(planned, prepared.document, request, context)
      if (answer.raw !== undefined) return { status: 200, headers: {}, raw: answer.raw }
      return resultAnswer(answer.result)
    } catch (e) {
      return answerWith([asGraphQLError(e)], 500)
    }
  }

  /** An execution result as Apollo answered it: 200, or the errors' status; 400 when nothing ran (variables that did not coerce). */
  const resultAnswer = (result: ExecutionResult): EdgeAnswer => {
    if (!result.errors?.length) {
      const body: FormattedExecutionResult = { data: result.data }
      if (result.extensions) body.extensions = result.extensions
      return { status: 200, headers: {}, result: body }
    }
    return answerWith(result.errors, result.data === undefined ? 400 : 200, result.data, result.extensions)
  }

  return {
    documents,
    run,
    registrationRefusal,
    /** The answer as a plain result (graphql-ws, the REST shims). */
    async execute(request: GraphQLRequest, context: SubgraphCallContext): Promise<FormattedExecutionResult> {
      const answer = await inSpan('GraphQL operation', SpanKind.SERVER, {}, () => run(request, context))
      return answer.raw !== undefined ? JSON.parse(answer.raw.toString('utf8')) : answer.result!
    },

    /**
     * Serves one HTTP request on /graphql. `identify` builds the caller's context from the request (its errors answer
     * the request: 'Context creation failed', with their status, 503 for an outage).
     */
    async handle(req: http.IncomingMessage, res: http.ServerResponse, identify: (req: http.IncomingMessage) => Promise<SubgraphCallContext>) {
      const write = (answer: EdgeAnswer, contentType = JSON_TYPE) => {
        if (res.headersSent) return // the request timed out meanwhile: that answer went
        // Apollo's field order (errors, data, extensions) and its trailing newline; a subgraph's bytes go as they came
        const body = answer.raw !== undefined ? Buffer.concat([answer.raw, NEWLINE], answer.raw.length + 1)
          : `${JSON.stringify({ errors: answer.result!.errors, data: answer.result!.data, extensions: answer.result!.extensions })}\n`
        res.writeHead(answer.status, { ...answer.headers, 'content-type': contentType, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length })
        res.end(body)
      }
      try {
        if (req.method !== 'GET' && req.method !== 'POST') {
          req.resume()
          return write({ ...answerWith([badRequest('Apollo Server supports only GET/POST requests.', 405)], 405), headers: { allow: 'GET, POST' } })
        }
        preventCsrf(req.headers)
        let request: GraphQLRequest
        if (req.method === 'GET') {
          request = requestOfSearch(req.url, req.headers['content-type'])
        } else {
          if (essence(req.headers['content-type'] ?? '') !== 'application/json') {
            req.resume()
            throw badRequest('POST body missing, invalid Content-Type, or JSON object has no keys.')
          }
          let text: string
          try { text = await readBody(req) } catch (e) {
            if (e instanceof BadRequest && e.status === 413) throw badRequest('The request body is larger than 1 MB.', 413, 'PAYLOAD_TOO_LARGE')
            throw e
          }
          let body: unknown
          try { body = JSON.parse(text) } catch { throw badRequest('The request body is not valid JSON.') }
          request = requestOfBody(body)
        }
        // the document's size is refused before the lexer runs, and before the caller is looked up
        if (typeof request.query === 'string') checkDocumentSize(request.query, mode)
        const contentType = answerContentType(req.headers.accept)
        if (!contentType) {
          throw badRequest("An 'accept' header was provided for this request which does not accept application/json or application/graphql-response+json", 406)
        }
        let context: SubgraphCallContext
        try {
          context = await identify(req)
        } catch (e) {
          const error = isDatabaseUnavailable(e) ? serviceUnavailable() : asGraphQLError(e, 'Context creation failed: ')
          return write(answerWith([error], 500), contentType)
        }
        write(await run(request, context, req.method), contentType)
      } catch (e) {
        write(answerWith([asGraphQLError(e)], 500))
      }
    },
  }
}
export type EdgePipeline = ReturnType<typeof createEdgePipeline>
