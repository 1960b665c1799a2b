// Owns the tool server's edge: the one endpoint an agent reaches, a Model Context Protocol server over Streamable
// HTTP (stateless: one MCP server per request) at POST /runs/{run_id}/mcp, authenticated by the run's token.
// Same hygiene as the gateway: 1 MB bodies, a time limit, nosniff, no stack traces and no secrets in answers or logs.
import http from 'node:http'
import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema, McpError, ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Db } from '../../../core/database'
import { DomainError } from '../../../core/errors'
import { log } from '../../../core/config'
import { isId } from '../../../core/text'
import { authenticateRun, callTool, listToolsFor, type RunSession } from './call'
import { RunTokenRefused } from './run-tokens'
import { toolJsonSchema } from './tool'
import { HARNESS_PROMPT_DESCRIPTION, HARNESS_PROMPT_NAME, runPrompt } from './prompt'
import { readCappedBody } from '../../../core/http'
import { drainableServer } from '../../../core/http'
import { isDatabaseUnavailable, OUTAGE_MESSAGE, OUTAGE_RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE } from '../../../core/database'

export const MAX_BODY_BYTES = 1024 * 1024
/** A class B skill is awaited for up to 120 s; the request may take a little longer than that. */
export const REQUEST_TIMEOUT_MS = 150_000
const PATH = /^\/runs\/([^/]+)\/mcp\/?$/

export interface ToolServer {
  httpServer: http.Server
  url: string
  listen(port: number, host: string): Promise<string>
  close(): Promise<void>
}

/** `{ "error": { code, message } }` (the design decisions (docs/contributors.md) REST envelope) with a status. */
function answer(res: http.ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  if (res.headersSent) return void res.end()
  const body = JSON.stringify({ error: { code, message, ...extra } })
  res.writeHead(status, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) })
  res.end(body)
}

/** A refused token: 401 when there is no valid token, 403 when a valid one does not open this run. */
function refuse(res: http.ServerResponse, e: RunTokenRefused) {
  if (e.reason === 'other_run' || e.reason === 'finished') return answer(res, 403, 'harness_denied', e.message)
  return answer(res, 401, 'UNAUTHENTICATED', e.message)
}

/** A tool's refusal as an MCP tool result the agent reads (isError), never a protocol error. */
function errorResult(error: { code: string; message: string; field?: string | null; [k: string]: unknown }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } }
}

function mcpServerFor(session: RunSession): Server {
  const server = new Server({ name: 'evidence-workspace-tools', version: '1' }, { capabilities: { tools: {}, prompts: {} } })
  // The run's harness prompt, served with the run (prompt.ts); one prompt, no arguments.
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: HARNESS_PROMPT_NAME, description: HARNESS_PROMPT_DESCRIPTION }] }))
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== HARNESS_PROMPT_NAME) throw new McpError(ErrorCode.InvalidParams, `No prompt ${String(request.params.name).slice(0, 100)}; this run serves ${HARNESS_PROMPT_NAME}.`)
    const prompt = await runPrompt(session)
    return {
      description: HARNESS_PROMPT_DESCRIPTION,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text } }],
      _meta: { key: prompt.key, version: prompt.version, sha256: prompt.sha256 },
    }
  })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await listToolsFor(session)).map((t) => ({ name: t.name, description: t.description, inputSchema: toolJsonSchema(t) as never })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const meta = (request.params._meta ?? {}) as { turn?: unknown; duty?: unknown }
    try {
      const outcome = await callTool(session, request.params.name, request.params.arguments ?? {}, {
        turn: typeof meta.turn === 'number' && Number.isInteger(meta.turn) && meta.turn >= 0 ? meta.turn : 0,
        duty: typeof meta.duty === 'string' ? meta.duty.slice(0, 100) : null,
      })
      const structured = { ...outcome.result, ...(outcome.violations.length ? { sanitised: outcome.violations } : {}) }
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }
    } catch (e) {
      if (e instanceof DomainError) {
        return errorResult({ code: e.code, message: e.message, field: e.field ?? null, ...('issues' in e ? { issues: (e as { issues: unknown }).issues } : {}) })
      }
      // A permission lost between the toolset check and the write reads as the denial it is.
      if ((e as { extensions?: { code?: string } })?.extensions?.code === 'FORBIDDEN') return errorResult({ code: 'harness_denied', message: `${request.params.name} is not in this run's toolset.` })
      const reference = randomUUID()
      log.error('tools.unexpected_error', { reference, tool: request.params.name, runId: session.run.id, error: e })
      return errorResult({ code: 'internal', message: `Unexpected error (reference ${reference}).` })
    }
  })
  return server
}

export function createToolServer(db: Db): ToolServer {
  const httpServer = http.createServer(async (req, res) => {
    drain.track(res)
    res.setHeader('x-content-type-options', 'nosniff')
    const url = new URL(req.url ?? '/', 'http://tools')
    if (url.pathname === '/healthz') return answer(res, 200, 'ok', 'ok')
    const match = PATH.exec(url.pathname)
    if (!match) return answer(res, 404, 'not_found', 'Not found.')
    // Stateless: no sessions to resume (GET) or end (DELETE); every message is a POST.
    if (req.method !== 'POST') { res.setHeader('allow', 'POST'); return answer(res, 405, 'method_not_allowed', 'Only POST is accepted here.') }
    const runId = match[1]
    if (!isId(runId)) return answer(res, 404, 'not_found', 'Not found.')
    let session: RunSession
    try {
      session = await authenticateRun(db, req.headers.authorization, runId)
    } catch (e) {
      if (e instanceof RunTokenRefused) return refuse(res, e)
      if ((e as { extensions?: { code?: string } })?.extensions?.code === 'UNAUTHENTICATED') return answer(res, 401, 'UNAUTHENTICATED', (e as Error).message)
      if (isDatabaseUnavailable(e)) return answer(res, 503, SERVICE_UNAVAILABLE, OUTAGE_MESSAGE, { retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS })
      const reference = randomUUID()
      log.error('tools.auth_failed', { reference, error: e })
      return answer(res, 500, 'internal', `Unexpected error (reference ${reference}).`)
    }
    const body = await readCappedBody(req, MAX_BODY_BYTES)
    if (body.tooLarge) return answer(res, 413, 'payload_too_large', `The body is over ${MAX_BODY_BYTES} bytes.`)
    let parsed: unknown
    try { parsed = JSON.parse(body.body.toString('utf8')) } catch { return answer(res, 400, 'parse_error', 'The body is not JSON.') }
    const server = mcpServerFor(session)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on('close', () => { void transport.close(); void server.close() })
    try {
      await server.connect(transport)
      await transport.handleRequest(req, res, parsed)
    } catch (e) {
      const reference = randomUUID()
      log.error('tools.request_failed', { reference, runId, error: e })
      answer(res, 500, 'internal', `Unexpected error (reference ${reference}).`)
    }
  })
  // A stop (SIGTERM, a rolling deploy) lets the tool calls in flight finish: cut mid-call, a twin's write would be lost
  // to its harness although it committed.
  const drain = drainableServer(httpServer)
  httpServer.requestTimeout = REQUEST_TIMEOUT_MS
  httpServer.headersTimeout = 30_000
  const self: ToolServer = {
    httpServer,
    url: '',
    listen: (port, host) => new Promise((resolve, reject) => {
      httpServer.once('error', reject)
      httpServer.listen(port, host, () => {
        const a = httpServer.address() as { port: number }
        self.url = `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`
        resolve(self.url)
      })
    }),
    close: () => drain.close(),
  }
  return self
}
