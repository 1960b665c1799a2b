// Owns what the tool server keeps of each call for the run rail (tool_calls.summary): a short account of the answer,
// never the answer itself. A literature search keeps its query policy's steps with each source's status and, when a
// budget was exhausted, the retry delay; a read keeps how many items it returned; a propose_* tool that it filed; a
// refusal keeps the data that makes its reason readable (RateLimited's source and delay, the turn's query budget).
// The words are chosen when the rail is read (domain/twins/run-steps.ts), so ids stay ids here.
import type { DomainError } from '../../../core/errors'
import type { LiteratureStepSummary, StepSummary } from '../../../domain/twins'
import type { ToolDefinition } from './tool'

type Row = Record<string, unknown>
const isRow = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v)

/** The literature tool's answer (tools/literature.ts): its policy steps and per-source status. */
function literatureSummary(result: Row): StepSummary {
  const sources = Array.isArray(result.sources) ? result.sources.filter(isRow) : []
  const retryOf = (source: unknown) => {
    const s = sources.find((x) => x.source === source)
    return typeof s?.retryAfterSeconds === 'number' ? s.retryAfterSeconds : null
  }
  const steps: LiteratureStepSummary[] = (Array.isArray(result.steps) ? result.steps.filter(isRow) : []).map((s) => ({
    step: String(s.step), source: String(s.source), status: String(s.status), detail: String(s.detail ?? ''),
    retryAfterSeconds: s.status === 'rate_limited' ? retryOf(s.source) : null,
  }))
  return {
    kind: 'literature', query: String(result.query ?? ''), hitCount: Number(result.hitCount ?? 0),
    clusters: Array.isArray(result.clusters) ? result.clusters.length : 0, steps,
  }
}

/** The account of an answered call. */
export function answerSummary(tool: ToolDefinition, result: Row): StepSummary {
  if (Array.isArray(result.steps) && Array.isArray(result.sources) && 'hitCount' in result) return literatureSummary(result)
  if (tool.kind === 'write') return { kind: 'proposal' }
  const list = Object.values(result).find(Array.isArray) as unknown[] | undefined
  if (list) return { kind: 'items', count: list.length, total: typeof result.total === 'number' ? result.total : null }
  return { kind: 'read' }
}

/** The data of a refusal the rail words itself (the message names a source by its id). */
export function refusalSummary(error: DomainError): StepSummary {
  const e = error as DomainError & { source?: unknown; retryAfterSeconds?: unknown; budget?: unknown }
  return {
    kind: 'refusal', code: error.code,
    ...(typeof e.source === 'string' ? { source: e.source } : {}),
    ...(typeof e.retryAfterSeconds === 'number' ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
    ...(typeof e.budget === 'number' ? { budget: e.budget } : {}),
  }
}
