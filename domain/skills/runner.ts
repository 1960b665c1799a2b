// Skill runner: validates inputs (vocabulary and schema), computes, and assembles the SkillResult.
// Pure and deterministic: no clock, no randomness, no I/O (class B loads the RDKit wasm once).
// Persistence (skill_result artifact, tool_calls row, audit skill_run.start), permissions and the
// status gate are the caller's.

import { SkillInputError } from './errors'
import { REFERENCES, requireReference, supersessionWarning, type ReferenceEntry, referenceRef } from './references'
import { getSkillDefinition, isReservedSkillKey, RESERVED_SKILL_KEYS, type SkillDefinition } from './registry'
import { computeInputsHash, type CitationRef, type SkillComputation, type SkillResult } from './result'
import { parseInputs, requestCitationsSchema } from './schema'
import { validateUcum } from './vocabulary'

export const NO_QUALIFICATION_RULE = 'No qualification is claimed for this skill; the output feeds a decision that a person takes.'

export interface RunOptions {
  /** Reference entries to compute under (tests use this to exercise supersession). */
  references?: readonly ReferenceEntry[]
}

function resolve(key: unknown): SkillDefinition {
  if (typeof key !== 'string' || key === '') throw new SkillInputError('invalid_input', 'skill_key', 'skill_key is required')
  const def = getSkillDefinition(key)
  if (def) return def
  if (isReservedSkillKey(key)) {
    const r = RESERVED_SKILL_KEYS.find((x) => x.key === key)!
    throw new SkillInputError('invalid_input', 'skill_key', `skill ${key} is reserved for ${r.release}; nothing exists in R4`)
  }
  throw new SkillInputError('invalid_input', 'skill_key', `unknown skill ${key}`)
}

function prepare(key: unknown, inputs: unknown, citations: unknown) {
  const def = resolve(key)
  const cites = citations === undefined || citations === null ? [] : parseInputs(requestCitationsSchema, citations, ['citations'])
  const parsed = parseInputs(def.module.input, inputs)
  return { def, cites, parsed }
}

function assemble(def: SkillDefinition, inputs: unknown, cites: readonly CitationRef[], comp: SkillComputation, opts: RunOptions): SkillResult {
  const refs = opts.references ?? REFERENCES
  const m = def.module
  const warnings = [...comp.warnings]
  for (const k of m.reference_keys) {
    const e = requireReference(k, refs)
    const w = supersessionWarning(e)
    if (w) warnings.push(w)
    if (e.status !== 'verified') warnings.push(`The reference '${e.citation_label}' is not verified yet: this result is not backed by a verified reference.`) // people read it: its label, not its key
  }
  const primary = m.primary_reference ? requireReference(m.primary_reference, refs) : null
  const methodLine = primary
    ? `Method: ${m.method_name} (${primary.citation_label}, retrieved ${primary.retrieved_on}), version ${m.check_logic_version}`
    : `Method: ${m.method_name} (${m.method_basis ? m.method_basis() : 'no guidance document'}), version ${m.check_logic_version}`
  return {
    skill_key: def.key,
    check_logic_version: def.check_logic_version,
    inputs_hash: computeInputsHash(def.key, def.check_logic_version, inputs, cites),
    outputs: comp.outputs,
    citations: [...cites.map((ref, i) => ({ ref, field: `citations[${i}]` })), ...comp.citations],
    warnings,
    reference_refs: m.reference_keys.map((k) => referenceRef(k, refs)),
    guidance_version: primary ? primary.version : null,
    retrieved_on: primary ? primary.retrieved_on : null,
    method_line: methodLine,
    how_computed: {
      intermediate_values: comp.how_computed.intermediate_values,
      rules_applied: [...comp.how_computed.rules_applied, NO_QUALIFICATION_RULE],
    },
    tables: comp.tables ?? {},
    header: comp.header ?? null,
  }
}

/**
 * Run a skill. Class A skills return the SkillResult synchronously; class B skills
 * (chem.sar_table_build) return a Promise. Throws SkillInputError for bad input or unknown key.
 */
export function runSkill(key: string, inputs: unknown, citations?: readonly CitationRef[], opts: RunOptions = {}): SkillResult | Promise<SkillResult> {
  // A class B key always answers with a Promise, input errors included (rejected, not thrown).
  if (getSkillDefinition(key)?.skill_class === 'B') {
    try {
      const { def, cites, parsed } = prepare(key, inputs, citations)
      return Promise.resolve(def.module.compute(parsed)).then((comp) => assemble(def, inputs, cites, comp, opts))
    } catch (e) {
      return Promise.reject(e)
    }
  }
  const { def, cites, parsed } = prepare(key, inputs, citations)
  const out = def.module.compute(parsed)
  if (out instanceof Promise) return out.then((comp) => assemble(def, inputs, cites, comp, opts))
  return assemble(def, inputs, cites, out, opts)
}

/** Class A only: synchronous run; throws when the key is a class B skill. */
export function runSkillSync(key: string, inputs: unknown, citations?: readonly CitationRef[], opts: RunOptions = {}): SkillResult {
  const def = resolve(key)
  if (def.skill_class !== 'A') throw new Error(`${key} is a class B skill: use executeSkill (worker job skill_library_job)`)
  return runSkill(key, inputs, citations, opts) as SkillResult
}

/** Any skill, always a Promise (the worker and the route handler can use this for both classes). */
export async function executeSkill(key: string, inputs: unknown, citations?: readonly CitationRef[], opts: RunOptions = {}): Promise<SkillResult> {
  return runSkill(key, inputs, citations, opts)
}

export function skillClassOf(key: string): 'A' | 'B' | null {
  return getSkillDefinition(key)?.skill_class ?? null
}

/**
 * Output violations for the tool_calls row (output_violations): output names not declared in the
 * skill's output_fields ('<label>' matches one path segment), non-finite numbers, and units that
 * are not valid UCUM. [] for every result this module produces; a guard for the wiring layer.
 */
export function outputViolations(result: SkillResult): string[] {
  const def = getSkillDefinition(result.skill_key)
  if (!def) return [`unknown skill ${result.skill_key}`]
  const patterns = def.output_fields.map((f) => new RegExp('^' + f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<label>/g, '[a-z0-9_]+') + '$'))
  const out: string[] = []
  for (const [name, v] of Object.entries(result.outputs)) {
    if (!patterns.some((p) => p.test(name))) out.push(`${name}: not a declared output field`)
    if (typeof v.value === 'number' && !Number.isFinite(v.value)) out.push(`${name}: value is not a finite number`)
    if (v.unit_ucum !== undefined && !validateUcum(v.unit_ucum).valid) out.push(`${name}: unit '${v.unit_ucum}' is not valid UCUM`)
  }
  return out
}
