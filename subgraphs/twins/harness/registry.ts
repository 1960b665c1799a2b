// Owns which harnesses run twin runs: the built-in list, read by the twin_cycle job (domain/run-cycle.ts) through
// getHarness, so every process that runs the job has them by construction; and harnesses plugged in beside them
// (a model-backed harness, a test's recording harness), which take precedence under the same key.
import { deterministicHarness } from './deterministic'
import { modelHarness } from './model'
import type { Harness } from '../../../domain/twins'

/** The harnesses every process has: the default, and the model-backed one (a trigger's spec or a default selects it). */
export const HARNESSES: readonly Harness[] = [deterministicHarness, modelHarness]

const plugged = new Map<string, Harness>()

/** Plugs in (or replaces under its key) a harness beside the built-in ones; answers a function that removes it again. */
export function registerHarness(harness: Harness): () => void {
  plugged.set(harness.key, harness)
  return () => { if (plugged.get(harness.key) === harness) plugged.delete(harness.key) }
}

export function getHarness(key: string): Harness | undefined {
  return plugged.get(key) ?? HARNESSES.find((h) => h.key === key)
}

export function registeredHarnesses(): string[] {
  return [...new Set([...HARNESSES.map((h) => h.key), ...plugged.keys()])]
}
