// Owns the model-backed harness (issue 39), registered as 'model' beside 'deterministic': a language model chooses the
// run's tool calls. It mints the run's token, connects to the tool server as an MCP client, gives the model the run's
// harness prompt (prompts/get) as its instructions and the tools tools/list offers (the effective toolset, already
// narrowed by the allow-list), makes every tool call the model asks for through the MCP client with the run token, and
// hands each answer (sanitised by the tool server; a refusal as an error result) back as a tool result. The tool server
// decides everything: a tool outside the toolset, hostile text, a credential in a draft are refused or redacted there,
// whatever the model writes.
//
// Limits per run (the settings' max_turns, max_tool_calls, max_tokens, max_seconds) end the run cleanly: it succeeds
// with outcome.ended naming the limit. Cost: each model call's usage tokens priced from the settings' table. Before a
// call, its worst case (its max output tokens at the output price, plus its input estimated from above at the input
// price) is reserved against the twin's budget_usd_month (twin-usd-budget.ts); a call that does not fit is not made,
// the run ends with reason budget and the twin pauses (once). After the call the running total is written to
// agent_runs.outcome.cost_usd and the reservation given back, in one statement, so runs in flight together never
// spend past the budget. The outcome holds counts, never prompt text, model text, the model's name or the vendor's.
import { assertEgressUrl } from '../../../core/http'
import { log } from '../../../core/config'
import { modelRunSettings, reserveModelCall, settleModelCall, MODEL_HARNESS_KEY, type ModelRunSettings } from '../../../domain/twins'
import { mintRunToken } from '../tools/run-tokens'
import { runEndpoint } from '../tools/endpoint'
import type { Harness, RunContext, RunOutcome } from '../../../domain/twins'
import { ToolClient, TwinStopped, type ListedTool } from './tool-client'
import { ModelCallFailed, modelProviderClient, type Conversation, type ModelTool, type ModelTurn, type ToolResultMessage } from './model-providers'

/** Why a model run ended (agent_runs.outcome.ended). */
export type ModelRunEnd = 'completed' | 'turn_limit' | 'tool_call_limit' | 'token_limit' | 'time_limit' | 'budget' | 'twin_paused'

/** Tokens one model answer may use at most (the rest of the run's token limit, up to this). */
const MAX_OUTPUT_TOKENS = 4096

/** Tool names on the wire: the APIs allow [a-zA-Z0-9_-]; the tool server's names have dots. */
export const wireToolName = (name: string) => name.replaceAll('.', '__')
const toolNameFromWire = (name: string) => name.replaceAll('__', '.')

/** USD of `tokens` at `perMtok` USD per million. */
const usd = (tokens: number, perMtok: number) => (tokens * perMtok) / 1_000_000

/** UTF-8 bytes of a value as JSON: a model's tokenizer makes no more tokens of a text than it has bytes. */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8')

/** The first message: what this run is for. Data the run holds, never a person's words. */
function brief(rc: RunContext): string {
  return [
    `Duties of this run: ${rc.duties.join(', ') || 'none'}.`,
    rc.run.targetId ? `The run is about ${rc.run.targetId}.` : null,
    `Today is ${new Date().toISOString().slice(0, 10)}.`,
    'Read through the tools, then file what a person should decide with a propose tool: its draft says what you read and why you propose it, citing the records. When nothing needs a proposal, say so in one sentence and stop.',
  ].filter(Boolean).join('\n')
}

export class ModelRun {
  readonly conversation: Conversation
  turns = 0
  toolCalls = 0
  denied = 0
  refused = 0
  malformed = 0
  tokensIn = 0
  tokensOut = 0
  costUsd = 0
  readonly proposalIds: string[] = []
  duplicates = 0
  ended: ModelRunEnd = 'completed'
  private readonly byWire: Map<string, ListedTool>
  /** The last call's input tokens as the provider reported them, and how many conversation entries it carried. */
  private lastCall: { inputTokens: number; entries: number } | null = null

  constructor(private readonly rc: RunContext, private readonly settings: ModelRunSettings, private readonly client: ToolClient, system: string) {
    this.conversation = { system, entries: [{ role: 'user', text: brief(rc) }] }
    this.byWire = new Map(client.listed.map((t) => [wireToolName(t.name), t]))
  }

  get tools(): ModelTool[] {
    return [...this.byWire].map(([wire, t]) => ({ name: wire, description: t.description, inputSchema: t.inputSchema }))
  }

  /**
   * The input tokens of the next call, estimated from above: the first call's whole request (instructions,
   * conversation and tools) in bytes; later, the last call's reported input tokens plus the bytes of what was added
   * since (the model's answer and the tool results).
   */
  inputTokensEstimate(): number {
    const { entries } = this.conversation
    if (!this.lastCall) return jsonBytes({ system: this.conversation.system, entries, tools: this.tools })
    return this.lastCall.inputTokens + jsonBytes(entries.slice(this.lastCall.entries))
  }

  /** The most a call answering up to `maxOutputTokens` can cost, in USD. */
  worstCaseUsd(maxOutputTokens: number): number {
    const { prices } = this.settings
    return usd(this.inputTokensEstimate(), prices.inputUsdPerMtok) + usd(maxOutputTokens, prices.outputUsdPerMtok)
  }

  /** Adds a model call's usage and cost; writes the running cost on the run and gives the call's reservation back. */
  private async account(turn: ModelTurn) {
    this.lastCall = { inputTokens: turn.usage.input, entries: this.conversation.entries.length }
    this.tokensIn += turn.usage.input
    this.tokensOut += turn.usage.output
    this.costUsd += usd(turn.usage.input, this.settings.prices.inputUsdPerMtok) + usd(turn.usage.output, this.settings.prices.outputUsdPerMtok)
    await settleModelCall(this.rc.db, this.rc.run, this.summary())
  }

