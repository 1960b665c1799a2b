// Owns the harness interface: what executes a twin run. The deterministic harness (duty templates, an MCP client of the
// tool server) is listed in harness/registry.ts; a model-backed harness plugs in behind the same interface. Nothing
// here calls a model.
import type { AgentRun, TwinDefinition, TwinTrigger } from '../../generated/prisma/client'
import type { DomainContext } from '../../core/jobs'
import type { Db } from '../../core/database'

/** Everything a harness gets for one run. It acts only through tools, under the person's live permissions. */
export interface RunContext {
  /** The run, already `running`. */
  run: AgentRun
  twin: TwinDefinition
  /** The trigger that started it (null for run-now without a trigger). */
  trigger: TwinTrigger | null
  /** The duties to perform: the trigger's duty, or every enabled duty of the twin for run-now. */
  duties: string[]
  /** The person's context with the twin as actor (contextForUser with twinId). */
  ctx: DomainContext
  db: Db
  /** The run footer ('started by schedule, under <Name>'s standing plan (approved <date>, plan <hash prefix>)'). */
  footer: string
  /** Aborted when the run is given up (its time limit): stop calling tools and return or throw. Optional so callers
   *  that build a RunContext themselves (tests) need not pass one; the twin_cycle job always does. */
  signal?: AbortSignal
}

/** What a harness reports. Counts and ids only; never prompt or model text. */
export interface RunOutcome {
  /** succeeded (default), or interrupted when the run waits for a person (a run interrupt it created). */
  status?: 'succeeded' | 'interrupted'
  /** Stored in agent_runs.outcome, e.g. { proposals_filed: 2, tool_calls: 7, denied: 0 }. */
  summary?: Record<string, unknown>
}

export interface Harness {
  /** The registry key, e.g. 'deterministic'. */
  key: string
  /**
   * Executes one run. Throwing fails the run with the error's message (a typed DomainError keeps its code). It must
   * be safe to call again for a new run after a failure: proposals carry the run id and basis, never filed twice.
   */
  execute(run: RunContext): Promise<RunOutcome>
}

/** The key used when a trigger's spec names no harness. */
export const DEFAULT_HARNESS_KEY = 'deterministic'

/** The harness a trigger's spec names (`harness`), or null when it names none. */
export function triggerHarnessKey(trigger: Pick<TwinTrigger, 'spec'> | null): string | null {
  const spec = (trigger?.spec ?? {}) as { harness?: unknown }
  return typeof spec.harness === 'string' && spec.harness ? spec.harness : null
}

/**
 * Which harness runs a trigger: its spec's `harness`, else `fallback` (the program's or organisation's default harness,
 * twin_model_settings), else the default.
 */
export function harnessKeyFor(trigger: Pick<TwinTrigger, 'spec'> | null, fallback: string | null = null): string {
  return triggerHarnessKey(trigger) ?? fallback ?? DEFAULT_HARNESS_KEY
}
