// Owns the harness side of the protocol: an MCP client of the tool server for one run (Streamable HTTP, the run's
// token as bearer), the turn counter, and turning tool results into values or typed refusals the run can handle.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { HARNESS_PROMPT_NAME } from './prompts'

export interface ToolError { code: string; message: string; field?: string | null }
/** A tool as tools/list lists it for this run (the effective toolset): what a model is offered. */
export interface ListedTool { name: string; description: string; inputSchema: Record<string, unknown> }
export type ToolAnswer<T = Record<string, any>> = { ok: true; value: T } | { ok: false; error: ToolError }

/** The twin stopped being allowed to run (paused, for budget or any cause): the run ends and reports it. */
export class TwinStopped extends Error {
  constructor(readonly error: ToolError) { super(error.message) }
}

export class ToolClient {
  private turn = 0
  readonly calls: { tool: string; ok: boolean; code?: string }[] = []

  private constructor(private readonly client: Client, readonly tools: ReadonlySet<string>, readonly listed: readonly ListedTool[]) {}

  /** Connects, initialises and lists the tools this run may call now. */
  static async connect(endpoint: URL, runToken: string): Promise<ToolClient> {
    const client = new Client({ name: 'evidence-workspace-deterministic-harness', version: '1' })
    const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${runToken}` } } })
    await client.connect(transport)
    const listed = await client.listTools()
    const tools = listed.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> }))
    return new ToolClient(client, new Set(tools.map((t) => t.name)), tools)
  }

  /** A new turn: max_skill_runs_per_turn counts the skills of one turn. */
  nextTurn() { return ++this.turn }

  has(tool: string) { return this.tools.has(tool) }

  /**
   * Calls a tool. A refusal (harness_denied, invalid_input, ...) comes back as { ok: false } for the template to
   * handle; twin_paused throws TwinStopped, since nothing more may run.
   */
  async call<T = Record<string, any>>(tool: string, args: Record<string, unknown>, meta: { duty?: string } = {}): Promise<ToolAnswer<T>> {
    let result: Awaited<ReturnType<Client['callTool']>>
    try {
      result = await this.client.callTool({ name: tool, arguments: args, _meta: { turn: this.turn, ...(meta.duty ? { duty: meta.duty } : {}) } })
    } catch (e) {
      // The server stopped accepting this run's token (the run was cancelled by a pause, or finished): nothing more runs.
      if (e instanceof StreamableHTTPError && (e.code === 401 || e.code === 403)) {
        const body = /\{.*\}$/.exec(e.message)?.[0]
        const error = (body ? (JSON.parse(body) as { error?: ToolError }).error : undefined) ?? { code: 'harness_denied', message: e.message }
        this.calls.push({ tool, ok: false, code: error.code })
        throw new TwinStopped(error)
      }
      throw e
    }
    const structured = (result.structuredContent ?? {}) as Record<string, unknown>
    if (result.isError) {
      const error = (structured.error ?? { code: 'unknown', message: 'The tool refused.' }) as ToolError
      this.calls.push({ tool, ok: false, code: error.code })
      if (error.code === 'twin_paused') throw new TwinStopped(error)
      return { ok: false, error }
    }
    this.calls.push({ tool, ok: true })
    return { ok: true, value: structured as T }
  }

  /**
   * The run's harness prompt as the tool server serves it (prompts/get): what a model-backed harness gives its model.
   * Answers its text and which template it is (key, version, sha256 of the text).
   */
  async harnessPrompt(): Promise<{ text: string; key: string; version: number; sha256: string }> {
    const r = await this.client.getPrompt({ name: HARNESS_PROMPT_NAME })
    const first = r.messages[0]?.content
    const meta = (r._meta ?? {}) as { key?: string; version?: number; sha256?: string }
    return { text: first?.type === 'text' ? first.text : '', key: String(meta.key ?? ''), version: Number(meta.version ?? 0), sha256: String(meta.sha256 ?? '') }
  }

  close() { return this.client.close() }
}
