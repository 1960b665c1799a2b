// A fake model provider (illustrative; imports nothing of the service): one HTTP server speaking two tool-calling wire
// formats, the OpenAI chat completions API under /openai/v1 (POST /openai/v1/chat/completions) and the Anthropic
// Messages API under /anthropic (POST /anthropic/v1/messages), so the official client libraries can be pointed at it by
// base URL. Each answer is the next step of a script the test (or the demo) sets: tool calls, a final message, an error
// status (429 with Retry-After, 500), a slow answer; a step may be a function of the request (to cite what a tool
// returned). Every answer reports usage tokens. Requests are kept (headers and body) for the test to read.
import type http from 'node:http'
import { listen, type Listening } from '../common/listen'
import { sleep } from '../common/faults'

export type ModelApi = 'openai' | 'anthropic'

export interface ScriptedToolCall { name: string; /** An object, or a string sent as is (malformed JSON on purpose). */ arguments: Record<string, unknown> | string }
export interface Step {
  text?: string
  toolCalls?: ScriptedToolCall[]
  usage?: { input: number; output: number }
  /** Answer this HTTP status instead (429, 500), with Retry-After seconds when given. */
  status?: number
  retryAfterSeconds?: number
  /** Wait this long before answering (a slow model). */
  delayMs?: number
}

/** A received request: the wire format, its headers and its parsed body. */
export interface ModelRequest { api: ModelApi; headers: http.IncomingHttpHeaders; body: any }

/** A step, or a function of the request that answers one (it reads what the tools returned). */
export type ScriptEntry = Step | ((request: ModelRequest) => Step)

const DEFAULT_USAGE = { input: 1000, output: 200 }

export class FakeModelControl {
  script: ScriptEntry[] = []
  /** When the script is used up: answer this step for ever (a tool-call loop), or the final message below. */
  repeat: ScriptEntry | null = null
  requests: ModelRequest[] = []
  /** The API key the fake accepts (Authorization: Bearer for openai, x-api-key for anthropic); null accepts any. */
  apiKey: string | null = null

  setScript(steps: ScriptEntry[], repeat: ScriptEntry | null = null) { this.script = [...steps]; this.repeat = repeat; this.requests = [] }
  reset() { this.script = []; this.repeat = null; this.requests = []; this.apiKey = null }

  next(request: ModelRequest): Step {
    const entry = this.script.shift() ?? this.repeat ?? { text: 'Nothing more to propose.' }
    return typeof entry === 'function' ? entry(request) : entry
  }
}

let ids = 0
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++ids).toString(36)}`

function openaiAnswer(step: Step, model: string) {
  const usage = step.usage ?? DEFAULT_USAGE
  const calls = (step.toolCalls ?? []).map((c) => ({
    id: id('call'), type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }))
  return {
    id: id('chatcmpl'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message: { role: 'assistant', content: step.text ?? null, refusal: null, ...(calls.length ? { tool_calls: calls } : {}) }, logprobs: null, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  }
}

function anthropicAnswer(step: Step, model: string) {
  const usage = step.usage ?? DEFAULT_USAGE
  const content: unknown[] = []
  if (step.text) content.push({ type: 'text', text: step.text })
  for (const c of step.toolCalls ?? []) content.push({ type: 'tool_use', id: id('toolu'), name: c.name, input: c.arguments })
  return {
    id: id('msg'), type: 'message', role: 'assistant', model, content,
    stop_reason: (step.toolCalls ?? []).length ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  }
}

/** The APIs' own tool-name rule, refused as they refuse it. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

export async function startFakeModel(opts: { port?: number; host?: string } = {}): Promise<Listening & { control: FakeModelControl; openaiBaseUrl: string; anthropicBaseUrl: string }> {
  const control = new FakeModelControl()
  const handler: http.RequestListener = async (req, res) => {
    const api: ModelApi | null = req.method === 'POST' && req.url === '/openai/v1/chat/completions' ? 'openai'
      : req.method === 'POST' && req.url === '/anthropic/v1/messages' ? 'anthropic' : null
    if (!api) return send(res, 404, { error: { type: 'not_found_error', message: 'Not found.' } })
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: any
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { return send(res, 400, { error: { type: 'invalid_request_error', message: 'The body is not JSON.' } }) }
    const key = api === 'openai' ? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] : req.headers['x-api-key']
    if (!key || (control.apiKey !== null && key !== control.apiKey)) return send(res, 401, { error: { type: 'authentication_error', message: 'Invalid API key.' } })
    if (api === 'anthropic' && !req.headers['anthropic-version']) return send(res, 400, { error: { type: 'invalid_request_error', message: 'anthropic-version header is required.' } })
    const tools: { name: string }[] = (body.tools ?? []).map((t: any) => (api === 'openai' ? t.function : t))
    const badName = tools.find((t) => !TOOL_NAME.test(t.name))
    if (badName) return send(res, 400, { error: { type: 'invalid_request_error', message: `tools: name ${badName.name} does not match ${TOOL_NAME}` } })
    const request = { api, headers: req.headers, body }
    control.requests.push(request)
    const step = control.next(request)
    if (step.delayMs) await sleep(step.delayMs)
    if (step.status) {
      return send(res, step.status, { error: { type: step.status === 429 ? 'rate_limit_error' : 'api_error', message: step.status === 429 ? 'Rate limited.' : 'Overloaded.' } },
        step.retryAfterSeconds !== undefined ? { 'retry-after': String(step.retryAfterSeconds) } : {})
    }
    send(res, 200, api === 'openai' ? openaiAnswer(step, String(body.model)) : anthropicAnswer(step, String(body.model)))
  }
  const listening = await listen(handler, opts)
  return { ...listening, control, openaiBaseUrl: `${listening.url}/openai/v1`, anthropicBaseUrl: `${listening.url}/anthropic` }
}
