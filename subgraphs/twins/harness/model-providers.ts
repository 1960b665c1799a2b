// Owns speaking to a model provider through its official client library: the OpenAI-compatible chat completions API
// (`openai`; self-hosted servers too) and the Anthropic Messages API (`@anthropic-ai/sdk`). One provider-neutral
// conversation (the brief, the model's turns, the tool results) is rendered into each wire format per call; a turn
// comes back as text, tool calls and the usage tokens the provider reported. The libraries retry 429 (honouring
// Retry-After) and 5xx themselves. Errors leave here as ModelCallFailed with the status only: never the key, the
// request or the provider's body.
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import type { ModelRunSettings } from '../../../domain/twins'

export interface ModelTool { name: string; description: string; inputSchema: Record<string, unknown> }
export interface ModelToolCall { id: string; name: string; /** The arguments as the model wrote them (JSON text). */ arguments: string }
export interface ModelTurn { text: string; toolCalls: ModelToolCall[]; usage: { input: number; output: number } }
export interface ToolResultMessage { id: string; content: string; isError: boolean }

export type ConversationEntry =
  | { role: 'user'; text: string }
  | { role: 'assistant'; turn: ModelTurn }
  | { role: 'tool_results'; results: ToolResultMessage[] }

export interface Conversation { system: string; entries: ConversationEntry[] }

/** A model call failed: the run ends with this message (the status, never what was sent or the provider's words). */
export class ModelCallFailed extends Error {
  constructor(readonly status: number | null, readonly aborted = false) {
    super(aborted ? 'The model call was stopped.' : status ? `The model provider answered HTTP ${status}.` : 'The model provider could not be reached.')
  }
}

export interface ModelProviderClient {
  complete(conversation: Conversation, tools: ModelTool[], opts: { signal?: AbortSignal; maxOutputTokens: number }): Promise<ModelTurn>
}

/** Retries of a 429 or 5xx answer, by the client library (Retry-After honoured). */
export const MODEL_MAX_RETRIES = 2
const REQUEST_TIMEOUT_MS = 120_000

function failure(e: unknown): ModelCallFailed {
  if (e instanceof OpenAI.APIUserAbortError || e instanceof Anthropic.APIUserAbortError) return new ModelCallFailed(null, true)
  const status = (e as { status?: unknown })?.status
  return new ModelCallFailed(typeof status === 'number' ? status : null)
}

function openaiClient(s: ModelRunSettings): ModelProviderClient {
  const client = new OpenAI({ apiKey: s.apiKey, baseURL: s.baseUrl ?? undefined, maxRetries: MODEL_MAX_RETRIES, timeout: REQUEST_TIMEOUT_MS })
  return {
    async complete(c, tools, opts) {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: c.system }]
      for (const e of c.entries) {
        if (e.role === 'user') messages.push({ role: 'user', content: e.text })
        else if (e.role === 'assistant') {
          messages.push({
            role: 'assistant', content: e.turn.text || null,
            ...(e.turn.toolCalls.length ? { tool_calls: e.turn.toolCalls.map((t) => ({ id: t.id, type: 'function' as const, function: { name: t.name, arguments: t.arguments } })) } : {}),
          })
        } else for (const r of e.results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.content })
      }
      let answer: OpenAI.Chat.ChatCompletion
      try {
        answer = await client.chat.completions.create({
          model: s.model, messages, max_tokens: opts.maxOutputTokens,
          ...(tools.length ? { tools: tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } })) } : {}),
        }, { signal: opts.signal })
      } catch (e) { throw failure(e) }
      const message = answer.choices[0]?.message
      return {
        text: message?.content ?? '',
        toolCalls: (message?.tool_calls ?? []).flatMap((t) => (t.type === 'function' ? [{ id: t.id, name: t.function.name, arguments: t.function.arguments }] : [])),
        usage: { input: answer.usage?.prompt_tokens ?? 0, output: answer.usage?.completion_tokens ?? 0 },
      }
    },
  }
}

function anthropicClient(s: ModelRunSettings): ModelProviderClient {
  const client = new Anthropic({ apiKey: s.apiKey, baseURL: s.baseUrl ?? undefined, maxRetries: MODEL_MAX_RETRIES, timeout: REQUEST_TIMEOUT_MS })
  return {
    async complete(c, tools, opts) {
      const messages: Anthropic.MessageParam[] = []
      for (const e of c.entries) {
        if (e.role === 'user') messages.push({ role: 'user', content: e.text })
        else if (e.role === 'assistant') {
          const content: Anthropic.ContentBlockParam[] = []
          if (e.turn.text) content.push({ type: 'text', text: e.turn.text })
          for (const t of e.turn.toolCalls) content.push({ type: 'tool_use', id: t.id, name: t.name, input: parsedOrEmpty(t.arguments) })
          messages.push({ role: 'assistant', content })
        } else messages.push({ role: 'user', content: e.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, is_error: r.isError })) })
      }
      let answer: Anthropic.Message
      try {
        answer = await client.messages.create({
          model: s.model, system: c.system, messages, max_tokens: opts.maxOutputTokens,
          ...(tools.length ? { tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as Anthropic.Tool.InputSchema })) } : {}),
        }, { signal: opts.signal })
      } catch (e) { throw failure(e) }
      const text = answer.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n')
      // The Messages API hands arguments over parsed; they travel on as JSON text, as the chat completions API's do.
      const toolCalls = answer.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : []))
      return { text, toolCalls, usage: { input: answer.usage?.input_tokens ?? 0, output: answer.usage?.output_tokens ?? 0 } }
    },
  }
}

function parsedOrEmpty(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch { return {} }
}

export function modelProviderClient(s: ModelRunSettings): ModelProviderClient {
  return s.provider === 'anthropic' ? anthropicClient(s) : openaiClient(s)
}
