// SkillResult and its parts (specification, 'Skill result and references' and 'Skill route
// payloads'). Everything here is plain JSON: no Dates, no undefined inside arrays, keys built in a
// fixed order, so JSON.stringify of the same inputs is byte-identical (and `skillResultJson` gives
// the RFC 8785 form for storage).

import { canonicalJson, canonicalSha256 } from './hash'
import { formatFixed, formatSig } from './numbers'
import type { ReferenceRef } from './references'
import { displayUnit } from './vocabulary'

export type SkillScalar = number | string | boolean | null

/**
 * One output value. `value` keeps full double precision; `display` is the rounded text shown on
 * screen (each skill states its rounding rule in how_computed.rules_applied).
 */
export interface SkillValue {
  value: SkillScalar
  unit_ucum?: string
  unit_display?: string
  display?: string
}

/** A citation carried by the result: the caller's reference string and the input it supports. */
export interface SkillCitation {
  ref: string
  field: string
}

export interface IntermediateValue {
  name: string
  value: SkillScalar
  unit_ucum?: string
  note?: string
}

export interface HowComputed {
  intermediate_values: IntermediateValue[]
  rules_applied: string[]
}

export interface SkillTableColumn {
  key: string
  label: string
  unit_ucum?: string
  unit_display?: string
}

/** A table cell: a value plus, where it applies, its provenance chip (source, licence, citation). */
export interface SkillCell extends SkillValue {
  source?: string
  licence?: string
  citation?: string
}

export interface SkillTable {
  title: string
  columns: SkillTableColumn[]
  rows: Array<Record<string, SkillCell>>
}

export interface SkillResult {
  skill_key: string
  check_logic_version: number
  inputs_hash: string
  outputs: Record<string, SkillValue>
  citations: SkillCitation[]
  warnings: string[]
  reference_refs: ReferenceRef[]
  guidance_version: string | null
  retrieved_on: string | null
  /** 'Method: <name> (<guidance>, retrieved <date>), version n' */
  method_line: string
  how_computed: HowComputed
  tables: Record<string, SkillTable>
  header: string | null
}

/** What a skill's compute function returns; the runner adds identity, hash and references. */
export interface SkillComputation {
  outputs: Record<string, SkillValue>
  citations: SkillCitation[]
  warnings: string[]
  how_computed: HowComputed
  tables?: Record<string, SkillTable>
  header?: string | null
}

/** Caller citations (SkillRunIn.citations): opaque reference strings resolved by the caller. */
export type CitationRef = string

/**
 * inputs_hash: sha256 (hex) of the RFC 8785 canonical JSON of
 * {skill_key, check_logic_version, inputs, citations} where inputs are the inputs as sent (before
 * defaults are applied) and citations defaults to [].
 */
export function computeInputsHash(skillKey: string, checkLogicVersion: number, inputs: unknown, citations: readonly CitationRef[] = []): string {
  return canonicalSha256({ skill_key: skillKey, check_logic_version: checkLogicVersion, inputs, citations })
}

/** RFC 8785 canonical JSON of a result: the byte form to store or compare. */
export function skillResultJson(r: SkillResult): string {
  return canonicalJson(r)
}

// ---------------------------------------------------------------------------------------------
// Value helpers
// ---------------------------------------------------------------------------------------------
export type Rounding = { sig: number } | { decimals: number }

export function formatNumber(x: number, rounding: Rounding): string {
  return 'sig' in rounding ? formatSig(x, rounding.sig) : formatFixed(x, rounding.decimals)
}

/** A numeric SkillValue with unit and display text. `unit` '1' displays as 'fold'. */
export function numberValue(x: number | null, unit: string | null, rounding: Rounding): SkillValue {
  const v: SkillValue = { value: x }
  if (unit) {
    v.unit_ucum = unit
    v.unit_display = displayUnit(unit)
  }
  if (x !== null) v.display = formatNumber(x, rounding) + (unit && unit !== '1' ? ` ${displayUnit(unit)}` : unit === '1' ? '-fold' : '')
  else v.display = 'not computed'
  return v
}

export function textValue(s: string | null): SkillValue {
  return { value: s, display: s ?? 'none' }
}

export function boolValue(b: boolean): SkillValue {
  return { value: b, display: b ? 'yes' : 'no' }
}

export function countValue(n: number): SkillValue {
  return { value: n, display: String(n) }
}

export function iv(name: string, value: SkillScalar, unit?: string, note?: string): IntermediateValue {
  const o: IntermediateValue = { name, value }
  if (unit) o.unit_ucum = unit
  if (note) o.note = note
  return o
}

export function col(key: string, label: string, unit?: string): SkillTableColumn {
  const c: SkillTableColumn = { key, label }
  if (unit) {
    c.unit_ucum = unit
    c.unit_display = displayUnit(unit)
  }
  return c
}
