// Owns a subgraph's GraphQL over HTTP: POST (and GET for queries) on /graphql, served by graphql-js on node:http.
// Apollo Server plus Express cost about a seventh of a subgraph's CPU under the console's load (issue 20 profile) for
// work a subgraph behind the gateway does not need; the answers keep Apollo's shapes: codes, statuses, masking.
import type http from 'node:http'
import { execute, getOperationAST, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql'
import { DocumentCache } from './graphql-documents'
import { asGraphQLError, formatErrors } from './graphql-errors'
import { DATA_ONLY_HEADER } from './subgraph-protocol'
import { readCappedBody } from './capped-body'

/** Body bound (the gateway's is 1 MB too; entity fetches of a big page stay well under it). */
export const SUBGRAPH_BODY_BYTES = 1024 * 1024

export interface GraphQLRequest { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown }

export interface GraphQLHttpOptions<C> {
  schema: GraphQLSchema
  /** The request's context; a thrown error (UNAUTHENTICATED, 401) answers the request with it and runs nothing. */
  context(req: http.IncomingMessage): Promise<C>
  stackTraces: () => boolean
}

export class BadRequest extends Error {
  constructor(message: string, readonly status = 400) { super(message) }
}

/** The whole body as text, refused (413) past SUBGRAPH_BODY_BYTES whether declared or streamed (the request closed). */
export async function readBody(req: http.IncomingMessage): Promise<string> {
  const read = await readCappedBody(req, SUBGRAPH_BODY_BYTES, 'destroy')
  if (read.tooLarge) throw new BadRequest('The request body is larger than 1 MB.', 413)
  return read.body.toString('utf8')
}

async function requestOf(req: http.IncomingMessage): Promise<{ request: GraphQLRequest; get: boolean }> {
  if (req.method === 'GET') {
    const params = new URL(req.url ?? '/', 'http://subgraph').searchParams
    const json = (name: string) => {
      const v = params.get(name)
      if (v === null) return undefined
      try { return JSON.parse(v) } catch { throw new BadRequest(`The ${name} search parameter contains invalid JSON.`) }
    }
    return { get: true, request: { query: params.get('query') ?? undefined, operationName: params.get('operationName') ?? undefined, variables: json('variables'), extensions: json('extensions') } }
  }
  // Apollo's CSRF prevention refused other content types; only the gateway's JSON is read here
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\b/i.test(type)) {
    req.resume()
    throw new BadRequest("POST body missing, invalid Content-Type, or JSON object has no keys.")
  }
  const text = await readBody(req)
  let body: unknown
  try { body = JSON.parse(text) } catch { throw new BadRequest('The request body is not valid JSON.') }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('POST body missing, invalid Content-Type, or JSON object has no keys.')
  return { get: false, request: body as GraphQLRequest }
}

function send(res: http.ServerResponse, status: number, body: unknown, dataOnly = false) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text),
    ...(dataOnly ? { [DATA_ONLY_HEADER]: '1' } : {}),
  })
  res.end(text)
}

/** The /graphql handler: request → context → cached parse + validate → execute → JSON. */
export function createGraphQLHandler<C>(opts: GraphQLHttpOptions<C>) {
  const documents = new DocumentCache(opts.schema)
  const fail = (res: http.ServerResponse, errors: readonly unknown[], fallbackStatus: number) => {
    const f = formatErrors(errors, opts.stackTraces())
    send(res, f.status ?? fallbackStatus, { errors: f.errors })
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    let parsed: { request: GraphQLRequest; get: boolean }
    try {
      parsed = await requestOf(req)
    } catch (e) {
      if (e instanceof BadRequest) return fail(res, [new GraphQLError(e.message, { extensions: { code: 'BAD_REQUEST', http: { status: e.status } } })], e.status)
      throw e
    }
    const { request, get } = parsed
    if (typeof request.query !== 'string' || !request.query) {
      return fail(res, [new GraphQLError('GraphQL operations must contain a non-empty `query`.', { extensions: { code: 'BAD_REQUEST' } })], 400)
    }
    if (request.variables != null && (typeof request.variables !== 'object' || Array.isArray(request.variables))) {
      return fail(res, [new GraphQLError('`variables` in a POST body should be provided as an object.', { extensions: { code: 'BAD_REQUEST' } })], 400)
    }
    if (request.operationName != null && typeof request.operationName !== 'string') {
      return fail(res, [new GraphQLError('`operationName` in a POST body must be a string if provided.', { extensions: { code: 'BAD_REQUEST' } })], 400)
    }
    // the caller first: nothing is parsed or run for a request without the gateway's token
    let contextValue: C
    try {
      contextValue = await opts.context(req)
    } catch (e) {
      return fail(res, [asGraphQLError(e, 'Context creation failed: ')], 500)
    }
    const prepared = documents.prepare(request.query)
    if (prepared.errors) return fail(res, prepared.errors, 400)
    const operationName = (request.operationName as string | undefined) ?? undefined
    if (get && getOperationAST(prepared.document, operationName)?.operation === 'mutation') {
      return fail(res, [new GraphQLError('GET requests only support query operations.', { extensions: { code: 'BAD_REQUEST', http: { status: 405 } } })], 405)
    }
    const result = await execute({
      schema: opts.schema, document: prepared.document, contextValue, operationName,
      variableValues: (request.variables as Record<string, unknown> | undefined) ?? undefined,
    }) as ExecutionResult
    if (!('data' in result) || result.data === undefined) {
      // nothing ran: the operation was not found or the variables did not coerce (Apollo's 400s)
      const errors = (result.errors ?? []).map((e) => new GraphQLError(e.message, {
        nodes: e.nodes, source: e.source, positions: e.positions, originalError: e.originalError ?? undefined,
        extensions: { code: /^Variable /.test(e.message) ? 'BAD_USER_INPUT' : 'OPERATION_RESOLUTION_FAILURE' },
      }))
      return fail(res, errors, 400)
    }
    if (!result.errors?.length) return result.extensions ? send(res, 200, { data: result.data, extensions: result.extensions }) : send(res, 200, { data: result.data }, true)
    const f = formatErrors(result.errors, opts.stackTraces())
    send(res, f.status ?? 200, { errors: f.errors, data: result.data, ...(result.extensions ? { extensions: result.extensions } : {}) })
  }

  return {
    documents,
    handle(req: http.IncomingMessage, res: http.ServerResponse, onUnexpected: (error: unknown) => void) {
      handle(req, res).catch((error) => {
        onUnexpected(error)
        if (!res.headersSent) fail(res, [error], 500)
        else res.destroy()
      })
    },
  }
}
