// Owns a twin run's steps as the run rail shows them: each tool call of the run (its tool_calls row) in the order it
// was made, with its tool in words, when, its outcome (ok, refused with the refusal's reason, error) and a short account
// of what came back. For the literature search that account is the query policy, step by step ("Query policy (visible
// in the run rail)", connector specification, Literature connector behaviour item 3), with each source's status; an
// exhausted budget reads 'budget exhausted for source X, retry after N s' (item 7), the source named in the
// specification's words (its Literature sources table), never by its id. Reads only; the tool server writes the rows
// and their `summary` (tools/rail.ts).
import type { AgentRun, ToolCall } from '../../generated/prisma/client'
import type { DomainContext } from '../../core/jobs'
import { budgetExhausted, CONNECTORS } from '../../core/text'
import { InvalidInput } from '../../core/errors'
import { findPlumbingWords } from '../../core/text'
import { SOURCES, POLICY_STEPS } from '../literature'
import { SKILL_DEFINITIONS } from '../skills'
import { canSeeTwin } from './twin-admin'

/** What the tool server keeps of a call (tool_calls.summary). */
export type StepSummary =
  | { kind: 'literature'; query: string; hitCount: number; clusters: number; steps: LiteratureStepSummary[] }
  | { kind: 'items'; count: number; total: number | null }
  | { kind: 'read' }
  | { kind: 'proposal' }
  | { kind: 'refusal'; code: string; source?: string; retryAfterSeconds?: number; budget?: number }

export interface LiteratureStepSummary {
  step: string
  source: string
  status: string
  /** The step's own account: '3 records', a skip reason, or the failure's text (never shown as is for a failure). */
  detail: string
  retryAfterSeconds: number | null
}

export type StepOutcome = 'running' | 'ok' | 'refused' | 'error'

export interface RunStep {
  id: string
  /** The tool's name as the tool server knows it (for integrators); `toolName` is what a person reads. */
  tool: string
  toolName: string
  at: Date
  outcome: StepOutcome
  /** Why it was refused or failed, in words; null when it went through. */
  reason: string | null
  /** What came back, in a sentence; null when there is nothing to say (a refusal says it in `reason`). */
  summary: string | null
  /** Further lines: a literature search's query policy, one line per step with its source's status. */
  details: string[]
}

/** Steps of one run shown at most (the rail lists them oldest first; `stepCount` says how many there are). */
export const RUN_STEPS_MAX = 100

/** A literature source in the specification's words ('European literature index'); an unknown id as plain words. */
export function sourceWords(id: string): string {
  return (SOURCES as Record<string, { kind: string } | undefined>)[id]?.kind ?? id.replace(/[_.]+/g, ' ')
}

/** Tools whose generated words would mislead or use a developer's word ('lint'). */
const TOOL_WORDS: Readonly<Record<string, string>> = {
  'evidence.search_literature': 'Searched the open literature',
  'evidence.assertion_lint': 'Citation check',
  'console.get_twin': 'Read the twin’s status and budget',
  'console.list_decisions_waiting': 'Listed the decisions waiting for you',
  'memory.recall': 'Recalled memory notes',
  'memory.propose_note': 'Proposed a memory note',
  'lens.list_rubrics': 'Listed the review rubrics',
}
const SKILL_WORDS = new Map(SKILL_DEFINITIONS.map((d) => [d.key, d.name]))

/** A tool's name in words: a table for a few, a skill's own name, else its leaf as words ('list_findings': 'List findings'). */
export function toolWords(name: string): string {
  const known = TOOL_WORDS[name] ?? SKILL_WORDS.get(name)
  if (known) return known
  const leaf = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name
  const words = leaf.replace(/[_.]+/g, ' ').trim()
  return words ? words[0].toUpperCase() + words.slice(1) : 'A tool'
}

/** Text a person may read as is: it names no code, key or id (core/text/plumbing-words.ts). */
const readable = (text: string | null | undefined): text is string => !!text && findPlumbingWords(text).length === 0