  async drive(signal: AbortSignal): Promise<void> {
    const { limits } = this.settings
    const provider = modelProviderClient(this.settings)
    for (;;) {
      if (signal.aborted) return void (this.ended = 'time_limit')
      if (this.turns >= limits.maxTurns) return void (this.ended = 'turn_limit')
      if (this.tokensIn + this.tokensOut >= limits.maxTokens) return void (this.ended = 'token_limit')
      const maxOutputTokens = Math.min(MAX_OUTPUT_TOKENS, limits.maxTokens - this.tokensIn - this.tokensOut)
      // The call's worst case is held against the month's budget before it is made; it does not fit: no call.
      const reservation = await reserveModelCall(this.rc.db, this.rc.run, this.rc.twin, this.worstCaseUsd(maxOutputTokens), 'model_harness')
      if (!reservation.reserved) return void (this.ended = reservation.why === 'budget' ? 'budget' : 'twin_paused')
      this.turns = this.client.nextTurn()
      let turn: ModelTurn
      try {
        turn = await provider.complete(this.conversation, this.tools, { signal, maxOutputTokens })
      } catch (e) {
        if (e instanceof ModelCallFailed && e.aborted) return void (this.ended = 'time_limit')
        throw e
      }
      await this.account(turn)
      this.conversation.entries.push({ role: 'assistant', turn })
      if (!turn.toolCalls.length) return void (this.ended = 'completed')
      const results: ToolResultMessage[] = []
      for (const call of turn.toolCalls) {
        if (this.toolCalls >= limits.maxToolCalls) { this.ended = 'tool_call_limit'; break }
        this.toolCalls++
        results.push(await this.callTool(call.id, call.name, call.arguments))
      }
      if (this.ended === 'tool_call_limit') return
      this.conversation.entries.push({ role: 'tool_results', results })
      if (this.tokensIn + this.tokensOut >= limits.maxTokens) return void (this.ended = 'token_limit')
    }
  }

  /** One tool call through the MCP client; malformed arguments are answered to the model without reaching a tool. */
  private async callTool(id: string, wireName: string, argumentsText: string): Promise<ToolResultMessage> {
    let args: unknown
    try { args = JSON.parse(argumentsText || '{}') } catch { args = undefined }
    if (!args || typeof args !== 'object' || Array.isArray(args)) {
      this.malformed++
      return { id, isError: true, content: JSON.stringify({ error: { code: 'invalid_input', message: 'The arguments are not a JSON object.' } }) }
    }
    // A name outside the toolset is still asked of the tool server, which refuses it and keeps the attempt's trace.
    const name = this.byWire.get(wireName)?.name ?? toolNameFromWire(wireName)
    const answer = await this.client.call(name, args as Record<string, unknown>, { duty: this.rc.duties[0] })
    if (!answer.ok) {
      if (answer.error.code === 'harness_denied') this.denied++
      else this.refused++
      return { id, isError: true, content: JSON.stringify({ error: answer.error }) }
    }
    const value = answer.value as Record<string, unknown>
    if (typeof value.proposalId === 'string') this.proposalIds.push(value.proposalId)
    if (value.duplicate === true) this.duplicates++
    return { id, isError: false, content: JSON.stringify(value) }
  }

  summary(prompt?: { key: string; version: number; sha256: string } | null): Record<string, unknown> {
    return {
      harness: MODEL_HARNESS_KEY, ended: this.ended, turns: this.turns, tool_calls: this.toolCalls, denied: this.denied, refused: this.refused,
      malformed_calls: this.malformed, proposals_filed: this.proposalIds.length, duplicates: this.duplicates, proposal_ids: this.proposalIds,
      tokens_in: this.tokensIn, tokens_out: this.tokensOut, cost_usd: Math.round(this.costUsd * 1e6) / 1e6,
      ...(prompt ? { prompt } : {}),
    }
  }
}

export const modelHarness: Harness = {
  key: MODEL_HARNESS_KEY,
  async execute(rc: RunContext): Promise<RunOutcome> {
    const settings = await modelRunSettings(rc.db, rc.run.organizationId, rc.run.programId)
    if (!settings) throw new Error('No model settings with an API key are in force for this program; set them, or run the twin under the deterministic harness.')
    // Checked again when used: EGRESS_ALLOW may have narrowed since the settings were saved.
    assertEgressUrl(settings.baseUrl, 'baseUrl')
    const token = await mintRunToken({ runId: rc.run.id, twinId: rc.twin.id, userId: rc.twin.userId, organizationId: rc.run.organizationId })
    const client = await ToolClient.connect(runEndpoint(rc.run.id), token)
    // The run's wall time: the settings' limit, or sooner when the run cycle gives the run up.
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(), settings.limits.maxSeconds * 1000)
    const onAbort = () => deadline.abort()
    rc.signal?.addEventListener('abort', onAbort, { once: true })
    let run: ModelRun | undefined
    let prompt: { key: string; version: number; sha256: string } | null = null
    try {
      const served = await client.harnessPrompt()
      prompt = { key: served.key, version: served.version, sha256: served.sha256 }
      run = new ModelRun(rc, settings, client, served.text)
      await run.drive(deadline.signal)
    } catch (e) {
      if (!(e instanceof TwinStopped)) throw e
      if (run) run.ended = 'twin_paused'
    } finally {
      clearTimeout(timer)
      rc.signal?.removeEventListener('abort', onAbort)
      await client.close().catch(() => {})
    }
    log.info('model_harness.run_ended', { runId: rc.run.id, ended: run?.ended, turns: run?.turns, toolCalls: run?.toolCalls, costUsd: run?.costUsd })
    return { summary: run!.summary(prompt) }
  },
}