/** Why a call was refused, in words: the refusal's data where it was kept, else its message when that reads as words. */
function refusalWords(row: Pick<ToolCall, 'outputViolations'>, summary: StepSummary | null): string {
  const violations = Array.isArray(row.outputViolations) ? row.outputViolations as { code?: string; message?: string }[] : []
  // The sanitiser's entries have a kind and no code; the refusal is the entry with a code.
  const refusal = [...violations].reverse().find((v) => v && typeof v.code === 'string')
  const data = summary?.kind === 'refusal' ? summary : null
  const code = data?.code ?? refusal?.code ?? null
  if (code === 'RateLimited' && data?.source && typeof data.retryAfterSeconds === 'number') return budgetExhausted(sourceWords(data.source), data.retryAfterSeconds)
  if (code === 'evidence_query_budget_exhausted') {
    const budget = data?.budget ?? Number(/its (\d+) literature queries/.exec(refusal?.message ?? '')?.[1] ?? NaN)
    return Number.isFinite(budget) ? `This turn has used its ${budget} literature ${budget === 1 ? 'query' : 'queries'}.` : 'This turn has used its literature queries.'
  }
  const message = refusal?.message ?? ''
  if (/is not in this run's toolset/.test(message)) return 'Not one of the tools this run may use.'
  const skills = /^max_skill_runs_per_turn is (\d+)/.exec(message)
  if (skills) return `This turn has run its ${skills[1]} ${skills[1] === '1' ? 'skill' : 'skills'}.`
  return readable(message) ? message : 'Refused.'
}

/**
 * The rail's words for each policy step: the specification's four phrases as written (core/text/copy.ts), and words for the
 * steps it does not phrase (the archive's licence reading, whose fields are named by their keys in the specification;
 * the knowledge sources asked for).
 */
const [SEARCH_INDEX, DOI_METADATA, CITATIONS, FULL_TEXT] = CONNECTORS.queryPolicy
const STEP_WORDS: Readonly<Record<string, string>> = {
  search: SEARCH_INDEX, doi_metadata: DOI_METADATA, citations_and_oa: CITATIONS, full_text: FULL_TEXT,
  search_fallback: 'the European literature index could not answer: search the citation-graph service instead',
  archive_licence: "read each article's licence, open-access flag and manuscript status from the full-text archive",
}

/** One policy step as a line: the specification's words for the step, then what its source answered. */
function policyLine(s: LiteratureStepSummary): string {
  const label = STEP_WORDS[s.step] ?? POLICY_STEPS.find((p) => p.step === s.step)?.label ?? s.step.replace(/[_.]+/g, ' ')
  const source = sourceWords(s.source)
  let status: string
  const records = /^(\d+) records$/.exec(s.detail)
  if (s.status === 'ok') status = records ? `${records[1]} ${records[1] === '1' ? 'record' : 'records'}` : readable(s.detail) ? s.detail : 'answered'
  else if (s.status === 'rate_limited') status = budgetExhausted(source, s.retryAfterSeconds ?? 1)
  else if (s.status === 'failed') status = `the ${source} did not answer`
  else if (s.status === 'not_configured') status = `not run: ${readable(s.detail) ? s.detail : 'not configured'}`
  else status = `skipped: ${readable(s.detail) ? s.detail : 'nothing to do'}`
  // As the specification writes the step (lower case): a line of the policy, not a sentence of its own.
  return `${label}: ${status}`
}

function describe(row: ToolCall): Pick<RunStep, 'summary' | 'details'> {
  const summary = row.summary as StepSummary | null
  if (!summary) {
    if (row.resultArtifactId) return { summary: 'Ran and recorded its result.', details: [] }
    return { summary: null, details: [] }
  }
  switch (summary.kind) {
    case 'literature': {
      const found = summary.clusters === 1 ? '1 work' : `${summary.clusters} works`
      return { summary: `Searched for “${summary.query}”: ${found} found.`, details: summary.steps.map(policyLine) }
    }
    case 'items':
      return { summary: `Returned ${summary.count} ${summary.count === 1 ? 'item' : 'items'}${summary.total !== null && summary.total > summary.count ? ` of ${summary.total}` : ''}.`, details: [] }
    case 'proposal':
      return { summary: 'Filed a proposal for your decision.', details: [] }
    case 'read':
      return { summary: 'Read what it asked for.', details: [] }
    default:
      return { summary: null, details: [] }
  }
}

/** A tool_calls row as a step of the run rail. */
export function runStep(row: ToolCall): RunStep {
  const outcome: StepOutcome = row.status === 'failed' ? 'error' : row.status
  const { summary, details } = outcome === 'ok' ? describe(row) : { summary: null, details: [] as string[] }
  const reason = outcome === 'refused' ? refusalWords(row, row.summary as StepSummary | null)
    : outcome === 'error' ? 'The call failed; nothing was written.' : null
  return { id: row.id, tool: row.tool, toolName: toolWords(row.tool), at: row.createdAt, outcome, reason, summary, details }
}

type Ctx = Pick<DomainContext, 'session' | 'tdb'>
type RunRow = Pick<AgentRun, 'id' | 'twinId' | 'organizationId'>

/** Whether the caller may see this run's steps: they may see its twin (program.twins.read, or read_own for their own). */
async function mayRead(ctx: Ctx, run: RunRow): Promise<boolean> {
  if (!run.twinId || run.organizationId !== ctx.session.organizationId) return false
  const twin = await ctx.tdb.twinDefinition.findFirst({ where: { id: run.twinId }, select: { programId: true, userId: true } })
  return !!twin && canSeeTwin(ctx, twin)
}

/**
 * The first `first` steps of a run (1 to 100, default 100), oldest first: the rail reads a run from its start. Null
 * when the caller may not see the run's twin. Organisation-scoped through the tenant client.
 */
export async function listRunSteps(ctx: Ctx, run: RunRow, first?: number | null): Promise<RunStep[] | null> {
  if (first !== null && first !== undefined && (!Number.isInteger(first) || first < 1 || first > RUN_STEPS_MAX)) {
    throw InvalidInput.of('first', `Ask for 1 to ${RUN_STEPS_MAX} steps (default ${RUN_STEPS_MAX}).`)
  }
  if (!(await mayRead(ctx, run))) return null
  const rows = await ctx.tdb.toolCall.findMany({ where: { runId: run.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: first ?? RUN_STEPS_MAX })
  return rows.map(runStep)
}

/** How many steps the run has (the rail says when it shows fewer). */
export async function countRunSteps(ctx: Ctx, run: RunRow): Promise<number | null> {
  if (!(await mayRead(ctx, run))) return null
  return ctx.tdb.toolCall.count({ where: { runId: run.id } })
}
